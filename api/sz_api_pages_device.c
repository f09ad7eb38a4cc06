/*
 * sz_api_pages_device.c -- the device-memory page stream calls of splitzip.h (public API).
 * WIP-PAGES-V2: the GPU kernels of page stream version 2 replace this.
 */
#include "sz_api_pages.h"

splitzip_status splitzip_pages_workspace_size(const splitzip_ctx *ctx, size_t n_pages,
                                              size_t max_page_bytes, size_t *bytes)
{
	(void)ctx, (void)n_pages, (void)max_page_bytes, (void)bytes;
	return SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
}

splitzip_status splitzip_pages_compress_async(splitzip_ctx *ctx, uint32_t table_id,
                                              unsigned options, size_t n_pages,
                                              const void *const *d_pages,
                                              const size_t *d_page_bytes, size_t max_page_bytes,
                                              void *d_dst, size_t dst_cap, size_t *d_dst_size,
                                              int32_t *d_status, void *d_workspace, size_t ws_bytes,
                                              void *stream)
{
	(void)ctx, (void)table_id, (void)options, (void)n_pages, (void)d_pages, (void)d_page_bytes;
	(void)max_page_bytes, (void)d_dst, (void)dst_cap, (void)d_dst_size, (void)d_status;
	(void)d_workspace, (void)ws_bytes, (void)stream;
	return SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
}

splitzip_status splitzip_pages_decompress_async(splitzip_ctx *ctx, const void *d_src,
                                                size_t src_size, size_t n_pages,
                                                void *const *d_pages, const size_t *d_page_caps,
                                                size_t max_page_bytes, unsigned options,
                                                size_t *d_page_sizes, uint8_t *d_page_states,
                                                size_t *d_n_pages, int32_t *d_status,
                                                void *d_workspace, size_t ws_bytes, void *stream)
{
	(void)ctx, (void)d_src, (void)src_size, (void)n_pages, (void)d_pages, (void)d_page_caps;
	(void)max_page_bytes, (void)options, (void)d_page_sizes, (void)d_page_states,
	    (void)d_n_pages;
	(void)d_status, (void)d_workspace, (void)ws_bytes, (void)stream;
	return SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
}
