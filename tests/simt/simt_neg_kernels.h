/*
 * simt_neg_kernels.h -- kernels that break the SIMT rules on purpose (SIMT.md section 5, test 8).
 * Each one must make sz_simt_launch() return its code with the file:line of the offending op; the
 * kernel stores that line through SIMT_AT so the test can compare. CPU harness only.
 */
#ifndef SIMT_NEG_KERNELS_H
#define SIMT_NEG_KERNELS_H

#include "simt_kernels.cuh"

/* Runs 'stmt' after storing the line it is on (the sync call reports the same line). */
#define SIMT_AT(line_out, stmt)                                                                    \
	do {                                                                                       \
		*(line_out) = __LINE__;                                                            \
		stmt;                                                                              \
	} while (0)

/* Half the block at a barrier, the other half returns: EXIT_BEFORE_BARRIER. */
template <int W> void kn_if16(int *line)
{
	SZ_WARP_GUARD(W);
	if (sz_linear_tid() < 16)
		SIMT_AT(line, sz_syncthreads());
}

/* Half at one barrier, half at another: DIVERGENT_BARRIER. */
template <int W> void kn_if16_then_barrier(int *line)
{
	SZ_WARP_GUARD(W);
	if (sz_linear_tid() < 16)
		SIMT_AT(line, sz_syncthreads());
	sz_syncthreads();
}

/* One thread returns early: EXIT_BEFORE_BARRIER. */
template <int W> void kn_early_return(int *line)
{
	SZ_WARP_GUARD(W);
	if (sz_linear_tid() == 5)
		return;
	SIMT_AT(line, sz_syncthreads());
}

/* Barriers on both sides of an if/else: DIVERGENT_BARRIER. */
template <int W> void kn_if_else(int *line)
{
	SZ_WARP_GUARD(W);
	if (sz_linear_tid() & 1)
		SIMT_AT(line, sz_syncthreads());
	else
		sz_syncthreads();
}

/* Half a warp at a ballot, the rest already at the barrier: DEADLOCK. */
template <int W> void kn_ballot_then_barrier(int *line)
{
	SZ_WARP_GUARD(W);
	if (sz_lane<W>() < 16)
		SIMT_AT(line, sz_ballot<W>(sz_full_mask<W>(), 1));
	sz_syncthreads();
}

/* Lanes of one warp at two different ballots: DIVERGENT_WARP_OP. */
template <int W> void kn_divergent_ballot(int *line)
{
	SZ_WARP_GUARD(W);
	if (sz_lane<W>() & 1)
		SIMT_AT(line, sz_ballot<W>(sz_full_mask<W>(), 1));
	else
		sz_ballot<W>(sz_full_mask<W>(), 0);
}

/* kind 0: mask misses live lane 3; 1: mask has a lane >= W; 2: lanes pass different masks. */
template <int W> void kn_mask(int *line, int kind)
{
	SZ_WARP_GUARD(W);
	uint64_t m = sz_full_mask<W>();
	if (kind == 0)
		m &= ~(1ull << 3);
	else if (kind == 1)
		m = W == 32 ? m | 1ull << 40 : m;
	else if (sz_lane<W>() == 9)
		m = 0x1;
	SIMT_AT(line, sz_ballot<W>(m, 1));
}

/* Lane 7 returns; the others read it (mask rightly leaves it out): SHFL_FROM_EXITED. */
template <int W> void kn_shfl_exited(int *line, uint32_t *out)
{
	SZ_WARP_GUARD(W);
	if (sz_lane<W>() == 7)
		return;
	uint32_t v;
	SIMT_AT(line, v = sz_shfl<W>(sz_full_mask<W>() & ~(1ull << 7), sz_linear_tid(), 7));
	out[sz_linear_tid()] = v;
}

/* A shuffle with width 'width' (3, 0 or 2W) or up-delta 'delta' (>= W): BAD_WIDTH. */
template <int W> void kn_width(int *line, int width, unsigned delta, uint32_t *out)
{
	SZ_WARP_GUARD(W);
	uint32_t v;
	SIMT_AT(line, v = sz_shfl_up<W>(sz_full_mask<W>(), sz_linear_tid(), delta, width));
	out[sz_linear_tid()] = v;
}

/* Block 0 waits for block 1, which runs later: SPIN_LIMIT. */
template <int W> void kn_spin(int *line, uint32_t *flag)
{
	SZ_WARP_GUARD(W);
	if (blockIdx.x == 0 && sz_linear_tid() == 0) {
		while (sz_atomic_load_relaxed(flag) == 0)
			SIMT_AT(line, sz_spin_pause());
	} else if (blockIdx.x == 1 && sz_linear_tid() == 0) {
		sz_atomic_store_relaxed(flag, 1u);
	}
}

/* SZ_KERNEL_CHECK fails in thread 3: KERNEL_TRAP. */
template <int W> void kn_check(int *line)
{
	SZ_WARP_GUARD(W);
	sz_syncthreads();
	SIMT_AT(line, SZ_KERNEL_CHECK(sz_linear_tid() != 3));
	sz_syncthreads();
}

/* A kernel that launches a kernel: the inner launch returns BAD_LAUNCH. */
template <int W> void kn_nested(int *code)
{
	SZ_WARP_GUARD(W);
	sz_simt_config c;
	c.warp = W;
	sz_simt_result r = sz_simt_launch(c, kn_if16<W>, code);
	if (sz_linear_tid() == 0)
		*code = (int)r.code;
}

#endif /* SIMT_NEG_KERNELS_H */
