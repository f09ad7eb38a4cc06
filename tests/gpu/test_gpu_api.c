/*
 * test_gpu_api.c -- the device-memory API and the module loading, on any machine: argument
 * checks, workspace sizes, host contexts refused, modules found (or not) as documented, and
 * each built module's table (ABI, name) and probe. Links the shared libsplitzip, as programs
 * do. Arguments: the directory holding the modules ("" when none was built).
 */
#define _GNU_SOURCE /* dlopen/setenv under -std=c11 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "splitzip_config.h"
#include "sz_gpu_module.h"

static int failures;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);            \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static long backend_index(const char *name)
{
	for (size_t i = 0; i < splitzip_backend_count(); i++)
		if (strcmp(splitzip_backend_name(i), name) == 0)
			return (long)i;
	return -1;
}

static void check_module_file(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/libsplitzip_%s.so", dir, name);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "FAIL: cannot load %s: %s\n", path, dlerror());
		failures++;
		return;
	}
	splitzip_gpu_module_get_fn get =
	    (splitzip_gpu_module_get_fn)(uintptr_t)dlsym(h, SPLITZIP_GPU_MODULE_SYMBOL);
	CHECK(get != NULL);
	if (get) {
		const splitzip_gpu_module *m = get();
		CHECK(m && m->abi == SPLITZIP_GPU_MODULE_ABI && strcmp(m->name, name) == 0);
		CHECK(m && m->probe && m->compress && m->decompress && m->host_compress &&
		      m->host_decompress_frame);
		if (m) /* the library's view must agree with the module's own probe */
			CHECK(m->probe() ==
			      splitzip_backend_available((size_t)backend_index(name)));
	}
	dlclose(h);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "";
	splitzip_ctx *host = NULL;
	CHECK(splitzip_ctx_create(NULL, &host) == SPLITZIP_OK);

	/* Workspace sizes: pure arithmetic, any context. */
	size_t ws1 = 0, ws8 = 0;
	CHECK(splitzip_workspace_size(host, 1u << 20, &ws1) == SPLITZIP_OK && ws1 > 0);
	CHECK(splitzip_workspace_size_batch(host, 8, 1u << 20, &ws8) == SPLITZIP_OK &&
	      ws8 == 8 * ws1);
	CHECK(splitzip_workspace_size(host, 0, &ws1) == SPLITZIP_OK && ws1 > 0);
	CHECK(splitzip_workspace_size(NULL, 10, &ws1) == SPLITZIP_ERROR_INVALID_ARGUMENT);
	CHECK(splitzip_workspace_size(host, 10, NULL) == SPLITZIP_ERROR_INVALID_ARGUMENT);
	CHECK(splitzip_workspace_size(host, (size_t)SPLITZIP_MAX_FRAME_ELEMS + 1, &ws1) ==
	      SPLITZIP_ERROR_INVALID_ARGUMENT);
	CHECK(splitzip_workspace_size_batch(host, SIZE_MAX / 2, 1u << 20, &ws1) ==
	      SPLITZIP_ERROR_INVALID_ARGUMENT);
	size_t wd = 0; /* decoding needs a parsed header and counters per frame, any size */
	CHECK(splitzip_decompress_workspace_size(host, 8, &wd) == SPLITZIP_OK && wd == 8 * 256 &&
	      wd <= ws8);
	CHECK(splitzip_decompress_workspace_size(host, 0, &wd) == SPLITZIP_OK && wd == 0);
	CHECK(splitzip_decompress_workspace_size(host, SIZE_MAX, &wd) ==
	      SPLITZIP_ERROR_INVALID_ARGUMENT);
	CHECK(splitzip_decompress_workspace_size(NULL, 1, &wd) == SPLITZIP_ERROR_INVALID_ARGUMENT);
	CHECK(splitzip_decompress_workspace_size(host, 1, NULL) == SPLITZIP_ERROR_INVALID_ARGUMENT);

	/* A host context has no device: the async calls refuse before touching any pointer. */
	size_t sz = 0;
	int32_t st = 0;
	char ws[256];
	CHECK(splitzip_compress_async(host, NULL, 0, ws, 64, &sz, &st, ws, sizeof ws, NULL) ==
	      SPLITZIP_ERROR_BACKEND_UNAVAILABLE);
	CHECK(splitzip_decompress_async(host, ws, 64, NULL, 0, &sz, &st, ws, sizeof ws, NULL) ==
	      SPLITZIP_ERROR_BACKEND_UNAVAILABLE);
	CHECK(splitzip_compress_batch_async(host, 1, NULL, NULL, 0, NULL, NULL, NULL, NULL, ws,
	                                    sizeof ws, NULL) == SPLITZIP_ERROR_BACKEND_UNAVAILABLE);
	CHECK(splitzip_decompress_batch_async(host, 1, NULL, NULL, NULL, NULL, 0, NULL, NULL, ws,
	                                      sizeof ws,
	                                      NULL) == SPLITZIP_ERROR_BACKEND_UNAVAILABLE);
	CHECK(splitzip_compress_async(NULL, NULL, 0, ws, 64, &sz, &st, ws, sizeof ws, NULL) ==
	      SPLITZIP_ERROR_INVALID_ARGUMENT);
	splitzip_ctx_free(host);

	/* Every compiled-in GPU backend is listed, and a context binds to it only where it is
	 * usable; AUTO never picks it. */
	const char *const gpus[] = {"cuda", "hip"};
	const int built[] = {SPLITZIP_HAVE_CUDA, SPLITZIP_HAVE_HIP};
	for (int g = 0; g < 2; g++) {
		const long i = backend_index(gpus[g]);
		CHECK((i >= 0) == (built[g] != 0));
		if (i < 0)
			continue;
		splitzip_params p;
		splitzip_params_init(&p);
		p.backend = splitzip_backend_id_of((size_t)i);
		splitzip_ctx *ctx = NULL;
		const splitzip_status s = splitzip_ctx_create(&p, &ctx);
		CHECK(s == (splitzip_backend_available((size_t)i)
		                ? SPLITZIP_OK
		                : SPLITZIP_ERROR_BACKEND_UNAVAILABLE));
		splitzip_ctx_free(ctx);
		if (*dir)
			check_module_file(dir, gpus[g]);
	}
	splitzip_ctx *ctx = NULL;
	CHECK(splitzip_ctx_create(NULL, &ctx) == SPLITZIP_OK);
	CHECK(strcmp(splitzip_ctx_backend_name(ctx), "cuda") != 0 &&
	      strcmp(splitzip_ctx_backend_name(ctx), "hip") != 0);
	splitzip_ctx_free(ctx);

	printf("%s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
