/*
 * sz_simt.cpp -- fibers, context switch and scheduler of the CPU SIMT harness (see sz_simt.h).
 *
 * Every GPU thread of a running block is a fiber; up to config.resident blocks run at once, each
 * in a slot of lanes. A fiber runs until it reaches a sync point, records what it waits for in
 * its lane record and switches back to the scheduler. The scheduler works in rounds:
 *   1. resume every runnable (or spinning) thread of every resident block once, in the
 *      configured lane order;
 *   2. per block: complete each warp whose live lanes all wait at a warp op (validate, compute,
 *      release); complete the block barrier if every live thread waits at it; start the next
 *      block in the slot of a block whose threads have all exited;
 *   3. if nothing moved: a block whose live threads all wait at barriers or warp ops that cannot
 *      complete is a DEADLOCK (listing who waits where); if threads only spin, SPIN_LIMIT after
 *      config.spin_budget such rounds.
 * Because it sees every thread, the scheduler reports divergence and deadlock exactly instead of
 * hanging. An error ends the launch: threads parked inside the kernel are cancelled (resumed once
 * to leave their stack through the sanitizer protocol) and their stacks rebuilt before reuse.
 *
 * Context switch: a hand-written x86-64 SysV switch (callee-saved registers, MXCSR and the x87
 * control word) or, on other targets or with SZ_SIMT_UCONTEXT, swapcontext(). Under ASan every
 * switch is announced with __sanitizer_{start,finish}_switch_fiber so that stack reports name the
 * right frame and fake stacks (detect_stack_use_after_return) follow the fiber.
 */
#include "sz_simt.h"
#include "sz_simt_mem.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define SZ_SIMT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SZ_SIMT_ASAN 1
#endif
#endif
#ifndef SZ_SIMT_ASAN
#define SZ_SIMT_ASAN 0
#endif
#if SZ_SIMT_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if !defined(SZ_SIMT_UCONTEXT) && !defined(__x86_64__)
#define SZ_SIMT_UCONTEXT 1
#endif
#ifndef SZ_SIMT_UCONTEXT
#define SZ_SIMT_UCONTEXT 0
#endif
#if SZ_SIMT_UCONTEXT
#include <ucontext.h>
#endif

__thread const sz_simt_thread_view *sz_simt_cur;

/* ==================================================================== */
/*                           Context switch                             */
/* ==================================================================== */
namespace
{

struct fiber_ctx {
#if SZ_SIMT_UCONTEXT
	ucontext_t uc;
#else
	void *sp;
#endif
};

} /* namespace */

#if !SZ_SIMT_UCONTEXT
/*
 * sz_simt_switch(save, to): push the callee-saved registers and the FP control state on the
 * current stack, store the stack pointer in *save, load 'to' and pop the same frame from there.
 * The initial frame of a new fiber (ctx_make) has the same shape and "returns" into
 * sz_simt_fiber_start, which calls r13(r12) on a 16-byte-aligned stack.
 */
extern "C" void sz_simt_switch(void **save, void *to);
extern "C" void sz_simt_fiber_start(void);
__asm__(".text\n"
        ".globl sz_simt_switch\n"
        ".hidden sz_simt_switch\n"
        ".type sz_simt_switch,@function\n"
        "sz_simt_switch:\n"
        "	pushq %rbp\n"
        "	pushq %rbx\n"
        "	pushq %r12\n"
        "	pushq %r13\n"
        "	pushq %r14\n"
        "	pushq %r15\n"
        "	subq $8, %rsp\n"
        "	stmxcsr (%rsp)\n"
        "	fnstcw 4(%rsp)\n"
        "	movq %rsp, (%rdi)\n"
        "	movq %rsi, %rsp\n"
        "	ldmxcsr (%rsp)\n"
        "	fldcw 4(%rsp)\n"
        "	addq $8, %rsp\n"
        "	popq %r15\n"
        "	popq %r14\n"
        "	popq %r13\n"
        "	popq %r12\n"
        "	popq %rbx\n"
        "	popq %rbp\n"
        "	ret\n"
        ".size sz_simt_switch,.-sz_simt_switch\n"
        ".globl sz_simt_fiber_start\n"
        ".hidden sz_simt_fiber_start\n"
        ".type sz_simt_fiber_start,@function\n"
        "sz_simt_fiber_start:\n"
        "	.cfi_startproc\n"
        "	.cfi_undefined rip\n"
        "	movq %r12, %rdi\n"
        "	callq *%r13\n"
        "	ud2\n"
        "	.cfi_endproc\n"
        ".size sz_simt_fiber_start,.-sz_simt_fiber_start\n");

static void ctx_switch(fiber_ctx *from, fiber_ctx *to)
{
	sz_simt_switch(&from->sp, to->sp);
}

static void ctx_make(fiber_ctx *c, char *lo, size_t size, void (*fn)(void *), void *arg)
{
	uint32_t mxcsr;
	uint16_t fcw;
	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	__asm__ volatile("fnstcw %0" : "=m"(fcw));
	/* After the final 'ret' rsp = top, 16-byte aligned, as a 'call' in fiber_start needs. */
	uintptr_t top = ((uintptr_t)lo + size) & ~(uintptr_t)15;
	uint64_t *f = (uint64_t *)(top - 64);
	f[0] = (uint64_t)mxcsr | ((uint64_t)fcw << 32);
	f[1] = 0;                        /* r15 */
	f[2] = 0;                        /* r14 */
	f[3] = (uint64_t)(uintptr_t)fn;  /* r13 */
	f[4] = (uint64_t)(uintptr_t)arg; /* r12 */
	f[5] = 0;                        /* rbx */
	f[6] = 0;                        /* rbp: ends frame-pointer walks */
	f[7] = (uint64_t)(uintptr_t)&sz_simt_fiber_start;
	c->sp = f;
}
#else
static __thread void (*uc_fn)(void *);
static __thread void *uc_arg;

static void uc_entry(void)
{
	uc_fn(uc_arg);
}

static void ctx_switch(fiber_ctx *from, fiber_ctx *to)
{
	swapcontext(&from->uc, &to->uc);
}

/* The fiber is entered right after this (lazy creation in resume()), so the TLS slots hold. */
static void ctx_make(fiber_ctx *c, char *lo, size_t size, void (*fn)(void *), void *arg)
{
	getcontext(&c->uc);
	c->uc.uc_stack.ss_sp = lo;
	c->uc.uc_stack.ss_size = size;
	c->uc.uc_link = nullptr;
	uc_fn = fn;
	uc_arg = arg;
	makecontext(&c->uc, uc_entry, 0);
}
#endif

/* ==================================================================== */
/*                       Lanes, launch, harness                         */
/* ==================================================================== */
namespace
{

enum lane_state : uint8_t {
	LS_RUNNABLE, /* released, or not yet started in this block */
	LS_SPIN,     /* parked in sz_spin_pause(): runnable again next round */
	LS_BARRIER,
	LS_WARP,
	LS_EXITED,
	LS_DEAD /* left its stack after a trap or cancel; rebuilt before reuse */
};

struct lane {
	sz_simt_thread_view view;
	fiber_ctx ctx;
	char *map;
	size_t map_size;
	char *stack_lo;
	size_t stack_size;
	void *asan_fake;
	uint8_t state;
	bool fresh;     /* needs an initial frame */
	bool in_kernel; /* parked inside the kernel body (cancel before reuse) */
	bool cancel;
	/* what the lane waits for */
	uint8_t op;
	int width;
	const char *file;
	int line;
	uint64_t mask, val, out;
	int64_t arg;
	uint32_t n_bar, n_warp;
	unsigned linear; /* thread index in its block */
	unsigned slot;   /* which resident block */
};

struct smem_block {
	const void *key;
	void *ptr;
	size_t size;
};

/* One resident block: its lanes are h->lanes[base .. base + nthreads). */
struct slot_state {
	bool active = false;
	uint64_t blin = 0;
	sz_dim3 bid{0, 0, 0};
	unsigned base = 0;
	std::vector<smem_block> smem;
	size_t smem_static = 0; /* bytes, each array aligned as CUDA lays them out */
	void *dyn = nullptr;
	std::vector<unsigned> order;
};

struct launch_state {
	sz_simt_config cfg;
	int W;
	unsigned nthreads;
	void (*thunk)(void *);
	void *ctx;
	std::vector<slot_state> slots;
	uint32_t spin_budget;
	sz_simt_result *res;
	sz_simt_mem::state *mem; /* NULL without config.memcheck */
};

struct harness {
	std::vector<lane *> lanes;
	size_t stack_size = 0;
	fiber_ctx sched;
	void *sched_fake = nullptr;
	const void *sched_bottom = nullptr;
	size_t sched_size = 0;
	lane *cur = nullptr;
	launch_state *L = nullptr;
	sz_simt_result scratch; /* resume counter target outside launches */
	char *altstack = nullptr;
};

__thread harness *HP;

void release_harness(harness *h);

struct harness_owner {
	~harness_owner()
	{
		if (HP) {
			release_harness(HP);
			delete HP;
			HP = nullptr;
		}
	}
};
thread_local harness_owner owner;

harness *get_harness()
{
	if (!HP) {
		HP = new harness();
		(void)&owner; /* odr-use: registers the thread-exit destructor */
	}
	return HP;
}

const char *const op_names[SZ_SIMT_OP_COUNT_] = {"__syncthreads",
                                                 "__syncthreads_count",
                                                 "__syncthreads_and",
                                                 "__syncthreads_or",
                                                 "ballot",
                                                 "any",
                                                 "all",
                                                 "activemask",
                                                 "syncwarp",
                                                 "shfl",
                                                 "shfl_up",
                                                 "shfl_down",
                                                 "shfl_xor",
                                                 "spin_pause"};

size_t page_size()
{
	static size_t p = (size_t)sysconf(_SC_PAGESIZE);
	return p;
}

bool same_site(const lane *a, const lane *b)
{
	return a->line == b->line && (a->file == b->file || strcmp(a->file, b->file) == 0);
}

uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void trace(harness *h, const lane *l, uint64_t v)
{
	uint64_t x = h->L->res->trace_hash;
	x ^= ((uint64_t)l->linear << 40) ^ ((uint64_t)l->op << 32) ^ (uint64_t)(uint32_t)l->line;
	x *= 0x100000001B3ull;
	x ^= v;
	x *= 0x9E3779B97F4A7C15ull;
	h->L->res->trace_hash = x ^ (x >> 29);
}

/* ---------------------------------------------------------------- */
/*                         Error reports                            */
/* ---------------------------------------------------------------- */

void fail(harness *h, const slot_state *sl, sz_simt_code code, int thread, const char *file,
          int line, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

void fail(harness *h, const slot_state *sl, sz_simt_code code, int thread, const char *file,
          int line, const char *fmt, ...)
{
	sz_simt_result *r = h->L->res;
	if (r->code != SZ_SIMT_OK)
		return; /* the first error wins */
	r->code = code;
	r->block = sl->bid;
	r->thread = thread;
	r->file = file;
	r->line = line;
	const sz_dim3 &b = sl->bid;
	int n = snprintf(r->msg, sizeof(r->msg),
	                 "%s in block (%u,%u,%u): ", sz_simt_code_name(code), b.x, b.y, b.z);
	if (n < 0 || (size_t)n >= sizeof(r->msg))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->msg + n, sizeof(r->msg) - (size_t)n, fmt, ap);
	va_end(ap);
}

/* "0-15,17,20-31" */
std::string id_ranges(const std::vector<unsigned> &ids)
{
	std::string s;
	char buf[32];
	for (size_t i = 0; i < ids.size();) {
		size_t j = i;
		while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1)
			j++;
		if (j == i)
			snprintf(buf, sizeof(buf), "%s%u", s.empty() ? "" : ",", ids[i]);
		else
			snprintf(buf, sizeof(buf), "%s%u-%u", s.empty() ? "" : ",", ids[i], ids[j]);
		s += buf;
		i = j + 1;
	}
	return s;
}

/* "threads 0-15 wait at ballot (k.cuh:78, warp op #2); threads 16-31 exited" for threads [lo,hi)
 * of the block in slot sl. */
std::string describe(harness *h, const slot_state *sl, unsigned lo, unsigned hi)
{
	struct group {
		const lane *rep;
		std::vector<unsigned> ids;
	};
	std::vector<group> groups;
	for (unsigned i = lo; i < hi; i++) {
		const lane *l = h->lanes[sl->base + i];
		group *g = nullptr;
		for (group &c : groups) {
			const lane *r = c.rep;
			if (r->state != l->state)
				continue;
			if (l->state == LS_EXITED || l->state == LS_RUNNABLE ||
			    l->state == LS_DEAD ||
			    (r->op == l->op && same_site(r, l) &&
			     (l->state == LS_BARRIER ? r->n_bar == l->n_bar
			                             : r->n_warp == l->n_warp))) {
				g = &c;
				break;
			}
		}
		if (!g) {
			groups.push_back(group{l, {}});
			g = &groups.back();
		}
		g->ids.push_back(i);
	}
	std::string s;
	char buf[256];
	for (const group &g : groups) {
		const lane *r = g.rep;
		const char *what = "";
		switch (r->state) {
		case LS_EXITED:
			what = "exited";
			break;
		case LS_RUNNABLE:
			what = "are runnable";
			break;
		case LS_DEAD:
			what = "trapped";
			break;
		default:
			break;
		}
		if (r->state == LS_BARRIER || r->state == LS_WARP || r->state == LS_SPIN)
			snprintf(buf, sizeof(buf), "wait at %s (%s:%d, %s #%u)", op_names[r->op],
			         r->file, r->line, r->state == LS_BARRIER ? "barrier" : "warp op",
			         r->state == LS_BARRIER ? r->n_bar : r->n_warp);
		else
			snprintf(buf, sizeof(buf), "%s", what);
		if (!s.empty())
			s += "; ";
		s += g.ids.size() == 1 ? "thread " : "threads ";
		s += id_ranges(g.ids);
		s += " ";
		s += buf;
	}
	return s;
}

/* ---------------------------------------------------------------- */
/*                          Fiber side                              */
/* ---------------------------------------------------------------- */

void to_sched(harness *h, lane *l)
{
#if SZ_SIMT_ASAN
	__sanitizer_start_switch_fiber(&l->asan_fake, h->sched_bottom, h->sched_size);
#endif
	ctx_switch(&l->ctx, &h->sched);
#if SZ_SIMT_ASAN
	__sanitizer_finish_switch_fiber(l->asan_fake, nullptr, nullptr);
#endif
}

/* Leaves the fiber for good: its stack is abandoned and rebuilt before the next use. */
[[noreturn]] void lane_die(harness *h, lane *l)
{
	l->state = LS_DEAD;
	l->in_kernel = false;
	l->fresh = true;
#if SZ_SIMT_ASAN
	/* NULL: this fiber ends, so ASan frees its fake stack. */
	__sanitizer_start_switch_fiber(nullptr, h->sched_bottom, h->sched_size);
#endif
	ctx_switch(&l->ctx, &h->sched);
	__builtin_trap(); /* a dead fiber is never resumed */
}

void park(harness *h, lane *l, uint8_t state)
{
	l->state = state;
	trace(h, l, l->val);
	to_sched(h, l);
	if (l->cancel)
		lane_die(h, l);
}

void fiber_main(void *)
{
	harness *h = HP;
	lane *l = h->cur;
#if SZ_SIMT_ASAN
	/* First entry: learn the scheduler's stack bounds for the switches back. */
	__sanitizer_finish_switch_fiber(nullptr, &h->sched_bottom, &h->sched_size);
#endif
	for (;;) {
		l->in_kernel = true;
		h->L->thunk(h->L->ctx);
		l->in_kernel = false;
		l->op = SZ_SIMT_OP_COUNT_;
		park(h, l, LS_EXITED); /* returns when this lane runs in the next block */
	}
}

lane *running_lane(harness *h, const char *what)
{
	if (!h || !h->cur) {
		fprintf(stderr, "sz_simt: %s called outside a kernel launched by sz_simt_launch\n",
		        what);
		abort();
	}
	return h->cur;
}

/* ---------------------------------------------------------------- */
/*                        Scheduler side                            */
/* ---------------------------------------------------------------- */

void resume(harness *h, lane *l)
{
	if (l->fresh) {
#if SZ_SIMT_ASAN
		/* Frames abandoned by a cancelled fiber left their redzones poisoned. */
		ASAN_UNPOISON_MEMORY_REGION(l->stack_lo, l->stack_size);
#endif
		ctx_make(&l->ctx, l->stack_lo, l->stack_size, fiber_main, nullptr);
		l->fresh = false;
	}
	h->cur = l;
	sz_simt_cur = &l->view;
	if (h->L)
		h->L->res->resumes++;
#if SZ_SIMT_ASAN
	__sanitizer_start_switch_fiber(&h->sched_fake, l->stack_lo, l->stack_size);
#endif
	ctx_switch(&h->sched, &l->ctx);
#if SZ_SIMT_ASAN
	__sanitizer_finish_switch_fiber(h->sched_fake, nullptr, nullptr);
#endif
	h->cur = nullptr;
	sz_simt_cur = nullptr;
}

lane *new_lane(size_t stack)
{
	size_t pg = page_size();
	lane *l = new lane();
	l->map_size = stack + pg;
	void *m = mmap(nullptr, l->map_size, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (m == MAP_FAILED) {
		delete l;
		return nullptr;
	}
	l->map = (char *)m;
	mprotect(l->map, pg, PROT_NONE); /* guard page below the stack */
	l->stack_lo = l->map + pg;
	l->stack_size = stack;
	l->fresh = true;
	l->state = LS_EXITED;
	return l;
}

/* Cancels every fiber that still has frames on its stack, then unmaps all stacks. */
void release_harness(harness *h)
{
	launch_state *saved = h->L;
	h->L = nullptr;
	for (lane *l : h->lanes) {
		if (!l->fresh) {
			l->cancel = true;
			resume(h, l);
		}
		munmap(l->map, l->map_size);
		delete l;
	}
	h->lanes.clear();
	h->stack_size = 0;
	h->L = saved;
}

bool ensure_lanes(harness *h, unsigned n, size_t stack)
{
	if (h->stack_size != stack)
		release_harness(h);
	h->stack_size = stack;
	while (h->lanes.size() < n) {
		lane *l = new_lane(stack);
		if (!l)
			return false;
		h->lanes.push_back(l);
	}
	return true;
}

/* Returns 1 if warp w of the block in slot sl completed an op, 0 if it is not ready, -1 on error.
 * lo and hi are thread indices in the block; its lanes are h->lanes[sl->base + i]. */
int complete_warp(harness *h, slot_state *sl, unsigned w)
{
	launch_state *L = h->L;
	const unsigned W = (unsigned)L->W;
	const unsigned lo = w * W;
	const unsigned hi = lo + W < L->nthreads ? lo + W : L->nthreads;
	lane *const *lanes = &h->lanes[sl->base];
	uint64_t live = 0;
	lane *first = nullptr;
	for (unsigned i = lo; i < hi; i++) {
		lane *l = lanes[i];
		if (l->state == LS_EXITED)
			continue;
		if (l->state != LS_WARP)
			return 0;
		live |= 1ull << (i - lo);
		if (!first)
			first = l;
	}
	if (!first)
		return 0;

	const int op = first->op;
	const bool is_shfl = op >= SZ_SIMT_OP_SHFL_IDX && op <= SZ_SIMT_OP_SHFL_XOR;
	for (unsigned i = lo; i < hi; i++) {
		lane *l = lanes[i];
		if (l->state != LS_WARP)
			continue;
		if (l->op != op || !same_site(l, first) || l->n_warp != first->n_warp) {
			fail(h, sl, SZ_SIMT_DIVERGENT_WARP_OP, (int)l->linear, l->file, l->line,
			     "warp %u: %s", w, describe(h, sl, lo, hi).c_str());
			return -1;
		}
		if (op != SZ_SIMT_OP_ACTIVEMASK && l->mask != first->mask) {
			fail(
			    h, sl, SZ_SIMT_BAD_MASK, (int)l->linear, l->file, l->line,
			    "warp %u at %s (%s:%d): thread %u passes mask 0x%llx, thread %u 0x%llx",
			    w, op_names[op], l->file, l->line, first->linear,
			    (unsigned long long)first->mask, l->linear,
			    (unsigned long long)l->mask);
			return -1;
		}
		if (!is_shfl)
			continue;
		if (l->width < 1 || l->width > (int)W || (l->width & (l->width - 1)) ||
		    l->width != first->width) {
			fail(h, sl, SZ_SIMT_BAD_WIDTH, (int)l->linear, l->file, l->line,
			     "thread %u: %s width %d (must be a power of two <= %u, equal in all "
			     "lanes) at %s:%d",
			     l->linear, op_names[op], l->width, W, l->file, l->line);
			return -1;
		}
		if (op != SZ_SIMT_OP_SHFL_IDX && (l->arg < 0 || l->arg >= (int64_t)W)) {
			fail(h, sl, SZ_SIMT_BAD_WIDTH, (int)l->linear, l->file, l->line,
			     "thread %u: %s lane argument %lld outside [0,%u): NVIDIA uses its low "
			     "5 "
			     "bits, AMD all of it, at %s:%d",
			     l->linear, op_names[op], (long long)l->arg, W, l->file, l->line);
			return -1;
		}
	}
	if (op != SZ_SIMT_OP_ACTIVEMASK) {
		const uint64_t m = first->mask;
		const uint64_t full = W == 64 ? ~0ull : (1ull << W) - 1;
		if (m & ~full) {
			fail(h, sl, SZ_SIMT_BAD_MASK, (int)first->linear, first->file, first->line,
			     "warp %u at %s (%s:%d): mask 0x%llx has lanes >= %u", w, op_names[op],
			     first->file, first->line, (unsigned long long)m, W);
			return -1;
		}
		if (live & ~m) {
			unsigned miss = (unsigned)__builtin_ctzll(live & ~m);
			fail(h, sl, SZ_SIMT_BAD_MASK, (int)(lo + miss), first->file, first->line,
			     "warp %u at %s (%s:%d): mask 0x%llx misses live lane %u (thread %u)",
			     w, op_names[op], first->file, first->line, (unsigned long long)m, miss,
			     lo + miss);
			return -1;
		}
	}

	uint64_t ballot = 0;
	for (unsigned i = lo; i < hi; i++) {
		const lane *l = lanes[i];
		if (l->state == LS_WARP && l->val)
			ballot |= 1ull << (i - lo);
	}
	for (unsigned i = lo; i < hi; i++) {
		lane *l = lanes[i];
		if (l->state != LS_WARP)
			continue;
		const int64_t me = (int64_t)(i - lo);
		const int64_t wd = l->width;
		const int64_t seg = me & ~(wd - 1), end = seg + wd - 1;
		int64_t j = me;
		switch (op) {
		case SZ_SIMT_OP_BALLOT:
			l->out = ballot;
			continue;
		case SZ_SIMT_OP_ANY:
			l->out = ballot != 0;
			continue;
		case SZ_SIMT_OP_ALL:
			l->out = ballot == live;
			continue;
		case SZ_SIMT_OP_ACTIVEMASK:
			l->out = live;
			continue;
		case SZ_SIMT_OP_SYNCWARP:
			l->out = 0;
			continue;
		case SZ_SIMT_OP_SHFL_IDX:
			j = seg | (l->arg & (wd - 1)); /* wraps, negative sources too */
			break;
		case SZ_SIMT_OP_SHFL_UP:
			j = me - l->arg;
			if (j < seg)
				j = me;
			break;
		case SZ_SIMT_OP_SHFL_DOWN:
			j = me + l->arg;
			if (j > end)
				j = me;
			break;
		case SZ_SIMT_OP_SHFL_XOR:
			j = me ^ l->arg; /* earlier segments stay readable */
			if (j > end)
				j = me;
			break;
		}
		if (!((live >> j) & 1)) {
			fail(
			    h, sl, SZ_SIMT_SHFL_FROM_EXITED, (int)l->linear, l->file, l->line,
			    "thread %u (warp %u lane %lld) at %s (%s:%d) reads lane %lld, which %s",
			    l->linear, w, (long long)me, op_names[op], l->file, l->line,
			    (long long)j,
			    lo + (unsigned)j < hi ? "has exited" : "does not exist (partial warp)");
			return -1;
		}
		l->out = lanes[lo + (unsigned)j]->val;
	}
	for (unsigned i = lo; i < hi; i++) {
		lane *l = lanes[i];
		if (l->state == LS_WARP)
			l->state = LS_RUNNABLE;
	}
	return 1;
}

bool complete_barrier(harness *h, slot_state *sl, unsigned n_exited)
{
	launch_state *L = h->L;
	const unsigned n = L->nthreads;
	lane *const *lanes = &h->lanes[sl->base];
	lane *first = nullptr;
	for (unsigned i = 0; i < n && !first; i++)
		if (lanes[i]->state == LS_BARRIER)
			first = lanes[i];
	if (n_exited) {
		fail(h, sl, SZ_SIMT_EXIT_BEFORE_BARRIER, (int)first->linear, first->file,
		     first->line, "%s", describe(h, sl, 0, n).c_str());
		return false;
	}
	unsigned count = 0;
	for (unsigned i = 0; i < n; i++) {
		const lane *l = lanes[i];
		if (l->op != first->op || !same_site(l, first) || l->n_bar != first->n_bar) {
			fail(h, sl, SZ_SIMT_DIVERGENT_BARRIER, (int)l->linear, l->file, l->line,
			     "%s", describe(h, sl, 0, n).c_str());
			return false;
		}
		count += l->val != 0;
	}
	uint64_t out = 0;
	switch (first->op) {
	case SZ_SIMT_OP_SYNCTHREADS_COUNT:
		out = count;
		break;
	case SZ_SIMT_OP_SYNCTHREADS_AND:
		out = count == n;
		break;
	case SZ_SIMT_OP_SYNCTHREADS_OR:
		out = count != 0;
		break;
	}
	for (unsigned i = 0; i < n; i++) {
		lanes[i]->out = out;
		lanes[i]->state = LS_RUNNABLE;
	}
	L->res->counts.barriers++;
	if (L->mem)
		sz_simt_mem::barrier(L->mem, (unsigned)(sl - L->slots.data()));
	return true;
}

void cancel_parked(harness *h)
{
	const size_t total = (size_t)h->L->nthreads * h->L->slots.size();
	for (size_t i = 0; i < total; i++) {
		lane *l = h->lanes[i];
		if (l->in_kernel && l->state != LS_DEAD) {
			l->cancel = true;
			resume(h, l);
		}
		l->cancel = false;
	}
}

/* Block blin starts in slot sl: fresh lane records, shared memory refilled, lane order drawn. */
void start_block(harness *h, slot_state *sl, uint64_t blin)
{
	launch_state *L = h->L;
	const sz_simt_config &c = L->cfg;
	const unsigned n = L->nthreads;
	sl->active = true;
	sl->blin = blin;
	sl->bid = sz_dim3{(unsigned)(blin % c.grid.x), (unsigned)(blin / c.grid.x % c.grid.y),
	                  (unsigned)(blin / ((uint64_t)c.grid.x * c.grid.y))};
	for (unsigned i = 0; i < n; i++) {
		lane *l = h->lanes[sl->base + i];
		l->view.tid =
		    sz_dim3{i % c.block.x, i / c.block.x % c.block.y, i / (c.block.x * c.block.y)};
		l->view.bid = sl->bid;
		l->view.bdim = c.block;
		l->view.gdim = c.grid;
		l->linear = i;
		l->slot = (unsigned)(sl - L->slots.data());
		l->state = LS_RUNNABLE;
		l->n_bar = l->n_warp = 0;
		l->cancel = false;
		l->file = nullptr;
		l->line = 0;
		l->op = SZ_SIMT_OP_COUNT_;
	}
	for (const smem_block &s : sl->smem)
		memset(s.ptr, c.fill, s.size);
	if (c.dyn_smem)
		memset(sl->dyn, c.fill, c.dyn_smem);
	sl->order.resize(n);
	for (unsigned i = 0; i < n; i++)
		sl->order[i] = c.lane_order == SZ_SIMT_LANES_REVERSE ? n - 1 - i : i;
	if (c.lane_order == SZ_SIMT_LANES_SEEDED) {
		uint64_t s = c.seed ^ (blin * 0xD1B54A32D192ED03ull);
		for (unsigned i = n - 1; i > 0; i--) {
			unsigned j = (unsigned)(splitmix64(&s) % (i + 1));
			unsigned t = sl->order[i];
			sl->order[i] = sl->order[j];
			sl->order[j] = t;
		}
	}
	if (L->mem)
		sz_simt_mem::block_start(L->mem, (unsigned)(sl - L->slots.data()), blin);
}

/* Lane states of the block in slot sl. */
struct slot_census {
	unsigned exited, barrier, spin, runnable;
};

slot_census census(harness *h, const slot_state *sl)
{
	slot_census c{0, 0, 0, 0};
	for (unsigned i = 0; i < h->L->nthreads; i++) {
		const uint8_t s = h->lanes[sl->base + i]->state;
		c.exited += s == LS_EXITED;
		c.barrier += s == LS_BARRIER;
		c.spin += s == LS_SPIN;
		c.runnable += s == LS_RUNNABLE;
	}
	return c;
}

/* Step 2 of a round for one block: 1 if it moved, 0 if not, -1 on error. */
int settle_slot(harness *h, slot_state *sl, bool *done)
{
	const unsigned n = h->L->nthreads, W = (unsigned)h->L->W;
	const slot_census c = census(h, sl);
	*done = c.exited == n;
	if (*done)
		return 1;
	int moved = 0;
	for (unsigned w = 0; w < (n + W - 1) / W; w++) {
		const int r = complete_warp(h, sl, w);
		if (r < 0)
			return -1;
		moved |= r;
	}
	if (!moved && c.barrier && c.barrier + c.exited == n) {
		if (!complete_barrier(h, sl, c.exited))
			return -1;
		moved = 1;
	}
	return moved;
}

/* A round without progress: DEADLOCK for a block that cannot move, or SPIN_LIMIT once every
 * live thread has only spun for spin_budget rounds. Returns false on error. */
bool no_progress(harness *h, uint32_t *idle)
{
	launch_state *L = h->L;
	const slot_state *spinner = nullptr;
	for (slot_state &sl : L->slots) {
		if (!sl.active)
			continue;
		const slot_census c = census(h, &sl);
		if (c.spin) {
			spinner = spinner ? spinner : &sl;
			continue;
		}
		int t = -1;
		const char *f = nullptr;
		int ln = 0;
		for (unsigned i = 0; i < L->nthreads && t < 0; i++) {
			const lane *l = h->lanes[sl.base + i];
			if (l->state == LS_WARP || l->state == LS_BARRIER) {
				t = (int)i;
				f = l->file;
				ln = l->line;
			}
		}
		fail(h, &sl, SZ_SIMT_DEADLOCK, t, f, ln, "%s",
		     describe(h, &sl, 0, L->nthreads).c_str());
		return false;
	}
	if (++*idle <= L->spin_budget)
		return true;
	for (unsigned i = 0; i < L->nthreads; i++) {
		const lane *l = h->lanes[spinner->base + i];
		if (l->state == LS_SPIN) {
			fail(h, spinner, SZ_SIMT_SPIN_LIMIT, (int)i, l->file, l->line,
			     "thread %u spun at %s:%d for %u rounds in which no thread of any "
			     "resident "
			     "block moved (it waits on a block that has not run, or on itself)",
			     i, l->file, l->line, L->spin_budget);
			break;
		}
	}
	return false;
}

/* The linear index of the k-th block to start. */
uint64_t block_at(const launch_state *L, const std::vector<uint64_t> &perm, uint64_t nblocks,
                  uint64_t k)
{
	switch (L->cfg.block_order) {
	case SZ_SIMT_BLOCKS_REVERSED:
		return nblocks - 1 - k;
	case SZ_SIMT_BLOCKS_SHUFFLED:
		return perm[k];
	default:
		return k;
	}
}

/*
 * Runs the nblocks blocks (in the configured order, perm for a shuffled one) with up to
 * cfg.resident at once. Returns false on the first error (already recorded in the result).
 */
bool run_blocks(harness *h, uint64_t nblocks, const std::vector<uint64_t> &perm)
{
	launch_state *L = h->L;
	uint64_t next = 0;
	for (slot_state &sl : L->slots)
		if (next < nblocks)
			start_block(h, &sl, block_at(L, perm, nblocks, next++));
	uint32_t idle = 0;
	for (;;) {
		bool progress = false, any = false;
		for (slot_state &sl : L->slots) {
			if (!sl.active)
				continue;
			any = true;
			for (unsigned k = 0; k < L->nthreads; k++) {
				lane *l = h->lanes[sl.base + sl.order[k]];
				const uint8_t before = l->state;
				if (before != LS_RUNNABLE && before != LS_SPIN)
					continue;
				resume(h, l);
				if (L->res->code != SZ_SIMT_OK)
					goto abort;
				progress |= before != LS_SPIN || l->state != LS_SPIN;
			}
		}
		if (!any)
			return true;
		for (slot_state &sl : L->slots) {
			if (!sl.active)
				continue;
			bool done = false;
			const int r = settle_slot(h, &sl, &done);
			if (r < 0)
				goto abort;
			progress |= r > 0;
			if (done) {
				L->res->blocks_run++;
				sl.active = false;
				if (next < nblocks)
					start_block(h, &sl, block_at(L, perm, nblocks, next++));
			}
		}
		if (progress)
			idle = 0;
		else if (!no_progress(h, &idle))
			goto abort;
	}
abort:
	cancel_parked(h);
	return false;
}

bool sanitized_build()
{
#if SZ_SIMT_ASAN || defined(SZ_SIMT_SANITIZED)
	return true;
#else
	return false;
#endif
}

/* ---------------------------------------------------------------- */
/*                 Crash reports that name the lane                 */
/* ---------------------------------------------------------------- */

void print_current_lane(const char *why, const void *addr)
{
	harness *h = HP;
	char buf[512];
	if (!h || !h->cur || !h->L) {
		snprintf(buf, sizeof(buf), "sz_simt: %s (not inside a SIMT kernel)\n", why);
	} else {
		const lane *l = h->cur;
		bool guard =
		    addr && (const char *)addr >= l->map && (const char *)addr < l->stack_lo;
		snprintf(buf, sizeof(buf),
		         "sz_simt: %s%s in thread %u (threadIdx (%u,%u,%u)) of block (%u,%u,%u); "
		         "last sync site %s:%d\n",
		         why, guard ? ": stack overflow (guard page hit)" : "", l->linear,
		         l->view.tid.x, l->view.tid.y, l->view.tid.z, l->view.bid.x, l->view.bid.y,
		         l->view.bid.z, l->file ? l->file : "(none yet)", l->line);
	}
	ssize_t r = write(2, buf, strlen(buf));
	(void)r;
}

#if !SZ_SIMT_ASAN
void on_fatal_signal(int sig, siginfo_t *si, void *)
{
	print_current_lane(sig == SIGBUS ? "SIGBUS" : "SIGSEGV", si ? si->si_addr : nullptr);
	signal(sig, SIG_DFL); /* returning re-executes the fault and takes the default action */
}
#endif

void on_alarm(int)
{
	print_current_lane("watchdog expired (a kernel loop without a sync point?)", nullptr);
	abort();
}

#if SZ_SIMT_ASAN
void on_asan_death(void)
{
	print_current_lane("ASan report above", nullptr);
}
#endif

void install_crash_reporting(harness *h)
{
	static std::atomic<bool> process_done{false};
	if (!process_done.exchange(true)) {
#if SZ_SIMT_ASAN
		__sanitizer_set_death_callback(on_asan_death);
#else
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_fatal_signal;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGSEGV, &sa, nullptr);
		sigaction(SIGBUS, &sa, nullptr);
#endif
	}
#if !SZ_SIMT_ASAN
	if (!h->altstack) { /* a stack overflow cannot run the handler on the fiber's stack */
		const size_t sz = 64 * 1024;
		h->altstack = (char *)malloc(sz);
		stack_t ss;
		memset(&ss, 0, sizeof(ss));
		ss.ss_sp = h->altstack;
		ss.ss_size = sz;
		sigaltstack(&ss, nullptr);
	}
#else
	(void)h;
#endif
}

} /* namespace */

/* ==================================================================== */
/*                     Entry points used by kernels                     */
/* ==================================================================== */

int sz_simt_block_op(int op, int pred, const char *file, int line)
{
	harness *h = HP;
	lane *l = running_lane(h, op_names[op]);
	l->op = (uint8_t)op;
	l->val = pred != 0;
	l->file = file;
	l->line = line;
	l->n_bar++;
	park(h, l, LS_BARRIER);
	return (int)l->out;
}

uint64_t sz_simt_warp_op(int w_kernel, int op, uint64_t mask, uint64_t val, int64_t arg, int width,
                         const char *file, int line)
{
	harness *h = HP;
	lane *l = running_lane(h, op_names[op]);
	if (w_kernel != h->L->W)
		sz_simt_trap(SZ_SIMT_BAD_LAUNCH, file, line,
		             "warp op of a kernel<W> for another W");
	l->op = (uint8_t)op;
	l->mask = mask;
	l->val = val;
	l->arg = arg;
	l->width = width;
	l->file = file;
	l->line = line;
	l->n_warp++;
	park(h, l, LS_WARP);
	return l->out;
}

void sz_simt_spin(const char *file, int line)
{
	harness *h = HP;
	lane *l = running_lane(h, "sz_spin_pause");
	l->op = SZ_SIMT_OP_SPIN;
	l->file = file;
	l->line = line;
	l->val = 0;
	park(h, l, LS_SPIN); /* the scheduler counts rounds in which nobody moves */
}

void sz_simt_trap(sz_simt_code code, const char *file, int line, const char *what)
{
	harness *h = HP;
	lane *l = running_lane(h, "sz_simt_trap");
	fail(h, &h->L->slots[l->slot], code, (int)l->linear, file, line,
	     "thread %u (threadIdx (%u,%u,%u)) at %s:%d: %s", l->linear, l->view.tid.x,
	     l->view.tid.y, l->view.tid.z, file, line, what);
	lane_die(h, l);
}

void sz_simt_check_warp(int w_kernel, const char *file, int line)
{
	harness *h = HP;
	running_lane(h, "SZ_WARP_GUARD");
	if (w_kernel != h->L->W)
		sz_simt_trap(SZ_SIMT_BAD_LAUNCH, file, line,
		             w_kernel == 32 ? "kernel<32> launched with warp 64"
		                            : "kernel<W> launched with another warp size");
}

void *sz_simt_shared(const void *key, size_t size, size_t align, const char *file, int line)
{
	harness *h = HP;
	lane *l = running_lane(h, "SZ_SHARED_ARRAY");
	launch_state *L = h->L;
	slot_state *sl = &L->slots[l->slot];
	for (const smem_block &s : sl->smem)
		if (s.key == key)
			return s.ptr;
	/* Laid out as CUDA does: each array at its alignment, dynamic memory after all of them. */
	size_t at = (sl->smem_static + align - 1) & ~(align - 1);
	size_t used = ((at + size + 15) & ~(size_t)15) + L->cfg.dyn_smem;
	if (used > L->cfg.smem_limit) {
		char what[160];
		snprintf(what, sizeof(what),
		         "shared array of %zu bytes: static %zu + dynamic %zu > limit %zu", size,
		         at + size, L->cfg.dyn_smem, L->cfg.smem_limit);
		sz_simt_trap(SZ_SIMT_SMEM_LIMIT, file, line, what);
	}
	void *p = nullptr;
	if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size) != 0) {
		fprintf(stderr, "sz_simt: out of memory for shared array (%zu bytes)\n", size);
		abort();
	}
	memset(p, L->cfg.fill, size);
	sl->smem.push_back(smem_block{key, p, size});
	sl->smem_static = at + size;
	return p;
}

void *sz_simt_dyn_shared(const char *, int)
{
	harness *h = HP;
	lane *l = running_lane(h, "SZ_DYN_SHARED");
	return h->L->slots[l->slot].dyn;
}

void sz_simt_gmem(int kind, const void *p, size_t bytes, const char *file, int line)
{
	harness *h = HP;
	lane *l = running_lane(h, "a global memory access");
	launch_state *L = h->L;
	if (kind == SZ_SIMT_LOAD)
		L->res->counts.gload_bytes += bytes;
	else
		L->res->counts.gstore_bytes += bytes;
	char msg[700];
	if (L->mem && !sz_simt_mem::access(L->mem, l->slot, l->linear, kind, false, SZ_SIMT_RELAXED,
	                                   p, bytes, file, line, msg, sizeof(msg))) {
		fail(h, &L->slots[l->slot], SZ_SIMT_MEMORY_ORDER, (int)l->linear, file, line, "%s",
		     msg);
		lane_die(h, l);
	}
}

void sz_simt_gatomic(int kind, int order, const void *p, size_t bytes, const char *file, int line)
{
	harness *h = HP;
	lane *l = running_lane(h, "a global atomic");
	launch_state *L = h->L;
	L->res->counts.gatomics++;
	char msg[700];
	if (L->mem && !sz_simt_mem::access(L->mem, l->slot, l->linear, kind, true, order, p, bytes,
	                                   file, line, msg, sizeof(msg))) {
		fail(h, &L->slots[l->slot], SZ_SIMT_MEMORY_ORDER, (int)l->linear, file, line, "%s",
		     msg);
		lane_die(h, l);
	}
}

void sz_simt_gfence(int order, const char *, int)
{
	harness *h = HP;
	lane *l = running_lane(h, "a fence");
	h->L->res->counts.gfences++;
	if (h->L->mem)
		sz_simt_mem::fence(h->L->mem, l->slot, l->linear, order);
}

void sz_simt_satomic(void)
{
	harness *h = HP;
	running_lane(h, "a shared-memory atomic");
	h->L->res->counts.satomics++;
}

/* ==================================================================== */
/*                                Launch                                */
/* ==================================================================== */

const char *sz_simt_code_name(sz_simt_code c)
{
	switch (c) {
	case SZ_SIMT_OK:
		return "OK";
	case SZ_SIMT_DIVERGENT_BARRIER:
		return "DIVERGENT_BARRIER";
	case SZ_SIMT_EXIT_BEFORE_BARRIER:
		return "EXIT_BEFORE_BARRIER";
	case SZ_SIMT_DIVERGENT_WARP_OP:
		return "DIVERGENT_WARP_OP";
	case SZ_SIMT_BAD_MASK:
		return "BAD_MASK";
	case SZ_SIMT_BAD_WIDTH:
		return "BAD_WIDTH";
	case SZ_SIMT_SHFL_FROM_EXITED:
		return "SHFL_FROM_EXITED";
	case SZ_SIMT_DEADLOCK:
		return "DEADLOCK";
	case SZ_SIMT_SPIN_LIMIT:
		return "SPIN_LIMIT";
	case SZ_SIMT_SMEM_LIMIT:
		return "SMEM_LIMIT";
	case SZ_SIMT_BAD_LAUNCH:
		return "BAD_LAUNCH";
	case SZ_SIMT_KERNEL_TRAP:
		return "KERNEL_TRAP";
	case SZ_SIMT_MEMORY_ORDER:
		return "MEMORY_ORDER";
	}
	return "UNKNOWN";
}

static sz_simt_result launch_error(sz_simt_result r, sz_simt_code code, const char *msg)
{
	r.code = code;
	snprintf(r.msg, sizeof(r.msg), "%s: %s", sz_simt_code_name(code), msg);
	return r;
}

sz_simt_result sz_simt_launch_erased(const sz_simt_config &cfg, void (*thunk)(void *), void *ctx)
{
	sz_simt_result res;
	memset(&res, 0, sizeof(res));
	res.code = SZ_SIMT_OK;
	res.thread = -1;
	harness *h = get_harness();

	const sz_dim3 b = cfg.block, g = cfg.grid;
	char why[200];
	if (h->L)
		return launch_error(res, SZ_SIMT_BAD_LAUNCH, "nested launch from inside a kernel");
	if (cfg.warp != 32 && cfg.warp != 64) {
		snprintf(why, sizeof(why), "warp size %d (32 or 64)", cfg.warp);
		return launch_error(res, SZ_SIMT_BAD_LAUNCH, why);
	}
	if (b.x < 1 || b.y < 1 || b.z < 1 || b.x > 1024 || b.y > 1024 || b.z > 64 ||
	    (uint64_t)b.x * b.y * b.z > 1024) {
		snprintf(why, sizeof(why), "block (%u,%u,%u): at most 1024 threads, z <= 64", b.x,
		         b.y, b.z);
		return launch_error(res, SZ_SIMT_BAD_LAUNCH, why);
	}
	if (g.x < 1 || g.y < 1 || g.z < 1 || g.x > 0x7FFFFFFFu || g.y > 65535 || g.z > 65535) {
		snprintf(why, sizeof(why), "grid (%u,%u,%u)", g.x, g.y, g.z);
		return launch_error(res, SZ_SIMT_BAD_LAUNCH, why);
	}
	if (cfg.smem_limit > ((size_t)1 << 20) || cfg.dyn_smem > cfg.smem_limit) {
		snprintf(why, sizeof(why), "dynamic shared memory %zu > limit %zu", cfg.dyn_smem,
		         cfg.smem_limit);
		return launch_error(res, SZ_SIMT_SMEM_LIMIT, why);
	}

	const uint64_t nblocks = (uint64_t)g.x * g.y * g.z;
	if (cfg.block_order == SZ_SIMT_BLOCKS_SHUFFLED && nblocks > ((uint64_t)1 << 26))
		return launch_error(res, SZ_SIMT_BAD_LAUNCH,
		                    "shuffled block order: at most 2^26 blocks");

	size_t stack = cfg.stack_size ? cfg.stack_size : (sanitized_build() ? 256 : 64) * 1024;
	stack = (stack + page_size() - 1) & ~(page_size() - 1);
	if (stack < 16 * 1024)
		return launch_error(res, SZ_SIMT_BAD_LAUNCH, "stack_size below 16 KiB");

	if (cfg.resident < 1 || cfg.resident > 64)
		return launch_error(res, SZ_SIMT_BAD_LAUNCH, "resident blocks: 1 to 64");

	launch_state L;
	L.cfg = cfg;
	L.W = cfg.warp;
	L.nthreads = b.x * b.y * b.z;
	L.thunk = thunk;
	L.ctx = ctx;
	L.spin_budget = cfg.spin_budget ? cfg.spin_budget : 10000;
	L.res = &res;
	const unsigned nslots = (unsigned)(nblocks < cfg.resident ? nblocks : cfg.resident);
	L.slots.resize(nslots);
	L.mem = cfg.memcheck ? sz_simt_mem::create(nslots, L.nthreads) : nullptr;

	install_crash_reporting(h);
	if (!ensure_lanes(h, L.nthreads * nslots, stack)) {
		if (L.mem)
			sz_simt_mem::destroy(L.mem);
		return launch_error(res, SZ_SIMT_BAD_LAUNCH, "cannot map fiber stacks");
	}
	for (unsigned i = 0; i < nslots; i++) {
		L.slots[i].base = i * L.nthreads;
		L.slots[i].dyn = malloc(cfg.dyn_smem); /* exact size: ASan catches dyn[dyn_smem] */
	}
	h->L = &L;

	std::vector<uint64_t> perm;
	if (cfg.block_order == SZ_SIMT_BLOCKS_SHUFFLED) {
		perm.resize(nblocks);
		for (uint64_t i = 0; i < nblocks; i++)
			perm[i] = i;
		uint64_t s = cfg.seed ^ 0x5851F42D4C957F2Dull;
		for (uint64_t i = nblocks - 1; i > 0; i--) {
			uint64_t j = splitmix64(&s) % (i + 1);
			uint64_t t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
	}
	run_blocks(h, nblocks, perm);

	for (slot_state &sl : L.slots) {
		for (const smem_block &s : sl.smem)
			free(s.ptr);
		free(sl.dyn);
	}
	if (L.mem)
		sz_simt_mem::destroy(L.mem);
	h->L = nullptr;
	return res;
}

void sz_simt_watchdog(unsigned seconds)
{
	static std::atomic<bool> installed{false};
	if (!installed.exchange(true))
		signal(SIGALRM, on_alarm);
	alarm(seconds);
}

void sz_simt_release(void)
{
	if (HP && !HP->L)
		release_harness(HP);
}
