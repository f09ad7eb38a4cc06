/*
 * test_hardening_main.c -- the hardening suites: guard pages, corruption and truncation, header
 * fields and crafted bodies, hostile entropy frames. CK_RUN_SUITE=<name> runs one suite (ctest runs
 * each separately).
 */
#include "sz_check.h"
#include <stdlib.h>

Suite *sz_suite_guard(void);
Suite *sz_suite_corruption(void);
Suite *sz_suite_header(void);
Suite *sz_suite_entropy(void);

int main(void)
{
	SRunner *sr = srunner_create(sz_suite_guard());
	srunner_add_suite(sr, sz_suite_corruption());
	srunner_add_suite(sr, sz_suite_header());
	srunner_add_suite(sr, sz_suite_entropy());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
