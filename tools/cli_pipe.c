/*
 * cli_pipe.c -- the I/O pipeline of the splitzip command-line tool: a reader thread fills input
 * buffers, the calling thread codes them, a writer thread writes the results, so that reading,
 * coding and writing overlap (two buffers at each stage). The output is the same bytes in the
 * same order as a plain read-code-write loop would write; only the timing differs.
 *
 * Errors: the reader's failures travel with the blocks (with their messages, captured), so that
 * the coder meets them in input order: the first fault in the input is reported, as by a plain
 * loop. A coder or writer failure records its exit code (after printing its message) and sets
 * 'abort'; the other stages stop at their next step. A reader or writer blocked in read() or
 * write() (a pipe that never delivers or drains) is cancelled: each I/O thread allows
 * cancellation only inside those system calls (read_fd() and write_fd() in cli_io.c), never
 * while it holds the lock or touches shared state.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define PIPE_DEPTH 2 /* buffers per stage */

typedef struct bqueue {
	pipe_buf *items[PIPE_DEPTH];
	unsigned head, count;
} bqueue;

typedef struct pipe_state {
	pthread_mutex_t m;
	pthread_cond_t cv; /* broadcast on every change */
	bqueue in_free, in_full, out_free, out_full;
	int in_done;  /* the reader delivers no more buffers */
	int out_done; /* the coder delivers no more buffers */
	int abort;    /* a stage failed: everyone stops */
	int rc;       /* exit code of the first failure */
	const pipe_spec *spec;
	pipe_buf in[PIPE_DEPTH], out[PIPE_DEPTH];
} pipe_state;

static void q_put_locked(bqueue *q, pipe_buf *b)
{
	q->items[(q->head + q->count) % PIPE_DEPTH] = b;
	q->count++;
}

static void put(pipe_state *s, bqueue *q, pipe_buf *b)
{
	pthread_mutex_lock(&s->m);
	q_put_locked(q, b);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->m);
}

/* Wait for a buffer in 'q'. NULL after an abort, or once 'q' is empty and '*done' is set. */
static pipe_buf *take(pipe_state *s, bqueue *q, const int *done)
{
	pipe_buf *b = NULL;
	pthread_mutex_lock(&s->m);
	while (!s->abort && q->count == 0 && !(done && *done))
		pthread_cond_wait(&s->cv, &s->m);
	if (!s->abort && q->count > 0) {
		b = q->items[q->head];
		q->head = (q->head + 1) % PIPE_DEPTH;
		q->count--;
	}
	pthread_mutex_unlock(&s->m);
	return b;
}

/* Record a failure (the first one wins) and stop every stage. */
static void fail(pipe_state *s, int rc)
{
	pthread_mutex_lock(&s->m);
	if (!s->rc)
		s->rc = rc;
	s->abort = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->m);
}

static void set_done(pipe_state *s, int *flag)
{
	pthread_mutex_lock(&s->m);
	*flag = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->m);
}

static void *reader_main(void *arg)
{
	pipe_state *s = (pipe_state *)arg;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	for (;;) {
		pipe_buf *b = take(s, &s->in_free, NULL);
		if (!b)
			break;
		b->rc = 0;
		b->src = NULL;
		msg_capture(b->msg, sizeof b->msg);
		int k = s->spec->read(s->spec->read_arg, b);
		msg_capture(NULL, 0);
		if (!b->src)
			b->src = b->data;
		if (k < 0)
			b->rc = -k; /* handed on: the coder reports it after the blocks before it */
		if (k != 0)
			put(s, &s->in_full, b);
		if (k <= 0)
			break;
	}
	set_done(s, &s->in_done);
	return NULL;
}

static void *writer_main(void *arg)
{
	pipe_state *s = (pipe_state *)arg;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	/* Idle until the first block is coded: fault in the second output buffer meanwhile, so that
	 * the coder does not meet fresh memory twice before the writer has work (fresh pages are
	 * slow to fault in, notably in VMs). */
	pipe_buf *next = &s->out[PIPE_DEPTH - 1];
	populate(next->data, s->spec->warm < next->cap ? s->spec->warm : next->cap);
	for (;;) {
		pipe_buf *b = take(s, &s->out_full, &s->out_done);
		if (!b)
			break;
		int rc = out_write_fd(s->spec->out, b->data, b->len);
		if (rc) {
			fail(s, rc);
			break;
		}
		put(s, &s->out_free, b);
	}
	return NULL;
}

/* The coding stage, on the calling thread. */
static void coder_loop(pipe_state *s)
{
	const pipe_spec *sp = s->spec;
	for (;;) {
		pipe_buf *in = take(s, &s->in_full, &s->in_done);
		if (!in)
			break;
		if (in->rc) { /* the reader failed here */
			fputs(in->msg, stderr);
			fail(s, in->rc);
			break;
		}
		pipe_buf *out = sp->out ? take(s, &s->out_free, NULL) : &s->out[0];
		if (!out)
			break;
		int rc = sp->code(sp->code_arg, in, out);
		put(s, &s->in_free, in);
		if (rc) {
			fail(s, rc);
			break;
		}
		if (sp->out)
			put(s, &s->out_full, out);
	}
	set_done(s, &s->out_done);
}

/* Allocate the buffers the spec asks for up front (they may grow later). Decoding without an
 * output (verify) needs one output buffer, which the coder keeps. */
static int alloc_buffers(pipe_state *s)
{
	const pipe_spec *sp = s->spec;
	for (int i = 0; i < PIPE_DEPTH; i++) {
		pipe_buf *in = &s->in[i], *out = &s->out[i];
		in->cap = sp->in_cap;
		out->cap = sp->out || i == 0 ? sp->out_cap : 0;
		in->data = in->cap ? (unsigned char *)malloc(in->cap) : NULL;
		out->data = out->cap ? (unsigned char *)malloc(out->cap) : NULL;
		if ((in->cap && !in->data) || (out->cap && !out->data)) {
			msg("out of memory");
			return EXIT_RESOURCES;
		}
		advise_huge(in->data, in->cap);
		advise_huge(out->data, out->cap);
		q_put_locked(&s->in_free, in);
		if (sp->out)
			q_put_locked(&s->out_free, out);
	}
	return EXIT_OK;
}

static void free_buffers(pipe_state *s)
{
	for (int i = 0; i < PIPE_DEPTH; i++) {
		free(s->in[i].data);
		free(s->out[i].data);
	}
}

/* Start the I/O threads, code on this thread, stop them. Returns the first failure or 0. */
static int run_threads(pipe_state *s)
{
	pthread_t rd, wr;
	if (pthread_create(&rd, NULL, reader_main, s) != 0) {
		msg("cannot start a thread");
		return EXIT_RESOURCES;
	}
	int have_wr = 0;
	if (s->spec->out) {
		have_wr = pthread_create(&wr, NULL, writer_main, s) == 0;
		if (!have_wr) {
			msg("cannot start a thread");
			fail(s, EXIT_RESOURCES);
		}
	}
	coder_loop(s);
	if (s->rc) { /* an I/O thread may be blocked on a pipe: cancel it */
		pthread_cancel(rd);
		if (have_wr)
			pthread_cancel(wr);
	}
	pthread_join(rd, NULL);
	if (have_wr)
		pthread_join(wr, NULL);
	return s->rc;
}

int pipe_run(const pipe_spec *spec)
{
	pipe_state *s = (pipe_state *)calloc(1, sizeof *s);
	if (!s) {
		msg("out of memory");
		return EXIT_RESOURCES;
	}
	s->spec = spec;
	pthread_mutex_init(&s->m, NULL);
	pthread_cond_init(&s->cv, NULL);
	int rc = alloc_buffers(s);
	if (!rc)
		rc = run_threads(s);
	free_buffers(s);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->m);
	free(s);
	return rc;
}
