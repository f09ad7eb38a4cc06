/*
 * sz_gpu_loader.c -- the "cuda" and "hip" backends as seen from libsplitzip: their registry
 * entries and the loading and probing of their modules (dlopen, never a link-time dependency).
 *
 * A module is looked up, in order: the path in SPLITZIP_CUDA_MODULE / SPLITZIP_HIP_MODULE if
 * set (and nothing else then: a named module that fails to load means the backend is
 * unavailable); the directory of the library or program this code is linked into; the
 * install libdir; the plain file name (the dynamic loader's search path). The result of the
 * first load and probe is cached; loading twice from two threads is harmless.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip_config.h"
#include "sz_backend.h"

#if SPLITZIP_HAVE_CUDA || SPLITZIP_HAVE_HIP

struct splitzip_gpu_loader {
	const char *env;  /* environment variable naming the module file */
	const char *file; /* module file name */
	_Atomic(const splitzip_gpu_module *) module;
	atomic_int state; /* 0 unknown, 1 loaded and a device present, -1 unusable */
};

static const splitzip_gpu_module *try_open(const char *path, const char *name)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return NULL;
	splitzip_gpu_module_get_fn get =
	    (splitzip_gpu_module_get_fn)(uintptr_t)dlsym(h, SPLITZIP_GPU_MODULE_SYMBOL);
	const splitzip_gpu_module *m = get ? get() : NULL;
	if (!m || m->abi != SPLITZIP_GPU_MODULE_ABI || strcmp(m->name, name) != 0) {
		dlclose(h);
		return NULL;
	}
	return m; /* stays loaded for the life of the process */
}

static const splitzip_gpu_module *load_module(splitzip_gpu_loader *ld, const char *name)
{
	const char *forced = getenv(ld->env);
	if (forced && *forced)
		return try_open(forced, name);
	char path[4096];
	Dl_info info;
	if (dladdr((void *)(uintptr_t)&load_module, &info) && info.dli_fname) {
		const char *slash = strrchr(info.dli_fname, '/');
		if (slash) {
			int len = (int)(slash - info.dli_fname);
			snprintf(path, sizeof path, "%.*s/%s", len, info.dli_fname, ld->file);
			const splitzip_gpu_module *m = try_open(path, name);
			if (m)
				return m;
		}
	}
	snprintf(path, sizeof path, "%s/%s", SPLITZIP_INSTALL_LIBDIR, ld->file);
	const splitzip_gpu_module *m = try_open(path, name);
	return m ? m : try_open(ld->file, name);
}

/* The module if it loaded and sees a device, else NULL. Probing may initialise the driver. */
static const splitzip_gpu_module *usable(splitzip_gpu_loader *ld, const char *name)
{
	int s = atomic_load_explicit(&ld->state, memory_order_acquire);
	if (s == 0) {
		const splitzip_gpu_module *m = load_module(ld, name);
		s = (m && m->probe()) ? 1 : -1;
		atomic_store_explicit(&ld->module, m, memory_order_relaxed);
		atomic_store_explicit(&ld->state, s, memory_order_release);
	}
	return s > 0 ? atomic_load_explicit(&ld->module, memory_order_relaxed) : NULL;
}

#if SPLITZIP_HAVE_CUDA
static splitzip_gpu_loader cuda_loader = {"SPLITZIP_CUDA_MODULE", "libsplitzip_cuda.so", NULL, 0};
static int probe_cuda(void)
{
	return usable(&cuda_loader, "cuda") != NULL;
}
const splitzip_backend splitzip_backend_cuda = {
    .name = "cuda",
    .id = SPLITZIP_BACKEND_CUDA,
    .probe = probe_cuda,
    .host = NULL,
    .gpu = &cuda_loader,
};
#endif

#if SPLITZIP_HAVE_HIP
static splitzip_gpu_loader hip_loader = {"SPLITZIP_HIP_MODULE", "libsplitzip_hip.so", NULL, 0};
static int probe_hip(void)
{
	return usable(&hip_loader, "hip") != NULL;
}
const splitzip_backend splitzip_backend_hip = {
    .name = "hip",
    .id = SPLITZIP_BACKEND_HIP,
    .probe = probe_hip,
    .host = NULL,
    .gpu = &hip_loader,
};
#endif

const splitzip_gpu_module *splitzip_gpu_module_of(const splitzip_backend *b)
{
	return b && b->gpu ? usable(b->gpu, b->name) : NULL;
}

#else
const splitzip_gpu_module *splitzip_gpu_module_of(const splitzip_backend *b)
{
	(void)b;
	return NULL;
}
#endif /* SPLITZIP_HAVE_CUDA || SPLITZIP_HAVE_HIP */
