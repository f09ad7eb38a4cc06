/*
 * sz_api_entropy.c -- entropy tables (public API): the canonical table of a histogram or a
 * sample, validation, the table file, and the table of an entropy frame. The format's rules are
 * in core/sz_entropy.h and core/sz_entropy.c; this file checks arguments.
 */
#include "sz_api.h"
#include "../core/sz_dtype.h"

splitzip_status splitzip_entropy_table_from_histogram(const uint64_t hist[256],
                                                      splitzip_entropy_table *table)
{
	if (!hist || !table)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	return splitzip_entropy_table_select(hist, table) ? SPLITZIP_OK
	                                                  : SPLITZIP_ERROR_INVALID_ARGUMENT;
}

splitzip_status splitzip_entropy_calibrate(const uint16_t *src, size_t n_elems,
                                           splitzip_entropy_table *table)
{
	uint64_t hist[256] = {0};
	if (!src || !table || n_elems == 0)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_ref_histogram(src, n_elems, hist);
	return splitzip_entropy_table_from_histogram(hist, table);
}

splitzip_status splitzip_entropy_table_validate(const splitzip_entropy_table *table)
{
	if (!table)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	return splitzip_entropy_table_ok(table) ? SPLITZIP_OK : SPLITZIP_ERROR_BAD_CODEBOOK;
}

splitzip_status splitzip_entropy_table_serialize(const splitzip_entropy_table *table, void *dst,
                                                 size_t dst_cap)
{
	if (!table || !dst)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (!splitzip_entropy_table_ok(table))
		return SPLITZIP_ERROR_BAD_CODEBOOK;
	if (dst_cap < SPLITZIP_ENTROPY_TABLE_FILE_SIZE)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	uint8_t b[SPLITZIP_ENTROPY_TABLE_FILE_SIZE];
	splitzip_entropy_file_write(table, b);
	memcpy(dst, b, sizeof b);
	return SPLITZIP_OK;
}

splitzip_status splitzip_entropy_table_deserialize(const void *src, size_t src_size,
                                                   splitzip_entropy_table *table)
{
	if (!src || !table)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	return splitzip_entropy_file_read((const uint8_t *)src, src_size, table);
}

splitzip_status splitzip_frame_entropy_table(const void *src, size_t src_size,
                                             splitzip_entropy_table *table)
{
	if (!src || !table)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_header h;
	splitzip_status st = splitzip_dtype_read_header((const uint8_t *)src, src_size, &h);
	if (st != SPLITZIP_OK)
		return st;
	if (h.mode != SPLITZIP_MODE_ENTROPY)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (h.dtype != SPLITZIP_DTYPE_BF16)
		return splitzip_dtype_frame_table((const uint8_t *)src, src_size, &h, table);
	splitzip_entropy_layout L;
	splitzip_entropy_layout_of(h.n_elems, h.chunk_log2, h.n_words, h.table_first, h.table_last,
	                           &L);
	if (src_size < splitzip_entropy_gap(&L, 1)) /* the end of the code lengths */
		return SPLITZIP_ERROR_TRUNCATED;
	splitzip_entropy_table t;
	if (!splitzip_entropy_frame_table((const uint8_t *)src, &h, &t))
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	*table = t;
	return SPLITZIP_OK;
}
