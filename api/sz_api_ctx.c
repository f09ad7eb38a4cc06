/*
 * sz_api_ctx.c -- parameters, contexts and backend introspection (public API).
 */
#include <stddef.h>
#include <stdlib.h>

#include "sz_api.h"
#include "../core/sz_codebook.h"

void splitzip_params_init(splitzip_params *p)
{
	if (!p)
		return;
	memset(p, 0, sizeof *p);
	p->struct_size = sizeof *p;
	p->backend = SPLITZIP_BACKEND_AUTO;
	p->chunk_log2 = 0; /* the encoding's default, resolved by splitzip_ctx_create */
	p->flags = 0;
	p->codebook_mode = SPLITZIP_CODEBOOK_FROM_INPUT;
	p->n_threads = 0;
	p->encoding = SPLITZIP_ENCODING_SPLIT4;
	p->table_mode = SPLITZIP_CODEBOOK_FROM_INPUT;
}

/* The encoding, the entropy table and the chunk size that goes with the encoding. */
static splitzip_status resolve_encoding(splitzip_params *q)
{
	if (q->encoding != SPLITZIP_ENCODING_SPLIT4 && q->encoding != SPLITZIP_ENCODING_ENTROPY &&
	    q->encoding != SPLITZIP_ENCODING_AUTO)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (q->table_mode != SPLITZIP_CODEBOOK_FROM_INPUT &&
	    q->table_mode != SPLITZIP_CODEBOOK_FIXED)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (q->table_mode == SPLITZIP_CODEBOOK_FIXED && !splitzip_entropy_table_ok(&q->table))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (q->chunk_log2 == 0)
		q->chunk_log2 = q->encoding == SPLITZIP_ENCODING_SPLIT4
		                    ? SPLITZIP_CHUNK_LOG2_DEFAULT
		                    : SPLITZIP_CHUNK_LOG2_DEFAULT_ENTROPY;
	return SPLITZIP_OK;
}

/*
 * The size of splitzip_params in library 0.1.0, which ended at n_threads: a program compiled
 * against that header passes this struct_size, and the fields appended since keep their
 * defaults (splitzip_params_init).
 */
#define SZ_PARAMS_SIZE_0_1 (offsetof(splitzip_params, n_threads) + sizeof(unsigned))

/* The effective parameters of 'p' (NULL: defaults) in '*q', or INVALID_ARGUMENT. */
static splitzip_status resolve_params(const splitzip_params *p, splitzip_params *q)
{
	splitzip_params_init(q);
	if (p) {
		if (p->struct_size < SZ_PARAMS_SIZE_0_1)
			return SPLITZIP_ERROR_INVALID_ARGUMENT;
		memcpy(q, p, p->struct_size < sizeof *q ? p->struct_size : sizeof *q);
		q->struct_size = sizeof *q;
	}
	if (resolve_encoding(q) != SPLITZIP_OK)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (q->chunk_log2 < SPLITZIP_CHUNK_LOG2_MIN || q->chunk_log2 > SPLITZIP_CHUNK_LOG2_MAX)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (q->flags & ~SPLITZIP_FLAG_CONTENT_CHECKSUM)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (q->codebook_mode != SPLITZIP_CODEBOOK_FROM_INPUT &&
	    q->codebook_mode != SPLITZIP_CODEBOOK_FIXED)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (q->codebook_mode == SPLITZIP_CODEBOOK_FIXED &&
	    !splitzip_codebook_ok(q->codebook.exponents))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if ((unsigned)q->backend > SPLITZIP_BACKEND_AVX512VBMI)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	return SPLITZIP_OK;
}

splitzip_status splitzip_ctx_create(const splitzip_params *p, splitzip_ctx **out)
{
	if (!out)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	*out = NULL;
	splitzip_params q;
	splitzip_status st = resolve_params(p, &q);
	if (st != SPLITZIP_OK)
		return st;
	/* AUTO selects a host backend; a device backend is bound only when named (by id or by
	 * SPLITZIP_FORCE_BACKEND), and then serves the *_async calls of splitzip.h. */
	const splitzip_backend *b = splitzip_select_backend(q.backend, &st);
	if (!b)
		return st;
	splitzip_ctx *ctx = (splitzip_ctx *)calloc(1, sizeof *ctx);
	if (!ctx)
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	ctx->params = q;
	ctx->backend = b;
	if (q.codebook_mode == SPLITZIP_CODEBOOK_FIXED)
		splitzip_enc_tables_init(&ctx->fixed_tables, q.codebook.exponents);
	if (pthread_mutex_init(&ctx->lock, NULL) != 0) {
		free(ctx);
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	}
	*out = ctx;
	return SPLITZIP_OK;
}

void splitzip_ctx_free(splitzip_ctx *ctx)
{
	if (!ctx)
		return;
	while (ctx->idle) {
		splitzip_workmem *w = ctx->idle;
		ctx->idle = w->next;
		splitzip_scratch_free(&w->scratch);
		splitzip_scratch_free(&w->gather);
		splitzip_scratch_free(&w->out);
		free(w);
	}
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}

splitzip_workmem *splitzip_ctx_take(splitzip_ctx *ctx)
{
	pthread_mutex_lock(&ctx->lock);
	splitzip_workmem *w = ctx->idle;
	if (w)
		ctx->idle = w->next;
	pthread_mutex_unlock(&ctx->lock);
	return w ? w : (splitzip_workmem *)calloc(1, sizeof *w);
}

void splitzip_ctx_give(splitzip_ctx *ctx, splitzip_workmem *w)
{
	pthread_mutex_lock(&ctx->lock);
	w->next = ctx->idle;
	ctx->idle = w;
	pthread_mutex_unlock(&ctx->lock);
}

const char *splitzip_ctx_backend_name(const splitzip_ctx *ctx)
{
	return ctx ? ctx->backend->name : "(null)";
}

splitzip_status splitzip_ctx_params(const splitzip_ctx *ctx, splitzip_params *p)
{
	if (!ctx || !p)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	*p = ctx->params;
	return SPLITZIP_OK;
}

size_t splitzip_backend_count(void)
{
	return splitzip_registry_count();
}

const char *splitzip_backend_name(size_t i)
{
	const splitzip_backend *b = splitzip_registry_get(i);
	return b ? b->name : NULL;
}

int splitzip_backend_available(size_t i)
{
	const splitzip_backend *b = splitzip_registry_get(i);
	return b ? (b->probe() ? 1 : 0) : 0;
}

splitzip_backend_id splitzip_backend_id_of(size_t i)
{
	const splitzip_backend *b = splitzip_registry_get(i);
	return b ? b->id : SPLITZIP_BACKEND_AUTO;
}

const char *splitzip_backend_unavailable_reason(size_t i)
{
	const splitzip_backend *b = splitzip_registry_get(i);
	return b ? b->why_not() : "no such backend";
}
