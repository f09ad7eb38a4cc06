/*
 * test_main.c -- the unit tests of the core: one srunner over the suites roundtrip, codebook,
 * api, format, registry and entropy (one file each). CK_RUN_SUITE=<name> runs one suite;
 * CK_VERBOSITY sets the output (default: normal).
 */
#include "sz_check.h"
#include <stdlib.h>

#include "unit.h"

int main(void)
{
	SRunner *sr = srunner_create(unit_suite_roundtrip());
	srunner_add_suite(sr, unit_suite_codebook());
	srunner_add_suite(sr, unit_suite_api());
	srunner_add_suite(sr, unit_suite_format());
	srunner_add_suite(sr, unit_suite_registry());
	srunner_add_suite(sr, unit_suite_entropy());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
