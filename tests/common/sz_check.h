/*
 * sz_check.h -- <check.h> for the project's suites, with passing assertions left unrecorded.
 *
 * check records the place of every passing assertion (_mark_point: one write() to the runner's
 * message file each), so that a test that crashes can be reported as having crashed after it.
 * The suites assert inside their inner loops, millions of times a run (the entropy unit tests
 * alone made 9.4 million such writes), and under the sanitizers and qemu those system calls
 * were most of the suites' time. Here ck_assert_msg, through which every ck_assert* goes,
 * evaluates its condition only; a failing assertion is reported exactly as check reports it
 * (file, line, message) and ends the test. A crash is still reported with the test's name (and,
 * under the sanitizers, with a stack); mark_point() still records a place where one is wanted.
 *
 * Include this instead of <check.h>. tests/checkshim, which stands in for Check in cross builds,
 * records no places to begin with.
 */
#ifndef SZ_CHECK_H
#define SZ_CHECK_H

#include <check.h>

#ifndef SZ_CHECK_SHIM_H /* tests/checkshim (cross builds) records no places */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...)                                                                   \
	((expr) ? (void)0                                                                          \
	        : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed",            \
	                            ##__VA_ARGS__))
#endif

#endif
