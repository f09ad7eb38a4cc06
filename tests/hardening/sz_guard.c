/*
 * sz_guard.c -- guard-page buffers (see sz_guard.h).
 */
#define _DEFAULT_SOURCE
#include "sz_guard.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);
	return p > 0 ? (size_t)p : 4096;
}

int sz_guard_alloc(sz_guard_buf *b, size_t size, int where)
{
	size_t pg = page_size();
	size_t data_pages = (size + pg - 1) / pg;
	memset(b, 0, sizeof *b);
	b->map_size = (data_pages + 2) * pg;
	/* Map everything inaccessible, then open up the data pages between the two guards. */
	void *m = mmap(NULL, b->map_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		b->map_size = 0;
		return -1;
	}
	uint8_t *data = (uint8_t *)m + pg;
	if (data_pages && mprotect(data, data_pages * pg, PROT_READ | PROT_WRITE) != 0) {
		munmap(m, b->map_size);
		b->map_size = 0;
		return -1;
	}
	b->map = m;
	b->size = size;
	b->ptr = where == SZ_GUARD_START ? data : data + data_pages * pg - size;
	return 0;
}

int sz_guard_dup(sz_guard_buf *b, const void *src, size_t size, int where)
{
	if (sz_guard_alloc(b, size, where) != 0)
		return -1;
	if (size)
		memcpy(b->ptr, src, size);
	return 0;
}

void sz_guard_free(sz_guard_buf *b)
{
	if (b->map)
		munmap(b->map, b->map_size);
	memset(b, 0, sizeof *b);
}
