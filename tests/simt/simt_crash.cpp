/*
 * simt_crash.cpp -- kernels that must crash the process with a useful report (SIMT.md section 5,
 * test 9). ctest runs one case per process and matches the report: under ASan, the kind of error
 * and the frame or allocation; everywhere, the guard-page hit naming the SIMT thread.
 *
 * Usage: simt_crash CASE   (stack_after_barrier, shared_overflow, dyn_overflow,
 *                           stack_use_after_return, guard_page)
 * The case runs in a child process; the parent exits 0 when the child died (by a signal or a
 * sanitizer's exit), so ctest can judge the report alone, and 1 when the child survived.
 */
#include "sz_simt_compat.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A local array stays redzoned across a barrier (fiber switch): thread 3 writes one past it. */
template <int W> void kc_stack_after_barrier(int idx)
{
	SZ_WARP_GUARD(W);
	volatile uint8_t buf[64];
	for (int i = 0; i < 64; i++)
		buf[i] = (uint8_t)i;
	sz_syncthreads();
	/* Hide the array from UBSan (bounds, object-size): ASan's report is the one under test. */
	volatile uint8_t *p = buf;
	__asm__("" : "+r"(p));
	if (sz_linear_tid() == 3)
		p[idx] = 1;
	sz_syncthreads();
}

/* One past the end of a static shared array. */
template <int W> void kc_shared_overflow(int idx)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint32_t, s, 32);
	s[sz_linear_tid() % 32] = 1;
	sz_syncthreads();
	uint32_t *p = s;
	__asm__("" : "+r"(p));
	if (sz_linear_tid() == 3)
		p[idx] = 2;
}

/* One past the end of the dynamic shared area. */
template <int W> void kc_dyn_overflow(int idx)
{
	SZ_WARP_GUARD(W);
	SZ_DYN_SHARED(uint8_t, d);
	sz_syncthreads();
	if (sz_linear_tid() == 3)
		d[idx] = 1;
}

static volatile int *g_stash;

__attribute__((noinline)) static void kc_stash(volatile int *p)
{
	g_stash = p;
}

__attribute__((noinline)) static void kc_leak_local(int v)
{
	volatile int x[4] = {v, v, v, v};
	kc_stash(x);
}

/* A pointer to a returned frame, used after a barrier. */
template <int W> void kc_stack_use_after_return(int)
{
	SZ_WARP_GUARD(W);
	if (sz_linear_tid() == 3)
		kc_leak_local(7);
	sz_syncthreads();
	if (sz_linear_tid() == 3)
		*g_stash = 1;
}

__attribute__((noinline)) static int kc_recurse(int d)
{
	volatile char pad[512];
	pad[0] = (char)d;
	if (d == 0)
		return pad[0];
	return kc_recurse(d - 1) + pad[0];
}

/* Unbounded recursion in thread 3 runs into its guard page. */
template <int W> void kc_guard_page(int depth)
{
	SZ_WARP_GUARD(W);
	sz_syncthreads();
	if (sz_linear_tid() == 3)
		kc_recurse(depth);
	sz_syncthreads();
}

static int run_case(const char *k)
{
	sz_simt_config c;
	c.warp = 32;
	c.block = sz_simt_dim(64);
	sz_simt_result r;
	if (!strcmp(k, "stack_after_barrier")) {
		r = sz_simt_launch(c, kc_stack_after_barrier<32>, 64);
	} else if (!strcmp(k, "shared_overflow")) {
		r = sz_simt_launch(c, kc_shared_overflow<32>, 32);
	} else if (!strcmp(k, "dyn_overflow")) {
		c.dyn_smem = 100;
		r = sz_simt_launch(c, kc_dyn_overflow<32>, 100);
	} else if (!strcmp(k, "stack_use_after_return")) {
		r = sz_simt_launch(c, kc_stack_use_after_return<32>, 0);
	} else if (!strcmp(k, "guard_page")) {
		r = sz_simt_launch(c, kc_guard_page<32>, 100000000);
	} else {
		fprintf(stderr, "unknown case %s\n", k);
		return 2;
	}
	/* Reaching this line means the error went unnoticed. */
	printf("NOT DETECTED: %s returned %s\n", k, sz_simt_code_name(r.code));
	return 3;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CASE\n", argv[0]);
		return 2;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0)
		_exit(run_case(argv[1]));
	int st = 0;
	if (waitpid(pid, &st, 0) != pid) {
		perror("waitpid");
		return 2;
	}
	if (WIFSIGNALED(st)) {
		printf("simt_crash: case ended by signal %d\n", WTERMSIG(st));
		return 0;
	}
	const int code = WEXITSTATUS(st);
	printf("simt_crash: case exited with status %d\n", code);
	return code == 0 || code == 2 || code == 3 ? 1 : 0;
}
