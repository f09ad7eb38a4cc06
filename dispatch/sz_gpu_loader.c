/*
 * sz_gpu_loader.c -- the "cuda" and "hip" backends as seen from libsplitzip: their registry
 * entries and the loading and probing of their modules (dlopen, never a link-time dependency).
 *
 * A module is looked up, in order: the path in SPLITZIP_CUDA_MODULE / SPLITZIP_HIP_MODULE if
 * set (and nothing else then: a named module that fails to load means the backend is
 * unavailable); the directory of the library or program this code is linked into; the
 * install libdir; the plain file name (the dynamic loader's search path). The first caller
 * loads and probes; the answer, and the reason when the backend is unusable (what dlopen said,
 * a module of the wrong ABI, no device), is cached for the life of the process.
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

#include <sched.h>

/* Loader states: not tried yet, being loaded by one thread, usable, unusable. */
enum { SZ_LD_UNKNOWN = 0, SZ_LD_LOADING = 2, SZ_LD_USABLE = 1, SZ_LD_UNUSABLE = -1 };

struct splitzip_gpu_loader {
	const char *env;  /* environment variable naming the module file */
	const char *file; /* module file name */
	const char *name; /* backend name the module must report */
	_Atomic(const splitzip_gpu_module *) module;
	atomic_int state;
	/* Why the backend is unusable; written once by the loading thread before 'state' is
	 * published (release), read only after it (acquire). */
	char why[512];
};

/* Remember what a failed dlopen said. A missing file is the expected case on most paths, so
 * the first other error (e.g. the module exists but its GPU runtime does not) wins. */
static void note_failure(splitzip_gpu_loader *ld, const char *path, const char *err)
{
	if (strstr(err, "No such file")) {
		if (!ld->why[0])
			snprintf(ld->why, sizeof ld->why, "%s not found", ld->file);
		return;
	}
	if (ld->why[0] && !strstr(ld->why, " not found"))
		return;
	/* dlerror() usually starts with the path already. */
	if (strncmp(err, path, strlen(path)) == 0)
		snprintf(ld->why, sizeof ld->why, "%s", err);
	else
		snprintf(ld->why, sizeof ld->why, "%s: %s", path, err);
}

static const splitzip_gpu_module *try_open(splitzip_gpu_loader *ld, const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		note_failure(ld, path, e ? e : "cannot be loaded");
		return NULL;
	}
	splitzip_gpu_module_get_fn get =
	    (splitzip_gpu_module_get_fn)(uintptr_t)dlsym(h, SPLITZIP_GPU_MODULE_SYMBOL);
	const splitzip_gpu_module *m = get ? get() : NULL;
	if (!m || m->abi != SPLITZIP_GPU_MODULE_ABI || strcmp(m->name, ld->name) != 0) {
		snprintf(ld->why, sizeof ld->why,
		         "%s: not a splitzip %s module of ABI %u (this library's)", path, ld->name,
		         (unsigned)SPLITZIP_GPU_MODULE_ABI);
		dlclose(h);
		return NULL;
	}
	return m; /* stays loaded for the life of the process */
}

static const splitzip_gpu_module *load_module(splitzip_gpu_loader *ld)
{
	const char *forced = getenv(ld->env);
	if (forced && *forced) {
		const splitzip_gpu_module *m = try_open(ld, forced);
		if (!m && strstr(ld->why, " not found"))
			snprintf(ld->why, sizeof ld->why, "%s=%s: no such file", ld->env, forced);
		return m;
	}
	char path[4096];
	Dl_info info;
	if (dladdr((void *)(uintptr_t)&load_module, &info) && info.dli_fname) {
		const char *slash = strrchr(info.dli_fname, '/');
		if (slash) {
			int len = (int)(slash - info.dli_fname);
			snprintf(path, sizeof path, "%.*s/%s", len, info.dli_fname, ld->file);
			const splitzip_gpu_module *m = try_open(ld, path);
			if (m)
				return m;
		}
	}
	snprintf(path, sizeof path, "%s/%s", SPLITZIP_INSTALL_LIBDIR, ld->file);
	const splitzip_gpu_module *m = try_open(ld, path);
	if (!m)
		m = try_open(ld, ld->file);
	if (!m && strstr(ld->why, " not found"))
		snprintf(ld->why, sizeof ld->why,
		         "%s not found next to libsplitzip, in %s or on the loader's path (%s "
		         "names it)",
		         ld->file, SPLITZIP_INSTALL_LIBDIR, ld->env);
	return m;
}

/* Load and probe once; the first caller does it, concurrent callers wait for its answer. */
static int loader_state(splitzip_gpu_loader *ld)
{
	int s = atomic_load_explicit(&ld->state, memory_order_acquire);
	int expect = SZ_LD_UNKNOWN;
	if (s == SZ_LD_UNKNOWN &&
	    atomic_compare_exchange_strong_explicit(&ld->state, &expect, SZ_LD_LOADING,
	                                            memory_order_acquire, memory_order_acquire)) {
		const splitzip_gpu_module *m = load_module(ld);
		const int ok = m && m->probe();
		if (m && !ok)
			snprintf(ld->why, sizeof ld->why,
			         "the %s module loaded, but its runtime reports no usable device",
			         ld->name);
		if (ok)
			ld->why[0] = 0; /* earlier paths may have failed; this one worked */
		s = ok ? SZ_LD_USABLE : SZ_LD_UNUSABLE;
		atomic_store_explicit(&ld->module, m, memory_order_relaxed);
		atomic_store_explicit(&ld->state, s, memory_order_release);
		return s;
	}
	while ((s = atomic_load_explicit(&ld->state, memory_order_acquire)) == SZ_LD_LOADING)
		sched_yield();
	return s;
}

/* The module if it loaded and sees a device, else NULL. Probing may initialise the driver. */
static const splitzip_gpu_module *usable(splitzip_gpu_loader *ld)
{
	return loader_state(ld) == SZ_LD_USABLE
	           ? atomic_load_explicit(&ld->module, memory_order_relaxed)
	           : NULL;
}

static const char *why_not(splitzip_gpu_loader *ld)
{
	return loader_state(ld) == SZ_LD_USABLE ? NULL : ld->why;
}

#if SPLITZIP_HAVE_CUDA
static splitzip_gpu_loader cuda_loader = {
    .env = "SPLITZIP_CUDA_MODULE", .file = "libsplitzip_cuda.so", .name = "cuda"};
static int probe_cuda(void)
{
	return usable(&cuda_loader) != NULL;
}
static const char *why_not_cuda(void)
{
	return why_not(&cuda_loader);
}
const splitzip_backend splitzip_backend_cuda = {
    .name = "cuda",
    .id = SPLITZIP_BACKEND_CUDA,
    .probe = probe_cuda,
    .why_not = why_not_cuda,
    .host = NULL,
    .gpu = &cuda_loader,
};
#endif

#if SPLITZIP_HAVE_HIP
static splitzip_gpu_loader hip_loader = {
    .env = "SPLITZIP_HIP_MODULE", .file = "libsplitzip_hip.so", .name = "hip"};
static int probe_hip(void)
{
	return usable(&hip_loader) != NULL;
}
static const char *why_not_hip(void)
{
	return why_not(&hip_loader);
}
const splitzip_backend splitzip_backend_hip = {
    .name = "hip",
    .id = SPLITZIP_BACKEND_HIP,
    .probe = probe_hip,
    .why_not = why_not_hip,
    .host = NULL,
    .gpu = &hip_loader,
};
#endif

const splitzip_gpu_module *splitzip_gpu_module_of(const splitzip_backend *b)
{
	return b && b->gpu ? usable(b->gpu) : NULL;
}

#else
const splitzip_gpu_module *splitzip_gpu_module_of(const splitzip_backend *b)
{
	(void)b;
	return NULL;
}
#endif /* SPLITZIP_HAVE_CUDA || SPLITZIP_HAVE_HIP */
