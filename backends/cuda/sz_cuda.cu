/*
 * sz_cuda.cu -- the CUDA module, libsplitzip_cuda.so: the kernels of backends/gpu/ built by
 * nvcc for W = 32, sm_70 or newer. Frames match core/sz_ref.c (via core/sz_driver.c) byte for
 * byte; the conformance suite runs the same kernels on the CPU (tests/gpu/test_gpu_simt.cpp).
 */
#include "sz_gpu_runtime.h"

#include "../gpu/sz_gpu_module.cuh"
