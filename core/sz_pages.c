/*
 * sz_pages.c -- the host side of the page stream format (doc/FORMAT.md §12): the whole-stream
 * structural validation a receiver runs before it writes anything, the destination checks and
 * the table checksum. The per-field rules are the SPLITZIP_HD helpers of sz_pages.h, which the
 * GPU kernels run too; this file only orders them. The host reads every dtype: version 2
 * (BF16 pages) and version 3 (pages of Dtype 2-5, whose frames core/sz_dtype.c reads).
 */
#include "sz_driver.h"
#include "sz_dtype_impl.h"
#include "sz_pages.h"

/* The element width of a validated header's pages. */
static unsigned width_of(const splitzip_pages_header *h)
{
	return (unsigned)splitzip_dtype_desc_of(h->dtype)->width;
}

uint32_t splitzip_pages_table_checksum(const uint8_t *src, uint64_t n_pages)
{
	return (uint32_t)splitzip_hash_bytes(src + SPLITZIP_PAGES_HEADER_SIZE,
	                                     (size_t)(SPLITZIP_PAGES_ENTRY_SIZE * n_pages));
}

/* Step 9: the page table's sums, the layout they give and the padding of the sections. */
static splitzip_status check_table(const uint8_t *src, const splitzip_pages_header *h,
                                   splitzip_pages_layout *L)
{
	uint64_t coded = 0, raw = 0;
	for (uint64_t i = 0; i < h->n_pages; i++) {
		const uint32_t e = splitzip_pages_entry(src, i);
		if (splitzip_pages_entry_raw(e))
			raw += splitzip_pages_entry_elems(e);
		else
			coded += splitzip_pages_entry_elems(e);
	}
	splitzip_pages_layout_of_w(h->n_pages, coded, raw, h->frames_size, width_of(h), L);
	if (coded + raw != h->total_elems || (L->n_frames == 0) != (h->frames_size == 0) ||
	    L->stream_size != h->stream_size)
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	const uint64_t table_end = splitzip_pages_table_end(h->n_pages);
	if (!splitzip_driver_all_zero(src + table_end, L->frames_off - table_end) ||
	    !splitzip_driver_all_zero(src + L->frames_end, L->raw_off - L->frames_end))
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	return SPLITZIP_OK;
}

/* The table bytes of a frame that passed step 10 c (splitzip_pages_frame_table() for any
 * dtype: an entropy frame's code lengths lie where its dtype's layout puts them, §4.3.2). */
static const uint8_t *frame_table(const uint8_t *frame, const splitzip_header *h, uint64_t *n)
{
	if (h->dtype == SPLITZIP_DTYPE_BF16 || h->mode == SPLITZIP_MODE_SPLIT4)
		return splitzip_pages_frame_table(frame, h, n);
	sz_dt_layout L;
	sz_dt_entropy_layout(splitzip_dtype_desc_of(h->dtype), h->n_elems, h->chunk_log2,
	                     h->n_words, h->table_first, h->table_last, &L);
	*n = (splitzip_entropy_nibbles(h->table_first, h->table_last) + 1) / 2;
	return frame + L.lengths;
}

/* Step 10 d: whether two frames of the stream's mode have the same table. */
static int same_table(const uint8_t *a, const splitzip_header *ha, const uint8_t *b,
                      const splitzip_header *hb)
{
	if (ha->mode == SPLITZIP_MODE_ENTROPY &&
	    (ha->table_first != hb->table_first || ha->table_last != hb->table_last ||
	     ha->escape_length != hb->escape_length))
		return 0;
	uint64_t na, nb;
	const uint8_t *ta = frame_table(a, ha, &na), *tb = frame_table(b, hb, &nb);
	return na == nb && memcmp(ta, tb, (size_t)na) == 0;
}

/* Step 10 a-c for a reader of every dtype. */
static splitzip_status check_frame(const uint8_t *frame, uint64_t left,
                                   const splitzip_pages_header *h, const splitzip_pages_layout *L,
                                   uint64_t j, splitzip_header *fh)
{
	if (left < SPLITZIP_FRAME_HEADER_SIZE)
		return SPLITZIP_ERROR_CORRUPT_STREAM; /* a */
	splitzip_status st = splitzip_dtype_read_header(frame, left, fh);
	if (st != SPLITZIP_OK) /* b: inside a stream, bytes that are no frame are damage (§8.2) */
		return st == SPLITZIP_ERROR_BAD_MAGIC ? SPLITZIP_ERROR_CORRUPT_STREAM : st;
	return splitzip_pages_check_frame_fields(fh, left, h, L, j);
}

/* Step 10: every frame header in order, inside the frames section, and one table for all. */
static splitzip_status check_frames(const uint8_t *src, const splitzip_pages_header *h,
                                    const splitzip_pages_layout *L)
{
	uint64_t off = L->frames_off;
	const uint8_t *first = NULL; /* the first frame that carries the table */
	splitzip_header first_h;
	memset(&first_h, 0, sizeof first_h);
	for (uint64_t j = 0; j < L->n_frames; j++) {
		splitzip_header fh;
		splitzip_status st = check_frame(src + off, L->frames_end - off, h, L, j, &fh);
		if (st != SPLITZIP_OK)
			return st;
		if (fh.mode != SPLITZIP_MODE_STORED) { /* e */
			if (!first) {
				first = src + off;
				first_h = fh;
			} else if (!same_table(first, &first_h, src + off, &fh)) {
				return SPLITZIP_ERROR_CORRUPT_STREAM;
			}
		}
		off += fh.frame_size;
	}
	return off == L->frames_end ? SPLITZIP_OK : SPLITZIP_ERROR_CORRUPT_STREAM;
}

splitzip_status splitzip_pages_validate(const uint8_t *src, size_t size, splitzip_pages_header *h,
                                        splitzip_pages_layout *L)
{
	splitzip_status st = splitzip_pages_read_header_ext(src, size, 1, h); /* steps 0-7 */
	if (st != SPLITZIP_OK)
		return st;
	/* Step 8: the table lies inside the stream after step 6. */
	if (splitzip_pages_table_checksum(src, h->n_pages) != h->table_checksum)
		return SPLITZIP_ERROR_HEADER_CHECKSUM;
	st = check_table(src, h, L);
	if (st != SPLITZIP_OK)
		return st;
	return check_frames(src, h, L);
}

splitzip_status splitzip_pages_check_dst(const uint8_t *src, const splitzip_pages_header *h,
                                         size_t n_dst, const size_t *dst_caps, int exact)
{
	if (exact && h->n_pages != n_dst)
		return SPLITZIP_ERROR_GEOMETRY;
	if (h->n_pages > n_dst)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	const unsigned w = width_of(h);
	for (uint64_t i = 0; i < h->n_pages; i++) {
		const uint64_t bytes = w * splitzip_pages_entry_elems(splitzip_pages_entry(src, i));
		if (exact && bytes != dst_caps[i])
			return SPLITZIP_ERROR_GEOMETRY;
		if (bytes > dst_caps[i])
			return SPLITZIP_ERROR_DST_TOO_SMALL;
	}
	return SPLITZIP_OK;
}

void splitzip_pages_costs(const uint16_t *x, size_t n, const uint8_t c4[256], const uint8_t ce[256],
                          uint64_t *s4, uint64_t *se)
{
	/* Four independent sums of each kind: the table loads of consecutive elements overlap. */
	uint32_t a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
	size_t i = 0;
	uint64_t ta = 0, tb = 0;
	while (i < n) {
		/* Flush every 2^24 elements, before 19 * 2^24 / 4 could overflow a u32 sum. */
		const size_t end = n - i > ((size_t)1 << 24) ? i + ((size_t)1 << 24) : n;
		for (; i + 4 <= end; i += 4)
			for (unsigned k = 0; k < 4; k++) {
				const uint8_t e = splitzip_bf16_exponent(x[i + k]);
				a[k] += c4[e];
				b[k] += ce[e];
			}
		for (; i < end; i++) {
			const uint8_t e = splitzip_bf16_exponent(x[i]);
			a[0] += c4[e];
			b[0] += ce[e];
		}
		for (unsigned k = 0; k < 4; k++) {
			ta += a[k];
			tb += b[k];
			a[k] = b[k] = 0;
		}
	}
	*s4 += ta;
	*se += tb;
}

uint64_t splitzip_pages_outside(const uint16_t *x, size_t n, uint8_t base)
{
	uint64_t total = 0;
	for (size_t i = 0; i < n;) {
		/* A u16 count per block of 2^15 elements: the inner loop stays in 16-bit lanes. */
		const size_t end = n - i > 32768 ? i + 32768 : n;
		uint16_t m = 0;
		for (; i < end; i++)
			m += (uint16_t)((uint8_t)(((x[i] >> 7) & 0xFF) - base) > 15);
		total += m;
	}
	return total;
}
