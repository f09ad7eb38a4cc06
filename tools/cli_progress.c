/*
 * cli_progress.c -- the progress line of long runs: bytes done (of the total when the input is a
 * regular file), rate and ETA, redrawn in place on stderr. Only when stderr is a terminal and -q
 * was not given; nothing is drawn during the first second, so short runs print nothing, and the
 * line is erased before the summary.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <unistd.h>

#include "cli.h"

#define PROGRESS_DELAY_S 1.0 /* a run shorter than this draws nothing */
#define PROGRESS_EVERY_S 0.2 /* redraw interval */

void progress_start(progress *p, const options *o, const char *what, uint64_t total)
{
	p->on = !o->quiet && isatty(STDERR_FILENO);
	p->total = total;
	p->t0 = now_s();
	p->next = p->t0 + PROGRESS_DELAY_S;
	p->drawn = 0;
	p->what = what;
}

/* "12.3 MiB" into buf. */
static void fmt_bytes(char *buf, size_t cap, uint64_t n)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)n;
	int u = 0;
	while (v >= 1024.0 && u < 4) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

void progress_update(progress *p, uint64_t done)
{
	if (!p->on)
		return;
	double t = now_s();
	if (t < p->next)
		return;
	p->next = t + PROGRESS_EVERY_S;
	double el = t - p->t0, rate = el > 0 ? (double)done / el : 0.0;
	char d[32], tot[32];
	fmt_bytes(d, sizeof d, done);
	fprintf(stderr, "\rsplitzip: %s %s", p->what, d);
	if (p->total && done <= p->total) {
		fmt_bytes(tot, sizeof tot, p->total);
		double eta = rate > 0 ? (double)(p->total - done) / rate : 0.0;
		fprintf(stderr, " of %s (%.0f%%), %.2f GB/s, ETA %d:%02d", tot,
		        100.0 * (double)done / (double)p->total, rate / 1e9, (int)eta / 60,
		        (int)eta % 60);
	} else {
		fprintf(stderr, ", %.2f GB/s", rate / 1e9);
	}
	fputs("\033[K", stderr); /* erase the rest of a longer previous line */
	fflush(stderr);
	p->drawn = 1;
}

void progress_end(progress *p)
{
	if (p->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->drawn = 0;
}
