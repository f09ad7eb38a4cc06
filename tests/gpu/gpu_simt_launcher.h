/*
 * gpu_simt_launcher.h -- the launcher of the GPU drivers' templates (sz_gpu_driver.cuh,
 * sz_gpu_dtype_*.cuh) over the CPU SIMT harness, for the test programs that run kernels with
 * it: a schedule (lane and block order, fill byte, the device it pretends to be) and a
 * launcher that keeps the first failure of a sequence. Include after sz_simt_compat.h and the
 * driver header (sz_gpu_dim).
 */
#ifndef GPU_SIMT_LAUNCHER_H
#define GPU_SIMT_LAUNCHER_H

#include "sz_simt.h"

/* 'wave' blocks fit on the device at once (drivers size their grids by it), 'resident' of
 * them run interleaved in the harness. */
struct sz_test_schedule {
	sz_simt_lane_order lanes;
	sz_simt_block_order blocks;
	uint64_t seed;
	int fill;
	unsigned wave, resident;
};

struct sz_test_launcher {
	int warp;
	sz_test_schedule sched;
	bool failed = false;
	unsigned launches = 0;
	sz_simt_result first{};
	template <typename... P> unsigned resident(void (*)(P...))
	{
		return sched.wave;
	}
	template <typename... P, typename... A>
	void launch(const char *, sz_gpu_dim g, unsigned block, void (*k)(P...), A... args)
	{
		if (failed)
			return;
		sz_simt_config c;
		c.warp = warp;
		c.grid = sz_simt_dim(g.x, g.y);
		c.block = sz_simt_dim(block);
		c.lane_order = sched.lanes;
		c.block_order = sched.blocks;
		c.seed = sched.seed;
		c.fill = sched.fill;
		c.resident = sched.resident;
		c.spin_budget = 200000;
		launches++;
		sz_simt_result r = sz_simt_launch(c, k, args...);
		if (r.code != SZ_SIMT_OK) {
			failed = true;
			first = r;
		}
	}
};

#endif /* GPU_SIMT_LAUNCHER_H */
