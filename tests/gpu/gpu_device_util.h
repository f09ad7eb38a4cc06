/*
 * gpu_device_util.h -- what the device suites (test_gpu_device.cu, test_gpu_pages_device.cu)
 * share: the CHECK macro (counts failures, prints the first 40), RT (a runtime call that must
 * succeed, else exit 1), exact-size device buffers and copies back to the host. Include after
 * sz_gpu_runtime.h; one translation unit per program.
 */
#ifndef SZ_GPU_DEVICE_UTIL_H
#define SZ_GPU_DEVICE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			if (++failures <= 40) {                                                    \
				fprintf(stderr, "FAIL (%s:%d) %s: ", __FILE__, __LINE__, #cond);   \
				fprintf(stderr, __VA_ARGS__);                                      \
				fputc('\n', stderr);                                               \
			}                                                                          \
		}                                                                                  \
	} while (0)

#define RT(call)                                                                                   \
	do {                                                                                       \
		sz_rt_error e_ = (call);                                                           \
		if (e_ != SZ_RT_OK) {                                                              \
			fprintf(stderr, "runtime error %d at %s:%d: %s\n", (int)e_, __FILE__,      \
			        __LINE__, #call);                                                  \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* A device buffer of exactly 'bytes' bytes (at least 1). */
struct dbuf {
	void *p = nullptr;
	size_t n = 0;
	explicit dbuf(size_t bytes) : n(bytes)
	{
		RT(SZ_RT(Malloc)(&p, bytes ? bytes : 1));
	}
	dbuf(const void *host, size_t bytes) : dbuf(bytes)
	{
		if (bytes)
			RT(SZ_RT(Memcpy)(p, host, bytes, SZ_RT_H2D));
	}
	~dbuf()
	{
		(void)SZ_RT(Free)(p);
	}
	template <typename T> T *as() const
	{
		return static_cast<T *>(p);
	}
	dbuf(const dbuf &) = delete;
	dbuf &operator=(const dbuf &) = delete;
};

template <typename T> static std::vector<T> to_host(const void *d, size_t count)
{
	std::vector<T> v(count);
	if (count)
		RT(SZ_RT(Memcpy)(v.data(), d, count * sizeof(T), SZ_RT_D2H));
	return v;
}

#endif /* SZ_GPU_DEVICE_UTIL_H */
