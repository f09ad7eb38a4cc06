/*
 * sz_api_codebook.c -- histograms, codebooks, codebook files and the content checksum (public
 * API). The format's rules are in core/sz_codebook.c and core/sz_hash.h; this file checks
 * arguments.
 */
#include "sz_api.h"
#include "../core/sz_codebook.h"

splitzip_status splitzip_histogram(const uint16_t *src, size_t n_elems, uint64_t hist[256])
{
	if (!hist || (!src && n_elems))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_ref_histogram(src, n_elems, hist);
	return SPLITZIP_OK;
}

splitzip_status splitzip_codebook_from_histogram(const uint64_t hist[256], splitzip_codebook *cb)
{
	if (!hist || !cb)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_codebook_select(hist, cb->exponents);
	return SPLITZIP_OK;
}

splitzip_status splitzip_calibrate(const uint16_t *src, size_t n_elems, splitzip_codebook *cb)
{
	uint64_t hist[256] = {0};
	if (!cb)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_status st = splitzip_histogram(src, n_elems, hist);
	if (st != SPLITZIP_OK)
		return st;
	return splitzip_codebook_from_histogram(hist, cb);
}

splitzip_status splitzip_codebook_validate(const splitzip_codebook *cb)
{
	if (!cb)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	return splitzip_codebook_ok(cb->exponents) ? SPLITZIP_OK : SPLITZIP_ERROR_BAD_CODEBOOK;
}

splitzip_status splitzip_codebook_serialize(const splitzip_codebook *cb, void *dst, size_t dst_cap)
{
	if (!cb || !dst)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (!splitzip_codebook_ok(cb->exponents))
		return SPLITZIP_ERROR_BAD_CODEBOOK;
	if (dst_cap < SPLITZIP_CODEBOOK_FILE_SIZE)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	uint8_t b[SPLITZIP_CODEBOOK_FILE_SIZE];
	splitzip_codebook_file_write(cb->exponents, b);
	memcpy(dst, b, sizeof b);
	return SPLITZIP_OK;
}

splitzip_status splitzip_codebook_deserialize(const void *src, size_t src_size,
                                              splitzip_codebook *cb)
{
	if (!src || !cb)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	return splitzip_codebook_file_read((const uint8_t *)src, src_size, cb->exponents);
}

splitzip_status splitzip_content_checksum(const uint16_t *src, size_t n_elems, unsigned chunk_log2,
                                          uint64_t *out)
{
	if (!out || (!src && n_elems) || chunk_log2 < SPLITZIP_CHUNK_LOG2_MIN ||
	    chunk_log2 > SPLITZIP_CHUNK_LOG2_MAX || (uint64_t)n_elems > SPLITZIP_MAX_FRAME_ELEMS)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	*out = splitzip_driver_checksum(&splitzip_kernels_scalar, 1, src, n_elems, chunk_log2);
	return SPLITZIP_OK;
}
