/*
 * test_gpu_device_simt.cpp -- the device suite (test_gpu_device.cu) built as C++ over the CPU
 * SIMT harness's runtime (simt_rt/sz_gpu_runtime.h), for the harness's GPU module
 * (gpu_simt_module.cpp): the public device API, the loader, the module's staging and launch
 * sequences, without a GPU. One source with the CUDA and HIP device tests.
 */
#include "test_gpu_device.cu"
