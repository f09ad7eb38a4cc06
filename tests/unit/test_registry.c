/*
 * test_registry.c -- the backend registry and selection: every slot's entry and kernels, the
 * public introspection calls, SPLITZIP_FORCE_BACKEND, explicit ids that are not usable here.
 */
#include "sz_check.h"
#include <stdio.h>
#include <stdlib.h>

#include "splitzip.h"
#include "unit.h"
/* The registry entries (splitzip_registry_get) behind the public introspection calls. */
#include "../../dispatch/sz_backend.h"

START_TEST(registry_slots_and_names)
{
	size_t n = splitzip_backend_count();
	ck_assert_uint_ge(n, 1);
	ck_assert_str_eq(splitzip_backend_name(n - 1), "scalar");
	ck_assert_ptr_null(splitzip_backend_name(n));
	ck_assert_int_eq(splitzip_backend_available(n), 0);
	ck_assert_str_eq(splitzip_backend_unavailable_reason(n), "no such backend");
	for (size_t i = 0; i < n; i++) {
		const splitzip_backend *b = splitzip_registry_get(i);
		ck_assert_ptr_nonnull(b);
		ck_assert_ptr_nonnull(b->name);
		ck_assert_ptr_nonnull(b->probe);
		/* A host backend has every kernel; a device backend has a module loader and no
		 * host kernels: exactly one of the two. */
		ck_assert_msg((b->host != NULL) != (b->gpu != NULL), "%s: host xor gpu", b->name);
		if (b->host) {
			ck_assert_ptr_nonnull(b->host->histogram);
			ck_assert_ptr_nonnull(b->host->encode_chunk);
			ck_assert_ptr_nonnull(b->host->decode_chunk);
			ck_assert_ptr_nonnull(b->host->encode_chunk_stream);
			ck_assert_ptr_nonnull(b->host->decode_chunk_stream);
			ck_assert_ptr_nonnull(b->host->hash_chunk);
			ck_assert_ptr_nonnull(b->host->encode_count_chunk);
			ck_assert_ptr_nonnull(b->host->encode_count_chunk_stream);
			ck_assert_ptr_nonnull(b->host->count_codes);
			ck_assert_ptr_nonnull(b->host->recode_codes);
			ck_assert_ptr_nonnull(b->host->entropy_encode_chunk);
			ck_assert_ptr_nonnull(b->host->entropy_decode_chunk);
		}
		ck_assert_int_eq(splitzip_backend_id_of(i), b->id);
		/* A reason exactly when the backend is not usable. */
		const char *why = splitzip_backend_unavailable_reason(i);
		ck_assert_msg((why == NULL) == (splitzip_backend_available(i) == 1),
		              "%s: available %d, reason %s", b->name, splitzip_backend_available(i),
		              why ? why : "(none)");
		ck_assert_msg(!why || *why, "%s: empty reason", b->name);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(splitzip_backend_name(i), splitzip_backend_name(j));
	}
}
END_TEST

START_TEST(force_backend_env)
{
	splitzip_ctx *ctx = NULL;
	const char *was = getenv("SPLITZIP_FORCE_BACKEND");
	char saved[64] = "";
	if (was)
		snprintf(saved, sizeof saved, "%s", was);
	setenv("SPLITZIP_FORCE_BACKEND", "no-such-backend", 1);
	ck_assert_int_eq(splitzip_ctx_create(NULL, &ctx), SPLITZIP_ERROR_BACKEND_UNAVAILABLE);
	ck_assert_ptr_null(ctx);
	setenv("SPLITZIP_FORCE_BACKEND", "scalar", 1);
	ck_assert_int_eq(splitzip_ctx_create(NULL, &ctx), SPLITZIP_OK);
	ck_assert_str_eq(splitzip_ctx_backend_name(ctx), "scalar");
	splitzip_ctx_free(ctx);
	if (was)
		setenv("SPLITZIP_FORCE_BACKEND", saved, 1);
	else
		unsetenv("SPLITZIP_FORCE_BACKEND");
	/* an explicit id that is not compiled in is an error, not a fallback */
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = SPLITZIP_BACKEND_CUDA; /* binds only where a CUDA device is usable */
	int usable = 0;
	for (size_t i = 0; i < splitzip_backend_count(); i++)
		if (splitzip_backend_id_of(i) == SPLITZIP_BACKEND_CUDA)
			usable = splitzip_backend_available(i);
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx),
	                 usable ? SPLITZIP_OK : SPLITZIP_ERROR_BACKEND_UNAVAILABLE);
	splitzip_ctx_free(ctx);
}
END_TEST

Suite *unit_suite_registry(void)
{
	Suite *s = suite_create("registry");
	TCase *tc = tcase_create("registry");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, registry_slots_and_names);
	tcase_add_test(tc, force_backend_env);
	suite_add_tcase(s, tc);
	return s;
}
