/*
 * sz_simt_mem.h -- the memory-model checker of the CPU SIMT harness (internal to sz_simt.cpp).
 *
 * The GPU memory model, as CUDA (PTX) and HIP (HSA) define it for device-scope accesses, seen at
 * the granularity of thread blocks:
 *
 *  - A plain store is visible to another thread of its block after a block barrier, and to its
 *    own thread at once.
 *  - A plain store reaches another block only through a release that follows it (a release
 *    store or read-modify-write, or a release fence before a relaxed atomic store or RMW) and an
 *    acquire in the reading block that reads from it (an acquire load or RMW, or an acquire fence
 *    after a relaxed atomic load) -- directly, through the release sequence of read-modify-writes
 *    that continues it, or transitively through further release/acquire pairs. A release covers
 *    the releasing thread's own earlier stores and the stores that its block made before the last
 *    barrier the thread passed; an acquire reaches the acquiring thread at once and the rest of
 *    its block after the next barrier.
 *  - The end of a launch publishes everything to the next launch.
 *
 * The checker keeps, for every byte of global memory written during the launch, who wrote it
 * last (block, thread, barrier epoch, release count, site), and for every block a vector clock of
 * what it has acquired. A plain load or store of bytes whose last write is not ordered before it
 * (read-after-write or write-after-write), and an atomic access to bytes last written by a plain
 * store that is not, are reported as MEMORY_ORDER with both sites. Atomic accesses to bytes last
 * written atomically are never races. Reads that a later write of another block overwrites
 * (write-after-read) are not tracked.
 *
 * So a kernel that publishes data with a relaxed flag, or reads it after a relaxed load of the
 * flag, fails under the harness on every schedule, instead of working by luck on a GPU.
 */
#ifndef SZ_SIMT_MEM_H
#define SZ_SIMT_MEM_H

#include <stddef.h>
#include <stdint.h>

namespace sz_simt_mem
{

struct state;

/* One checker per launch: 'slots' resident blocks of 'nthreads' threads. */
state *create(unsigned slots, unsigned nthreads);
void destroy(state *s);

/* Block 'blin' (linear index in the grid) starts in 'slot'; its barrier epoch is 0. */
void block_start(state *s, unsigned slot, uint64_t blin);
/* The block in 'slot' completed a barrier: what its threads acquired reaches all of them. */
void barrier(state *s, unsigned slot);

/*
 * An access by thread 'thread' of the block in 'slot'. 'kind' and 'order' are sz_simt_mem_kind
 * and sz_simt_mem_order; 'atomic' is set for sz_atomic_* (then bytes is 4 or 8). Returns false
 * and a message in msg[0..cap) when the access races.
 */
bool access(state *s, unsigned slot, unsigned thread, int kind, bool atomic, int order,
            const void *p, size_t bytes, const char *file, int line, char *msg, size_t cap);

/* A device-scope fence by a thread. */
void fence(state *s, unsigned slot, unsigned thread, int order);

} /* namespace sz_simt_mem */

#endif /* SZ_SIMT_MEM_H */
