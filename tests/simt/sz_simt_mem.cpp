/*
 * sz_simt_mem.cpp -- the memory-model checker of the CPU SIMT harness (see sz_simt_mem.h).
 *
 * State per launch:
 *  - a shadow of every global byte written during the launch: the id of its last write
 *    context (block, thread, barrier epoch of the block, release count of the thread, site,
 *    atomic or plain), in 4 KiB pages of 32-bit ids created on demand;
 *  - per resident block, a vector clock of what it knows about other blocks' writes: for each
 *    block, the barrier epoch below which all its stores are covered and, per releasing thread,
 *    the release count below which that thread's stores are covered; per thread, what it has
 *    acquired since the block's last barrier;
 *  - per atomic location, the clock its last value carries (the union of the releases in the
 *    release sequence that ends with it).
 * Blocks are numbered by their linear index in the grid, unique within a launch.
 */
#include "sz_simt_mem.h"

#include "sz_simt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memory>
#include <unordered_map>
#include <vector>

namespace sz_simt_mem
{
namespace
{

struct thr_bound {
	uint32_t thread, rel; /* stores of 'thread' with release count < rel are covered */
};

struct knowledge {
	uint32_t epoch = 0; /* stores of the block made in barrier epochs < epoch are covered */
	std::vector<thr_bound> thr;
};

typedef std::unordered_map<uint64_t, knowledge> vclock;
typedef std::shared_ptr<const vclock> token;

void join_k(knowledge &a, const knowledge &b)
{
	if (b.epoch > a.epoch)
		a.epoch = b.epoch;
	for (const thr_bound &x : b.thr) {
		bool found = false;
		for (thr_bound &y : a.thr) {
			if (y.thread == x.thread) {
				if (x.rel > y.rel)
					y.rel = x.rel;
				found = true;
				break;
			}
		}
		if (!found)
			a.thr.push_back(x);
	}
}

void join(vclock &a, const vclock &b)
{
	for (const auto &kv : b)
		join_k(a[kv.first], kv.second);
}

/* A write context: who wrote, and when in terms of barriers and releases. */
struct wctx {
	uint64_t block;
	uint32_t thread, epoch, rel;
	const char *file;
	int line;
	bool atomic;
};

struct site_entry {
	const char *file;
	int line;
	bool atomic;
	uint32_t id;
};

struct thread_state {
	uint32_t rel = 0; /* releases done so far */
	vclock pending;   /* acquired since the block's last barrier */
	token fence_rel;  /* what the last release fence published */
	vclock acq_accum; /* clocks read by relaxed atomic loads, for a later acquire fence */
	uint32_t cache_epoch = ~0u, cache_rel = ~0u;
	site_entry cache[8];
	unsigned ncache = 0, next = 0;
};

struct block_state {
	uint64_t blin = 0;
	uint32_t epoch = 0;
	vclock vc; /* what every thread of the block has acquired */
	std::vector<thread_state> thr;
};

const uintptr_t k_page = 4096;

/* An atomic location: the clock its value carries, and every (block, thread) that wrote it in
 * this launch (its latest write context): atomic writes are not ordered among themselves, so a
 * plain read must be ordered after all of them, not only after the last. */
struct atom_loc {
	token tok;
	std::vector<uint32_t> writers;
};

bool has_acquire(int order)
{
	return order == SZ_SIMT_ACQUIRE || order == SZ_SIMT_ACQ_REL || order == SZ_SIMT_SEQ_CST;
}

bool has_release(int order)
{
	return order == SZ_SIMT_RELEASE || order == SZ_SIMT_ACQ_REL || order == SZ_SIMT_SEQ_CST;
}

} /* namespace */

struct state {
	std::vector<wctx> ctx; /* [0] is "never written in this launch" */
	std::unordered_map<uintptr_t, uint32_t *> pages;
	uintptr_t last_key = ~(uintptr_t)0;
	uint32_t *last_page = nullptr;
	std::unordered_map<uintptr_t, atom_loc> atom;
	std::vector<block_state> slots;
	unsigned nthreads = 0;
};

state *create(unsigned slots, unsigned nthreads)
{
	state *s = new state();
	s->ctx.push_back(wctx{0, 0, 0, 0, nullptr, 0, false});
	s->slots.resize(slots);
	s->nthreads = nthreads;
	return s;
}

void destroy(state *s)
{
	for (auto &kv : s->pages)
		free(kv.second);
	delete s;
}

void block_start(state *s, unsigned slot, uint64_t blin)
{
	block_state &b = s->slots[slot];
	b.blin = blin;
	b.epoch = 0;
	b.vc.clear();
	b.thr.assign(s->nthreads, thread_state());
}

void barrier(state *s, unsigned slot)
{
	block_state &b = s->slots[slot];
	b.epoch++;
	for (thread_state &t : b.thr) {
		if (!t.pending.empty()) {
			join(b.vc, t.pending);
			t.pending.clear();
		}
	}
}

namespace
{

uint32_t *page_of(state *s, uintptr_t a, bool create_it)
{
	const uintptr_t key = a / k_page;
	if (key == s->last_key)
		return s->last_page;
	auto it = s->pages.find(key);
	uint32_t *p = nullptr;
	if (it != s->pages.end()) {
		p = it->second;
	} else if (create_it) {
		p = (uint32_t *)calloc(k_page, sizeof(uint32_t));
		if (!p) {
			fprintf(stderr, "sz_simt: out of memory for the memory-model shadow\n");
			abort();
		}
		s->pages.emplace(key, p);
	} else {
		return nullptr;
	}
	s->last_key = key;
	s->last_page = p;
	return p;
}

/* The release clock of thread t of the block in 'slot': everything it knows, plus its own
 * stores and its block's stores before its last barrier. Counts the release. */
token make_token(state *s, unsigned slot, unsigned t)
{
	block_state &b = s->slots[slot];
	thread_state &ts = b.thr[t];
	auto v = std::make_shared<vclock>(b.vc);
	join(*v, ts.pending);
	knowledge own;
	own.epoch = b.epoch;
	own.thr.push_back(thr_bound{t, ts.rel + 1});
	join_k((*v)[b.blin], own);
	ts.rel++;
	return v;
}

bool covers(const vclock &v, const wctx &c)
{
	auto it = v.find(c.block);
	if (it == v.end())
		return false;
	const knowledge &k = it->second;
	if (c.epoch < k.epoch)
		return true;
	for (const thr_bound &x : k.thr)
		if (x.thread == c.thread && c.rel < x.rel)
			return true;
	return false;
}

bool visible(state *s, unsigned slot, unsigned t, const wctx &c)
{
	const block_state &b = s->slots[slot];
	if (c.block == b.blin)
		return c.thread == t || c.epoch < b.epoch;
	return covers(b.vc, c) || covers(b.thr[t].pending, c);
}

uint32_t store_ctx(state *s, unsigned slot, unsigned t, bool atomic, const char *file, int line)
{
	block_state &b = s->slots[slot];
	thread_state &ts = b.thr[t];
	if (ts.cache_epoch != b.epoch || ts.cache_rel != ts.rel) {
		ts.ncache = 0;
		ts.next = 0;
		ts.cache_epoch = b.epoch;
		ts.cache_rel = ts.rel;
	}
	for (unsigned i = 0; i < ts.ncache; i++) {
		const site_entry &e = ts.cache[i];
		if (e.line == line && e.atomic == atomic && e.file == file)
			return e.id;
	}
	const uint32_t id = (uint32_t)s->ctx.size();
	s->ctx.push_back(wctx{b.blin, t, b.epoch, ts.rel, file, line, atomic});
	site_entry e{file, line, atomic, id};
	if (ts.ncache < 8) {
		ts.cache[ts.ncache++] = e;
	} else {
		ts.cache[ts.next] = e;
		ts.next = (ts.next + 1) % 8;
	}
	return id;
}

void report(state *s, unsigned slot, unsigned t, int kind, bool atomic, const void *p, size_t bytes,
            const char *file, int line, const wctx &c, char *msg, size_t cap)
{
	const block_state &b = s->slots[slot];
	const char *what = kind == SZ_SIMT_LOAD    ? "reads"
	                   : kind == SZ_SIMT_STORE ? "writes"
	                                           : "updates";
	int n = snprintf(msg, cap, "thread %u %s %s%zu bytes at %p (%s:%d), which ", t, what,
	                 atomic ? "atomically " : "", bytes, p, file, line);
	if (n < 0 || (size_t)n >= cap)
		return;
	if (c.block == b.blin)
		snprintf(msg + n, cap - (size_t)n,
		         "thread %u of the same block %s at %s:%d with no block barrier between",
		         c.thread, c.atomic ? "updated atomically" : "wrote", c.file, c.line);
	else
		snprintf(msg + n, cap - (size_t)n,
		         "block %llu (linear index) thread %u %s at %s:%d: no release there (a "
		         "release store or RMW, or a release fence before a relaxed one) is read "
		         "by an acquire here (an acquire load or RMW, or an acquire fence after a "
		         "relaxed load) before this access",
		         (unsigned long long)c.block, c.thread,
		         c.atomic ? "updated atomically" : "wrote", c.file, c.line);
}

/* A plain access to byte i, last written atomically by c: check every atomic writer of the
 * location (keyed by its 8- or 4-byte aligned address). */
const wctx *invisible_atomic_writer(state *s, unsigned slot, unsigned t, uintptr_t i)
{
	for (uintptr_t key : {i & ~(uintptr_t)7, i & ~(uintptr_t)3}) {
		auto it = s->atom.find(key);
		if (it == s->atom.end())
			continue;
		for (uint32_t id : it->second.writers)
			if (!visible(s, slot, t, s->ctx[id]))
				return &s->ctx[id];
	}
	return nullptr;
}

void note_writer(state *s, atom_loc &loc, uint32_t id)
{
	const wctx &c = s->ctx[id];
	for (uint32_t &w : loc.writers) {
		if (s->ctx[w].block == c.block && s->ctx[w].thread == c.thread) {
			w = id;
			return;
		}
	}
	loc.writers.push_back(id);
}

} /* namespace */

bool access(state *s, unsigned slot, unsigned t, int kind, bool atomic, int order, const void *p,
            size_t bytes, const char *file, int line, char *msg, size_t cap)
{
	const uintptr_t a = (uintptr_t)p;
	const bool reads = kind != SZ_SIMT_STORE, writes = kind != SZ_SIMT_LOAD;
	uint32_t ok_id = 0;
	for (uintptr_t i = a; i < a + bytes; i++) {
		uint32_t *pg = page_of(s, i, false);
		const uint32_t id = pg ? pg[i % k_page] : 0;
		if (!id || id == ok_id)
			continue;
		const wctx &c = s->ctx[id];
		if ((!atomic || !c.atomic) && !visible(s, slot, t, c)) {
			report(s, slot, t, kind, atomic, p, bytes, file, line, c, msg, cap);
			return false;
		}
		if (!atomic && c.atomic) {
			const wctx *w = invisible_atomic_writer(s, slot, t, i);
			if (w) {
				report(s, slot, t, kind, atomic, p, bytes, file, line, *w, msg,
				       cap);
				return false;
			}
		}
		ok_id = id;
	}
	uint32_t wid = 0;
	if (writes)
		wid = store_ctx(s, slot, t, atomic, file, line); /* before a release counts */
	if (atomic) {
		thread_state &ts = s->slots[slot].thr[t];
		atom_loc &al = s->atom[a];
		token &loc = al.tok;
		if (reads && loc)
			join(has_acquire(order) ? ts.pending : ts.acq_accum, *loc);
		if (writes)
			note_writer(s, al, wid);
		if (writes) {
			token rel = has_release(order) ? make_token(s, slot, t) : ts.fence_rel;
			if (kind == SZ_SIMT_STORE) {
				loc = rel; /* a store starts a new release sequence (or none) */
			} else if (rel) {
				if (!loc) {
					loc = rel;
				} else {
					auto v = std::make_shared<vclock>(*loc);
					join(*v, *rel);
					loc = v;
				}
			}
		}
	}
	if (writes) {
		for (uintptr_t i = a; i < a + bytes; i++)
			page_of(s, i, true)[i % k_page] = wid;
	}
	return true;
}

void fence(state *s, unsigned slot, unsigned t, int order)
{
	thread_state &ts = s->slots[slot].thr[t];
	if (has_acquire(order) && !ts.acq_accum.empty()) {
		join(ts.pending, ts.acq_accum);
		ts.acq_accum.clear();
	}
	if (has_release(order))
		ts.fence_rel = make_token(s, slot, t);
}

} /* namespace sz_simt_mem */
