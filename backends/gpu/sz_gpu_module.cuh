/*
 * sz_gpu_module.cuh -- the body of a GPU module (libsplitzip_cuda.so, libsplitzip_hip.so):
 * the launcher over the vendor runtime, the host-memory staging calls, and the exported
 * module table (sz_gpu_module.h). Included once by backends/cuda/sz_cuda.cu and
 * backends/hip/sz_hip.hip, after the vendor's sz_gpu_runtime.h, and by the CPU SIMT harness's
 * module (tests/gpu/gpu_simt_module.cpp, its runtime in tests/gpu/simt_rt/sz_gpu_runtime.h),
 * which the tests load in place of a GPU module. The runtime header provides the SZ_RT(...)
 * calls, sz_rt_warp_size(), sz_rt_sm_count(), sz_rt_blocks_per_sm() (the occupancy query) and
 * sz_rt_launch().
 */
#ifndef SZ_GPU_MODULE_CUH
#define SZ_GPU_MODULE_CUH

#include "sz_gpu_driver.cuh"
#include "sz_gpu_dtype_dec.cuh"
#include "sz_gpu_dtype_enc.cuh"
#include "sz_gpu_module.h"
#include "sz_gpu_pages.cuh"

#include <mutex>

/* Whether the module has W = 64 kernels: not under CUDA (warp size 32 only). */
#if defined(SZ_GPU_FLAVOUR_CUDA)
#define SZ_GPU_HAVE_W64 0
#else
#define SZ_GPU_HAVE_W64 1
#endif

namespace
{

/*
 * Blocks of SZ_GPU_THREADS threads of kernel k that the current device runs at once
 * (multiprocessors x resident blocks per multiprocessor), cached per device and kernel. Host
 * queries only: no synchronisation, allowed during stream capture.
 */
unsigned rt_resident(const void *k)
{
	struct entry {
		const void *k;
		int dev;
		unsigned blocks;
	};
	static std::mutex mu;
	static entry cache[64];
	static unsigned used;
	int dev = 0;
	if (SZ_RT(GetDevice)(&dev) != SZ_RT_OK)
		return 1;
	{
		std::lock_guard<std::mutex> g(mu);
		for (unsigned i = 0; i < used; i++)
			if (cache[i].k == k && cache[i].dev == dev)
				return cache[i].blocks;
	}
	int sms = 0, per = 0;
	if (sz_rt_sm_count(dev, &sms) != SZ_RT_OK ||
	    sz_rt_blocks_per_sm(&per, k, SZ_GPU_THREADS) != SZ_RT_OK)
		return 1;
	const unsigned blocks = (unsigned)(sms > 0 ? sms : 1) * (unsigned)(per > 0 ? per : 1);
	std::lock_guard<std::mutex> g(mu);
	if (used < 64)
		cache[used++] = entry{k, dev, blocks};
	return blocks;
}

/* Kernel launches in order on one stream; the first runtime error is kept. */
struct rt_launcher {
	sz_rt_stream stream;
	sz_rt_error err;
	template <typename... P, typename... A>
	void launch(const char *, sz_gpu_dim g, unsigned block, void (*k)(P...), A... args)
	{
		if (err != SZ_RT_OK)
			return;
		err = sz_rt_launch(k, g.x, g.y, block, stream, args...);
	}
	template <typename... P> unsigned resident(void (*k)(P...))
	{
		return rt_resident(reinterpret_cast<const void *>(k));
	}
};

int mod_probe(void)
{
	int n = 0;
	return SZ_RT(GetDeviceCount)(&n) == SZ_RT_OK && n > 0 &&
	       sz_gpu_kernel_width(sz_rt_warp_size(), SZ_GPU_HAVE_W64) != 0;
}

template <int W> splitzip_status run_compress(const sz_gpu_enc *a, uint64_t nf, void *stream)
{
	rt_launcher lc{(sz_rt_stream)stream, SZ_RT_OK};
	sz_gpu_compress<W>(lc, *a, nf);
	return lc.err == SZ_RT_OK ? SPLITZIP_OK : SPLITZIP_ERROR_DEVICE;
}

template <int W>
splitzip_status run_decompress(const sz_gpu_dec *a, uint64_t nf, uint64_t max_dst, void *stream)
{
	rt_launcher lc{(sz_rt_stream)stream, SZ_RT_OK};
	sz_gpu_decompress<W>(lc, *a, nf, max_dst);
	return lc.err == SZ_RT_OK ? SPLITZIP_OK : SPLITZIP_ERROR_DEVICE;
}

/* The kernels run at the device's warp size (sz_gpu_kernel_width). */
splitzip_status mod_compress(const sz_gpu_enc *a, uint64_t nf, void *stream)
{
	const int w = sz_gpu_kernel_width(sz_rt_warp_size(), SZ_GPU_HAVE_W64);
#if SZ_GPU_HAVE_W64
	if (w == 64)
		return run_compress<64>(a, nf, stream);
#endif
	return w == 32 ? run_compress<32>(a, nf, stream) : SPLITZIP_ERROR_DEVICE;
}

splitzip_status mod_decompress(const sz_gpu_dec *a, uint64_t nf, uint64_t max_dst, void *stream)
{
	const int w = sz_gpu_kernel_width(sz_rt_warp_size(), SZ_GPU_HAVE_W64);
#if SZ_GPU_HAVE_W64
	if (w == 64)
		return run_decompress<64>(a, nf, max_dst, stream);
#endif
	return w == 32 ? run_decompress<32>(a, nf, max_dst, stream) : SPLITZIP_ERROR_DEVICE;
}

/* One device allocation carved into 256-byte aligned parts; freed on scope exit. */
struct staging {
	uint8_t *base = nullptr;
	uint64_t used = 0;
	uint64_t take(uint64_t bytes)
	{
		uint64_t at = used;
		used += sz_gpu_round256(bytes ? bytes : 1);
		return at;
	}
	bool alloc()
	{
		return SZ_RT(Malloc)((void **)&base, used) == SZ_RT_OK;
	}
	~staging()
	{
		if (base)
			(void)SZ_RT(Free)(base);
	}
};

splitzip_status mod_host_compress(const sz_gpu_enc *p, const uint16_t *src, size_t n, void *dst,
                                  size_t dst_cap, size_t *dst_size)
{
	const uint64_t bound = splitzip_stored_frame_size(n);
	const uint64_t cap = dst_cap < bound ? dst_cap : bound;
	staging s;
	const uint64_t o_src = s.take(2 * (uint64_t)n), o_dst = s.take(cap);
	const uint64_t o_ws = s.take(sz_gpu_workspace_size_for(1, n, p->chunk_log2, p->encoding));
	const uint64_t o_size = s.take(sizeof(size_t)), o_st = s.take(sizeof(int32_t));
	if (!s.alloc())
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	if (n && SZ_RT(Memcpy)(s.base + o_src, src, 2 * n, SZ_RT_H2D) != SZ_RT_OK)
		return SPLITZIP_ERROR_DEVICE;
	sz_gpu_enc a = *p;
	a.frames = sz_gpu_enc_frames{};
	a.frames.one.src = n ? reinterpret_cast<const uint16_t *>(s.base + o_src) : nullptr;
	a.frames.one.n = n;
	a.frames.one.dst = s.base + o_dst;
	a.frames.one.cap = cap;
	a.frames.out_sizes = reinterpret_cast<size_t *>(s.base + o_size);
	a.frames.statuses = reinterpret_cast<int32_t *>(s.base + o_st);
	a.ws = s.base + o_ws;
	a.max_elems = n;
	splitzip_status st = mod_compress(&a, 1, nullptr);
	if (st != SPLITZIP_OK)
		return st;
	size_t size = 0;
	int32_t status = SPLITZIP_ERROR_DEVICE;
	if (SZ_RT(Memcpy)(&size, s.base + o_size, sizeof size, SZ_RT_D2H) != SZ_RT_OK ||
	    SZ_RT(Memcpy)(&status, s.base + o_st, sizeof status, SZ_RT_D2H) != SZ_RT_OK)
		return SPLITZIP_ERROR_DEVICE;
	if (status != SPLITZIP_OK)
		return (splitzip_status)status;
	if (SZ_RT(Memcpy)(dst, s.base + o_dst, size, SZ_RT_D2H) != SZ_RT_OK)
		return SPLITZIP_ERROR_DEVICE;
	*dst_size = size;
	return SPLITZIP_OK;
}

/*
 * One frame decoded through the device (the host-memory calls): 'src' copied in, the frame
 * 'one' of a decoder's arguments A (sz_gpu_dec, sz_gpu_dt_dec) set by fill(a, d_src, d_dst)
 * with room for cap_bytes, run(a) launched, the status and the elements (of 'width' bytes)
 * copied back. The device reports every error itself; fsize is the frame's size (from its
 * header, read on the host only to size the copies).
 */
template <class A, class Fill, class Run>
splitzip_status host_decode_through(const void *src, size_t src_size, uint64_t fsize,
                                    uint64_t cap_bytes, unsigned width, void *dst,
                                    size_t *src_consumed, size_t *n_elems, Fill fill, Run run)
{
	staging s;
	const uint64_t o_src = s.take(src_size), o_dst = s.take(cap_bytes);
	const uint64_t o_ws = s.take(sz_gpu_dec_workspace_size(1));
	const uint64_t o_n = s.take(sizeof(size_t)), o_st = s.take(sizeof(int32_t));
	if (!s.alloc())
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	if (src_size && SZ_RT(Memcpy)(s.base + o_src, src, src_size, SZ_RT_H2D) != SZ_RT_OK)
		return SPLITZIP_ERROR_DEVICE;
	A a;
	memset(&a, 0, sizeof a);
	fill(a, s.base + o_src, cap_bytes ? s.base + o_dst : nullptr);
	a.frames.out_elems = reinterpret_cast<size_t *>(s.base + o_n);
	a.frames.statuses = reinterpret_cast<int32_t *>(s.base + o_st);
	a.ws = s.base + o_ws;
	splitzip_status st = run(a);
	if (st != SPLITZIP_OK)
		return st;
	size_t got = 0;
	int32_t status = SPLITZIP_ERROR_DEVICE;
	if (SZ_RT(Memcpy)(&got, s.base + o_n, sizeof got, SZ_RT_D2H) != SZ_RT_OK ||
	    SZ_RT(Memcpy)(&status, s.base + o_st, sizeof status, SZ_RT_D2H) != SZ_RT_OK)
		return SPLITZIP_ERROR_DEVICE;
	if (status != SPLITZIP_OK)
		return (splitzip_status)status;
	if (got && SZ_RT(Memcpy)(dst, s.base + o_dst, width * got, SZ_RT_D2H) != SZ_RT_OK)
		return SPLITZIP_ERROR_DEVICE;
	*src_consumed = (size_t)fsize;
	*n_elems = got;
	return SPLITZIP_OK;
}

splitzip_status mod_host_decompress_frame(const void *src, size_t src_size, size_t *src_consumed,
                                          uint16_t *dst, size_t dst_cap_elems, size_t *n_elems)
{
	/* The host reads the header only to size the output, which a frame that fits its input
	 * keeps below src_size elements. */
	splitzip_header h;
	uint64_t n = 0, fsize = 0;
	if (src_size >= SPLITZIP_FRAME_HEADER_SIZE &&
	    splitzip_header_parse(static_cast<const uint8_t *>(src), &h) == SZ_HDR_OK &&
	    h.frame_size <= src_size) {
		n = h.n_elems;
		fsize = h.frame_size;
	}
	const uint64_t cap = dst_cap_elems < n ? dst_cap_elems : n;
	return host_decode_through<sz_gpu_dec>(
	    src, src_size, fsize, 2 * cap, 2, dst, src_consumed, n_elems,
	    [&](sz_gpu_dec &a, uint8_t *d_src, uint8_t *d_dst) {
		    a.frames.one.src = d_src;
		    a.frames.one.size = src_size;
		    a.frames.one.dst = reinterpret_cast<uint16_t *>(d_dst);
		    a.frames.one.cap = cap;
	    },
	    [&](const sz_gpu_dec &a) { return mod_decompress(&a, 1, cap, nullptr); });
}

/* Page streams (sz_gpu_pages.cuh): the same launcher, the kernels for the device's warp size. */
template <int W> splitzip_status run_pages_compress(const sz_gpu_pages_enc *a, void *stream)
{
	rt_launcher lc{(sz_rt_stream)stream, SZ_RT_OK};
	sz_gpu_pages_compress<W>(lc, *a);
	return lc.err == SZ_RT_OK ? SPLITZIP_OK : SPLITZIP_ERROR_DEVICE;
}

template <int W> splitzip_status run_pages_decompress(const sz_gpu_pages_dec *a, void *stream)
{
	rt_launcher lc{(sz_rt_stream)stream, SZ_RT_OK};
	sz_gpu_pages_decompress<W>(lc, *a);
	return lc.err == SZ_RT_OK ? SPLITZIP_OK : SPLITZIP_ERROR_DEVICE;
}

splitzip_status mod_pages_compress(const sz_gpu_pages_enc *a, void *stream)
{
	const int w = sz_gpu_kernel_width(sz_rt_warp_size(), SZ_GPU_HAVE_W64);
#if SZ_GPU_HAVE_W64
	if (w == 64)
		return run_pages_compress<64>(a, stream);
#endif
	return w == 32 ? run_pages_compress<32>(a, stream) : SPLITZIP_ERROR_DEVICE;
}

splitzip_status mod_pages_decompress(const sz_gpu_pages_dec *a, void *stream)
{
	const int w = sz_gpu_kernel_width(sz_rt_warp_size(), SZ_GPU_HAVE_W64);
#if SZ_GPU_HAVE_W64
	if (w == 64)
		return run_pages_decompress<64>(a, stream);
#endif
	return w == 32 ? run_pages_decompress<32>(a, stream) : SPLITZIP_ERROR_DEVICE;
}

/* Frames of every dtype (sz_gpu_dtype_dec.cuh). */
template <int W>
splitzip_status run_dtype_decompress(const sz_gpu_dt_dec *a, uint64_t nf, uint64_t max_dst,
                                     void *stream)
{
	rt_launcher lc{(sz_rt_stream)stream, SZ_RT_OK};
	sz_gpu_dt_decompress<W>(lc, *a, nf, max_dst);
	return lc.err == SZ_RT_OK ? SPLITZIP_OK : SPLITZIP_ERROR_DEVICE;
}

splitzip_status mod_dtype_decompress(const sz_gpu_dt_dec *a, uint64_t nf, uint64_t max_dst,
                                     void *stream)
{
	const int w = sz_gpu_kernel_width(sz_rt_warp_size(), SZ_GPU_HAVE_W64);
#if SZ_GPU_HAVE_W64
	if (w == 64)
		return run_dtype_decompress<64>(a, nf, max_dst, stream);
#endif
	return w == 32 ? run_dtype_decompress<32>(a, nf, max_dst, stream) : SPLITZIP_ERROR_DEVICE;
}

/* One frame of any dtype through the device (host_decode_through). */
splitzip_status mod_dtype_host_decompress_frame(const void *src, size_t src_size,
                                                size_t *src_consumed, void *dst,
                                                size_t dst_cap_bytes, size_t *n_elems)
{
	const uint8_t *s8 = static_cast<const uint8_t *>(src);
	splitzip_header h;
	splitzip_dtype_desc d{};
	d.width = 1;
	uint64_t bytes = 0, fsize = 0;
	if (src_size >= SPLITZIP_FRAME_HEADER_SIZE &&
	    sz_dt_header_parse_checked(s8, splitzip_header_checksum(s8), &h) == SZ_HDR_OK &&
	    h.frame_size <= src_size && sz_dt_desc_get(h.dtype, &d)) {
		bytes = d.width * h.n_elems;
		fsize = h.frame_size;
	}
	const uint64_t cap = dst_cap_bytes < bytes ? dst_cap_bytes : bytes;
	return host_decode_through<sz_gpu_dt_dec>(
	    src, src_size, fsize, cap, d.width, dst, src_consumed, n_elems,
	    [&](sz_gpu_dt_dec &a, uint8_t *d_src, uint8_t *d_dst) {
		    a.frames.one.src = d_src;
		    a.frames.one.size = src_size;
		    a.frames.one.dst = d_dst;
		    a.frames.one.cap = cap;
	    },
	    [&](const sz_gpu_dt_dec &a) { return mod_dtype_decompress(&a, 1, cap, nullptr); });
}

/* Frames of Dtype 2-5 (sz_gpu_dtype_enc.cuh). */
template <int W>
splitzip_status run_dtype_compress(const sz_gpu_dt_enc *a, uint64_t nf, void *stream)
{
	rt_launcher lc{(sz_rt_stream)stream, SZ_RT_OK};
	sz_gpu_dt_compress<W>(lc, *a, nf);
	return lc.err == SZ_RT_OK ? SPLITZIP_OK : SPLITZIP_ERROR_DEVICE;
}

splitzip_status mod_dtype_compress(const sz_gpu_dt_enc *a, uint64_t nf, void *stream)
{
	const int w = sz_gpu_kernel_width(sz_rt_warp_size(), SZ_GPU_HAVE_W64);
#if SZ_GPU_HAVE_W64
	if (w == 64)
		return run_dtype_compress<64>(a, nf, stream);
#endif
	return w == 32 ? run_dtype_compress<32>(a, nf, stream) : SPLITZIP_ERROR_DEVICE;
}

splitzip_status mod_dtype_host_compress(const sz_gpu_dt_enc *p, const void *src, size_t n,
                                        void *dst, size_t dst_cap, size_t *dst_size)
{
	splitzip_dtype_desc d;
	if (!sz_dt_desc_get(p->dtype, &d))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	const uint64_t bytes = (uint64_t)d.width * n, bound = sz_dt_stored_size(&d, n);
	const uint64_t cap = dst_cap < bound ? dst_cap : bound;
	staging s;
	const uint64_t o_src = s.take(bytes), o_dst = s.take(cap);
	const uint64_t o_ws = s.take(sz_gpu_dt_workspace_size(1, n, p->chunk_log2));
	const uint64_t o_size = s.take(sizeof(size_t)), o_st = s.take(sizeof(int32_t));
	if (!s.alloc())
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	if (n && SZ_RT(Memcpy)(s.base + o_src, src, bytes, SZ_RT_H2D) != SZ_RT_OK)
		return SPLITZIP_ERROR_DEVICE;
	sz_gpu_dt_enc a = *p;
	a.frames = sz_gpu_dt_frames{};
	a.frames.one.src = n ? s.base + o_src : nullptr;
	a.frames.one.n = n;
	a.frames.one.dst = s.base + o_dst;
	a.frames.one.cap = cap;
	a.frames.out_sizes = reinterpret_cast<size_t *>(s.base + o_size);
	a.frames.statuses = reinterpret_cast<int32_t *>(s.base + o_st);
	a.ws = s.base + o_ws;
	a.max_elems = n;
	splitzip_status st = mod_dtype_compress(&a, 1, nullptr);
	if (st != SPLITZIP_OK)
		return st;
	size_t size = 0;
	int32_t status = SPLITZIP_ERROR_DEVICE;
	if (SZ_RT(Memcpy)(&size, s.base + o_size, sizeof size, SZ_RT_D2H) != SZ_RT_OK ||
	    SZ_RT(Memcpy)(&status, s.base + o_st, sizeof status, SZ_RT_D2H) != SZ_RT_OK)
		return SPLITZIP_ERROR_DEVICE;
	if (status != SPLITZIP_OK)
		return (splitzip_status)status;
	if (SZ_RT(Memcpy)(dst, s.base + o_dst, size, SZ_RT_D2H) != SZ_RT_OK)
		return SPLITZIP_ERROR_DEVICE;
	*dst_size = size;
	return SPLITZIP_OK;
}

} /* namespace */

extern "C" __attribute__((visibility("default"))) const splitzip_gpu_module *
splitzip_gpu_module_v1(void)
{
	static const splitzip_gpu_module m = {
	    SPLITZIP_GPU_MODULE_ABI,
	    SZ_RT_MODULE_NAME,
	    mod_probe,
	    mod_compress,
	    mod_decompress,
	    mod_host_compress,
	    mod_host_decompress_frame,
	    mod_pages_compress,
	    mod_pages_decompress,
	    mod_dtype_decompress,
	    mod_dtype_host_decompress_frame,
	    mod_dtype_compress,
	    mod_dtype_host_compress,
	};
	return &m;
}

#endif /* SZ_GPU_MODULE_CUH */
