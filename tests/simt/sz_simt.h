/*
 * sz_simt.h -- CPU SIMT harness: runs GPU kernel source on the CPU.
 *
 * The kernels in backends/gpu/ are written against backends/gpu/sz_gpu_compat.cuh. Built with
 * SZ_SIMT_CPU defined, that header maps every GPU primitive onto the functions below, and a test
 * launches the very same kernel template with sz_simt_launch(). Design note: SIMT.md in the
 * project's shared notes; the short version:
 *
 *  - One OS thread runs one block at a time. Every GPU thread of the block is a fiber with its own
 *    mmap'ed stack and a PROT_NONE guard page. Fibers switch only at sync points (barriers, warp
 *    collectives, spin pauses), so everything between two sync points runs as ordinary C++.
 *  - A sync point parks the fiber with (op, file:line, mask, width, payload). The scheduler resumes
 *    runnable fibers in a configurable order and completes a rendezvous only when every live
 *    thread (barrier) or every live lane of the warp (warp op) has arrived at the same site.
 * Anything else is returned as an error code with block, threads, op and file:line: no hang, no
 * abort.
 *  - Shared memory comes from an arena of exact-size heap blocks (ASan sees overruns), refilled
 * with a fill byte at the start of every block.
 *  - Warp size W is a template parameter of every kernel; the harness runs W = 32 and W = 64.
 *  - Up to config.resident blocks run at once (their fibers interleave at sync points), so
 *    blocks that wait on each other (look-back, tickets, done counters) really interleave.
 *  - Every global-memory access of a kernel goes through the compat wrappers, which call
 *    sz_simt_gmem() / sz_simt_gatomic() / sz_simt_gfence(): the harness counts bytes, atomics
 *    and barriers per launch, and checks the memory model: a plain access to bytes that another
 *    block wrote in the same launch must be ordered after that write by a release/acquire chain
 *    (or, inside a block, by a barrier), else the launch fails with MEMORY_ORDER (sz_simt_mem.cpp).
 *
 * Harness state is thread-local: separate OS threads may launch concurrently, each running its own
 * blocks in order. This header is C++17 (the kernels are C++ for nvcc/hipcc anyway).
 */
#ifndef SZ_SIMT_H
#define SZ_SIMT_H

#include <stddef.h>
#include <stdint.h>
#include <tuple>
#include <type_traits>
#include <utility>

/* ==================================================================== */
/*                         Launch configuration                         */
/* ==================================================================== */

struct sz_dim3 {
	unsigned x, y, z;
};

static inline sz_dim3 sz_simt_dim(unsigned x, unsigned y = 1, unsigned z = 1)
{
	return sz_dim3{x, y, z};
}

/* Result codes. SZ_SIMT_OK is 0; the others name the first rule a launch broke. */
enum sz_simt_code {
	SZ_SIMT_OK = 0,
	SZ_SIMT_DIVERGENT_BARRIER,   /* threads wait at different __syncthreads sites or counts */
	SZ_SIMT_EXIT_BEFORE_BARRIER, /* a thread returned while others wait at a barrier */
	SZ_SIMT_DIVERGENT_WARP_OP,   /* lanes of one warp at different ops, sites or op counts */
	SZ_SIMT_BAD_MASK,            /* mask misses a live lane, differs between lanes, or > W */
	SZ_SIMT_BAD_WIDTH,        /* width not a power of two <= W; lane argument outside [0,W) */
	SZ_SIMT_SHFL_FROM_EXITED, /* shuffle source lane exited or does not exist */
	SZ_SIMT_DEADLOCK,    /* nobody can move: e.g. half a warp at a ballot, rest at a barrier */
	SZ_SIMT_SPIN_LIMIT,  /* sz_spin_pause() budget spent: waits on a block not yet run */
	SZ_SIMT_SMEM_LIMIT,  /* static + dynamic shared memory over the limit */
	SZ_SIMT_BAD_LAUNCH,  /* geometry, warp size, nested launch, kernel<W> at another W */
	SZ_SIMT_KERNEL_TRAP, /* SZ_KERNEL_CHECK failed */
	SZ_SIMT_MEMORY_ORDER /* a plain access races with another block's (or thread's) write */
};

/* Order in which the scheduler resumes the threads of a block in each round. */
enum sz_simt_lane_order {
	SZ_SIMT_LANES_FORWARD = 0,
	SZ_SIMT_LANES_REVERSE,
	SZ_SIMT_LANES_SEEDED /* a permutation drawn from (seed, block) */
};

/* Order in which blocks start. A chained look-back over blocks (without tickets) needs
 * INCREASING (the default) when only one block is resident. */
enum sz_simt_block_order {
	SZ_SIMT_BLOCKS_INCREASING = 0,
	SZ_SIMT_BLOCKS_REVERSED,
	SZ_SIMT_BLOCKS_SHUFFLED /* a permutation drawn from seed */
};

enum : size_t {
	SZ_SIMT_SMEM_CUDA = 48 * 1024, /* default static + dynamic limit without opt-in */
	SZ_SIMT_SMEM_AMD = 64 * 1024   /* LDS per workgroup on CDNA/RDNA */
};

struct sz_simt_config {
	int warp = 32; /* 32 or 64; must equal the kernel's W */
	sz_dim3 grid{1, 1, 1};
	sz_dim3 block{1, 1, 1};
	size_t dyn_smem = 0; /* bytes behind SZ_DYN_SHARED */
	sz_simt_lane_order lane_order = SZ_SIMT_LANES_FORWARD;
	sz_simt_block_order block_order = SZ_SIMT_BLOCKS_INCREASING;
	uint64_t seed = 0;
	int fill = 0xA5; /* byte written over all shared memory at each block start */
	size_t smem_limit = SZ_SIMT_SMEM_CUDA;
	size_t stack_size = 0; /* 0: 64 KiB, 256 KiB under sanitizers */
	/* Scheduler rounds in which every live thread of every resident block only spins
	 * (sz_spin_pause) before SPIN_LIMIT; 0: 10000. */
	uint32_t spin_budget = 0;
	unsigned resident = 1; /* blocks that run at once, 1 to 64 (a GPU's resident blocks) */
	bool memcheck = true;  /* check the memory model of global accesses (MEMORY_ORDER) */
};

/* What a launch did, counted over all blocks (the GPU's costs, measured without a GPU). */
struct sz_simt_counts {
	uint64_t gload_bytes;  /* bytes read from global memory by sz_gld* and sz_gldro* */
	uint64_t gstore_bytes; /* bytes written by sz_gst* */
	uint64_t gatomics;     /* atomic operations on global memory (sz_atomic_*) */
	uint64_t satomics;     /* atomic operations on shared memory (sz_smem_atomic_*) */
	uint64_t gfences;      /* device-scope fences */
	uint64_t barriers;     /* completed block barriers, summed over blocks */
};

struct sz_simt_result {
	sz_simt_code code;
	char msg[1024]; /* "DEADLOCK in block (1,0,0): threads 0-15 wait at ballot (k.cuh:7)..." */
	sz_dim3 block;  /* block of the error */
	int thread;     /* linear thread id of (one of) the offending thread(s), or -1 */
	const char *file; /* site of the error, or NULL */
	int line;
	uint64_t resumes;    /* fiber resumes: the cost measure (one per sync point and thread) */
	uint64_t trace_hash; /* hash of the sync-event trace in execution order */
	uint64_t blocks_run;
	sz_simt_counts counts;
};

const char *sz_simt_code_name(sz_simt_code c);

/* ==================================================================== */
/*              Runtime entry points used by sz_gpu_compat.cuh           */
/* ==================================================================== */

/* What a running thread sees: threadIdx & co. read these through sz_simt_cur. */
struct sz_simt_thread_view {
	sz_dim3 tid, bid, bdim, gdim;
};

/*
 * The view of the thread now running. Set before every resume; kernels read it again after every
 * sync call, which is opaque to the compiler. __thread (not thread_local): no TLS wrapper call.
 * Fibers never move between OS threads, so cached TLS addresses stay valid.
 */
extern __thread const sz_simt_thread_view *sz_simt_cur;

enum sz_simt_op {
	SZ_SIMT_OP_SYNCTHREADS = 0,
	SZ_SIMT_OP_SYNCTHREADS_COUNT,
	SZ_SIMT_OP_SYNCTHREADS_AND,
	SZ_SIMT_OP_SYNCTHREADS_OR,
	SZ_SIMT_OP_BALLOT,
	SZ_SIMT_OP_ANY,
	SZ_SIMT_OP_ALL,
	SZ_SIMT_OP_ACTIVEMASK,
	SZ_SIMT_OP_SYNCWARP,
	SZ_SIMT_OP_SHFL_IDX,
	SZ_SIMT_OP_SHFL_UP,
	SZ_SIMT_OP_SHFL_DOWN,
	SZ_SIMT_OP_SHFL_XOR,
	SZ_SIMT_OP_SPIN,
	SZ_SIMT_OP_COUNT_
};

/* Block-wide rendezvous; returns the reduction for the _count/_and/_or forms. */
int sz_simt_block_op(int op, int pred, const char *file, int line);

/*
 * Warp rendezvous. 'w_kernel' is the kernel's W (checked against the launch), 'val' the lane's
 * payload (predicate or value bits), 'arg' the source lane / delta / lane mask, 'width' the shuffle
 * width. Returns the lane's result bits.
 */
uint64_t sz_simt_warp_op(int w_kernel, int op, uint64_t mask, uint64_t val, int64_t arg, int width,
                         const char *file, int line);

/* A sync point that only yields; counted against the spin budget. */
void sz_simt_spin(const char *file, int line);

/* Ends the kernel for the whole launch with 'code' (never returns to the kernel). */
[[noreturn]] void sz_simt_trap(sz_simt_code code, const char *file, int line, const char *what);

/* Entry check of every kernel: the kernel's W must equal the launch's warp size. */
void sz_simt_check_warp(int w_kernel, const char *file, int line);

/* Storage of one SZ_SHARED_ARRAY site ('key' is unique per site and template instance). */
void *sz_simt_shared(const void *key, size_t size, size_t align, const char *file, int line);

/* Storage behind SZ_DYN_SHARED: exactly config.dyn_smem bytes. */
void *sz_simt_dyn_shared(const char *file, int line);

/* Global memory accesses of the running thread (called by the compat wrappers before a load and
 * after a store; counted, and checked when config.memcheck is set). Not sync points. */
enum sz_simt_mem_kind { SZ_SIMT_LOAD = 0, SZ_SIMT_STORE, SZ_SIMT_RMW };
enum sz_simt_mem_order {
	SZ_SIMT_RELAXED = 0,
	SZ_SIMT_ACQUIRE,
	SZ_SIMT_RELEASE,
	SZ_SIMT_ACQ_REL,
	SZ_SIMT_SEQ_CST
};
void sz_simt_gmem(int kind, const void *p, size_t bytes, const char *file, int line);
/* An atomic access of 'bytes' (4 or 8) at p with memory order 'order' (device scope). */
void sz_simt_gatomic(int kind, int order, const void *p, size_t bytes, const char *file, int line);
/* A device-scope fence. */
void sz_simt_gfence(int order, const char *file, int line);
/* An atomic on shared memory (counted only). */
void sz_simt_satomic(void);

/* ==================================================================== */
/*                                Launch                                */
/* ==================================================================== */

/* Type-erased launch: every thread calls thunk(ctx). */
sz_simt_result sz_simt_launch_erased(const sz_simt_config &cfg, void (*thunk)(void *), void *ctx);

/*
 * sz_simt_launch() runs 'kernel' (e.g. my_kernel<32>) over cfg.grid x cfg.block and returns when
 * every block has finished or the first error occurred. The arguments are converted to the kernel's
 * parameter types once, as a GPU launch does, and every thread receives its own copy. Must not be
 * called from inside a kernel (BAD_LAUNCH).
 */
template <typename... P, typename... A>
sz_simt_result sz_simt_launch(const sz_simt_config &cfg, void (*kernel)(P...), A &&...args)
{
	static_assert(sizeof...(P) == sizeof...(A), "argument count differs from the kernel's");
	struct bound {
		void (*k)(P...);
		std::tuple<std::decay_t<P>...> args;
	};
	bound b{kernel, std::tuple<std::decay_t<P>...>(std::forward<A>(args)...)};
	return sz_simt_launch_erased(
	    cfg,
	    [](void *p) {
		    bound *bp = static_cast<bound *>(p);
		    std::apply(bp->k, bp->args);
	    },
	    &b);
}

/* ==================================================================== */
/*                            Test support                              */
/* ==================================================================== */

/*
 * sz_simt_watchdog() arms (seconds > 0) or disarms (0) a SIGALRM watchdog for a kernel loop with
 * no sync point: on expiry it prints the running thread and its last sync site, then aborts.
 */
void sz_simt_watchdog(unsigned seconds);

/* Unmaps this OS thread's fiber stacks (they are otherwise kept for the next launch). */
void sz_simt_release(void);

#endif /* SZ_SIMT_H */
