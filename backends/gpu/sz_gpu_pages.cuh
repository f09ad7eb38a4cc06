/*
 * sz_gpu_pages.cuh -- page streams on the GPU (doc/FORMAT.md §11): the kernels that plan, pack,
 * validate and scatter a stream around the batched frame codec of sz_gpu_driver.cuh, and their
 * launch sequences, templated over a launcher like sz_gpu_compress(). One source for CUDA,
 * HIP and the CPU SIMT harness (include only sz_gpu_compat.cuh wrappers and core headers).
 * Streams must equal api/sz_api_pages.c byte for byte, and a damaged stream must get the
 * status the host gives it: every layout decision and check is a core/sz_pages.h helper.
 *
 * Compression (sz_gpu_pages_compress): pages_enc_init fills the batch arrays (page i into slot
 * i of the workspace); the batched encoder runs; pages_plan (one block) decides raw or frame
 * per page (FORMAT.md §11.4), turns the lengths into offsets with an aligned block scan,
 * writes the manifest, its checksum, the header, the size and the status; pages_pack copies
 * every payload to its offset and zeroes the padding after it.
 *
 * Decompression (sz_gpu_pages_decompress): pages_dec_args checks the destination pointers;
 * pages_parse (one block) runs FORMAT.md §11.5 steps 0-10 (the entries in parallel, the first
 * failing one decides) and §11.6 (destinations), and points the batch arrays of the frame decoder
 * at the frame pages of a valid stream (a NULL source otherwise, which the decoder rejects without
 * a read); the batched decoder runs; pages_raw copies the raw pages; pages_dec_finish reports the
 * first failing page.
 */
#ifndef SZ_GPU_PAGES_CUH
#define SZ_GPU_PAGES_CUH

#include "sz_gpu_driver.cuh"
#include "sz_gpu_pages_args.h"

/* ==================================================================== */
/*                               Helpers                                */
/* ==================================================================== */

SZ_DEVICE sz_gpu_pages_state *sz_pg_state(uint8_t *ws)
{
	return reinterpret_cast<sz_gpu_pages_state *>(ws);
}

/* Array k (SZ_PG_WS_*) of the workspace, as 8-byte cells. */
SZ_HOST_DEVICE uint64_t *sz_pg_array(uint8_t *ws, uint64_t n_pages, unsigned k)
{
	return reinterpret_cast<uint64_t *>(ws + sz_gpu_pages_array_off(n_pages, k));
}

/* Sum (is_min false) or minimum of v over the block; every thread gets it. 'tmp' has
 * SZ_GPU_THREADS / 32 entries; every thread of the block must call it. */
template <int W> SZ_DEVICE uint64_t sz_pg_block_reduce(uint64_t v, bool is_min, uint64_t *tmp)
{
	const unsigned lane = sz_lane<W>(), warp = sz_warp<W>(), nw = blockDim.x / W;
	for (int m = W / 2; m > 0; m >>= 1) {
		const uint64_t o = sz_shfl_xor<W>(sz_full_mask<W>(), v, m);
		v = is_min ? (o < v ? o : v) : v + o;
	}
	if (lane == 0)
		tmp[warp] = v;
	sz_syncthreads();
	uint64_t r = tmp[0];
	for (unsigned k = 1; k < nw; k++)
		r = is_min ? (tmp[k] < r ? tmp[k] : r) : r + tmp[k];
	sz_syncthreads(); /* tmp is free again */
	return r;
}

/* Exclusive scan of v over the block in thread order; '*total' receives the sum. */
template <int W> SZ_DEVICE uint64_t sz_pg_block_scan(uint64_t v, uint64_t *tmp, uint64_t *total)
{
	const unsigned lane = sz_lane<W>(), warp = sz_warp<W>(), nw = blockDim.x / W;
	uint64_t x = v;
	for (unsigned d = 1; d < (unsigned)W; d <<= 1) {
		const uint64_t o = sz_shfl_up<W>(sz_full_mask<W>(), x, d);
		if (lane >= d)
			x += o;
	}
	if (lane == (unsigned)W - 1)
		tmp[warp] = x;
	sz_syncthreads();
	uint64_t before = 0, all = 0;
	for (unsigned k = 0; k < nw; k++) {
		before += k < warp ? tmp[k] : 0;
		all += tmp[k];
	}
	sz_syncthreads();
	*total = all;
	return before + x - v;
}

/*
 * Chunk digest (FORMAT.md §7.1) of m bytes at p by one whole warp: lane l < 32 runs accumulator
 * l over words l, l+32, ...; the lane folds are summed (any order gives the same value).
 */
template <int W> SZ_DEVICE uint64_t sz_pg_digest(const uint8_t *p, uint64_t m)
{
	const unsigned lane = sz_lane<W>();
	uint64_t part = 0;
	if (lane < SPLITZIP_HASH_LANES) {
		uint64_t acc = splitzip_hash_lane_init(lane);
		for (uint64_t j = lane; 8 * j < m; j += SPLITZIP_HASH_LANES) {
			const uint8_t *w8 = p + 8 * j;
			uint64_t w;
			if (8 * j + 8 <= m && ((uintptr_t)w8 & 7) == 0)
				w = sz_load8(w8);
			else
				w = splitzip_get_u8s(w8,
				                     m - 8 * j < 8 ? (unsigned)(m - 8 * j) : 8u);
			acc = splitzip_hash_round(acc, w);
		}
		part = splitzip_hash_lane_fold(acc, lane);
	}
	for (int k = W / 2; k > 0; k >>= 1)
		part += sz_shfl_xor<W>(sz_full_mask<W>(), part, k);
	return splitzip_hash_chunk_final(m, part);
}

/* Copy 'len' bytes, thread gt of gs threads: 16-byte accesses where both ends allow. */
SZ_DEVICE void sz_pg_copy(uint8_t *d, const uint8_t *s, uint64_t len, uint64_t gt, uint64_t gs)
{
	uint64_t done = 0;
	if (((uintptr_t)d & 15) == 0 && ((uintptr_t)s & 15) == 0) {
		for (uint64_t u = gt; u < len / 16; u += gs)
			sz_store16(d + 16 * u, sz_load16(s + 16 * u));
		done = len / 16 * 16;
	}
	for (uint64_t k = done + gt; k < len; k += gs)
		d[k] = s[k];
}

/* ==================================================================== */
/*                              Compression                             */
/* ==================================================================== */

/* The batch arrays of the frame encoder: page i into slot i. A page with bad arguments gets
 * more elements than the batch allows, so the encoder reports INVALID_ARGUMENT for it. */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pages_enc_init(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	const uint64_t n = a.n_pages, slot = sz_gpu_pages_slot(a.max_page_bytes);
	uint64_t *srcs = sz_pg_array(a.ws, n, SZ_PG_WS_SRCS);
	uint64_t *nel = sz_pg_array(a.ws, n, SZ_PG_WS_NELEMS);
	uint64_t *dsts = sz_pg_array(a.ws, n, SZ_PG_WS_DSTS);
	uint64_t *caps = sz_pg_array(a.ws, n, SZ_PG_WS_CAPS);
	uint8_t *slots = a.ws + sz_gpu_pages_slots_off(n);
	for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (uint64_t)gridDim.x * blockDim.x) {
		const uint64_t b = a.page_bytes[i];
		const void *p = sz_load_global_ptr(&a.pages[i]);
		/* As the host API: a page of nonzero size is a 2-byte aligned BF16 array. */
		const bool bad = b % 2 || b > a.max_page_bytes || (b && (!p || ((uintptr_t)p & 1)));
		srcs[i] = (uint64_t)(uintptr_t)p;
		nel[i] = bad ? a.max_page_bytes / 2 + 1 : b / 2;
		dsts[i] = (uint64_t)(uintptr_t)(slots + i * slot);
		caps[i] = slot;
	}
}

/* One block: raw or frame per page, offsets, manifest, header, size and status. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pages_plan(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, tmp, SZ_GPU_THREADS / 32);
	const unsigned t = threadIdx.x;
	const uint64_t n = a.n_pages;
	const uint64_t *sizes = sz_pg_array(a.ws, n, SZ_PG_WS_SIZES);
	const int32_t *stat =
	    reinterpret_cast<const int32_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_STATUSES));
	uint64_t *offs = sz_pg_array(a.ws, n, SZ_PG_WS_OFFSETS);
	uint64_t *lens = sz_pg_array(a.ws, n, SZ_PG_WS_LENGTHS);
	uint64_t *encs = sz_pg_array(a.ws, n, SZ_PG_WS_ENCODINGS);
	const uint64_t mend = splitzip_pages_manifest_end(n);
	uint64_t next = splitzip_pages_align(mend), bad = ~(uint64_t)0, sum = 0;
	for (uint64_t base = 0; base < n; base += blockDim.x) { /* every thread, every tile */
		const uint64_t i = base + t;
		uint64_t len = 0, enc = SPLITZIP_PAGE_RAW;
		if (i < n) {
			const uint64_t b = a.page_bytes[i];
			if (stat[i] == SPLITZIP_OK)
				enc = splitzip_pages_encoding(sizes[i], b);
			else if (i < bad)
				bad = i;
			len = enc == SPLITZIP_PAGE_FRAME ? sizes[i] : b;
			sum += b;
		}
		uint64_t total;
		const uint64_t ex = sz_pg_block_scan<W>(splitzip_pages_align(len), tmp, &total);
		if (i < n) {
			offs[i] = next + ex; /* the aligned end of the payload before it */
			lens[i] = len;
			encs[i] = enc;
		}
		next += total;
	}
	bad = sz_pg_block_reduce<W>(bad, true, tmp);
	sum = sz_pg_block_reduce<W>(sum, false, tmp); /* barriers: offs and lens are visible */
	const uint64_t end = n ? offs[n - 1] + lens[n - 1] : mend;
	int32_t st = SPLITZIP_OK;
	if (bad != ~(uint64_t)0)
		st = stat[bad];
	else if (end > a.dst_cap)
		st = SPLITZIP_ERROR_DST_TOO_SMALL;
	if (st == SPLITZIP_OK) {
		for (uint64_t i = t; i < n; i += blockDim.x) {
			splitzip_page_entry x = {offs[i], lens[i], a.page_bytes[i],
			                         (unsigned)encs[i]};
			splitzip_pages_entry_write(a.dst + splitzip_pages_manifest_end(i), &x);
		}
		for (uint64_t k = mend + t; k < splitzip_pages_align(mend) && k < end;
		     k += blockDim.x)
			a.dst[k] = 0; /* FORMAT.md §11.3: padding before the first payload */
		sz_syncthreads();     /* the manifest is complete */
		if (sz_warp<W>() == 0) {
			const uint64_t d = sz_pg_digest<W>(a.dst + SPLITZIP_PAGES_HEADER_SIZE,
			                                   mend - SPLITZIP_PAGES_HEADER_SIZE);
			if (t == 0) {
				splitzip_pages_header h;
				splitzip_pages_header_init(&h, (uint32_t)n,
				                           a.fixed ? a.codec.codebook : nullptr,
				                           a.codebook_id);
				h.stream_size = end;
				h.total_page_bytes = sum;
				h.manifest_checksum = (uint32_t)d;
				splitzip_pages_header_write(a.dst, &h);
			}
		}
	}
	if (t == 0) {
		sz_gpu_pages_state *s = sz_pg_state(a.ws);
		s->ok = st == SPLITZIP_OK;
		s->size = st == SPLITZIP_OK ? end : 0;
		*a.out_size = (size_t)s->size;
		*a.status = st;
	}
}

/* Every payload to its offset (the frame from its slot or the page itself), then the zero
 * padding up to the next offset. Page page0 + blockIdx.y; gridDim.x blocks share a page. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pages_pack(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	const uint64_t n = a.n_pages, i = (uint64_t)a.page0 + blockIdx.y;
	if (!sz_pg_state(a.ws)->ok || i >= n)
		return;
	const uint64_t off = sz_pg_array(a.ws, n, SZ_PG_WS_OFFSETS)[i];
	const uint64_t len = sz_pg_array(a.ws, n, SZ_PG_WS_LENGTHS)[i];
	const bool frame = sz_pg_array(a.ws, n, SZ_PG_WS_ENCODINGS)[i] == SPLITZIP_PAGE_FRAME;
	const uint8_t *s =
	    frame ? a.ws + sz_gpu_pages_slots_off(n) + i * sz_gpu_pages_slot(a.max_page_bytes)
	          : static_cast<const uint8_t *>(sz_load_global_ptr(&a.pages[i]));
	const uint64_t gt = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	sz_pg_copy(a.dst + off, s, len, gt, (uint64_t)gridDim.x * blockDim.x);
	const uint64_t end = off + len;
	if (i + 1 < n && gt < splitzip_pages_align(end) - end)
		a.dst[end + gt] = 0; /* FORMAT.md §11.3: padding after a payload, < 256 bytes */
}

/* ==================================================================== */
/*                             Decompression                            */
/* ==================================================================== */

/* FORMAT.md §11.5 steps 8-10 for a header that passed steps 0-7 ('h' in shared memory): the
 * manifest checksum (warp 0), every entry (the lowest failing index decides), the totals. */
template <int W>
SZ_DEVICE int32_t sz_pg_check_stream(const uint8_t *src, const splitzip_pages_header *h,
                                     uint64_t *tmp, int32_t *sst)
{
	const unsigned t = threadIdx.x;
	const uint64_t np = h->n_pages;
	if (sz_warp<W>() == 0) {
		const uint64_t d =
		    sz_pg_digest<W>(src + SPLITZIP_PAGES_HEADER_SIZE,
		                    splitzip_pages_manifest_end(np) - SPLITZIP_PAGES_HEADER_SIZE);
		if (t == 0)
			sst[0] = (uint32_t)d == h->manifest_checksum
			             ? SPLITZIP_OK
			             : SPLITZIP_ERROR_HEADER_CHECKSUM;
	}
	sz_syncthreads();
	if (sst[0] != SPLITZIP_OK)
		return sst[0];
	uint64_t bad = ~(uint64_t)0, sum = 0;
	for (uint64_t i = t; i < np; i += blockDim.x) {
		splitzip_page_entry x;
		if (splitzip_pages_check_entry(src, h, i, &x) != SPLITZIP_OK && i < bad)
			bad = i;
		sum += x.page_bytes;
	}
	bad = sz_pg_block_reduce<W>(bad, true, tmp);
	sum = sz_pg_block_reduce<W>(sum, false, tmp);
	splitzip_page_entry x;
	if (bad != ~(uint64_t)0)
		return splitzip_pages_check_entry(src, h, bad, &x);
	return splitzip_pages_check_totals(h, splitzip_pages_last_end(src, np), sum);
}

/* FORMAT.md §11.6: no more pages than destinations, no page larger than its destination. */
template <int W>
SZ_DEVICE int32_t sz_pg_check_dst(const sz_gpu_pages_dec &a, uint64_t np, uint64_t *tmp)
{
	if (np > a.n_pages)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	uint64_t bad = ~(uint64_t)0;
	for (uint64_t i = threadIdx.x; i < np; i += blockDim.x) {
		splitzip_page_entry x;
		splitzip_pages_entry_read(a.src, i, &x);
		if (x.page_bytes > a.page_caps[i] && i < bad)
			bad = i;
	}
	bad = sz_pg_block_reduce<W>(bad, true, tmp);
	return bad == ~(uint64_t)0 ? SPLITZIP_OK : SPLITZIP_ERROR_DST_TOO_SMALL;
}

/* One block, first: as the host API, every destination with room must be a 2-byte aligned
 * pointer (INVALID_ARGUMENT before the stream is looked at). */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pages_dec_args(sz_gpu_pages_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, tmp, SZ_GPU_THREADS / 32);
	uint64_t bad = 0;
	for (uint64_t i = threadIdx.x; i < a.n_pages; i += blockDim.x)
		bad |= a.page_caps[i] && (!a.pages[i] || ((uintptr_t)a.pages[i] & 1));
	bad = sz_pg_block_reduce<W>(bad, false, tmp);
	if (threadIdx.x == 0)
		sz_pg_state(a.ws)->status = bad ? SPLITZIP_ERROR_INVALID_ARGUMENT : SPLITZIP_OK;
}

/* One block: validate everything but the frame bodies, then fill the decoder's batch arrays. */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pages_parse(sz_gpu_pages_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, tmp, SZ_GPU_THREADS / 32);
	SZ_SHARED_ARRAY(splitzip_pages_header, sh, 1);
	SZ_SHARED_ARRAY(int32_t, sst, 1);
	const unsigned t = threadIdx.x;
	if (t == 0) {
		const int32_t args = sz_pg_state(a.ws)->status; /* sz_k_pages_dec_args */
		sst[0] = args != SPLITZIP_OK ? args
		                             : splitzip_pages_read_header(a.src, a.src_size,
		                                                          &sh[0]); /* steps 0-7 */
	}
	sz_syncthreads();
	int32_t s = sst[0];
	if (s == SPLITZIP_OK) /* uniform: every thread read sst after the barrier */
		s = sz_pg_check_stream<W>(a.src, &sh[0], tmp, sst);
	const uint64_t np = s == SPLITZIP_OK ? sh[0].n_pages : 0;
	if (s == SPLITZIP_OK)
		s = sz_pg_check_dst<W>(a, np, tmp);
	const uint64_t n = a.n_pages;
	uint64_t *srcs = sz_pg_array(a.ws, n, SZ_PG_WS_SRCS),
	         *pbytes = sz_pg_array(a.ws, n, SZ_PG_WS_NELEMS);
	uint64_t *dsts = sz_pg_array(a.ws, n, SZ_PG_WS_DSTS),
	         *caps = sz_pg_array(a.ws, n, SZ_PG_WS_CAPS);
	uint64_t *ssz = sz_pg_array(a.ws, n, SZ_PG_WS_SIZES),
	         *offs = sz_pg_array(a.ws, n, SZ_PG_WS_OFFSETS);
	uint64_t *lens = sz_pg_array(a.ws, n, SZ_PG_WS_LENGTHS),
	         *encs = sz_pg_array(a.ws, n, SZ_PG_WS_ENCODINGS);
	for (uint64_t i = t; i < n; i += blockDim.x) {
		splitzip_page_entry x = {0, 0, 0, SPLITZIP_PAGE_RAW};
		if (s == SPLITZIP_OK && i < np)
			splitzip_pages_entry_read(a.src, i, &x);
		const bool frame = s == SPLITZIP_OK && i < np && x.encoding == SPLITZIP_PAGE_FRAME;
		srcs[i] =
		    frame ? (uint64_t)(uintptr_t)(a.src + x.offset) : 0; /* NULL: not decoded */
		ssz[i] = frame ? x.length : 0;
		dsts[i] = frame ? (uint64_t)(uintptr_t)a.pages[i] : 0;
		caps[i] = frame ? x.page_bytes / 2 : 0;
		pbytes[i] = x.page_bytes;
		offs[i] = x.offset;
		lens[i] = x.length;
		encs[i] = x.encoding;
	}
	if (t == 0) {
		sz_gpu_pages_state *st = sz_pg_state(a.ws);
		st->status = s;
		st->ok = s == SPLITZIP_OK;
		st->n_pages = np;
	}
}

/* The raw pages of a valid stream to their destinations. Page page0 + blockIdx.y. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pages_raw(sz_gpu_pages_dec a)
{
	SZ_WARP_GUARD(W);
	const sz_gpu_pages_state *st = sz_pg_state(a.ws);
	const uint64_t n = a.n_pages, i = (uint64_t)a.page0 + blockIdx.y;
	if (!st->ok || i >= st->n_pages ||
	    sz_pg_array(a.ws, n, SZ_PG_WS_ENCODINGS)[i] != SPLITZIP_PAGE_RAW)
		return;
	const uint64_t off = sz_pg_array(a.ws, n, SZ_PG_WS_OFFSETS)[i];
	const uint64_t len = sz_pg_array(a.ws, n, SZ_PG_WS_LENGTHS)[i];
	sz_pg_copy(static_cast<uint8_t *>(sz_load_global_ptr(&a.pages[i])), a.src + off, len,
	           (uint64_t)blockIdx.x * blockDim.x + threadIdx.x,
	           (uint64_t)gridDim.x * blockDim.x);
}

/* One block: the status of the first failing frame page, the page sizes, the count. */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pages_dec_finish(sz_gpu_pages_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, tmp, SZ_GPU_THREADS / 32);
	const sz_gpu_pages_state *st = sz_pg_state(a.ws);
	const uint64_t n = a.n_pages, np = st->n_pages;
	const int32_t *fst =
	    reinterpret_cast<const int32_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_STATUSES));
	const uint64_t *encs = sz_pg_array(a.ws, n, SZ_PG_WS_ENCODINGS);
	const uint64_t *pbytes = sz_pg_array(a.ws, n, SZ_PG_WS_NELEMS);
	int32_t s = st->status;
	if (s == SPLITZIP_OK) { /* uniform: one value for the whole block */
		uint64_t bad = ~(uint64_t)0;
		for (uint64_t i = threadIdx.x; i < np; i += blockDim.x)
			if (encs[i] == SPLITZIP_PAGE_FRAME && fst[i] != SPLITZIP_OK && i < bad)
				bad = i;
		bad = sz_pg_block_reduce<W>(bad, true, tmp);
		if (bad != ~(uint64_t)0)
			s = fst[bad];
	}
	if (a.page_sizes)
		for (uint64_t i = threadIdx.x; i < n; i += blockDim.x)
			a.page_sizes[i] = (size_t)(s == SPLITZIP_OK && i < np ? pbytes[i] : 0);
	if (threadIdx.x == 0) {
		*a.n_pages_out = (size_t)(s == SPLITZIP_OK ? np : 0);
		*a.status = s;
	}
}

/* ==================================================================== */
/*                          Launch sequences                            */
/* ==================================================================== */

/* Blocks per page of the copy kernels: about 64 KiB each, at most 2048. */
static inline unsigned sz_gpu_pages_copy_blocks(uint64_t max_page_bytes)
{
	return sz_gpu_clamp((max_page_bytes + 65535) / 65536, 1, 2048);
}

/* Enqueue the packing of a.n_pages pages into one stream; host-side arguments are checked. */
template <int W, class Launcher> void sz_gpu_pages_compress(Launcher &lc, sz_gpu_pages_enc a)
{
	const uint64_t n = a.n_pages;
	const unsigned gi = sz_gpu_clamp((n + SZ_GPU_THREADS - 1) / SZ_GPU_THREADS, 1, 65535);
	lc.launch(sz_gpu_dim{gi, 1}, SZ_GPU_THREADS, sz_k_pages_enc_init<W>, a);
	if (n) {
		sz_gpu_enc c = a.codec;
		c.srcs =
		    reinterpret_cast<const uint16_t *const *>(sz_pg_array(a.ws, n, SZ_PG_WS_SRCS));
		c.n_elems = reinterpret_cast<const size_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_NELEMS));
		c.dsts = reinterpret_cast<void *const *>(sz_pg_array(a.ws, n, SZ_PG_WS_DSTS));
		c.dst_caps = reinterpret_cast<const size_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_CAPS));
		c.out_sizes = reinterpret_cast<size_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_SIZES));
		c.statuses = reinterpret_cast<int32_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_STATUSES));
		c.ws = a.ws + sz_gpu_pages_codec_ws_off(n, a.max_page_bytes);
		c.max_elems = a.max_page_bytes / 2;
		sz_gpu_compress<W>(lc, c, n);
	}
	lc.launch(sz_gpu_dim{1, 1}, SZ_GPU_THREADS, sz_k_pages_plan<W>, a);
	const unsigned gx = sz_gpu_pages_copy_blocks(a.max_page_bytes);
	for (uint64_t p0 = 0; p0 < n; p0 += SZ_GPU_FRAMES_PER_LAUNCH) {
		a.page0 = (uint32_t)p0;
		const uint64_t left = n - p0;
		const unsigned np =
		    (unsigned)(left < SZ_GPU_FRAMES_PER_LAUNCH ? left : SZ_GPU_FRAMES_PER_LAUNCH);
		lc.launch(sz_gpu_dim{gx, np}, SZ_GPU_THREADS, sz_k_pages_pack<W>, a);
	}
}

/* Enqueue the validation and scatter of a stream into up to a.n_pages destinations. */
template <int W, class Launcher> void sz_gpu_pages_decompress(Launcher &lc, sz_gpu_pages_dec a)
{
	const uint64_t n = a.n_pages, max_elems = a.max_page_bytes / 2;
	lc.launch(sz_gpu_dim{1, 1}, SZ_GPU_THREADS, sz_k_pages_dec_args<W>, a);
	lc.launch(sz_gpu_dim{1, 1}, SZ_GPU_THREADS, sz_k_pages_parse<W>, a);
	if (n) {
		sz_gpu_dec d;
		memset(&d, 0, sizeof d);
		d.srcs = reinterpret_cast<const void *const *>(sz_pg_array(a.ws, n, SZ_PG_WS_SRCS));
		d.src_sizes =
		    reinterpret_cast<const size_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_SIZES));
		d.dsts = reinterpret_cast<uint16_t *const *>(sz_pg_array(a.ws, n, SZ_PG_WS_DSTS));
		d.dst_caps = reinterpret_cast<const size_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_CAPS));
		d.out_elems = reinterpret_cast<size_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_DECODED));
		d.statuses = reinterpret_cast<int32_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_STATUSES));
		d.ws = a.ws + sz_gpu_pages_codec_ws_off(n, a.max_page_bytes);
		sz_gpu_decompress<W>(lc, d, n, max_elems,
		                     sz_gpu_ws_stride(max_elems, a.chunk_log2));
	}
	const unsigned gx = sz_gpu_pages_copy_blocks(a.max_page_bytes);
	for (uint64_t p0 = 0; p0 < n; p0 += SZ_GPU_FRAMES_PER_LAUNCH) {
		a.page0 = (uint32_t)p0;
		const uint64_t left = n - p0;
		const unsigned np =
		    (unsigned)(left < SZ_GPU_FRAMES_PER_LAUNCH ? left : SZ_GPU_FRAMES_PER_LAUNCH);
		lc.launch(sz_gpu_dim{gx, np}, SZ_GPU_THREADS, sz_k_pages_raw<W>, a);
	}
	lc.launch(sz_gpu_dim{1, 1}, SZ_GPU_THREADS, sz_k_pages_dec_finish<W>, a);
}

#endif /* SZ_GPU_PAGES_CUH */
