/*
 * simt_kernels.cuh -- kernels of the SIMT harness self-tests (SIMT.md section 5).
 *
 * Written like production kernels: only sz_gpu_compat.cuh, `template <int W>`, no warpSize. The
 * harness runs them at W = 32 and 64 (test_simt.cpp); gpu_compile_check.cu builds them with nvcc
 * and hipcc, so the same source is known to compile for the GPUs.
 */
#ifndef SIMT_KERNELS_CUH
#define SIMT_KERNELS_CUH

#if defined(SZ_SIMT_CPU)
#include "sz_simt_compat.h"
#endif
#include "../../backends/gpu/sz_gpu_compat.cuh"

SZ_DEVICE unsigned simt_block_linear(void)
{
	return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}
SZ_DEVICE unsigned simt_block_threads(void)
{
	return blockDim.x * blockDim.y * blockDim.z;
}

/* 1. Indices: every thread writes its ids once; hits[] counts writes per global thread. */
template <int W> SZ_GLOBAL void k_indices(uint32_t *out, uint32_t *hits)
{
	SZ_WARP_GUARD(W);
	const unsigned g = simt_block_linear() * simt_block_threads() + sz_linear_tid();
	out[4 * g + 0] = threadIdx.x | threadIdx.y << 10 | threadIdx.z << 20;
	out[4 * g + 1] = blockIdx.x | blockIdx.y << 10 | blockIdx.z << 20;
	out[4 * g + 2] = sz_lane<W>() | sz_warp<W>() << 8;
	out[4 * g + 3] = blockDim.x | blockDim.y << 8 | blockDim.z << 16 | gridDim.x << 24;
	sz_atomic_add_relaxed(&hits[g], 1u);
}

/*
 * 2. Barrier phases: values rotate through shared memory; each phase reads a neighbour, then
 * overwrites its own slot. Without the barriers the result depends on the schedule.
 */
template <int W> SZ_GLOBAL void k_barrier_phases(uint32_t *out, int use_barrier, int phases)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint32_t, s, 1024);
	const unsigned t = sz_linear_tid(), n = simt_block_threads();
	s[t] = t * 2654435761u + simt_block_linear();
	if (use_barrier)
		sz_syncthreads();
	for (int p = 0; p < phases; p++) {
		uint32_t v = s[(t + 1 + (unsigned)p) % n];
		if (use_barrier)
			sz_syncthreads();
		s[t] = (v * 3u + (uint32_t)p) ^ t;
		if (use_barrier)
			sz_syncthreads();
	}
	out[simt_block_linear() * n + t] = s[t];
}

/* 3. Shuffle table: every thread does one shuffle; 'arg' is the source, delta or lane mask
 * (plus the lane when per_lane), 'eight' picks 8-byte values. */
template <int W>
SZ_GLOBAL void k_shfl(const uint64_t *in, uint64_t *out, int op, int arg, int per_lane, int width,
                      int eight)
{
	SZ_WARP_GUARD(W);
	const unsigned t = sz_linear_tid();
	const uint64_t m = sz_full_mask<W>();
	const int a = arg + (per_lane ? (int)sz_lane<W>() : 0);
	const uint64_t v = in[t];
	uint64_t r = 0;
	if (eight) {
		switch (op) {
		case 0:
			r = sz_shfl<W>(m, v, a, width);
			break;
		case 1:
			r = sz_shfl_up<W>(m, v, (unsigned)a, width);
			break;
		case 2:
			r = sz_shfl_down<W>(m, v, (unsigned)a, width);
			break;
		default:
			r = sz_shfl_xor<W>(m, v, a, width);
			break;
		}
	} else {
		const uint32_t v32 = (uint32_t)v;
		switch (op) {
		case 0:
			r = sz_shfl<W>(m, v32, a, width);
			break;
		case 1:
			r = sz_shfl_up<W>(m, v32, (unsigned)a, width);
			break;
		case 2:
			r = sz_shfl_down<W>(m, v32, (unsigned)a, width);
			break;
		default:
			r = sz_shfl_xor<W>(m, v32, a, width);
			break;
		}
	}
	out[t] = r;
}

/* Inclusive scan of v over the W lanes of a full warp (shfl_up ladder). */
template <int W, typename T> SZ_DEVICE T simt_warp_scan(T v)
{
	const unsigned lane = sz_lane<W>();
	for (unsigned d = 1; d < (unsigned)W; d <<= 1) {
		T o = sz_shfl_up<W>(sz_full_mask<W>(), v, d);
		if (lane >= d)
			v += o;
	}
	return v;
}

/*
 * Inclusive block scan: warp scans, warp totals through shared memory, warp 0 scans the totals
 * while the other warps wait at the barrier (the pattern that needs per-warp rendezvous).
 * blockDim must be a multiple of W.
 */
template <int W, typename T> SZ_DEVICE T simt_block_scan(T v, T *totals /* [1024 / W] */)
{
	const unsigned lane = sz_lane<W>(), warp = sz_warp<W>();
	const unsigned nwarps = simt_block_threads() / (unsigned)W;
	v = simt_warp_scan<W>(v);
	if (lane == (unsigned)W - 1)
		totals[warp] = v;
	sz_syncthreads();
	if (warp == 0) {
		T s = lane < nwarps ? totals[lane] : T(0);
		s = simt_warp_scan<W>(s);
		if (lane < nwarps)
			totals[lane] = s;
	}
	sz_syncthreads();
	T before = warp ? totals[warp - 1] : T(0);
	sz_syncthreads(); /* totals is reused by the next call */
	return v + before;
}

/* 4. Block scan of 'in', one independent scan per block. */
template <int W, typename T> SZ_GLOBAL void k_block_scan(const T *in, T *out)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(T, totals, 1024 / W);
	const unsigned i = simt_block_linear() * simt_block_threads() + sz_linear_tid();
	out[i] = simt_block_scan<W>(in[i], totals);
}

/* BF16 exponent outside the 16-wide window [lo, lo+15]: an escape. */
SZ_DEVICE int simt_is_escape(uint16_t x, unsigned lo)
{
	return ((x >> 7 & 0xFFu) - lo) > 15u;
}

/*
 * 5. Ballot compaction: block b writes the positions of the escapes of chunk b, in ascending
 * order, to pos[b*chunk ...] and their number to counts[b]. Per tile of blockDim elements: ballot,
 * warp counts to shared memory, warp 0 scans them, every escape scatters to its rank.
 */
template <int W>
SZ_GLOBAL void k_compact(const uint16_t *in, uint32_t n, uint32_t chunk, unsigned lo, uint32_t *pos,
                         uint32_t *counts)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint32_t, wofs, 1024 / W);
	SZ_SHARED_ARRAY(uint32_t, run, 2); /* [0] escapes so far, [1] this tile's total */
	const unsigned t = sz_linear_tid(), nt = simt_block_threads();
	const unsigned lane = sz_lane<W>(), warp = sz_warp<W>(), nwarps = nt / (unsigned)W;
	const uint32_t c0 = simt_block_linear() * chunk;
	const uint32_t c1 = n - c0 < chunk ? n : c0 + chunk;
	if (t == 0)
		run[0] = 0;
	for (uint32_t tile = c0; tile < c1; tile += nt) {
		const uint32_t i = tile + t;
		const int esc = i < c1 && simt_is_escape(in[i], lo);
		const uint64_t b = sz_ballot<W>(sz_full_mask<W>(), esc);
		if (lane == 0)
			wofs[warp] = (uint32_t)sz_popc64(b);
		sz_syncthreads();
		if (warp == 0) {
			uint32_t c = lane < nwarps ? wofs[lane] : 0;
			uint32_t s = simt_warp_scan<W>(c);
			if (lane < nwarps)
				wofs[lane] = s - c;
			if (lane == (unsigned)W - 1)
				run[1] = s;
		}
		sz_syncthreads();
		if (esc)
			pos[c0 + run[0] + wofs[warp] +
			    (uint32_t)sz_popc64(b & sz_lanemask_lt<W>())] = i;
		sz_syncthreads();
		if (t == 0)
			run[0] += run[1];
	}
	sz_syncthreads();
	if (t == 0)
		counts[simt_block_linear()] = run[0];
}

/* 6a. Votes: per thread, the ballot/any/all/activemask results for a fixed predicate pattern,
 * and the block-wide _count/_and/_or results. */
template <int W> SZ_GLOBAL void k_votes(uint64_t *out, int pattern)
{
	SZ_WARP_GUARD(W);
	const unsigned t = sz_linear_tid(), lane = sz_lane<W>();
	int p = 0;
	switch (pattern) {
	case 0:
		p = 0;
		break;
	case 1:
		p = 1;
		break;
	case 2:
		p = lane % 3 == 0;
		break;
	default:
		p = (t * 2654435761u) >> 31;
		break;
	}
	const uint64_t m = sz_full_mask<W>();
	out[8 * t + 0] = sz_ballot<W>(m, p);
	out[8 * t + 1] = (uint64_t)sz_any<W>(m, p);
	out[8 * t + 2] = (uint64_t)sz_all<W>(m, p);
	out[8 * t + 3] = sz_activemask<W>();
	sz_syncwarp<W>(m);
	out[8 * t + 4] = (uint64_t)sz_syncthreads_count(p);
	out[8 * t + 5] = (uint64_t)(sz_syncthreads_and(p) != 0);
	out[8 * t + 6] = (uint64_t)(sz_syncthreads_or(p) != 0);
	out[8 * t + 7] = lane;
}

/* 6b. Atomics on global and shared memory; CAS loops build a 64-bit add and a max. */
template <int W> SZ_GLOBAL void k_atomics(uint32_t *g32, uint64_t *g64, uint32_t *per_block)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint32_t, sh, 2);
	const unsigned t = sz_linear_tid();
	const uint32_t v = simt_block_linear() * simt_block_threads() + t + 1;
	if (t == 0) {
		sh[0] = 0;
		sh[1] = 0;
	}
	sz_syncthreads();
	sz_smem_atomic_add(&sh[0], v);
	sz_smem_atomic_max(&sh[1], v);
	sz_atomic_add_relaxed(&g32[0], v);
	sz_atomic_max_relaxed(&g32[1], v);
	sz_atomic_exch_relaxed(&g32[2], 7u);
	uint64_t old = sz_atomic_load_relaxed(&g64[0]), seen;
	while ((seen = sz_atomic_cas_relaxed(&g64[0], old, old + ((uint64_t)v << 20))) != old)
		old = seen;
	uint32_t o32 = sz_atomic_load_relaxed(&g32[3]), s32;
	while ((s32 = sz_atomic_cas_relaxed(&g32[3], o32, o32 > v ? o32 : v)) != o32)
		o32 = s32;
	sz_syncthreads();
	if (t == 0) {
		per_block[2 * simt_block_linear()] = sh[0];
		per_block[2 * simt_block_linear() + 1] = sh[1];
	}
}

/*
 * 7. Shared memory: three static arrays (4096 + 2048 + 16 bytes) and the dynamic area. Thread 0
 * first records the fill byte it finds (it must be the launch's fill in every block), then all
 * threads write and the block checksums what it wrote.
 */
template <int W> SZ_GLOBAL void k_smem(uint32_t *out, uint32_t dyn_bytes)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint32_t, a, 1024);
	SZ_SHARED_ARRAY(uint64_t, b, 256);
	SZ_SHARED_ARRAY(uint8_t, c, 16);
	SZ_DYN_SHARED(uint8_t, d);
	const unsigned t = sz_linear_tid(), nt = simt_block_threads(), blk = simt_block_linear();
	if (t == 0) {
		out[4 * blk + 0] = (uint32_t)((const uint8_t *)a)[4095] |
		                   (uint32_t)((const uint8_t *)b)[0] << 8 | (uint32_t)c[15] << 16 |
		                   (uint32_t)(dyn_bytes ? d[dyn_bytes - 1] : 0) << 24;
	}
	sz_syncthreads();
	for (unsigned i = t; i < 1024; i += nt)
		a[i] = i * 7 + blk;
	for (unsigned i = t; i < 256; i += nt)
		b[i] = (uint64_t)i << 33 | blk;
	for (unsigned i = t; i < 16; i += nt)
		c[i] = (uint8_t)(i + blk);
	for (unsigned i = t; i < dyn_bytes; i += nt)
		d[i] = (uint8_t)(i ^ blk);
	sz_syncthreads();
	if (t == 0) {
		uint32_t s = 0;
		for (unsigned i = 0; i < 1024; i++)
			s = s * 31 + a[i];
		for (unsigned i = 0; i < 256; i++)
			s = s * 31 + (uint32_t)(b[i] >> 33) + (uint32_t)b[i];
		for (unsigned i = 0; i < 16; i++)
			s = s * 31 + c[i];
		for (unsigned i = 0; i < dyn_bytes; i++)
			s = s * 31 + d[i];
		out[4 * blk + 1] = s;
	}
}

/*
 * Chained blocks (the decoupled look-back shape): block b waits until block b-1 has published,
 * then publishes its own prefix. The prefix is plain data published by a release fence before a
 * relaxed flag store and read after an acquire fence that follows a relaxed flag load (the
 * fence form of release/acquire). Correct when blocks start in increasing order (or are
 * resident together); a block that waits on one not yet run spins until the budget is spent.
 */
template <int W> SZ_GLOBAL void k_chain(uint32_t *flags, uint32_t *prefix)
{
	SZ_WARP_GUARD(W);
	const unsigned b = simt_block_linear();
	if (sz_linear_tid() == 0) {
		uint32_t before = 0;
		if (b > 0) {
			while (sz_atomic_load_relaxed(&flags[b - 1]) == 0)
				sz_spin_pause();
			sz_fence_acquire();
			before = sz_gld_u32(&prefix[b - 1]);
		}
		sz_gst_u32(&prefix[b], before + b + 1);
		sz_fence_release();
		sz_atomic_store_relaxed(&flags[b], 1u);
	}
}

/*
 * Publication through a flag, the pattern of every kernel of the codec: block 0 writes 'n'
 * words of data with plain stores (all its threads, then a barrier), and thread 0 publishes
 * them with a flag store; block 1 waits for the flag and reads the data with plain loads.
 * 'mode' removes one piece: 0 = correct (release store, acquire load), 1 = relaxed flag store,
 * 2 = relaxed flag load, 3 = no barrier before the flag store (other threads' stores are not
 * covered by thread 0's release), 4 = no barrier after the flag load (what thread 0 acquired
 * has not reached the others). Any of 1-4 must fail under the harness (MEMORY_ORDER).
 */
template <int W>
SZ_GLOBAL void k_publish(uint32_t *flag, uint32_t *data, unsigned n, int mode, uint32_t *out)
{
	SZ_WARP_GUARD(W);
	const unsigned t = sz_linear_tid(), nt = simt_block_threads();
	if (simt_block_linear() == 0) {
		for (unsigned i = t; i < n; i += nt)
			sz_gst_u32(&data[i], 3 * i + 1);
		if (mode != 3)
			sz_syncthreads();
		if (t == 0) {
			if (mode == 1)
				sz_atomic_store_relaxed(flag, 1u);
			else
				sz_atomic_store_release(flag, 1u);
		}
	} else {
		if (t == 0) {
			if (mode == 2)
				while (sz_atomic_load_relaxed(flag) == 0)
					sz_spin_pause();
			else
				while (sz_atomic_load_acquire(flag) == 0)
					sz_spin_pause();
		}
		if (mode != 4)
			sz_syncthreads();
		uint32_t s = 0;
		for (unsigned i = t; i < n; i += nt)
			s += sz_gld_u32(&data[i]);
		sz_atomic_add_relaxed(out, s);
	}
}

/*
 * The "last block done" pattern: every block adds its part to 'sum' (relaxed atomic) and then
 * increments 'done'; the block that sees the last count reads 'sum' with a plain load and
 * writes it to 'out'. mode 0: the increment is acq_rel (correct); 1: relaxed (the parts are
 * neither published nor acquired: must fail); 2: release only (not acquired: must fail).
 */
template <int W> SZ_GLOBAL void k_last_block(uint32_t *sum, uint32_t *done, int mode, uint32_t *out)
{
	SZ_WARP_GUARD(W);
	if (sz_linear_tid() != 0)
		return;
	const unsigned nb = gridDim.x * gridDim.y * gridDim.z;
	sz_atomic_add_relaxed(sum, simt_block_linear() + 1);
	uint32_t before;
	if (mode == 0)
		before = sz_atomic_add_acq_rel(done, 1u);
	else if (mode == 1)
		before = sz_atomic_add_relaxed(done, 1u);
	else
		before = sz_atomic_add_release(done, 1u);
	if (before == nb - 1)
		sz_gst_u32(out, sz_gld_u32(sum));
}

#endif /* SIMT_KERNELS_CUH */
