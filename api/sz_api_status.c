/*
 * sz_api_status.c -- status strings and version queries (public API).
 */
#include "sz_api.h"

SZ_STATIC_ASSERT(SPLITZIP_STATUS_COUNT == SPLITZIP_ERROR_GEOMETRY + 1,
                 "SPLITZIP_STATUS_COUNT counts every status");

const char *splitzip_error_string(splitzip_status status)
{
	switch (status) {
	case SPLITZIP_OK:
		return "success";
	case SPLITZIP_ERROR_INVALID_ARGUMENT:
		return "invalid argument";
	case SPLITZIP_ERROR_DST_TOO_SMALL:
		return "destination buffer too small";
	case SPLITZIP_ERROR_CORRUPT_STREAM:
		return "corrupt stream (field out of range or not canonical)";
	case SPLITZIP_ERROR_UNSUPPORTED_FORMAT:
		return "unsupported format version, dtype or mode";
	case SPLITZIP_ERROR_BACKEND_UNAVAILABLE:
		return "backend unknown, not compiled in, or not usable on this machine";
	case SPLITZIP_ERROR_OUT_OF_MEMORY:
		return "out of memory";
	case SPLITZIP_ERROR_DEVICE:
		return "GPU runtime error";
	case SPLITZIP_ERROR_BAD_MAGIC:
		return "not a splitzip frame (bad magic)";
	case SPLITZIP_ERROR_TRUNCATED:
		return "truncated input";
	case SPLITZIP_ERROR_HEADER_CHECKSUM:
		return "frame header checksum mismatch";
	case SPLITZIP_ERROR_CONTENT_CHECKSUM:
		return "content checksum mismatch";
	case SPLITZIP_ERROR_BAD_CODEBOOK:
		return "invalid codebook";
	case SPLITZIP_ERROR_GEOMETRY:
		return "the stream's pages are not the destination's (count or size)";
	}
	return "unknown status";
}

const char *splitzip_status_name(splitzip_status status)
{
	switch (status) {
	case SPLITZIP_OK:
		return "OK";
	case SPLITZIP_ERROR_INVALID_ARGUMENT:
		return "ERROR_INVALID_ARGUMENT";
	case SPLITZIP_ERROR_DST_TOO_SMALL:
		return "ERROR_DST_TOO_SMALL";
	case SPLITZIP_ERROR_CORRUPT_STREAM:
		return "ERROR_CORRUPT_STREAM";
	case SPLITZIP_ERROR_UNSUPPORTED_FORMAT:
		return "ERROR_UNSUPPORTED_FORMAT";
	case SPLITZIP_ERROR_BACKEND_UNAVAILABLE:
		return "ERROR_BACKEND_UNAVAILABLE";
	case SPLITZIP_ERROR_OUT_OF_MEMORY:
		return "ERROR_OUT_OF_MEMORY";
	case SPLITZIP_ERROR_DEVICE:
		return "ERROR_DEVICE";
	case SPLITZIP_ERROR_BAD_MAGIC:
		return "ERROR_BAD_MAGIC";
	case SPLITZIP_ERROR_TRUNCATED:
		return "ERROR_TRUNCATED";
	case SPLITZIP_ERROR_HEADER_CHECKSUM:
		return "ERROR_HEADER_CHECKSUM";
	case SPLITZIP_ERROR_CONTENT_CHECKSUM:
		return "ERROR_CONTENT_CHECKSUM";
	case SPLITZIP_ERROR_BAD_CODEBOOK:
		return "ERROR_BAD_CODEBOOK";
	case SPLITZIP_ERROR_GEOMETRY:
		return "ERROR_GEOMETRY";
	}
	return "UNKNOWN";
}

unsigned splitzip_version_number(void)
{
	return SPLITZIP_VERSION_NUMBER;
}

const char *splitzip_version_string(void)
{
	return SPLITZIP_VERSION_STRING;
}
