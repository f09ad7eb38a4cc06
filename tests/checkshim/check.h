/*
 * check.h -- a small stand-in for the Check unit-test framework (libcheck), for builds where
 * Check is not available for the target: the aarch64 cross build run under qemu-aarch64
 * (Debian cannot install check:arm64 beside the host's check). CMake uses it only with
 * SPLITZIP_CHECK_SHIM=ON and no Check found; it then stands in as PkgConfig::CHECK.
 *
 * It implements the part of the Check 0.15 API that test suites use: suites, test cases, loop
 * tests, checked and unchecked fixtures, the ck_assert_* family, ck_abort*, and the runner
 * (CK_RUN_SUITE / CK_RUN_CASE honoured). Tests run in-process: a failed assertion longjmps out
 * of the test, whose checked teardown still runs. Signal and exit tests run in a forked child.
 * Timeouts are not enforced (ctest's TIMEOUT is).
 */
#ifndef SZ_CHECK_SHIM_H
#define SZ_CHECK_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CHECK_MAJOR_VERSION 0
#define CHECK_MINOR_VERSION 15
#define CHECK_MICRO_VERSION 2
#define CK_SHIM 1

#if defined(__GNUC__) || defined(__clang__)
#define CK_ATTRIBUTE_UNUSED __attribute__((unused))
#define CK_ATTRIBUTE_NORETURN __attribute__((noreturn))
#define CK_ATTRIBUTE_FORMAT(a, b, c) __attribute__((format(a, b, c)))
#else
#define CK_ATTRIBUTE_UNUSED
#define CK_ATTRIBUTE_NORETURN
#define CK_ATTRIBUTE_FORMAT(a, b, c)
#endif
#define CK_EXPORT
#define CK_DLL_EXP

typedef struct Suite Suite;
typedef struct TCase TCase;
typedef struct SRunner SRunner;
typedef void (*TFun)(int);
typedef void (*SFun)(void);

typedef struct TTest {
	const char *name;
	TFun fn;
	const char *file;
	int line;
} TTest;

enum print_output { CK_SILENT, CK_MINIMAL, CK_NORMAL, CK_VERBOSE, CK_ENV, CK_SUBUNIT, CK_LAST };
enum fork_status { CK_FORK_GETENV, CK_NOFORK, CK_FORK };

#define START_TEST(__testname)                                                                     \
	static void __testname##_fn(int _i CK_ATTRIBUTE_UNUSED);                                   \
	static const TTest __testname##_ttest = {"" #__testname, __testname##_fn, __FILE__,        \
	                                         __LINE__};                                        \
	static const TTest *__testname = &__testname##_ttest;                                      \
	static void __testname##_fn(int _i CK_ATTRIBUTE_UNUSED)
#define END_TEST

Suite *suite_create(const char *name);
void suite_add_tcase(Suite *s, TCase *tc);
int suite_tcase(Suite *s, const char *tcname);
TCase *tcase_create(const char *name);
void tcase_set_timeout(TCase *tc, double timeout);
void tcase_set_tags(TCase *tc, const char *tags);
void tcase_add_checked_fixture(TCase *tc, SFun setup, SFun teardown);
void tcase_add_unchecked_fixture(TCase *tc, SFun setup, SFun teardown);
void _tcase_add_test(TCase *tc, const TTest *ttest, int signal, int allowed_exit_value, int start,
                     int end);
const char *tcase_name(void);

#define tcase_add_test(tc, tf) _tcase_add_test((tc), (tf), 0, 0, 0, 1)
#define tcase_add_test_raise_signal(tc, tf, sig) _tcase_add_test((tc), (tf), (sig), 0, 0, 1)
#define tcase_add_exit_test(tc, tf, ev) _tcase_add_test((tc), (tf), 0, (ev), 0, 1)
#define tcase_add_loop_test(tc, tf, s, e) _tcase_add_test((tc), (tf), 0, 0, (s), (e))
#define tcase_add_loop_test_raise_signal(tc, tf, sig, s, e)                                        \
	_tcase_add_test((tc), (tf), (sig), 0, (s), (e))
#define tcase_add_loop_exit_test(tc, tf, ev, s, e) _tcase_add_test((tc), (tf), 0, (ev), (s), (e))

SRunner *srunner_create(Suite *s);
void srunner_add_suite(SRunner *sr, Suite *s);
void srunner_free(SRunner *sr);
void srunner_run_all(SRunner *sr, enum print_output print_mode);
void srunner_run(SRunner *sr, const char *sname, const char *tcname, enum print_output print_mode);
void srunner_run_tagged(SRunner *sr, const char *sname, const char *tcname,
                        const char *include_tags, const char *exclude_tags,
                        enum print_output print_mode);
int srunner_ntests_failed(SRunner *sr);
int srunner_ntests_run(SRunner *sr);
void srunner_set_fork_status(SRunner *sr, enum fork_status fstat);
enum fork_status srunner_fork_status(SRunner *sr);
void srunner_set_log(SRunner *sr, const char *fname);
void srunner_set_xml(SRunner *sr, const char *fname);
void srunner_set_tap(SRunner *sr, const char *fname);

void _mark_point(const char *file, int line);
#define mark_point() _mark_point(__FILE__, __LINE__)

/* 'expr' describes the failure; the variadic part is an optional printf format (or NULL)
 * and its arguments, terminated by the NULL the macros append. */
void _ck_assert_failed(const char *file, int line, const char *expr, ...) CK_ATTRIBUTE_NORETURN;

#define ck_assert_msg(expr, ...)                                                                   \
	((expr) ? (void)0                                                                          \
	        : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed",            \
	                            ##__VA_ARGS__, NULL))
#define ck_assert(expr) ck_assert_msg(expr, NULL)
#define ck_abort() ck_abort_msg(NULL)
#define ck_abort_msg(...) _ck_assert_failed(__FILE__, __LINE__, "Failed", ##__VA_ARGS__, NULL)

#define _ck_assert_int(X, OP, Y)                                                                   \
	do {                                                                                       \
		intmax_t _ck_x = (X), _ck_y = (Y);                                                 \
		ck_assert_msg(_ck_x OP _ck_y, "Assertion '%s' failed: %s == %jd, %s == %jd",       \
		              #X " " #OP " " #Y, #X, _ck_x, #Y, _ck_y);                            \
	} while (0)
#define ck_assert_int_eq(X, Y) _ck_assert_int(X, ==, Y)
#define ck_assert_int_ne(X, Y) _ck_assert_int(X, !=, Y)
#define ck_assert_int_lt(X, Y) _ck_assert_int(X, <, Y)
#define ck_assert_int_le(X, Y) _ck_assert_int(X, <=, Y)
#define ck_assert_int_gt(X, Y) _ck_assert_int(X, >, Y)
#define ck_assert_int_ge(X, Y) _ck_assert_int(X, >=, Y)

#define _ck_assert_uint(X, OP, Y)                                                                  \
	do {                                                                                       \
		uintmax_t _ck_x = (X), _ck_y = (Y);                                                \
		ck_assert_msg(_ck_x OP _ck_y, "Assertion '%s' failed: %s == %ju, %s == %ju",       \
		              #X " " #OP " " #Y, #X, _ck_x, #Y, _ck_y);                            \
	} while (0)
#define ck_assert_uint_eq(X, Y) _ck_assert_uint(X, ==, Y)
#define ck_assert_uint_ne(X, Y) _ck_assert_uint(X, !=, Y)
#define ck_assert_uint_lt(X, Y) _ck_assert_uint(X, <, Y)
#define ck_assert_uint_le(X, Y) _ck_assert_uint(X, <=, Y)
#define ck_assert_uint_gt(X, Y) _ck_assert_uint(X, >, Y)
#define ck_assert_uint_ge(X, Y) _ck_assert_uint(X, >=, Y)

#define _ck_assert_floating(X, OP, Y, TP)                                                          \
	do {                                                                                       \
		TP _ck_x = (X), _ck_y = (Y);                                                       \
		ck_assert_msg(_ck_x OP _ck_y, "Assertion '%s' failed: %s == %Lg, %s == %Lg",       \
		              #X " " #OP " " #Y, #X, (long double)_ck_x, #Y, (long double)_ck_y);  \
	} while (0)
#define ck_assert_float_eq(X, Y) _ck_assert_floating(X, ==, Y, float)
#define ck_assert_float_ne(X, Y) _ck_assert_floating(X, !=, Y, float)
#define ck_assert_float_lt(X, Y) _ck_assert_floating(X, <, Y, float)
#define ck_assert_float_le(X, Y) _ck_assert_floating(X, <=, Y, float)
#define ck_assert_float_gt(X, Y) _ck_assert_floating(X, >, Y, float)
#define ck_assert_float_ge(X, Y) _ck_assert_floating(X, >=, Y, float)
#define ck_assert_double_eq(X, Y) _ck_assert_floating(X, ==, Y, double)
#define ck_assert_double_ne(X, Y) _ck_assert_floating(X, !=, Y, double)
#define ck_assert_double_lt(X, Y) _ck_assert_floating(X, <, Y, double)
#define ck_assert_double_le(X, Y) _ck_assert_floating(X, <=, Y, double)
#define ck_assert_double_gt(X, Y) _ck_assert_floating(X, >, Y, double)
#define ck_assert_double_ge(X, Y) _ck_assert_floating(X, >=, Y, double)
#define ck_assert_ldouble_eq(X, Y) _ck_assert_floating(X, ==, Y, long double)
#define ck_assert_ldouble_ne(X, Y) _ck_assert_floating(X, !=, Y, long double)
#define ck_assert_ldouble_lt(X, Y) _ck_assert_floating(X, <, Y, long double)
#define ck_assert_ldouble_le(X, Y) _ck_assert_floating(X, <=, Y, long double)
#define ck_assert_ldouble_gt(X, Y) _ck_assert_floating(X, >, Y, long double)
#define ck_assert_ldouble_ge(X, Y) _ck_assert_floating(X, >=, Y, long double)

#define _ck_assert_str(X, OP, Y, NULLEQ, NULLNE)                                                   \
	do {                                                                                       \
		const char *_ck_x = (X), *_ck_y = (Y);                                             \
		int _ck_ok = (_ck_x && _ck_y)                                                      \
		                 ? (strcmp(_ck_x, _ck_y) OP 0)                                     \
		                 : ((NULLEQ) && _ck_x == _ck_y) || ((NULLNE) && _ck_x != _ck_y);   \
		ck_assert_msg(_ck_ok, "Assertion '%s' failed: %s == \"%s\", %s == \"%s\"",         \
		              #X " " #OP " " #Y, #X, _ck_x ? _ck_x : "(null)", #Y,                 \
		              _ck_y ? _ck_y : "(null)");                                           \
	} while (0)
#define ck_assert_str_eq(X, Y) _ck_assert_str(X, ==, Y, 0, 0)
#define ck_assert_str_ne(X, Y) _ck_assert_str(X, !=, Y, 0, 0)
#define ck_assert_str_lt(X, Y) _ck_assert_str(X, <, Y, 0, 0)
#define ck_assert_str_le(X, Y) _ck_assert_str(X, <=, Y, 0, 0)
#define ck_assert_str_gt(X, Y) _ck_assert_str(X, >, Y, 0, 0)
#define ck_assert_str_ge(X, Y) _ck_assert_str(X, >=, Y, 0, 0)
#define ck_assert_pstr_eq(X, Y) _ck_assert_str(X, ==, Y, 1, 0)
#define ck_assert_pstr_ne(X, Y) _ck_assert_str(X, !=, Y, 0, 1)

#define _ck_assert_mem(X, OP, Y, L)                                                                \
	do {                                                                                       \
		const void *_ck_x = (X), *_ck_y = (Y);                                             \
		size_t _ck_l = (L);                                                                \
		ck_assert_msg(memcmp(_ck_x, _ck_y, _ck_l) OP 0,                                    \
		              "Assertion '%s' failed: %s and %s differ (%zu bytes)",               \
		              #X " " #OP " " #Y, #X, #Y, _ck_l);                                   \
	} while (0)
#define ck_assert_mem_eq(X, Y, L) _ck_assert_mem(X, ==, Y, L)
#define ck_assert_mem_ne(X, Y, L) _ck_assert_mem(X, !=, Y, L)
#define ck_assert_mem_lt(X, Y, L) _ck_assert_mem(X, <, Y, L)
#define ck_assert_mem_le(X, Y, L) _ck_assert_mem(X, <=, Y, L)
#define ck_assert_mem_gt(X, Y, L) _ck_assert_mem(X, >, Y, L)
#define ck_assert_mem_ge(X, Y, L) _ck_assert_mem(X, >=, Y, L)

#define _ck_assert_ptr(X, OP, Y)                                                                   \
	do {                                                                                       \
		const void *_ck_x = (X), *_ck_y = (Y);                                             \
		ck_assert_msg(_ck_x OP _ck_y, "Assertion '%s' failed: %s == %p, %s == %p",         \
		              #X " " #OP " " #Y, #X, _ck_x, #Y, _ck_y);                            \
	} while (0)
#define ck_assert_ptr_eq(X, Y) _ck_assert_ptr(X, ==, Y)
#define ck_assert_ptr_ne(X, Y) _ck_assert_ptr(X, !=, Y)
#define ck_assert_ptr_null(X) _ck_assert_ptr(X, ==, NULL)
#define ck_assert_ptr_nonnull(X) _ck_assert_ptr(X, !=, NULL)

#endif /* SZ_CHECK_SHIM_H */
