/*
 * test_gpu_pages_device_simt.cpp -- the device page-stream suite (test_gpu_pages_device.cu)
 * built as C++ over the CPU SIMT harness's runtime (simt_rt/sz_gpu_runtime.h), for the
 * harness's GPU module (gpu_simt_module.cpp): the public device page calls, the loader, the
 * module and the kernels' launch sequences, without a GPU.
 */
#include "test_gpu_pages_device.cu"
