/*
 * sz_hip.hip -- the HIP module, libsplitzip_hip.so: the kernels of backends/gpu/ built by
 * hipcc for W = 64 (CDNA, gfx9) and W = 32 (RDNA), chosen per device at run time. Frames match
 * core/sz_ref.c byte for byte, as the CUDA module's do (same source).
 */
#include "sz_gpu_runtime.h"

#include "../gpu/sz_gpu_module.cuh"
