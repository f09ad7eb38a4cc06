/*
 * sz_gpu_pages.cuh -- page streams on the GPU (doc/FORMAT.md §12): the kernels that plan, pack,
 * validate and scatter a stream around the batched frame codec of sz_gpu_driver.cuh, and their
 * launch sequences, templated over a launcher like sz_gpu_compress(). One source for CUDA,
 * HIP and the CPU SIMT harness (include only sz_gpu_compat.cuh wrappers and core headers).
 * Streams must equal api/sz_api_pages.c byte for byte, and a damaged stream must get the
 * status the host gives it: every layout decision and check is a core/sz_pages.h helper.
 *
 * Compression (sz_gpu_pages_compress): pages_enc_init fills the batch arrays (page i into slot
 * i of the workspace); the batched encoder runs; pages_plan (one block) decides raw or frame
 * per page (FORMAT.md §12.4), turns the lengths into offsets with an aligned block scan,
 * writes the manifest, its checksum, the header, the size and the status; pages_pack copies
 * every payload to its offset and zeroes the padding after it.
 *
 * Decompression (sz_gpu_pages_decompress): pages_dec_head (one block) checks the destination
 * pointers, the header and the manifest checksum (FORMAT.md §12.5 steps 0-8); pages_dec_entries
 * (one block) every entry in parallel, the first failing one deciding, the totals and the
 * destinations (steps 9-10, §12.6); pages_dec_fill points the batch arrays of the frame decoder
 * at the frame pages of a valid stream (a NULL source otherwise, which the decoder rejects
 * without a read); the batched decoder runs; pages_raw copies the raw pages; pages_dec_finish
 * reports the first failing page.
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
			uint64_t w = 0;
			if (8 * j + 8 <= m && ((uintptr_t)w8 & 7) == 0) {
				w = sz_gld_u64(w8);
			} else {
				const unsigned k = m - 8 * j < 8 ? (unsigned)(m - 8 * j) : 8u;
				for (unsigned b = 0; b < k; b++)
					w |= (uint64_t)sz_gld_u8(w8 + b) << (8 * b);
			}
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
			sz_gst_x4(d + 16 * u, sz_gld_x4(s + 16 * u));
		done = len / 16 * 16;
	}
	for (uint64_t k = done + gt; k < len; k += gs)
		sz_gst_u8(d + k, sz_gld_u8(s + k));
}

/* Cell i of workspace array k (8-byte cells), through the global-memory wrappers. */
SZ_DEVICE uint64_t sz_pg_get(uint8_t *ws, uint64_t n, unsigned k, uint64_t i)
{
	return sz_gld_u64(sz_pg_array(ws, n, k) + i);
}
SZ_DEVICE void sz_pg_set(uint8_t *ws, uint64_t n, unsigned k, uint64_t i, uint64_t v)
{
	sz_gst_u64(sz_pg_array(ws, n, k) + i, v);
}
/* Status i of the frame codec (int32 entries at the start of the statuses array). */
SZ_DEVICE int32_t sz_pg_status(uint8_t *ws, uint64_t n, uint64_t i)
{
	return (int32_t)sz_gld_u32(
	    reinterpret_cast<const int32_t *>(sz_pg_array(ws, n, SZ_PG_WS_STATUSES)) + i);
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
	uint8_t *slots = a.ws + sz_gpu_pages_slots_off(n);
	for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (uint64_t)gridDim.x * blockDim.x) {
		const uint64_t b = sz_gld_u64(&a.page_bytes[i]);
		const void *p = sz_gld_ptr(&a.pages[i]);
		/* As the host API: a page of nonzero size is a 2-byte aligned BF16 array. */
		const bool bad = b % 2 || b > a.max_page_bytes || (b && (!p || ((uintptr_t)p & 1)));
		sz_pg_set(a.ws, n, SZ_PG_WS_SRCS, i, (uint64_t)(uintptr_t)p);
		sz_pg_set(a.ws, n, SZ_PG_WS_NELEMS, i, bad ? a.max_page_bytes / 2 + 1 : b / 2);
		sz_pg_set(a.ws, n, SZ_PG_WS_DSTS, i, (uint64_t)(uintptr_t)(slots + i * slot));
		sz_pg_set(a.ws, n, SZ_PG_WS_CAPS, i, slot);
	}
}

/* One block: raw or frame per page, offsets, manifest, header, size and status. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pages_plan(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, tmp, SZ_GPU_THREADS / 32);
	const unsigned t = threadIdx.x;
	const uint64_t n = a.n_pages;
	const uint64_t mend = splitzip_pages_manifest_end(n);
	uint64_t next = splitzip_pages_align(mend), bad = ~(uint64_t)0, sum = 0;
	for (uint64_t base = 0; base < n; base += blockDim.x) { /* every thread, every tile */
		const uint64_t i = base + t;
		uint64_t len = 0, enc = SPLITZIP_PAGE_RAW;
		if (i < n) {
			const uint64_t b = sz_gld_u64(&a.page_bytes[i]);
			if (sz_pg_status(a.ws, n, i) == SPLITZIP_OK)
				enc = splitzip_pages_encoding(sz_pg_get(a.ws, n, SZ_PG_WS_SIZES, i),
				                              b);
			else if (i < bad)
				bad = i;
			len =
			    enc == SPLITZIP_PAGE_FRAME ? sz_pg_get(a.ws, n, SZ_PG_WS_SIZES, i) : b;
			sum += b;
		}
		uint64_t total;
		const uint64_t ex = sz_pg_block_scan<W>(splitzip_pages_align(len), tmp, &total);
		if (i < n) {
			/* the aligned end of the payload before it */
			sz_pg_set(a.ws, n, SZ_PG_WS_OFFSETS, i, next + ex);
			sz_pg_set(a.ws, n, SZ_PG_WS_LENGTHS, i, len);
			sz_pg_set(a.ws, n, SZ_PG_WS_ENCODINGS, i, enc);
		}
		next += total;
	}
	bad = sz_pg_block_reduce<W>(bad, true, tmp);
	sum =
	    sz_pg_block_reduce<W>(sum, false, tmp); /* barriers: offsets and lengths are visible */
	const uint64_t end = n ? sz_pg_get(a.ws, n, SZ_PG_WS_OFFSETS, n - 1) +
	                             sz_pg_get(a.ws, n, SZ_PG_WS_LENGTHS, n - 1)
	                       : mend;
	int32_t st = SPLITZIP_OK;
	if (bad != ~(uint64_t)0)
		st = sz_pg_status(a.ws, n, bad);
	else if (end > a.dst_cap)
		st = SPLITZIP_ERROR_DST_TOO_SMALL;
	if (st == SPLITZIP_OK) {
		for (uint64_t i = t; i < n; i += blockDim.x) {
			splitzip_page_entry x = {
			    sz_pg_get(a.ws, n, SZ_PG_WS_OFFSETS, i),
			    sz_pg_get(a.ws, n, SZ_PG_WS_LENGTHS, i), sz_gld_u64(&a.page_bytes[i]),
			    (unsigned)sz_pg_get(a.ws, n, SZ_PG_WS_ENCODINGS, i)};
			splitzip_pages_entry_write(a.dst + splitzip_pages_manifest_end(i), &x);
		}
		for (uint64_t k = mend + t; k < splitzip_pages_align(mend) && k < end;
		     k += blockDim.x)
			sz_gst_u8(a.dst + k,
			          0); /* FORMAT.md §12.3: padding before the first payload */
		sz_syncthreads();     /* the manifest is complete */
		if (sz_warp<W>() == 0) {
			const uint64_t d = sz_pg_digest<W>(a.dst + SPLITZIP_PAGES_HEADER_SIZE,
			                                   mend - SPLITZIP_PAGES_HEADER_SIZE);
			if (t == 0) {
				splitzip_pages_header
				    h; /* no pointer into the kernel's parameter */
				splitzip_pages_header_init(&h, (uint32_t)n, nullptr, 0);
				if (a.fixed) {
					h.flags = SPLITZIP_PAGES_FLAG_FIXED_CODEBOOK;
					h.codebook_id = a.codebook_id;
					SZ_UNROLL
					for (unsigned k = 0; k < 16; k++)
						h.codebook[k] = a.codec.split4.codebook[k];
				}
				h.stream_size = end;
				h.total_page_bytes = sum;
				h.manifest_checksum = (uint32_t)d;
				splitzip_pages_header_write(a.dst, &h);
			}
		}
	}
	if (t == 0) {
		sz_gpu_pages_state *s = sz_pg_state(a.ws);
		const uint64_t size = st == SPLITZIP_OK ? end : 0;
		sz_gst_u32(&s->ok, st == SPLITZIP_OK);
		sz_gst_u64(&s->size, size);
		sz_gst_u64(a.out_size, size);
		sz_gst_u32(a.status, (uint32_t)st);
	}
}

/* Every payload to its offset (the frame from its slot or the page itself), then the zero
 * padding up to the next offset. Page page0 + blockIdx.y; gridDim.x blocks share a page. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pages_pack(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	const uint64_t n = a.n_pages, i = (uint64_t)a.page0 + blockIdx.y;
	if (!sz_gld_u32(&sz_pg_state(a.ws)->ok) || i >= n)
		return;
	const uint64_t off = sz_pg_get(a.ws, n, SZ_PG_WS_OFFSETS, i);
	const uint64_t len = sz_pg_get(a.ws, n, SZ_PG_WS_LENGTHS, i);
	const bool frame = sz_pg_get(a.ws, n, SZ_PG_WS_ENCODINGS, i) == SPLITZIP_PAGE_FRAME;
	const uint8_t *s =
	    frame ? a.ws + sz_gpu_pages_slots_off(n) + i * sz_gpu_pages_slot(a.max_page_bytes)
	          : static_cast<const uint8_t *>(sz_gld_ptr(&a.pages[i]));
	const uint64_t gt = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	sz_pg_copy(a.dst + off, s, len, gt, (uint64_t)gridDim.x * blockDim.x);
	const uint64_t end = off + len;
	if (i + 1 < n && gt < splitzip_pages_align(end) - end)
		sz_gst_u8(a.dst + end + gt, 0); /* FORMAT.md §12.3: padding after a payload */
}

/* ==================================================================== */
/*                             Decompression                            */
/* ==================================================================== */

/*
 * Step 1 (one block): as the host API, every destination with room must be a 2-byte aligned
 * pointer (INVALID_ARGUMENT before the stream is looked at); then FORMAT.md §12.5 steps 0-7 (the
 * header, thread 0) and 8 (the manifest checksum, warp 0). The header goes to the state for
 * the next steps. The steps are separate kernels to keep each one's registers few.
 */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pages_dec_head(sz_gpu_pages_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, tmp, SZ_GPU_THREADS / 32);
	SZ_SHARED_ARRAY(int32_t, sst, 1);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	const unsigned t = threadIdx.x;
	uint64_t bad = 0;
	for (uint64_t i = t; i < a.n_pages; i += blockDim.x) {
		const void *p = sz_gld_ptr(&a.pages[i]);
		bad |= sz_gld_u64(&a.page_caps[i]) && (!p || ((uintptr_t)p & 1));
	}
	bad = sz_pg_block_reduce<W>(bad, false, tmp);
	if (t == 0)
		sst[0] = bad ? SPLITZIP_ERROR_INVALID_ARGUMENT
		             : splitzip_pages_read_header(a.src, a.src_size, &st->hdr);
	sz_syncthreads();
	int32_t s = sst[0];
	if (s == SPLITZIP_OK && sz_warp<W>() == 0) { /* uniform per warp */
		const uint64_t m = splitzip_pages_manifest_end(st->hdr.n_pages);
		const uint64_t d = sz_pg_digest<W>(a.src + SPLITZIP_PAGES_HEADER_SIZE,
		                                   m - SPLITZIP_PAGES_HEADER_SIZE);
		if ((uint32_t)d != st->hdr.manifest_checksum)
			s = SPLITZIP_ERROR_HEADER_CHECKSUM;
	}
	if (t == 0) {
		sz_gst_u32(&st->status, (uint32_t)s);
		sz_gst_u64(&st->n_pages, 0);
		sz_gst_u32(&st->ok, 0);
	}
}

/*
 * Step 2 (one block): FORMAT.md §12.5 step 9 a-f for every entry in parallel; the lowest
 * failing index and its status go to the state, with the page total and the lowest page larger
 * than its destination. Step 3 checks the frame headers (g): the split keeps each kernel's
 * registers few, and the lowest entry failing a-f, or failing g while passing a-f, is the
 * lowest entry failing step 9 (core/sz_pages.h), so the status is the sequential one.
 */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pages_dec_entries(sz_gpu_pages_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, tmp, SZ_GPU_THREADS / 32);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	if ((int32_t)sz_gld_u32(&st->status) != SPLITZIP_OK) /* uniform */
		return;
	const uint64_t np = st->hdr.n_pages, n = a.n_pages;
	uint64_t bad = ~(uint64_t)0, sum = 0, small = ~(uint64_t)0;
	for (uint64_t i = threadIdx.x; i < np; i += blockDim.x) {
		splitzip_page_entry x;
		if (splitzip_pages_check_layout(a.src, &st->hdr, i, &x) != SPLITZIP_OK && i < bad)
			bad = i;
		sum += x.page_bytes;
		if (i < n && x.page_bytes > sz_gld_u64(&a.page_caps[i]) && i < small)
			small = i;
	}
	bad = sz_pg_block_reduce<W>(bad, true, tmp);
	sum = sz_pg_block_reduce<W>(sum, false, tmp);
	small = sz_pg_block_reduce<W>(small, true, tmp);
	if (threadIdx.x == 0) {
		splitzip_page_entry x;
		sz_gst_u64(&st->bad, bad);
		sz_gst_u32(&st->bad_status,
		           bad != ~(uint64_t)0
		               ? (uint32_t)splitzip_pages_check_layout(a.src, &st->hdr, bad, &x)
		               : 0u);
		sz_gst_u64(&st->sum, sum);
		sz_gst_u64(&st->small, small);
	}
}

/*
 * Step 3 (one block): step 9 g, the frame header of every entry below the lowest entry that
 * failed a-f (those passed a-f, so their frame headers lie inside the stream; a failure beyond
 * that entry cannot decide). Then step 10 (totals) and §12.6 (destinations).
 */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pages_dec_frames(sz_gpu_pages_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, tmp, SZ_GPU_THREADS / 32);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	if ((int32_t)sz_gld_u32(&st->status) != SPLITZIP_OK) /* uniform */
		return;
	const uint64_t sbad = sz_gld_u64(&st->bad);
	const uint64_t lim = sbad < st->hdr.n_pages ? sbad : st->hdr.n_pages;
	uint64_t bad = ~(uint64_t)0;
	for (uint64_t i = threadIdx.x; i < lim; i += blockDim.x) {
		splitzip_page_entry x;
		splitzip_pages_entry_read(a.src, i, &x);
		/* below 'lim' every entry passed a-f: its frame header lies inside the stream */
		if (x.encoding == SPLITZIP_PAGE_FRAME &&
		    splitzip_pages_check_frame(a.src, &st->hdr, &x) != SPLITZIP_OK && i < bad)
			bad = i;
	}
	bad = sz_pg_block_reduce<W>(bad, true, tmp);
	if (threadIdx.x != 0)
		return;
	const uint64_t np = st->hdr.n_pages;
	int32_t s = SPLITZIP_OK;
	splitzip_page_entry x;
	if (bad != ~(uint64_t)0) {
		splitzip_pages_entry_read(a.src, bad, &x);
		s = splitzip_pages_check_frame(a.src, &st->hdr, &x);
	} else if (sbad != ~(uint64_t)0) {
		s = (int32_t)sz_gld_u32(&st->bad_status);
	} else {
		s = splitzip_pages_check_totals(&st->hdr, splitzip_pages_last_end(a.src, np),
		                                sz_gld_u64(&st->sum));
	}
	if (s == SPLITZIP_OK && (np > a.n_pages || sz_gld_u64(&st->small) != ~(uint64_t)0))
		s = SPLITZIP_ERROR_DST_TOO_SMALL; /* FORMAT.md §12.6 */
	sz_gst_u32(&st->status, (uint32_t)s);
	sz_gst_u32(&st->ok, s == SPLITZIP_OK);
	sz_gst_u64(&st->n_pages, s == SPLITZIP_OK ? np : 0);
}

/* Step 4 (a grid over the destinations): the batch arrays of the frame decoder (frame pages of
 * a valid stream; a NULL source for every other page, which the decoder rejects unread) and the
 * entries the raw copy and the finish need. */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pages_dec_fill(sz_gpu_pages_dec a)
{
	SZ_WARP_GUARD(W);
	const uint64_t n = a.n_pages, np = sz_gld_u64(&sz_pg_state(a.ws)->n_pages);
	for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (uint64_t)gridDim.x * blockDim.x) {
		splitzip_page_entry x = {0, 0, 0, SPLITZIP_PAGE_RAW};
		if (i < np) /* np is 0 unless the stream passed every check */
			splitzip_pages_entry_read(a.src, i, &x);
		const bool frame = x.encoding == SPLITZIP_PAGE_FRAME;
		sz_pg_set(a.ws, n, SZ_PG_WS_SRCS, i,
		          frame ? (uint64_t)(uintptr_t)(a.src + x.offset) : 0);
		sz_pg_set(a.ws, n, SZ_PG_WS_SIZES, i, frame ? x.length : 0);
		sz_pg_set(a.ws, n, SZ_PG_WS_DSTS, i,
		          frame ? (uint64_t)(uintptr_t)sz_gld_ptr(&a.pages[i]) : 0);
		sz_pg_set(a.ws, n, SZ_PG_WS_CAPS, i, frame ? x.page_bytes / 2 : 0);
		sz_pg_set(a.ws, n, SZ_PG_WS_NELEMS, i, x.page_bytes);
		sz_pg_set(a.ws, n, SZ_PG_WS_OFFSETS, i, x.offset);
		sz_pg_set(a.ws, n, SZ_PG_WS_LENGTHS, i, x.length);
		sz_pg_set(a.ws, n, SZ_PG_WS_ENCODINGS, i, x.encoding);
	}
}

/* The raw pages of a valid stream to their destinations. Page page0 + blockIdx.y. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pages_raw(sz_gpu_pages_dec a)
{
	SZ_WARP_GUARD(W);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	const uint64_t n = a.n_pages, i = (uint64_t)a.page0 + blockIdx.y;
	if (!sz_gld_u32(&st->ok) || i >= sz_gld_u64(&st->n_pages) ||
	    sz_pg_get(a.ws, n, SZ_PG_WS_ENCODINGS, i) != SPLITZIP_PAGE_RAW)
		return;
	const uint64_t off = sz_pg_get(a.ws, n, SZ_PG_WS_OFFSETS, i);
	const uint64_t len = sz_pg_get(a.ws, n, SZ_PG_WS_LENGTHS, i);
	sz_pg_copy(static_cast<uint8_t *>(sz_gld_ptr(&a.pages[i])), a.src + off, len,
	           (uint64_t)blockIdx.x * blockDim.x + threadIdx.x,
	           (uint64_t)gridDim.x * blockDim.x);
}

/* One block: the status of the first failing frame page, the page sizes, the count. */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pages_dec_finish(sz_gpu_pages_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, tmp, SZ_GPU_THREADS / 32);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	const uint64_t n = a.n_pages, np = sz_gld_u64(&st->n_pages);
	int32_t s = (int32_t)sz_gld_u32(&st->status);
	if (s == SPLITZIP_OK) { /* uniform: one value for the whole block */
		uint64_t bad = ~(uint64_t)0;
		for (uint64_t i = threadIdx.x; i < np; i += blockDim.x)
			if (sz_pg_get(a.ws, n, SZ_PG_WS_ENCODINGS, i) == SPLITZIP_PAGE_FRAME &&
			    sz_pg_status(a.ws, n, i) != SPLITZIP_OK && i < bad)
				bad = i;
		bad = sz_pg_block_reduce<W>(bad, true, tmp);
		if (bad != ~(uint64_t)0)
			s = sz_pg_status(a.ws, n, bad);
	}
	if (a.page_sizes)
		for (uint64_t i = threadIdx.x; i < n; i += blockDim.x)
			sz_gst_u64(&a.page_sizes[i], s == SPLITZIP_OK && i < np
			                                 ? sz_pg_get(a.ws, n, SZ_PG_WS_NELEMS, i)
			                                 : 0);
	if (threadIdx.x == 0) {
		sz_gst_u64(a.n_pages_out, s == SPLITZIP_OK ? np : 0);
		sz_gst_u32(a.status, (uint32_t)s);
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

/*
 * Enqueue the packing of a.n_pages pages into one stream; host-side arguments are checked. The
 * frames come from the batched encoder of sz_gpu_driver.cuh (sz_k_encode_pages, one block per
 * frame, for batches that fill the device; the per-frame kernels otherwise).
 */
template <int W, class Launcher> void sz_gpu_pages_compress(Launcher &lc, sz_gpu_pages_enc a)
{
	const uint64_t n = a.n_pages;
	const unsigned gi = sz_gpu_clamp((n + SZ_GPU_THREADS - 1) / SZ_GPU_THREADS, 1, 65535);
	lc.launch("pages_enc_init", sz_gpu_dim{gi, 1}, SZ_GPU_THREADS, sz_k_pages_enc_init<W>, a);
	if (n) {
		sz_gpu_enc c = a.codec;
		c.frames.srcs =
		    reinterpret_cast<const uint16_t *const *>(sz_pg_array(a.ws, n, SZ_PG_WS_SRCS));
		c.frames.n_elems =
		    reinterpret_cast<const size_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_NELEMS));
		c.frames.dsts =
		    reinterpret_cast<void *const *>(sz_pg_array(a.ws, n, SZ_PG_WS_DSTS));
		c.frames.dst_caps =
		    reinterpret_cast<const size_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_CAPS));
		c.frames.out_sizes =
		    reinterpret_cast<size_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_SIZES));
		c.frames.statuses =
		    reinterpret_cast<int32_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_STATUSES));
		c.ws = a.ws + sz_gpu_pages_codec_ws_off(n, a.max_page_bytes);
		c.max_elems = a.max_page_bytes / 2;
		sz_gpu_compress<W>(lc, c, n);
	}
	lc.launch("pages_plan", sz_gpu_dim{1, 1}, SZ_GPU_THREADS, sz_k_pages_plan<W>, a);
	const unsigned gx = sz_gpu_pages_copy_blocks(a.max_page_bytes);
	for (uint64_t p0 = 0; p0 < n; p0 += SZ_GPU_FRAMES_PER_LAUNCH) {
		a.page0 = (uint32_t)p0;
		const uint64_t left = n - p0;
		const unsigned np =
		    (unsigned)(left < SZ_GPU_FRAMES_PER_LAUNCH ? left : SZ_GPU_FRAMES_PER_LAUNCH);
		lc.launch("pages_pack", sz_gpu_dim{gx, np}, SZ_GPU_THREADS, sz_k_pages_pack<W>, a);
	}
}

/*
 * Enqueue the validation and scatter of a stream into up to a.n_pages destinations. The frame
 * pages go through the batched decoder of sz_gpu_driver.cuh (sz_k_decode_pages for batches
 * that fill the device); its workspace is the frame workspace part of the page workspace.
 */
template <int W, class Launcher> void sz_gpu_pages_decompress(Launcher &lc, sz_gpu_pages_dec a)
{
	const uint64_t n = a.n_pages, max_elems = a.max_page_bytes / 2;
	lc.launch("pages_dec_head", sz_gpu_dim{1, 1}, SZ_GPU_THREADS, sz_k_pages_dec_head<W>, a);
	lc.launch("pages_dec_entries", sz_gpu_dim{1, 1}, SZ_GPU_THREADS, sz_k_pages_dec_entries<W>,
	          a);
	lc.launch("pages_dec_frames", sz_gpu_dim{1, 1}, SZ_GPU_THREADS, sz_k_pages_dec_frames<W>,
	          a);
	const unsigned gf = sz_gpu_clamp((n + SZ_GPU_THREADS - 1) / SZ_GPU_THREADS, 1, 65535);
	lc.launch("pages_dec_fill", sz_gpu_dim{gf, 1}, SZ_GPU_THREADS, sz_k_pages_dec_fill<W>, a);
	if (n) {
		sz_gpu_dec d;
		memset(&d, 0, sizeof d);
		d.frames.srcs =
		    reinterpret_cast<const void *const *>(sz_pg_array(a.ws, n, SZ_PG_WS_SRCS));
		d.frames.src_sizes =
		    reinterpret_cast<const size_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_SIZES));
		d.frames.dsts =
		    reinterpret_cast<uint16_t *const *>(sz_pg_array(a.ws, n, SZ_PG_WS_DSTS));
		d.frames.dst_caps =
		    reinterpret_cast<const size_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_CAPS));
		d.frames.out_elems =
		    reinterpret_cast<size_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_DECODED));
		d.frames.statuses =
		    reinterpret_cast<int32_t *>(sz_pg_array(a.ws, n, SZ_PG_WS_STATUSES));
		d.ws = a.ws + sz_gpu_pages_codec_ws_off(n, a.max_page_bytes);
		sz_gpu_decompress<W>(lc, d, n, max_elems);
	}
	const unsigned gx = sz_gpu_pages_copy_blocks(a.max_page_bytes);
	for (uint64_t p0 = 0; p0 < n; p0 += SZ_GPU_FRAMES_PER_LAUNCH) {
		a.page0 = (uint32_t)p0;
		const uint64_t left = n - p0;
		const unsigned np =
		    (unsigned)(left < SZ_GPU_FRAMES_PER_LAUNCH ? left : SZ_GPU_FRAMES_PER_LAUNCH);
		lc.launch("pages_raw", sz_gpu_dim{gx, np}, SZ_GPU_THREADS, sz_k_pages_raw<W>, a);
	}
	lc.launch("pages_dec_finish", sz_gpu_dim{1, 1}, SZ_GPU_THREADS, sz_k_pages_dec_finish<W>,
	          a);
}

#endif /* SZ_GPU_PAGES_CUH */
