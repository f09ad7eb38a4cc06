/*
 * sz_gpu_pages.cuh -- page streams on the GPU (doc/FORMAT.md §12, version 2): the kernels that
 * choose the table and the raw pages, gather, plan, pack, validate and scatter a stream around
 * the batched frame codec of sz_gpu_driver.cuh, and their launch sequences, templated over a
 * launcher like sz_gpu_compress(). One source for CUDA, HIP and the CPU SIMT harness (include
 * only sz_gpu_compat.cuh wrappers and core headers). Streams must equal the host's
 * (api/sz_api_pages_host.c) byte for byte, and a damaged stream must get the host's status,
 * page sizes and page states: every layout decision and check is a core/sz_pages.h helper.
 * The sequences and the workspace are described in sz_gpu_pages_args.h.
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

/* Array k (SZ_PG_WS_*) of the workspace of n pages and F frames, as 8-byte cells. */
SZ_HOST_DEVICE uint64_t *sz_pg_array(uint8_t *ws, uint64_t n, uint64_t F, unsigned k)
{
	return reinterpret_cast<uint64_t *>(ws + sz_gpu_pg_array_off(n, F, k));
}

SZ_DEVICE uint64_t sz_pg_get(uint64_t *a, uint64_t i)
{
	return sz_gld_u64(a + i);
}
SZ_DEVICE void sz_pg_set(uint64_t *a, uint64_t i, uint64_t v)
{
	sz_gst_u64(a + i, v);
}

#define SZ_PG_RAW_BIT (1ull << 63)

/* Page i of an io: its address and its size (or capacity). */
SZ_DEVICE uint8_t *sz_pg_page(const sz_gpu_pages_io &io, uint64_t i)
{
	if (io.ptrs)
		return static_cast<uint8_t *>(sz_gld_ptr(&io.ptrs[i]));
	return io.pool + (uint64_t)sz_gld_u64(&io.index[i]) * io.stride;
}
SZ_DEVICE uint64_t sz_pg_bytes(const sz_gpu_pages_io &io, uint64_t i)
{
	return io.ptrs ? sz_gld_u64(&io.bytes[i]) : io.page_bytes;
}

/* Whether page i of an io is a usable array of 'bytes' bytes: empty, or not NULL, 2-byte
 * aligned and (a pool page) inside the pool. */
SZ_DEVICE bool sz_pg_page_ok(const sz_gpu_pages_io &io, uint64_t i, uint64_t bytes)
{
	if (!bytes)
		return true;
	if (!io.ptrs) {
		const int64_t k = (int64_t)sz_gld_u64(&io.index[i]);
		if (k < 0 || bytes > io.pool_size ||
		    (io.stride && (uint64_t)k > (io.pool_size - bytes) / io.stride))
			return false;
	}
	const uint8_t *p = sz_pg_page(io, i);
	return p && !((uintptr_t)p & 1);
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

/* Copy 'len' bytes, thread gt of gs threads: 16-byte accesses where both ends allow, else
 * 2-byte ones where they allow (pages are 2-byte aligned), else bytes (a caller's odd dst). */
SZ_DEVICE void sz_pg_copy(uint8_t *d, const uint8_t *s, uint64_t len, uint64_t gt, uint64_t gs)
{
	uint64_t done = 0;
	const uintptr_t mis = (uintptr_t)d | (uintptr_t)s;
	if ((mis & 15) == 0) {
		for (uint64_t u = gt; u < len / 16; u += gs)
			sz_gst_x4(d + 16 * u, sz_gld_x4(s + 16 * u));
		done = len / 16 * 16;
	}
	if ((mis & 1) == 0) {
		for (uint64_t k = done / 2 + gt; k < len / 2; k += gs)
			sz_gst_u16(d + 2 * k, sz_gld_u16(s + 2 * k));
		done = len / 2 * 2;
	}
	for (uint64_t k = done + gt; k < len; k += gs)
		sz_gst_u8(d + k, sz_gld_u8(s + k));
}

/* Zero bytes [a, b) of d, thread gt of gs. */
SZ_DEVICE void sz_pg_zero(uint8_t *d, uint64_t a, uint64_t b, uint64_t gt, uint64_t gs)
{
	for (uint64_t k = a + gt; k < b; k += gs)
		sz_gst_u8(d + k, 0);
}

/* 4096-element pieces of a page of at most max_bytes: the unit of the per-page grids. */
SZ_HOST_DEVICE uint64_t sz_pg_pieces(uint64_t max_bytes)
{
	return (max_bytes / 2 + 4095) / 4096 ? (max_bytes / 2 + 4095) / 4096 : 1;
}

/*
 * What the threads of a per-page (or per-frame) copy block need, read once by thread 0 into
 * shared memory (every thread reading the same descriptors itself would multiply the loads by
 * the block size): whether to copy, from where, to where, how many bytes.
 */
struct sz_pg_job {
	const uint8_t *from;
	uint8_t *to;
	uint64_t bytes;
	uint32_t go;
	uint32_t reserved;
};

/* The block's copy of job J (thread 0 filled it; the barrier is here). */
SZ_DEVICE void sz_pg_run_job(sz_pg_job &J)
{
	sz_syncthreads();
	if (!J.go) /* uniform */
		return;
	sz_pg_copy(J.to, J.from, J.bytes, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x,
	           (uint64_t)gridDim.x * blockDim.x);
}

/* ==================================================================== */
/*                      Compression: table and raw pages                */
/* ==================================================================== */

/* One block: every page's arguments, element counts and total; the histogram zeroed. */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_enc_init(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, tmp, SZ_GPU_THREADS / 32);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	const uint64_t n = a.n_pages, F = sz_gpu_pg_max_frames(n, a.max_page_bytes);
	uint64_t *elems = sz_pg_array(a.ws, n, F, SZ_PG_WS_ELEMS);
	uint64_t bad = ~(uint64_t)0, sum = 0;
	for (uint64_t i = threadIdx.x; i < n; i += blockDim.x) {
		const uint64_t b = sz_pg_bytes(a.in, i);
		/* As the host API: a page of nonzero size is a 2-byte aligned BF16 array. */
		if ((b % 2 || b > a.max_page_bytes || !sz_pg_page_ok(a.in, i, b)) && i < bad)
			bad = i;
		sz_pg_set(elems, i, b / 2);
		sum += b / 2;
	}
	bad = sz_pg_block_reduce<W>(bad, true, tmp);
	sum = sz_pg_block_reduce<W>(sum, false, tmp);
	sz_gst_u64(&st->hist[threadIdx.x], 0); /* SZ_GPU_THREADS == 256 */
	if (threadIdx.x == 0) {
		sz_gst_u32(reinterpret_cast<uint32_t *>(&st->status),
		           bad == ~(uint64_t)0 ? (uint32_t)SPLITZIP_OK
		                               : (uint32_t)SPLITZIP_ERROR_INVALID_ARGUMENT);
		sz_gst_u64(&st->total, sum);
		sz_gst_u64(&st->raw_sum, 0);
		sz_gst_u32(&st->ok, 0);
		sz_gst_u32(&st->chosen, 0);
	}
}

/* The exponent histogram of every element of every page (FORMAT.md §12.4 step 1): a grid over
 * the 4096-element pieces of the pages (thread 0 reads each piece's page into shared memory), a
 * block histogram in shared memory, summed into the state (integer sums: any order gives the
 * same counts). */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_hist(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint32_t, H, 256);
	SZ_SHARED_ARRAY(sz_pg_job, J, 1);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	const unsigned t = threadIdx.x;
	H[t] = 0;
	if (t == 0)
		J[0].go = (int32_t)sz_gld_u32(&st->status) == SPLITZIP_OK;
	sz_syncthreads();
	const uint64_t n = a.n_pages, ppp = sz_pg_pieces(a.max_page_bytes);
	const bool go = J[0].go != 0; /* uniform */
	for (uint64_t u = blockIdx.x; go && u < n * ppp; u += gridDim.x) {
		sz_syncthreads(); /* the last piece is done with J */
		if (t == 0) {
			const uint64_t i = u / ppp, e0 = (u % ppp) * 4096,
			               m = sz_pg_bytes(a.in, i) / 2;
			J[0].bytes = e0 < m ? (m - e0 < 4096 ? m - e0 : 4096) : 0;
			J[0].from = J[0].bytes ? sz_pg_page(a.in, i) + 2 * e0 : nullptr;
		}
		sz_syncthreads();
		const uint16_t *x = reinterpret_cast<const uint16_t *>(J[0].from);
		for (uint64_t k = t; k < J[0].bytes; k += SZ_GPU_THREADS)
			sz_smem_atomic_add(&H[(sz_gld_u16(x + k) >> 7) & 0xFFu], 1u);
	}
	sz_syncthreads();
	if (H[t])
		sz_atomic_add_relaxed(&st->hist[t], (uint64_t)H[t]);
}

/* §5.1 of the state's histogram, by the block (thread e ranks exponent e by count descending,
 * then exponent ascending); the 16 first, ascending, to cb. */
SZ_DEVICE void sz_pg_select(const uint64_t *hist, uint8_t *sel, uint8_t *cb)
{
	const unsigned e = threadIdx.x;
	const uint64_t he = sz_gld_u64(hist + e);
	unsigned rank = 0;
	for (unsigned x = 0; x < 256; x++) {
		const uint64_t hx = sz_gld_u64(hist + x);
		rank += hx > he || (hx == he && x < e);
	}
	sel[e] = rank < 16;
	sz_syncthreads();
	if (sel[e]) {
		unsigned pos = 0;
		for (unsigned x = 0; x < e; x++)
			pos += sel[x];
		cb[pos] = (uint8_t)e;
	}
	sz_syncthreads();
}

/*
 * One block: the tables of the candidates (FORMAT.md §12.4 step 1): the split4 codebook, fixed
 * or §5.1 of the histogram; the entropy table, fixed or §5.2 of the histogram (package-merge
 * on the device, the escape symbol of weight 1), its lengths to the state.
 */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_table(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_ent_pm_smem, P, 1);
	SZ_SHARED_ARRAY(uint8_t, sel, 256);
	SZ_SHARED_ARRAY(uint8_t, cb, 16);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	const unsigned t = threadIdx.x;
	if ((int32_t)sz_gld_u32(&st->status) != SPLITZIP_OK) /* uniform */
		return;
	if (a.fixed[0]) {
		if (t < 16)
			cb[t] = a.codebook[t];
		sz_syncthreads();
	} else {
		sz_pg_select(st->hist, sel, cb);
	}
	if (t < 16)
		sz_gst_u8(&st->codebook[t], cb[t]);
	if (a.encoding == SPLITZIP_ENCODING_SPLIT4)
		return;
	if (a.fixed[1] || sz_gld_u64(&st->total) == 0) { /* no elements: no table */
		for (unsigned s = t; s < SPLITZIP_ENTROPY_SYMBOLS; s += SZ_GPU_THREADS)
			sz_gst_u8(&st->lengths[s], a.fixed[1] ? a.table[s] : 0);
		return;
	}
	const uint64_t w = sz_gld_u64(&st->hist[t]);
	P[0].w[t] = w;
	const int m = sz_syncthreads_count(w != 0);
	if (t == 0) {
		P[0].w[SPLITZIP_ENTROPY_ESC] = 1;
		P[0].m = (uint32_t)m + 1;
	}
	sz_syncthreads();
	sz_ent_package_merge(P[0]);
	for (unsigned s = t; s < SPLITZIP_ENTROPY_SYMBOLS; s += SZ_GPU_THREADS)
		sz_gst_u8(&st->lengths[s], P[0].len[s]);
}

/*
 * Every page's raw bits (FORMAT.md §12.4 step 2): a block per page at a time, the sums of the
 * per-exponent costs over its elements -- escapes under the codebook, and the entropy bits --
 * then 6 E >= n (split4) and 8 n + bits >= 16 n (entropy). The raw bits go to bit 63 of the
 * candidates' position arrays (the scan fills in the rest).
 */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_cost(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint8_t, c4, 256);
	SZ_SHARED_ARRAY(uint8_t, ce, 256);
	SZ_SHARED_ARRAY(uint8_t, cb, 16);
	SZ_SHARED_ARRAY(uint64_t, tmp, SZ_GPU_THREADS / 32);
	SZ_SHARED_ARRAY(sz_pg_job, J, 1);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	const unsigned t = threadIdx.x;
	if (t == 0)
		J[0].go = (int32_t)sz_gld_u32(&st->status) == SPLITZIP_OK;
	if (t < 16)
		cb[t] = sz_gld_u8(&st->codebook[t]);
	sz_syncthreads();
	if (!J[0].go) /* uniform */
		return;
	const bool ent = a.encoding != SPLITZIP_ENCODING_SPLIT4;
	uint8_t in = 0;
	for (unsigned k = 0; k < 16; k++)
		in |= cb[k] == t;
	c4[t] = !in;
	const unsigned lt = ent ? sz_gld_u8(&st->lengths[t]) : 0;
	const unsigned le = ent ? sz_gld_u8(&st->lengths[SPLITZIP_ENTROPY_ESC]) : 0;
	ce[t] = (uint8_t)(lt ? lt : le + SPLITZIP_ENTROPY_RAW_BITS);
	sz_syncthreads();
	const uint64_t n = a.n_pages, F = sz_gpu_pg_max_frames(n, a.max_page_bytes);
	uint64_t *p0 = sz_pg_array(a.ws, n, F, SZ_PG_WS_POS0),
	         *p1 = sz_pg_array(a.ws, n, F, SZ_PG_WS_POS1);
	for (uint64_t i = blockIdx.x; i < n; i += gridDim.x) {
		if (t == 0) { /* the page, once for the block (the reduces' barriers order J) */
			J[0].bytes = sz_pg_bytes(a.in, i) / 2;
			J[0].from = sz_pg_page(a.in, i);
		}
		sz_syncthreads();
		const uint64_t m = J[0].bytes;
		const uint16_t *x = reinterpret_cast<const uint16_t *>(J[0].from);
		uint64_t esc = 0, bits = 0;
		for (uint64_t k = t; k < m; k += SZ_GPU_THREADS) {
			const unsigned e = (sz_gld_u16(x + k) >> 7) & 0xFFu;
			esc += c4[e];
			bits += ce[e];
		}
		esc = sz_pg_block_reduce<W>(esc, false, tmp);
		bits = sz_pg_block_reduce<W>(bits, false, tmp);
		if (t == 0) {
			sz_pg_set(p0, i, 6 * esc >= m ? SZ_PG_RAW_BIT : 0);
			sz_pg_set(p1, i, ent && 8 * m + bits >= 16 * m ? SZ_PG_RAW_BIT : 0);
		}
	}
}

/* Slot set of candidate c: AUTO keeps both candidates' frames, one encoding one set. */
SZ_DEVICE unsigned sz_pg_set_of(const sz_gpu_pages_enc &a, unsigned c)
{
	return a.encoding == SPLITZIP_ENCODING_AUTO ? c : 0u;
}

/*
 * One block, candidate a.cand: the coded and raw positions of the pages in page order (a block
 * scan over tiles of pages), the element counts, and the frame codec's batch arrays: frame j
 * of the coded elements from the gather buffer into its slot. Frames beyond Frame_Count, and
 * every frame after an argument error, get 0 elements (a 64-byte stored frame in their slot,
 * never used): the arrays are always valid for the frame encoder that follows.
 */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_scan(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, tmp, SZ_GPU_THREADS / 32);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	const bool ok = (int32_t)sz_gld_u32(&st->status) == SPLITZIP_OK; /* uniform */
	const unsigned t = threadIdx.x, c = a.cand;
	const uint64_t n = a.n_pages, F = sz_gpu_pg_max_frames(n, a.max_page_bytes);
	uint64_t *pos = sz_pg_array(a.ws, n, F, c ? SZ_PG_WS_POS1 : SZ_PG_WS_POS0);
	uint64_t *elems = sz_pg_array(a.ws, n, F, SZ_PG_WS_ELEMS);
	uint64_t coded = 0, raw = 0;
	for (uint64_t base = 0; ok && base < n; base += blockDim.x) { /* every thread, every tile */
		const uint64_t i = base + t;
		const uint64_t m = i < n ? sz_pg_get(elems, i) : 0;
		const bool r = i < n && (sz_pg_get(pos, i) & SZ_PG_RAW_BIT);
		uint64_t tc, tr;
		const uint64_t xc = sz_pg_block_scan<W>(r ? 0 : m, tmp, &tc);
		const uint64_t xr = sz_pg_block_scan<W>(r ? m : 0, tmp, &tr);
		if (i < n)
			sz_pg_set(pos, i, r ? (raw + xr) | SZ_PG_RAW_BIT : coded + xc);
		coded += tc;
		raw += tr;
	}
	const uint64_t slot = sz_gpu_pg_slot(n, a.max_page_bytes);
	uint8_t *gather = a.ws + sz_gpu_pg_gather_off(n, F);
	uint8_t *slots = a.ws + sz_gpu_pg_slots_off(n, a.max_page_bytes, sz_pg_set_of(a, c));
	const uint64_t nf = splitzip_pages_n_frames(coded);
	for (uint64_t j = t; j < F; j += blockDim.x) {
		const uint64_t m = j < nf ? splitzip_pages_frame_elems(coded, j) : 0;
		sz_pg_set(sz_pg_array(a.ws, n, F, SZ_PG_WS_F_SRCS), j,
		          (uint64_t)(uintptr_t)(gather + 2 * (j << SPLITZIP_PAGES_FRAME_LOG2)));
		sz_pg_set(sz_pg_array(a.ws, n, F, SZ_PG_WS_F_NELEMS), j, m);
		sz_pg_set(sz_pg_array(a.ws, n, F, SZ_PG_WS_F_DSTS), j,
		          (uint64_t)(uintptr_t)(slots + j * slot));
		sz_pg_set(sz_pg_array(a.ws, n, F, SZ_PG_WS_F_CAPS), j, slot);
	}
	if (t == 0) {
		sz_gst_u64(&st->coded[c], coded);
		sz_gst_u64(&st->raw[c], raw);
	}
}

/* Page page0 + blockIdx.y, if coded under candidate a.cand, into the gather buffer at its
 * position; gridDim.x blocks share a page. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_gather(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_pg_job, J, 1);
	const uint64_t n = a.n_pages, i = (uint64_t)a.page0 + blockIdx.y;
	if (threadIdx.x == 0) {
		sz_gpu_pages_state *st = sz_pg_state(a.ws);
		const uint64_t F = sz_gpu_pg_max_frames(n, a.max_page_bytes);
		J[0].go = 0;
		if ((int32_t)sz_gld_u32(&st->status) == SPLITZIP_OK && i < n) {
			const uint64_t p = sz_pg_get(
			    sz_pg_array(a.ws, n, F, a.cand ? SZ_PG_WS_POS1 : SZ_PG_WS_POS0), i);
			J[0].go = !(p & SZ_PG_RAW_BIT);
			J[0].to = a.ws + sz_gpu_pg_gather_off(n, F) + 2 * (p & ~SZ_PG_RAW_BIT);
			J[0].from = sz_pg_page(a.in, i);
			J[0].bytes = sz_pg_bytes(a.in, i);
		}
	}
	sz_pg_run_job(J[0]);
}

/* ==================================================================== */
/*                    Compression: plan, pack, finish                   */
/* ==================================================================== */

/*
 * One block, candidate a.cand, after its frames are encoded: the size of its frames section
 * (the sum of its Frame_Count frames) and of its stream (FORMAT.md §12.1). A frame the encoder
 * failed (it cannot: every slot holds a stored frame) makes the status its status.
 */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_sizes(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, tmp, SZ_GPU_THREADS / 32);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	if ((int32_t)sz_gld_u32(&st->status) != SPLITZIP_OK) /* uniform */
		return;
	const unsigned c = a.cand;
	const uint64_t n = a.n_pages, F = sz_gpu_pg_max_frames(n, a.max_page_bytes);
	const uint64_t coded = sz_gld_u64(&st->coded[c]), nf = splitzip_pages_n_frames(coded);
	uint64_t *sizes = sz_pg_array(a.ws, n, F, c ? SZ_PG_WS_F_SIZES1 : SZ_PG_WS_F_SIZES0);
	const int32_t *stat = reinterpret_cast<const int32_t *>(
	    sz_pg_array(a.ws, n, F, c ? SZ_PG_WS_F_STATUS1 : SZ_PG_WS_F_STATUS0));
	uint64_t sum = 0, bad = 0;
	for (uint64_t j = threadIdx.x; j < nf; j += blockDim.x) {
		sum += sz_pg_get(sizes, j);
		const int32_t s = (int32_t)sz_gld_u32(stat + j);
		bad = s != SPLITZIP_OK && !bad ? (uint64_t)(uint32_t)s : bad;
	}
	sum = sz_pg_block_reduce<W>(sum, false, tmp);
	bad = sz_pg_block_reduce<W>(bad ? bad : ~(uint64_t)0, true, tmp);
	if (threadIdx.x == 0) {
		splitzip_pages_layout L;
		splitzip_pages_layout_of(n, coded, sz_gld_u64(&st->raw[c]), sum, &L);
		sz_gst_u64(&st->frames_size[c], sum);
		sz_gst_u64(&st->stream_size[c], L.stream_size);
		if (bad != ~(uint64_t)0)
			sz_gst_u32(reinterpret_cast<uint32_t *>(&st->status), (uint32_t)bad);
	}
}

/*
 * One block: the candidate written (AUTO: the smaller stream, split4 on a tie, FORMAT.md
 * §12.4), DST_TOO_SMALL if its stream does not fit, its layout, and the offsets of its frames
 * in the stream (a block scan of their sizes).
 */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_plan(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, tmp, SZ_GPU_THREADS / 32);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	const bool go = (int32_t)sz_gld_u32(&st->status) == SPLITZIP_OK;
	sz_syncthreads(); /* every thread has read the status before thread 0 may write it */
	if (!go)          /* uniform */
		return;
	unsigned c = a.encoding == SPLITZIP_ENCODING_ENTROPY ? 1u : 0u;
	if (a.encoding == SPLITZIP_ENCODING_AUTO &&
	    sz_gld_u64(&st->stream_size[0]) > sz_gld_u64(&st->stream_size[1]))
		c = 1;
	const uint64_t n = a.n_pages, F = sz_gpu_pg_max_frames(n, a.max_page_bytes);
	splitzip_pages_layout L;
	splitzip_pages_layout_of(n, sz_gld_u64(&st->coded[c]), sz_gld_u64(&st->raw[c]),
	                         sz_gld_u64(&st->frames_size[c]), &L);
	if (L.stream_size > a.dst_cap) {
		if (threadIdx.x == 0)
			sz_gst_u32(reinterpret_cast<uint32_t *>(&st->status),
			           (uint32_t)SPLITZIP_ERROR_DST_TOO_SMALL);
		return;
	}
	uint64_t *sizes = sz_pg_array(a.ws, n, F, c ? SZ_PG_WS_F_SIZES1 : SZ_PG_WS_F_SIZES0);
	uint64_t *offs = sz_pg_array(a.ws, n, F, SZ_PG_WS_F_OFFS);
	uint64_t run = L.frames_off;
	for (uint64_t base = 0; base < L.n_frames; base += blockDim.x) {
		const uint64_t j = base + threadIdx.x;
		const uint64_t s = j < L.n_frames ? sz_pg_get(sizes, j) : 0;
		uint64_t total;
		const uint64_t x = sz_pg_block_scan<W>(s, tmp, &total);
		if (j < L.n_frames)
			sz_pg_set(offs, j, run + x);
		run += total;
	}
	if (threadIdx.x == 0) {
		sz_gst_u32(&st->chosen, c);
		sz_gst_u32(&st->ok, 1);
	}
}

/* The chosen candidate's layout, from the state (after sz_k_pg_plan). */
SZ_DEVICE void sz_pg_chosen_layout(const sz_gpu_pages_enc &a, sz_gpu_pages_state *st,
                                   splitzip_pages_layout *L)
{
	const unsigned c = sz_gld_u32(&st->chosen);
	splitzip_pages_layout_of(a.n_pages, sz_gld_u64(&st->coded[c]), sz_gld_u64(&st->raw[c]),
	                         sz_gld_u64(&st->frames_size[c]), L);
}

/* Frame a.page0 + blockIdx.y of the chosen candidate from its slot to its place in the stream
 * (gridDim.x blocks share a frame). */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_pack_frames(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_pg_job, J, 1);
	if (threadIdx.x == 0) {
		sz_gpu_pages_state *st = sz_pg_state(a.ws);
		const unsigned c = sz_gld_u32(&st->chosen);
		const uint64_t n = a.n_pages, F = sz_gpu_pg_max_frames(n, a.max_page_bytes);
		const uint64_t j = (uint64_t)a.page0 + blockIdx.y;
		J[0].go =
		    sz_gld_u32(&st->ok) && j < splitzip_pages_n_frames(sz_gld_u64(&st->coded[c]));
		if (J[0].go) {
			J[0].from = a.ws +
			            sz_gpu_pg_slots_off(n, a.max_page_bytes, sz_pg_set_of(a, c)) +
			            j * sz_gpu_pg_slot(n, a.max_page_bytes);
			J[0].bytes = sz_pg_get(
			    sz_pg_array(a.ws, n, F, c ? SZ_PG_WS_F_SIZES1 : SZ_PG_WS_F_SIZES0), j);
			J[0].to = a.dst + sz_pg_get(sz_pg_array(a.ws, n, F, SZ_PG_WS_F_OFFS), j);
		}
	}
	sz_pg_run_job(J[0]);
}

/* Page a.page0 + blockIdx.y, if raw in the chosen candidate, into the raw section. */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_pack_raw(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_pg_job, J, 1);
	const uint64_t n = a.n_pages, i = (uint64_t)a.page0 + blockIdx.y;
	if (threadIdx.x == 0) {
		sz_gpu_pages_state *st = sz_pg_state(a.ws);
		J[0].go = 0;
		if (sz_gld_u32(&st->ok) && i < n) {
			const unsigned c = sz_gld_u32(&st->chosen);
			const uint64_t F = sz_gpu_pg_max_frames(n, a.max_page_bytes);
			const uint64_t p = sz_pg_get(
			    sz_pg_array(a.ws, n, F, c ? SZ_PG_WS_POS1 : SZ_PG_WS_POS0), i);
			splitzip_pages_layout L;
			sz_pg_chosen_layout(a, st, &L);
			J[0].go = (p & SZ_PG_RAW_BIT) != 0;
			J[0].to = a.dst + L.raw_off + 2 * (p & ~SZ_PG_RAW_BIT);
			J[0].from = sz_pg_page(a.in, i);
			J[0].bytes = sz_pg_bytes(a.in, i);
		}
	}
	sz_pg_run_job(J[0]);
}

/*
 * The raw checksum (FORMAT.md §7.2 over the raw section's elements) of the section at r of
 * 'elems' elements in chunks of 2^log2: each warp of the grid digests whole chunks, their folds
 * are summed into '*sum' (a wrapping sum: any order gives the same value).
 */
template <int W>
SZ_DEVICE void sz_pg_raw_chunks(const uint8_t *r, uint64_t elems, unsigned log2, uint64_t *sum)
{
	const uint64_t C = splitzip_n_chunks(elems, log2), NW = SZ_GPU_THREADS / W;
	const uint64_t w0 = (uint64_t)blockIdx.x * NW + sz_warp<W>(), ws = (uint64_t)gridDim.x * NW;
	uint64_t part = 0;
	for (uint64_t c = w0; c < C; c += ws) {
		const uint64_t m = 2 * splitzip_chunk_len(elems, log2, c);
		part += splitzip_hash_chunk_fold(sz_pg_digest<W>(r + (c << (log2 + 1)), m), c);
	}
	if (sz_lane<W>() == 0 && part)
		sz_atomic_add_relaxed(sum, part);
}

template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_rawsum(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_pg_job, J, 1); /* from: the raw section, bytes: its elements */
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	if (threadIdx.x == 0) {
		J[0].go = sz_gld_u32(&st->ok) && a.checksum;
		if (J[0].go) {
			splitzip_pages_layout L;
			sz_pg_chosen_layout(a, st, &L);
			J[0].from = a.dst + L.raw_off;
			J[0].bytes = L.raw_elems;
		}
	}
	sz_syncthreads();
	if (J[0].go) /* uniform */
		sz_pg_raw_chunks<W>(J[0].from, J[0].bytes, a.chunk_log2, &st->raw_sum);
}

/* Table_Checksum of the n entries after the header at s, by warp 0 (every lane gets it). */
template <int W> SZ_DEVICE uint32_t sz_pg_table_checksum(const uint8_t *s, uint64_t n)
{
	return (uint32_t)sz_pg_digest<W>(s + SPLITZIP_PAGES_HEADER_SIZE,
	                                 SPLITZIP_PAGES_ENTRY_SIZE * n);
}

/* Store 64 bytes from shared memory to d (any alignment), threads t < 64 of the block. */
SZ_DEVICE void sz_pg_put64(uint8_t *d, const uint8_t *hb)
{
	if (threadIdx.x < 64)
		sz_gst_u8(d + threadIdx.x, hb[threadIdx.x]);
}

/*
 * One block: the page table, the padding between the sections, Table_Checksum, the header,
 * the size and the status; on error only the size (0) and the status.
 */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_finish(sz_gpu_pages_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint8_t, hb, 64);
	SZ_SHARED_ARRAY(uint32_t, tsum, 1);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	const int32_t s = (int32_t)sz_gld_u32(&st->status);
	if (!sz_gld_u32(&st->ok) || s != SPLITZIP_OK) { /* uniform */
		if (threadIdx.x == 0) {
			sz_gst_u64(a.out_size, 0);
			sz_gst_u32(reinterpret_cast<uint32_t *>(a.status), (uint32_t)s);
		}
		return;
	}
	const unsigned c = sz_gld_u32(&st->chosen);
	const uint64_t n = a.n_pages, F = sz_gpu_pg_max_frames(n, a.max_page_bytes);
	splitzip_pages_layout L;
	sz_pg_chosen_layout(a, st, &L);
	uint64_t *elems = sz_pg_array(a.ws, n, F, SZ_PG_WS_ELEMS);
	uint64_t *pos = sz_pg_array(a.ws, n, F, c ? SZ_PG_WS_POS1 : SZ_PG_WS_POS0);
	for (uint64_t i = threadIdx.x; i < n; i += blockDim.x) {
		const uint32_t e =
		    (uint32_t)sz_pg_get(elems, i) |
		    ((sz_pg_get(pos, i) & SZ_PG_RAW_BIT) ? SPLITZIP_PAGES_RAW_BIT : 0u);
		uint8_t *d = a.dst + splitzip_pages_table_end(i);
		for (unsigned b = 0; b < 4; b++)
			sz_gst_u8(d + b, (uint8_t)(e >> (8 * b)));
	}
	const uint64_t te = splitzip_pages_table_end(n);
	sz_pg_zero(a.dst, te, L.frames_off, threadIdx.x, blockDim.x);
	sz_pg_zero(a.dst, L.frames_end, L.raw_off, threadIdx.x, blockDim.x);
	sz_syncthreads(); /* the entries are in dst: warp 0 hashes them */
	if (sz_warp<W>() == 0) {
		const uint32_t tc = sz_pg_table_checksum<W>(a.dst, n);
		if (sz_lane<W>() == 0)
			tsum[0] = tc;
	}
	sz_syncthreads();
	if (threadIdx.x == 0) {
		splitzip_pages_header h;
		h.version = SPLITZIP_PAGES_FORMAT_VERSION;
		h.flags = (a.checksum ? SPLITZIP_PAGES_FLAG_CHECKSUM : 0u) |
		          (a.fixed[c] ? SPLITZIP_PAGES_FLAG_FIXED_TABLE : 0u);
		h.encoding = c ? SPLITZIP_MODE_ENTROPY : SPLITZIP_MODE_SPLIT4;
		h.chunk_log2 = a.chunk_log2;
		h.n_pages = (uint32_t)n;
		h.table_id = a.fixed[c] ? a.table_id : 0;
		h.total_elems = sz_gld_u64(&st->total);
		h.frames_size = L.frames_end - L.frames_off;
		h.stream_size = L.stream_size;
		h.raw_checksum =
		    a.checksum ? splitzip_hash_frame_final(L.raw_elems, sz_gld_u64(&st->raw_sum))
		               : 0;
		h.table_checksum = tsum[0];
		splitzip_pages_header_write(hb, &h);
	}
	sz_syncthreads();
	sz_pg_put64(a.dst, hb);
	if (threadIdx.x == 0) {
		sz_gst_u64(a.out_size, L.stream_size);
		sz_gst_u32(reinterpret_cast<uint32_t *>(a.status), (uint32_t)SPLITZIP_OK);
	}
}

/* ==================================================================== */
/*                    Decompression: validate, decode, scatter          */
/* ==================================================================== */

/* What the validating block shares (shared memory; written by thread 0 unless said). */
struct sz_pg_dec_smem {
	uint8_t hb[64];    /* the stream header, then the current frame's header */
	uint8_t first[64]; /* the header of the first frame that carries the table */
	splitzip_pages_header h;
	splitzip_pages_layout L;
	splitzip_header fh0; /* the parsed header of that frame */
	const uint8_t *f0;   /* that frame, or NULL */
	int32_t status;
	uint32_t reserved;
	uint64_t tmp[SZ_GPU_THREADS / 32];
};

/* Bytes [0, m) of g to shared memory s, m <= 64, by thread 0. */
SZ_DEVICE void sz_pg_load_small(uint8_t *s, const uint8_t *g, uint64_t m)
{
	for (unsigned b = 0; b < m && b < 64; b++)
		s[b] = sz_gld_u8(g + b);
}

/* Entry i of the page table of the stream at s (device memory, any alignment). */
SZ_DEVICE uint32_t sz_pg_entry(const uint8_t *s, uint64_t i)
{
	const uint8_t *p = s + splitzip_pages_table_end(i);
	return (uint32_t)sz_gld_u8(p) | (uint32_t)sz_gld_u8(p + 1) << 8 |
	       (uint32_t)sz_gld_u8(p + 2) << 16 | (uint32_t)sz_gld_u8(p + 3) << 24;
}

/* A struct of 4-byte multiples to and from global memory through the wrappers. */
template <typename T> SZ_DEVICE void sz_pg_put_struct(T *g, const T &v)
{
	static_assert(sizeof(T) % 4 == 0, "whole words");
	const uint32_t *s = reinterpret_cast<const uint32_t *>(&v);
	for (unsigned k = 0; k < sizeof(T) / 4; k++)
		sz_gst_u32(reinterpret_cast<uint32_t *>(g) + k, s[k]);
}
template <typename T> SZ_DEVICE T sz_pg_get_struct(const T *g)
{
	T v;
	uint32_t *d = reinterpret_cast<uint32_t *>(&v);
	for (unsigned k = 0; k < sizeof(T) / 4; k++)
		d[k] = sz_gld_u32(reinterpret_cast<const uint32_t *>(g) + k);
	return v;
}

/* Set the block's status (thread 0; a barrier after, by the caller). */
SZ_DEVICE void sz_pg_fail(sz_pg_dec_smem &S, int32_t s)
{
	if (threadIdx.x == 0 && S.status == SPLITZIP_OK)
		S.status = s;
}

/* The destination arguments as splitzip_pages_decompress() checks them: the lowest page with
 * a NULL or odd address and a nonzero capacity (or one above max_page_bytes, or outside the
 * pool) makes INVALID_ARGUMENT. */
template <int W> SZ_DEVICE void sz_pg_dec_args(const sz_gpu_pages_dec &a, sz_pg_dec_smem &S)
{
	uint64_t bad = 0;
	for (uint64_t i = threadIdx.x; i < a.n_pages; i += blockDim.x) {
		const uint64_t cap = sz_pg_bytes(a.out, i);
		bad |= cap > a.max_page_bytes || !sz_pg_page_ok(a.out, i, cap);
	}
	if (sz_pg_block_reduce<W>(bad, false, S.tmp))
		sz_pg_fail(S, SPLITZIP_ERROR_INVALID_ARGUMENT);
	sz_syncthreads();
}

/* What splitzip_pages_decompress() does before the checks: the sizes 0, the states
 * UNTOUCHED, no pages yet. */
SZ_DEVICE void sz_pg_dec_clear(const sz_gpu_pages_dec &a)
{
	for (uint64_t i = threadIdx.x; i < a.n_pages; i += blockDim.x) {
		if (a.page_sizes)
			sz_gst_u64(&a.page_sizes[i], 0);
		if (a.page_states)
			sz_gst_u8(&a.page_states[i], SPLITZIP_PAGE_UNTOUCHED);
	}
	if (threadIdx.x == 0)
		sz_gst_u64(a.n_pages_out, 0);
}

/* FORMAT.md §12.5 steps 0-9: the header, the table checksum, the table's sums, the layout,
 * the padding. */
template <int W> SZ_DEVICE void sz_pg_dec_table(const sz_gpu_pages_dec &a, sz_pg_dec_smem &S)
{
	if (threadIdx.x == 0) {
		sz_pg_load_small(S.hb, a.src, a.src_size);
		S.status = splitzip_pages_read_header(S.hb, a.src_size, &S.h); /* steps 0-7 */
	}
	sz_syncthreads();
	const bool go = S.status == SPLITZIP_OK;
	sz_syncthreads(); /* read by all before warp 0 may write it */
	if (!go)          /* uniform */
		return;
	const uint64_t n = S.h.n_pages;
	if (sz_warp<W>() == 0) { /* step 8 */
		const uint32_t tc = sz_pg_table_checksum<W>(a.src, n);
		if (sz_lane<W>() == 0 && tc != S.h.table_checksum)
			S.status = SPLITZIP_ERROR_HEADER_CHECKSUM;
	}
	uint64_t coded = 0, raw = 0;
	for (uint64_t i = threadIdx.x; i < n; i += blockDim.x) {
		const uint32_t e = sz_pg_entry(a.src, i);
		raw += splitzip_pages_entry_raw(e) ? splitzip_pages_entry_elems(e) : 0;
		coded += splitzip_pages_entry_raw(e) ? 0 : splitzip_pages_entry_elems(e);
	}
	coded = sz_pg_block_reduce<W>(coded, false, S.tmp); /* barriers: the checksum is in */
	raw = sz_pg_block_reduce<W>(raw, false, S.tmp);
	if (S.status != SPLITZIP_OK)
		return;
	splitzip_pages_layout L;
	splitzip_pages_layout_of(n, coded, raw, S.h.frames_size, &L); /* step 9 */
	bool bad = coded + raw != S.h.total_elems || (L.n_frames == 0) != (S.h.frames_size == 0) ||
	           L.stream_size != S.h.stream_size;
	const uint64_t te = splitzip_pages_table_end(n);
	uint64_t nz = 0;
	for (uint64_t k = te + threadIdx.x; !bad && k < L.frames_off; k += blockDim.x)
		nz |= sz_gld_u8(a.src + k);
	for (uint64_t k = L.frames_end + threadIdx.x; !bad && k < L.raw_off; k += blockDim.x)
		nz |= sz_gld_u8(a.src + k);
	nz = sz_pg_block_reduce<W>(nz, false, S.tmp);
	if (threadIdx.x == 0) {
		S.L = L;
		if (bad || nz)
			S.status = SPLITZIP_ERROR_CORRUPT_STREAM;
	}
	sz_syncthreads();
}

/* splitzip_pages_same_table() for the frames at a and b (device memory) whose 64 header
 * bytes passed §3.2 (parsed in ha, hb; the split4 codebooks are in the copies ca, cb). */
SZ_DEVICE bool sz_pg_same_table(const uint8_t *a, const splitzip_header &ha, const uint8_t *ca,
                                const uint8_t *b, const splitzip_header &hb, const uint8_t *cb)
{
	if (ha.mode != hb.mode)
		return false;
	if (ha.mode != SPLITZIP_MODE_ENTROPY) {
		for (unsigned i = 0; i < 16; i++)
			if (ca[SZ_H_CODEBOOK + i] != cb[SZ_H_CODEBOOK + i])
				return false;
		return true;
	}
	if (ha.table_first != hb.table_first || ha.table_last != hb.table_last ||
	    ha.escape_length != hb.escape_length)
		return false;
	uint64_t na, nb;
	const uint8_t *ta = splitzip_pages_frame_table(a, &ha, &na);
	const uint8_t *tb = splitzip_pages_frame_table(b, &hb, &nb);
	for (uint64_t i = 0; i < na; i++)
		if (sz_gld_u8(ta + i) != sz_gld_u8(tb + i))
			return false;
	return true;
}

/*
 * Step 10 by thread 0: every frame header in order (splitzip_pages_check_frame() on a copy of
 * its 64 bytes), inside the frames section, one table for all; the offsets of the first F
 * frames to F_OFFS (there are no more once the destinations pass).
 */
SZ_DEVICE void sz_pg_dec_walk(const sz_gpu_pages_dec &a, sz_pg_dec_smem &S, uint64_t *offs,
                              uint64_t F)
{
	if (threadIdx.x != 0 || S.status != SPLITZIP_OK)
		return;
	const splitzip_pages_layout &L = S.L;
	uint64_t off = L.frames_off;
	S.f0 = nullptr;
	for (uint64_t j = 0; j < L.n_frames; j++) {
		const uint64_t left = L.frames_end - off;
		sz_pg_load_small(S.hb, a.src + off, left);
		splitzip_header fh;
		const splitzip_status s = splitzip_pages_check_frame(S.hb, left, &S.h, &L, j, &fh);
		if (s != SPLITZIP_OK) {
			S.status = s;
			return;
		}
		if (fh.mode != SPLITZIP_MODE_STORED) { /* e */
			if (!S.f0) {
				S.f0 = a.src + off;
				S.fh0 = fh;
				for (unsigned b = 0; b < 64; b++)
					S.first[b] = S.hb[b];
			} else if (!sz_pg_same_table(S.f0, S.fh0, S.first, a.src + off, fh, S.hb)) {
				S.status = SPLITZIP_ERROR_CORRUPT_STREAM;
				return;
			}
		}
		if (j < F)
			sz_pg_set(offs, j, off);
		off += fh.frame_size;
	}
	if (off != L.frames_end)
		S.status = SPLITZIP_ERROR_CORRUPT_STREAM;
}

/* The destination checks (splitzip_pages_check_dst()): the first failing condition in page
 * order, after the page counts. */
template <int W> SZ_DEVICE void sz_pg_dec_dst(const sz_gpu_pages_dec &a, sz_pg_dec_smem &S)
{
	const bool go = S.status == SPLITZIP_OK;
	sz_syncthreads(); /* read by all before thread 0 may write it */
	if (!go)          /* uniform */
		return;
	const uint64_t m = S.h.n_pages;
	if (a.exact && m != a.n_pages) {
		sz_pg_fail(S, SPLITZIP_ERROR_GEOMETRY);
	} else if (m > a.n_pages) {
		sz_pg_fail(S, SPLITZIP_ERROR_DST_TOO_SMALL);
	} else {
		uint64_t first = ~(uint64_t)0, code = 0;
		for (uint64_t i = threadIdx.x; i < m; i += blockDim.x) {
			const uint64_t b = 2 * splitzip_pages_entry_elems(sz_pg_entry(a.src, i));
			const uint64_t cap = sz_pg_bytes(a.out, i);
			if ((a.exact && b != cap) || b > cap) {
				first = i < first ? i : first;
				break; /* later pages of this thread come after i */
			}
		}
		first = sz_pg_block_reduce<W>(first, true, S.tmp);
		if (first != ~(uint64_t)0) {
			const uint64_t b =
			    2 * splitzip_pages_entry_elems(sz_pg_entry(a.src, first));
			code = a.exact && b != sz_pg_bytes(a.out, first)
			           ? (uint64_t)(uint32_t)SPLITZIP_ERROR_GEOMETRY
			           : (uint64_t)(uint32_t)SPLITZIP_ERROR_DST_TOO_SMALL;
			sz_pg_fail(S, (int32_t)(uint32_t)code);
		}
	}
	sz_syncthreads();
}

/*
 * One block: the arguments, the stream's structure (FORMAT.md §12.5 steps 0-10) and the
 * destinations (§12.6), in the order and with the statuses of the host; then the batch arrays
 * of the frame decoder: the stream's frames into the gather buffer, or (an invalid stream,
 * frames past Frame_Count) empty entries that decode nothing.
 */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_dec_head(sz_gpu_pages_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_pg_dec_smem, S, 1);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	const uint64_t F = sz_gpu_pg_max_frames(a.n_pages, a.max_page_bytes);
	uint64_t *offs = sz_pg_array(a.ws, a.n_pages, F, SZ_PG_WS_F_OFFS);
	if (threadIdx.x == 0)
		S[0].status = SPLITZIP_OK;
	sz_syncthreads();
	sz_pg_dec_args<W>(a, S[0]);
	const bool args_ok = S[0].status == SPLITZIP_OK;
	sz_syncthreads(); /* read by all before thread 0 writes it again */
	if (args_ok) {    /* uniform */
		sz_pg_dec_clear(a);
		sz_pg_dec_table<W>(a, S[0]);
		sz_pg_dec_walk(a, S[0], offs, F);
		sz_syncthreads();
		sz_pg_dec_dst<W>(a, S[0]);
	}
	const bool ok = S[0].status == SPLITZIP_OK;
	const uint64_t nf = ok ? S[0].L.n_frames : 0, coded = ok ? S[0].L.coded_elems : 0;
	uint8_t *gather = a.ws + sz_gpu_pg_gather_off(a.n_pages, F);
	for (uint64_t j = threadIdx.x; j < F; j += blockDim.x) {
		const uint64_t off = j < nf ? sz_pg_get(offs, j) : 0;
		sz_pg_set(sz_pg_array(a.ws, a.n_pages, F, SZ_PG_WS_F_SRCS), j,
		          (uint64_t)(uintptr_t)(a.src + off));
		sz_pg_set(sz_pg_array(a.ws, a.n_pages, F, SZ_PG_WS_F_SIZES0), j,
		          j < nf ? S[0].L.frames_end - off : 0);
		sz_pg_set(sz_pg_array(a.ws, a.n_pages, F, SZ_PG_WS_F_DSTS), j,
		          (uint64_t)(uintptr_t)(gather + 2 * (j << SPLITZIP_PAGES_FRAME_LOG2)));
		sz_pg_set(sz_pg_array(a.ws, a.n_pages, F, SZ_PG_WS_F_CAPS), j,
		          j < nf ? splitzip_pages_frame_elems(coded, j) : 0);
	}
	if (threadIdx.x == 0) {
		sz_gst_u32(reinterpret_cast<uint32_t *>(&st->status), (uint32_t)S[0].status);
		sz_gst_u32(&st->ok, ok ? 1u : 0u);
		sz_gst_u64(&st->raw_sum, 0);
		if (ok) {
			sz_pg_put_struct(&st->hdr, S[0].h);
			sz_pg_put_struct(&st->lay, S[0].L);
		}
	}
}

template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_dec_rawsum(sz_gpu_pages_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_pg_job, J, 1); /* from: the raw section, bytes: its elements */
	SZ_SHARED_ARRAY(uint32_t, log2, 1);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	if (threadIdx.x == 0) {
		J[0].go = sz_gld_u32(&st->ok) &&
		          (sz_gld_u32(&st->hdr.flags) & SPLITZIP_PAGES_FLAG_CHECKSUM);
		if (J[0].go) {
			J[0].from = a.src + sz_gld_u64(&st->lay.raw_off);
			J[0].bytes = sz_gld_u64(&st->lay.raw_elems);
			log2[0] = sz_gld_u32(&st->hdr.chunk_log2);
		}
	}
	sz_syncthreads();
	if (J[0].go) /* uniform */
		sz_pg_raw_chunks<W>(J[0].from, J[0].bytes, log2[0], &st->raw_sum);
}

/*
 * State of page i after the first failing frame 'fail' (Frame_Count: none) and the raw
 * checksum (raw_ok), as splitzip_pages_decompress() leaves it: empty pages WRITTEN; coded
 * pages before the failing frame WRITTEN, those it covers DAMAGED, the rest UNTOUCHED; raw
 * pages WRITTEN when every frame and the checksum passed.
 */
SZ_DEVICE uint8_t sz_pg_dec_state(uint64_t m, bool raw, uint64_t o, uint64_t fail, bool all,
                                  bool raw_ok)
{
	if (!m)
		return SPLITZIP_PAGE_WRITTEN;
	if (raw)
		return all && raw_ok ? SPLITZIP_PAGE_WRITTEN : SPLITZIP_PAGE_UNTOUCHED;
	const uint64_t lo = fail << SPLITZIP_PAGES_FRAME_LOG2, hi = lo + SPLITZIP_PAGES_FRAME_ELEMS;
	if (all || o + m <= lo)
		return SPLITZIP_PAGE_WRITTEN;
	return o < hi ? SPLITZIP_PAGE_DAMAGED : SPLITZIP_PAGE_UNTOUCHED;
}

/* The first failing frame of the nf decoded ones (nf if none), to every thread. */
template <int W>
SZ_DEVICE uint64_t sz_pg_first_failing(const int32_t *stat, uint64_t nf, uint64_t *tmp)
{
	uint64_t first = nf;
	for (uint64_t j = threadIdx.x; j < nf; j += blockDim.x)
		if ((int32_t)sz_gld_u32(stat + j) != SPLITZIP_OK) {
			first = j;
			break;
		}
	return sz_pg_block_reduce<W>(first, true, tmp);
}

/*
 * One block, after the frames are decoded: the first failing frame, the raw checksum, every
 * page's size and state (page order: a block scan of the coded and raw positions), what the
 * scatter copies (per page: its position | raw bit; write), the page count and the status.
 */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_dec_finish(sz_gpu_pages_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, tmp, SZ_GPU_THREADS / 32);
	sz_gpu_pages_state *st = sz_pg_state(a.ws);
	const int32_t s0 = (int32_t)sz_gld_u32(&st->status);
	if (!sz_gld_u32(&st->ok)) { /* uniform: the sizes and states are as the head left them */
		if (threadIdx.x == 0)
			sz_gst_u32(reinterpret_cast<uint32_t *>(a.status), (uint32_t)s0);
		return;
	}
	const splitzip_pages_header h = sz_pg_get_struct(&st->hdr);
	const splitzip_pages_layout L = sz_pg_get_struct(&st->lay);
	const uint64_t F = sz_gpu_pg_max_frames(a.n_pages, a.max_page_bytes);
	const int32_t *stat =
	    reinterpret_cast<const int32_t *>(sz_pg_array(a.ws, a.n_pages, F, SZ_PG_WS_F_STATUS1));
	const uint64_t fail = sz_pg_first_failing<W>(stat, L.n_frames, tmp);
	const bool all = fail == L.n_frames;
	int32_t status = all ? SPLITZIP_OK : (int32_t)sz_gld_u32(stat + fail);
	bool raw_ok = true;
	if (all && (h.flags & SPLITZIP_PAGES_FLAG_CHECKSUM) &&
	    splitzip_hash_frame_final(L.raw_elems, sz_gld_u64(&st->raw_sum)) != h.raw_checksum) {
		raw_ok = false;
		status = SPLITZIP_ERROR_CONTENT_CHECKSUM;
	}
	uint64_t *elems = sz_pg_array(a.ws, a.n_pages, F, SZ_PG_WS_ELEMS);
	uint64_t *pos = sz_pg_array(a.ws, a.n_pages, F, SZ_PG_WS_POS0);
	uint64_t *wr = sz_pg_array(a.ws, a.n_pages, F, SZ_PG_WS_POS1);
	uint64_t coded = 0, raw = 0;
	for (uint64_t base = 0; base < h.n_pages; base += blockDim.x) {
		const uint64_t i = base + threadIdx.x;
		const uint32_t e = i < h.n_pages ? sz_pg_entry(a.src, i) : 0;
		const uint64_t m = splitzip_pages_entry_elems(e);
		const bool r = splitzip_pages_entry_raw(e) != 0;
		uint64_t tc, tr;
		const uint64_t xc = coded + sz_pg_block_scan<W>(r ? 0 : m, tmp, &tc);
		const uint64_t xr = raw + sz_pg_block_scan<W>(r ? m : 0, tmp, &tr);
		if (i < h.n_pages) {
			const uint8_t s = sz_pg_dec_state(m, r, xc, fail, all, raw_ok);
			sz_pg_set(elems, i, m);
			sz_pg_set(pos, i, r ? xr | SZ_PG_RAW_BIT : xc);
			sz_pg_set(wr, i, m && s == SPLITZIP_PAGE_WRITTEN);
			if (a.page_sizes)
				sz_gst_u64(&a.page_sizes[i], 2 * m);
			if (a.page_states)
				sz_gst_u8(&a.page_states[i], s);
		}
		coded += tc;
		raw += tr;
	}
	if (threadIdx.x == 0) {
		if (status == SPLITZIP_OK)
			sz_gst_u64(a.n_pages_out, h.n_pages);
		sz_gst_u32(reinterpret_cast<uint32_t *>(a.status), (uint32_t)status);
	}
}

/* Page a.page0 + blockIdx.y from the gather buffer (coded) or the raw section into its
 * destination, if the finish kernel says so. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_pg_scatter(sz_gpu_pages_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_pg_job, J, 1);
	const uint64_t i = (uint64_t)a.page0 + blockIdx.y;
	if (threadIdx.x == 0) {
		sz_gpu_pages_state *st = sz_pg_state(a.ws);
		const uint64_t F = sz_gpu_pg_max_frames(a.n_pages, a.max_page_bytes);
		J[0].go = sz_gld_u32(&st->ok) && i < a.n_pages &&
		          i < sz_gld_u32(&st->hdr.n_pages) &&
		          sz_pg_get(sz_pg_array(a.ws, a.n_pages, F, SZ_PG_WS_POS1), i);
		if (J[0].go) {
			const uint64_t p =
			    sz_pg_get(sz_pg_array(a.ws, a.n_pages, F, SZ_PG_WS_POS0), i);
			J[0].bytes =
			    2 * sz_pg_get(sz_pg_array(a.ws, a.n_pages, F, SZ_PG_WS_ELEMS), i);
			J[0].from =
			    p & SZ_PG_RAW_BIT
			        ? a.src + sz_gld_u64(&st->lay.raw_off) + 2 * (p & ~SZ_PG_RAW_BIT)
			        : a.ws + sz_gpu_pg_gather_off(a.n_pages, F) + 2 * p;
			J[0].to = sz_pg_page(a.out, i);
		}
	}
	sz_pg_run_job(J[0]);
}

/* ==================================================================== */
/*                           Launch sequences                           */
/* ==================================================================== */

/* Blocks per page (or frame) of the copy kernels: one per 64 KiB, a share of one wave. */
template <class Launcher, typename... P>
unsigned sz_pg_copy_blocks(Launcher &lc, void (*k)(P...), uint64_t count, uint64_t max_bytes)
{
	return sz_gpu_blocks_per_frame(lc.resident(k), count, max_bytes / 65536 + 1);
}

/* Kernel k over 'count' items (pages or frames) of up to max_bytes, gridDim.y of them per
 * launch from a.page0. */
template <class Launcher, class A, typename... P>
void sz_pg_launch_items(Launcher &lc, const char *name, void (*k)(P...), A a, uint64_t count,
                        uint64_t max_bytes)
{
	const unsigned bx = sz_pg_copy_blocks(lc, k, count, max_bytes);
	for (uint64_t p0 = 0; p0 < count; p0 += SZ_GPU_FRAMES_PER_LAUNCH) {
		a.page0 = (uint32_t)p0;
		lc.launch(name, sz_gpu_dim{bx, sz_gpu_launch_frames(count, p0)}, SZ_GPU_THREADS, k,
		          a);
	}
}

/* A one-wave grid of kernel k for 'work' independent units. */
template <class Launcher, typename... P>
sz_gpu_dim sz_pg_wave(Launcher &lc, void (*k)(P...), uint64_t work)
{
	return sz_gpu_dim{sz_gpu_clamp(work, 1, lc.resident(k)), 1};
}

/* The frames of candidate a.cand: the batched frame encoder over the F frame slots, the table
 * read from the state. */
template <int W, class Launcher>
void sz_pg_encode_frames(Launcher &lc, const sz_gpu_pages_enc &a, uint64_t F)
{
	const uint64_t n = a.n_pages;
	uint8_t *ws = a.ws;
	sz_gpu_pages_state *st = reinterpret_cast<sz_gpu_pages_state *>(ws);
	const unsigned c = a.cand;
	sz_gpu_enc e = {};
	e.frames.srcs =
	    reinterpret_cast<const uint16_t *const *>(sz_pg_array(ws, n, F, SZ_PG_WS_F_SRCS));
	e.frames.n_elems =
	    reinterpret_cast<const size_t *>(sz_pg_array(ws, n, F, SZ_PG_WS_F_NELEMS));
	e.frames.dsts = reinterpret_cast<void *const *>(sz_pg_array(ws, n, F, SZ_PG_WS_F_DSTS));
	e.frames.dst_caps =
	    reinterpret_cast<const size_t *>(sz_pg_array(ws, n, F, SZ_PG_WS_F_CAPS));
	e.frames.out_sizes = reinterpret_cast<size_t *>(
	    sz_pg_array(ws, n, F, c ? SZ_PG_WS_F_SIZES1 : SZ_PG_WS_F_SIZES0));
	e.frames.statuses = reinterpret_cast<int32_t *>(
	    sz_pg_array(ws, n, F, c ? SZ_PG_WS_F_STATUS1 : SZ_PG_WS_F_STATUS0));
	e.ws = ws + sz_gpu_pg_codec_off(n, a.max_page_bytes, sz_gpu_pg_sets(a.encoding));
	e.max_elems = sz_gpu_pg_frame_max(n, a.max_page_bytes);
	e.chunk_log2 = a.chunk_log2;
	e.flags = a.checksum ? SPLITZIP_FLAG_CONTENT_CHECKSUM : 0u;
	e.encoding = c ? SPLITZIP_ENCODING_ENTROPY : SPLITZIP_ENCODING_SPLIT4;
	e.split4.codebook_dev = st->codebook;
	e.entropy.table_dev = st->lengths;
	sz_gpu_compress<W>(lc, e, F);
}

/* Enqueue the compression of a page list (sz_gpu_pages_args.h); the caller has checked the
 * host-side arguments and the workspace size. */
template <int W, class Launcher> void sz_gpu_pages_compress(Launcher &lc, sz_gpu_pages_enc a)
{
	const uint64_t n = a.n_pages, F = sz_gpu_pg_max_frames(n, a.max_page_bytes);
	const sz_gpu_dim one{1, 1};
	const unsigned T = SZ_GPU_THREADS;
	const bool s4 = a.encoding != SPLITZIP_ENCODING_ENTROPY;
	const bool ent = a.encoding != SPLITZIP_ENCODING_SPLIT4;
	a.cand = 0;
	a.page0 = 0;
	lc.launch("pg_enc_init", one, T, sz_k_pg_enc_init<W>, a);
	if ((s4 && !a.fixed[0]) || (ent && !a.fixed[1]))
		lc.launch("pg_hist",
		          sz_pg_wave(lc, sz_k_pg_hist<W>, n * sz_pg_pieces(a.max_page_bytes)), T,
		          sz_k_pg_hist<W>, a);
	lc.launch("pg_table", one, T, sz_k_pg_table<W>, a);
	lc.launch("pg_cost", sz_pg_wave(lc, sz_k_pg_cost<W>, n), T, sz_k_pg_cost<W>, a);
	for (unsigned c = s4 ? 0u : 1u; c <= (ent ? 1u : 0u); c++) {
		a.cand = c;
		a.page0 = 0;
		lc.launch("pg_scan", one, T, sz_k_pg_scan<W>, a);
		sz_pg_launch_items(lc, "pg_gather", sz_k_pg_gather<W>, a, n, a.max_page_bytes);
		if (F)
			sz_pg_encode_frames<W>(lc, a, F);
		a.page0 = 0;
		lc.launch("pg_sizes", one, T, sz_k_pg_sizes<W>, a);
	}
	a.cand = 0;
	a.page0 = 0;
	lc.launch("pg_plan", one, T, sz_k_pg_plan<W>, a);
	sz_pg_launch_items(lc, "pg_pack_frames", sz_k_pg_pack_frames<W>, a, F,
	                   sz_gpu_pg_slot(n, a.max_page_bytes));
	sz_pg_launch_items(lc, "pg_pack_raw", sz_k_pg_pack_raw<W>, a, n, a.max_page_bytes);
	a.page0 = 0;
	if (a.checksum) {
		const uint64_t chunks =
		    splitzip_n_chunks(sz_gpu_pg_max_elems(n, a.max_page_bytes), a.chunk_log2);
		lc.launch("pg_rawsum", sz_pg_wave(lc, sz_k_pg_rawsum<W>, chunks / (T / W) + 1), T,
		          sz_k_pg_rawsum<W>, a);
	}
	lc.launch("pg_finish", one, T, sz_k_pg_finish<W>, a);
}

/* Enqueue the validation, decoding and scatter of a page stream. */
template <int W, class Launcher> void sz_gpu_pages_decompress(Launcher &lc, sz_gpu_pages_dec a)
{
	const uint64_t n = a.n_pages, F = sz_gpu_pg_max_frames(n, a.max_page_bytes);
	const sz_gpu_dim one{1, 1};
	const unsigned T = SZ_GPU_THREADS;
	a.page0 = 0;
	lc.launch("pg_dec_head", one, T, sz_k_pg_dec_head<W>, a);
	if (F) {
		uint8_t *ws = a.ws;
		sz_gpu_dec d = {};
		d.frames.srcs =
		    reinterpret_cast<const void *const *>(sz_pg_array(ws, n, F, SZ_PG_WS_F_SRCS));
		d.frames.src_sizes =
		    reinterpret_cast<const size_t *>(sz_pg_array(ws, n, F, SZ_PG_WS_F_SIZES0));
		d.frames.dsts =
		    reinterpret_cast<uint16_t *const *>(sz_pg_array(ws, n, F, SZ_PG_WS_F_DSTS));
		d.frames.dst_caps =
		    reinterpret_cast<const size_t *>(sz_pg_array(ws, n, F, SZ_PG_WS_F_CAPS));
		d.frames.out_elems =
		    reinterpret_cast<size_t *>(sz_pg_array(ws, n, F, SZ_PG_WS_F_SIZES1));
		d.frames.statuses =
		    reinterpret_cast<int32_t *>(sz_pg_array(ws, n, F, SZ_PG_WS_F_STATUS1));
		d.ws = ws + sz_gpu_pg_codec_off(n, a.max_page_bytes, 0);
		sz_gpu_decompress<W>(lc, d, F, sz_gpu_pg_frame_max(n, a.max_page_bytes));
	}
	const uint64_t chunks =
	    splitzip_n_chunks(sz_gpu_pg_max_elems(n, a.max_page_bytes), SPLITZIP_CHUNK_LOG2_MIN);
	lc.launch("pg_dec_rawsum", sz_pg_wave(lc, sz_k_pg_dec_rawsum<W>, chunks / (T / W) + 1), T,
	          sz_k_pg_dec_rawsum<W>, a);
	lc.launch("pg_dec_finish", one, T, sz_k_pg_dec_finish<W>, a);
	sz_pg_launch_items(lc, "pg_scatter", sz_k_pg_scatter<W>, a, n, a.max_page_bytes);
}

#endif /* SZ_GPU_PAGES_CUH */
