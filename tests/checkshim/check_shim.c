/*
 * check_shim.c -- the runner behind tests/checkshim/check.h (see there for what it covers).
 */
#define _POSIX_C_SOURCE 200809L /* fork, waitpid */

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

typedef struct entry {
	const TTest *t;
	int signal, exit_value, start, end;
} entry;

typedef struct fixture {
	SFun setup, teardown;
	int checked;
} fixture;

struct TCase {
	char *name;
	entry *tests;
	size_t n_tests;
	fixture *fx;
	size_t n_fx;
	TCase *next;
};

struct Suite {
	char *name;
	TCase *first, *last;
	Suite *next;
};

struct SRunner {
	Suite *first, *last;
	int run, failed;
};

static jmp_buf *current_jmp;
static const char *current_tcase = "";

static char *dup_str(const char *s)
{
	char *d = (char *)malloc(strlen(s) + 1);
	if (!d) {
		fprintf(stderr, "check shim: out of memory\n");
		exit(2);
	}
	return strcpy(d, s);
}

static void *grow(void *p, size_t n, size_t size)
{
	void *q = realloc(p, n * size);
	if (!q) {
		fprintf(stderr, "check shim: out of memory\n");
		exit(2);
	}
	return q;
}

Suite *suite_create(const char *name)
{
	Suite *s = (Suite *)calloc(1, sizeof *s);
	if (!s)
		exit(2);
	s->name = dup_str(name ? name : "");
	return s;
}

void suite_add_tcase(Suite *s, TCase *tc)
{
	if (!s || !tc)
		return;
	if (s->last)
		s->last->next = tc;
	else
		s->first = tc;
	s->last = tc;
}

int suite_tcase(Suite *s, const char *tcname)
{
	for (TCase *tc = s ? s->first : NULL; tc; tc = tc->next)
		if (strcmp(tc->name, tcname) == 0)
			return 1;
	return 0;
}

TCase *tcase_create(const char *name)
{
	TCase *tc = (TCase *)calloc(1, sizeof *tc);
	if (!tc)
		exit(2);
	tc->name = dup_str(name ? name : "");
	return tc;
}

void tcase_set_timeout(TCase *tc, double timeout)
{
	(void)tc;
	(void)timeout;
}

void tcase_set_tags(TCase *tc, const char *tags)
{
	(void)tc;
	(void)tags;
}

static void add_fixture(TCase *tc, SFun setup, SFun teardown, int checked)
{
	tc->fx = (fixture *)grow(tc->fx, tc->n_fx + 1, sizeof *tc->fx);
	tc->fx[tc->n_fx].setup = setup;
	tc->fx[tc->n_fx].teardown = teardown;
	tc->fx[tc->n_fx].checked = checked;
	tc->n_fx++;
}

void tcase_add_checked_fixture(TCase *tc, SFun setup, SFun teardown)
{
	add_fixture(tc, setup, teardown, 1);
}

void tcase_add_unchecked_fixture(TCase *tc, SFun setup, SFun teardown)
{
	add_fixture(tc, setup, teardown, 0);
}

void _tcase_add_test(TCase *tc, const TTest *ttest, int signal, int allowed_exit_value, int start,
                     int end)
{
	tc->tests = (entry *)grow(tc->tests, tc->n_tests + 1, sizeof *tc->tests);
	entry *e = &tc->tests[tc->n_tests++];
	e->t = ttest;
	e->signal = signal;
	e->exit_value = allowed_exit_value;
	e->start = start;
	e->end = end;
}

const char *tcase_name(void)
{
	return current_tcase;
}

SRunner *srunner_create(Suite *s)
{
	SRunner *sr = (SRunner *)calloc(1, sizeof *sr);
	if (!sr)
		exit(2);
	srunner_add_suite(sr, s);
	return sr;
}

void srunner_add_suite(SRunner *sr, Suite *s)
{
	if (!sr || !s)
		return;
	if (sr->last)
		sr->last->next = s;
	else
		sr->first = s;
	sr->last = s;
}

void srunner_free(SRunner *sr)
{
	if (!sr)
		return;
	Suite *s = sr->first;
	while (s) {
		TCase *tc = s->first;
		while (tc) {
			TCase *tn = tc->next;
			free(tc->name);
			free(tc->tests);
			free(tc->fx);
			free(tc);
			tc = tn;
		}
		Suite *sn = s->next;
		free(s->name);
		free(s);
		s = sn;
	}
	free(sr);
}

void srunner_set_fork_status(SRunner *sr, enum fork_status fstat)
{
	(void)sr;
	(void)fstat;
}

enum fork_status srunner_fork_status(SRunner *sr)
{
	(void)sr;
	return CK_NOFORK;
}

void srunner_set_log(SRunner *sr, const char *fname)
{
	(void)sr;
	(void)fname;
}

void srunner_set_xml(SRunner *sr, const char *fname)
{
	(void)sr;
	(void)fname;
}

void srunner_set_tap(SRunner *sr, const char *fname)
{
	(void)sr;
	(void)fname;
}

int srunner_ntests_failed(SRunner *sr)
{
	return sr ? sr->failed : 0;
}

int srunner_ntests_run(SRunner *sr)
{
	return sr ? sr->run : 0;
}

void _mark_point(const char *file, int line)
{
	(void)file;
	(void)line;
}

void _ck_assert_failed(const char *file, int line, const char *expr, ...)
{
	va_list ap;
	va_start(ap, expr);
	const char *fmt = va_arg(ap, const char *);
	fprintf(stdout, "%s:%d:F:%s: ", file, line, current_tcase);
	if (fmt)
		vfprintf(stdout, fmt, ap);
	else
		fputs(expr, stdout);
	fputc('\n', stdout);
	va_end(ap);
	fflush(stdout);
	if (current_jmp)
		longjmp(*current_jmp, 1);
	exit(1); /* outside a test (or in a forked child): the failure ends the process */
}

/* Run the checked setup, the test, the checked teardown. Returns 1 if the test passed. */
static int run_checked(const TCase *tc, const TTest *t, int i)
{
	jmp_buf jb;
	jmp_buf *volatile saved = current_jmp;
	volatile int ok = 1;
	current_jmp = &jb;
	if (setjmp(jb) == 0) {
		for (size_t f = 0; f < tc->n_fx; f++)
			if (tc->fx[f].checked && tc->fx[f].setup)
				tc->fx[f].setup();
		t->fn(i);
	} else {
		ok = 0;
	}
	if (setjmp(jb) == 0) {
		for (size_t f = tc->n_fx; f-- > 0;)
			if (tc->fx[f].checked && tc->fx[f].teardown)
				tc->fx[f].teardown();
	} else {
		ok = 0;
	}
	current_jmp = saved;
	return ok;
}

/* Signal and exit tests: run in a child and compare how it ended. */
static int run_forked(const TCase *tc, const entry *e, int i)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		printf("check shim: fork failed\n");
		return 0;
	}
	if (pid == 0) {
		current_jmp = NULL;
		int ok = run_checked(tc, e->t, i);
		fflush(stdout);
		_exit(ok ? 0 : 1); /* as Check: a test that returns normally exits with 0 */
	}
	int status = 0;
	if (waitpid(pid, &status, 0) < 0)
		return 0;
	if (e->signal)
		return WIFSIGNALED(status) && WTERMSIG(status) == e->signal;
	return WIFEXITED(status) && WEXITSTATUS(status) == e->exit_value;
}

static enum print_output resolve_mode(enum print_output m)
{
	if (m != CK_ENV)
		return m;
	const char *v = getenv("CK_VERBOSITY");
	if (!v)
		return CK_NORMAL;
	if (strcmp(v, "silent") == 0)
		return CK_SILENT;
	if (strcmp(v, "minimal") == 0)
		return CK_MINIMAL;
	if (strcmp(v, "verbose") == 0)
		return CK_VERBOSE;
	return CK_NORMAL;
}

void srunner_run_tagged(SRunner *sr, const char *sname, const char *tcname,
                        const char *include_tags, const char *exclude_tags,
                        enum print_output print_mode)
{
	(void)include_tags;
	(void)exclude_tags;
	if (!sr)
		return;
	enum print_output mode = resolve_mode(print_mode);
	if (!sname)
		sname = getenv("CK_RUN_SUITE");
	if (!tcname)
		tcname = getenv("CK_RUN_CASE");
	if (mode >= CK_NORMAL) {
		printf("Running suite(s):");
		for (Suite *s = sr->first; s; s = s->next)
			if (!sname || strcmp(sname, s->name) == 0)
				printf(" %s", s->name);
		printf("\n");
	}
	for (Suite *s = sr->first; s; s = s->next) {
		if (sname && strcmp(sname, s->name) != 0)
			continue;
		for (TCase *tc = s->first; tc; tc = tc->next) {
			if (tcname && strcmp(tcname, tc->name) != 0)
				continue;
			current_tcase = tc->name;
			for (size_t f = 0; f < tc->n_fx; f++)
				if (!tc->fx[f].checked && tc->fx[f].setup)
					tc->fx[f].setup();
			for (size_t k = 0; k < tc->n_tests; k++) {
				const entry *e = &tc->tests[k];
				for (int i = e->start; i < e->end; i++) {
					int ok = (e->signal || e->exit_value)
					             ? run_forked(tc, e, i)
					             : run_checked(tc, e->t, i);
					sr->run++;
					if (!ok) {
						sr->failed++;
						printf("%s:%d:F:%s:%s:%d: failed\n", e->t->file,
						       e->t->line, tc->name, e->t->name, i);
					} else if (mode == CK_VERBOSE) {
						printf("%s:%d:P:%s:%s:%d: Passed\n", e->t->file,
						       e->t->line, tc->name, e->t->name, i);
					}
				}
			}
			for (size_t f = tc->n_fx; f-- > 0;)
				if (!tc->fx[f].checked && tc->fx[f].teardown)
					tc->fx[f].teardown();
		}
	}
	current_tcase = "";
	if (mode >= CK_MINIMAL) {
		int pct = sr->run ? 100 * (sr->run - sr->failed) / sr->run : 100;
		printf("%d%%: Checks: %d, Failures: %d, Errors: 0\n", pct, sr->run, sr->failed);
	}
	fflush(stdout);
}

void srunner_run(SRunner *sr, const char *sname, const char *tcname, enum print_output print_mode)
{
	srunner_run_tagged(sr, sname, tcname, NULL, NULL, print_mode);
}

void srunner_run_all(SRunner *sr, enum print_output print_mode)
{
	srunner_run_tagged(sr, NULL, NULL, NULL, NULL, print_mode);
}
