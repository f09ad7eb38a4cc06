/*
 * hip_bundle_bad.hip -- a code object that breaks every rule of ci/hip-bundle-check.py, for its
 * self-test (ctest gpu.hip_bundle_self_test): built without the warp guard (the W = 32
 * instantiation is a full kernel on wave64 targets), a pointer read from memory (flat_*
 * accesses), a dynamically indexed local array (scratch). Never loaded.
 */
#include <hip/hip_runtime.h>

template <int W> __attribute__((global)) void sz_k_bad(int *const *pp, int n)
{
	int *p = pp[__builtin_amdgcn_workgroup_id_x()];
	volatile int a[64];
	for (int i = 0; i < 64; i++)
		a[(__builtin_amdgcn_workitem_id_x() + i) & 63] = i * W;
	p[__builtin_amdgcn_workitem_id_x()] = a[n & 63];
}
template __attribute__((global)) void sz_k_bad<32>(int *const *, int);
template __attribute__((global)) void sz_k_bad<64>(int *const *, int);
