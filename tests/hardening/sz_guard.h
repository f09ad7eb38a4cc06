/*
 * sz_guard.h -- buffers placed flush against PROT_NONE guard pages, so that a read or write one
 * byte past the end (or before the start) of a buffer faults at once instead of going unseen.
 *
 * Every buffer gets an inaccessible page on both sides. SZ_GUARD_END puts the buffer's last byte
 * right before the trailing guard page (catches overruns); SZ_GUARD_START puts its first byte
 * right after the leading guard page (catches underruns). A buffer of size 0 is a valid,
 * non-NULL pointer at the guard boundary that must never be dereferenced.
 *
 * With SZ_GUARD_END the start of the buffer is page end minus size: callers that store uint16_t
 * data there use even sizes, so the pointer stays 2-byte aligned.
 */
#ifndef SZ_GUARD_H
#define SZ_GUARD_H

#include <stddef.h>
#include <stdint.h>

enum { SZ_GUARD_END = 0, SZ_GUARD_START = 1 };

typedef struct sz_guard_buf {
	uint8_t *ptr; /* the usable bytes: ptr[0..size) */
	size_t size;
	void *map; /* the whole mapping, guard pages included */
	size_t map_size;
} sz_guard_buf;

/*
 * Map a buffer of 'size' bytes flush against a guard page at 'where' (SZ_GUARD_END or
 * SZ_GUARD_START). Returns 0 on success, -1 if mmap/mprotect failed. The bytes start as zero.
 */
int sz_guard_alloc(sz_guard_buf *b, size_t size, int where);

/* As sz_guard_alloc(), then copy 'size' bytes from 'src' into the buffer. */
int sz_guard_dup(sz_guard_buf *b, const void *src, size_t size, int where);

/* Unmap a buffer (a zeroed or already freed sz_guard_buf is a no-op). */
void sz_guard_free(sz_guard_buf *b);

#endif
