/*
 * kv_recv.c -- the decode side: accepts one sender, builds the destination cache it describes,
 * and for each repetition receives every group into its destination pages. It keeps one
 * receive posted per staging slot ahead of the messages (so UCX moves each message straight
 * into place on arrival), of any kind: a page stream lands in the slot and
 * splitzip_pages_decompress() validates and scatters it while the next groups arrive; a raw
 * group lands in the slot and is copied into its pages (or, with --raw-iov in raw mode, lands
 * in the pages directly through an iov). Everything that arrives is hostile: a rejected group is
 * reported (status, acknowledgement), never fatal; the receiver carries on with the next group.
 * After each repetition, outside the timed region, every accepted page is compared bit for bit with
 * the cache the sender started from (rebuilt here from the same real KV files).
 *
 * Exit status: 0 every group accepted and every page identical; 3 groups were rejected or
 * pages differ (reported); 1 the run could not be set up or the sender went away.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_proto.h"

#define KV_IDLE_S 600.0 /* no message for this long: the sender is gone */

typedef struct receiver {
	kv_net net;
	kv_config cfg;
	kv_cache cache, want;
	splitzip_ctx *ctx;
	size_t n_slots, slot_cap;
	uint8_t **slot;
	ucp_dt_iov_t *iov; /* n_slots x group_pages */
	kv_req *req;       /* per group */
	unsigned *kind;
	size_t *len;
	int32_t *status;
	kv_ack *ack;
	kv_req *ack_req;
	uint64_t decode_ns, wire;
	int verbose;
	unsigned rep;
} receiver;

static const char *status_text(int32_t st)
{
	return st == -1 ? "transport error (message dropped)"
	                : splitzip_status_name((splitzip_status)st);
}

/*
 * Post the receive of group g, before its message arrives (so UCX matches it on arrival and
 * moves the data straight into place): into the pages themselves when the sender sends raw
 * iov messages, else into the group's staging slot, whatever its kind (the tag says which).
 */
static void post(receiver *r, size_t g)
{
	size_t first, count;
	kv_cache_group(&r->cache, g, &first, &count);
	const size_t slot = g % r->n_slots;
	const uint64_t tag = KV_TAG(KV_MSG_DATA, 0, r->rep, g);
	if (r->cfg.mode == KV_MODE_RAW && r->cfg.raw_iov) {
		ucp_dt_iov_t *iov = &r->iov[slot * r->cache.geo.group_pages];
		for (size_t k = 0; k < count; k++) {
			iov[k].buffer = r->cache.page[first + k];
			iov[k].length = r->cache.page_bytes;
		}
		r->req[g] = kv_recv_iov(&r->net, tag, KV_TAG_ANY_KIND, iov, count);
	} else {
		r->req[g] = kv_recv(&r->net, tag, KV_TAG_ANY_KIND, r->slot[slot], r->slot_cap);
	}
}

/* The status of a group whose receive completed ('ok' from kv_test), decoding it if needed. */
static int32_t land(receiver *r, size_t g, int ok)
{
	size_t first, count;
	kv_cache_group(&r->cache, g, &first, &count);
	if (ok < 0)
		return -1;
	if (r->kind[g] == KV_KIND_RAW) {
		r->wire += r->len[g];
		if (r->len[g] != count * r->cache.page_bytes)
			return SPLITZIP_ERROR_TRUNCATED;
		for (size_t k = 0; !r->cfg.raw_iov && k < count; k++) /* staged: scatter */
			memcpy(r->cache.page[first + k],
			       r->slot[g % r->n_slots] + k * r->cache.page_bytes,
			       r->cache.page_bytes);
		return SPLITZIP_OK;
	}
	if (r->kind[g] != KV_KIND_STREAM)
		return SPLITZIP_ERROR_UNSUPPORTED_FORMAT;
	size_t n_out = 0;
	r->wire += r->len[g];
	const uint64_t t0 = kv_now_ns();
	splitzip_status st = splitzip_pages_decompress(
	    r->ctx, r->slot[g % r->n_slots], r->len[g], count, (void *const *)&r->cache.page[first],
	    &r->cache.bytes[first], SPLITZIP_PAGES_EXACT, NULL, NULL, &n_out);
	r->decode_ns += kv_now_ns() - t0;
	if (st == SPLITZIP_OK && n_out != count) /* a valid stream, but not this group's pages */
		st = SPLITZIP_ERROR_CORRUPT_STREAM;
	return st;
}

static void acknowledge(receiver *r, size_t g, int32_t st, uint64_t decode_ns)
{
	r->status[g] = st;
	r->ack[g].group = (uint32_t)g;
	r->ack[g].status = st;
	r->ack[g].decode_ns = decode_ns;
	r->ack_req[g] =
	    kv_send(&r->net, KV_TAG(KV_MSG_ACK, 0, r->rep, g), &r->ack[g], sizeof r->ack[g]);
	if (st != SPLITZIP_OK)
		fprintf(stderr, "kv_transfer recv: rep %u group %zu rejected: %s\n", r->rep, g,
		        status_text(st));
}

/* Receive (and, unless the mode is 'compressed', decode) every group; -1 if the sender left. */
static int receive_all(receiver *r)
{
	const size_t G = r->cache.n_groups;
	const int serial = r->cfg.mode == KV_MODE_COMPRESSED;
	size_t next_post = 0, next_done = 0;
	uint64_t idle = kv_now_ns();
	while (next_done < G) {
		while (next_post < G && next_post < next_done + r->n_slots)
			post(r, next_post++);
		const int t =
		    kv_test_recv(r->req[next_done], &r->len[next_done], &r->kind[next_done]);
		if (t != 0) {
			kv_release(r->req[next_done]);
			r->req[next_done] = NULL;
			if (serial) {
				r->status[next_done] = t > 0 ? SPLITZIP_OK : -1;
			} else {
				const uint64_t d0 = r->decode_ns;
				const int32_t st =
				    land(r, next_done, t); /* before decode_ns is read */
				acknowledge(r, next_done, st, r->decode_ns - d0);
			}
			next_done++;
			idle = kv_now_ns();
			continue;
		}
		ucp_worker_progress(r->net.worker);
		if (r->net.failed || kv_now_ns() - idle > KV_IDLE_S * 1e9)
			return -1;
	}
	for (size_t g = 0; serial && g < G; g++) {
		const uint64_t d0 = r->decode_ns;
		const int32_t st = r->status[g] == SPLITZIP_OK ? land(r, g, 1) : -1;
		acknowledge(r, g, st, r->decode_ns - d0);
	}
	return 0;
}

/* One repetition, then the bit-for-bit check of the accepted groups and the result. */
static int run_rep(receiver *r, unsigned rep, int *data_errors)
{
	r->rep = rep;
	r->decode_ns = r->wire = 0;
	memset(r->cache.pool, 0, r->cache.n_pages * r->cache.page_bytes);
	if (receive_all(r) != 0) {
		fprintf(stderr, "kv_transfer recv: the sender went away\n");
		return -1;
	}
	kv_result res;
	memset(&res, 0, sizeof res);
	for (size_t g = 0; g < r->cache.n_groups; g++) {
		if (kv_wait(&r->net, r->ack_req[g], NULL, 60) != 0)
			return -1;
		kv_release(r->ack_req[g]);
		r->ack_req[g] = NULL;
		size_t first, count;
		kv_cache_group(&r->cache, g, &first, &count);
		if (r->status[g] != SPLITZIP_OK) {
			res.bad_groups++;
			if (res.status == SPLITZIP_OK)
				res.status = r->status[g];
			continue;
		}
		res.bad_pages += kv_cache_compare(&r->cache, &r->want, first, count);
	}
	res.wire_bytes = r->wire;
	res.decode_ns = r->decode_ns;
	if (r->verbose || res.bad_groups || res.bad_pages)
		printf("kv_transfer recv: rep %u: %zu groups, %u rejected, %llu accepted pages "
		       "differ, "
		       "%llu wire bytes, decode %.3f ms\n",
		       rep, r->cache.n_groups, res.bad_groups, (unsigned long long)res.bad_pages,
		       (unsigned long long)res.wire_bytes, (double)res.decode_ns * 1e-6);
	*data_errors += res.bad_groups + (res.bad_pages != 0);
	kv_req w = kv_send(&r->net, KV_TAG(KV_MSG_RESULT, 0, rep, 0), &res, sizeof res);
	const int rc = kv_wait(&r->net, w, NULL, 60);
	kv_release(w);
	return rc;
}

static int setup(receiver *r)
{
	const kv_config *c = &r->cfg;
	if (c->magic != KV_MAGIC || c->version != KV_VERSION || c->mode > KV_MODE_PIPELINED ||
	    c->slots < 1 || c->slots > 64 || kv_cache_alloc(&r->cache, &c->geo) != 0 ||
	    kv_cache_alloc(&r->want, &c->geo) != 0) {
		fprintf(stderr, "kv_transfer recv: unusable run description\n");
		return -1;
	}
	char k[sizeof c->data_k + 1] = {0}, v[sizeof c->data_v + 1] = {0};
	memcpy(k, c->data_k, sizeof c->data_k);
	memcpy(v, c->data_v, sizeof c->data_v);
	if (kv_cache_fill(&r->want, k, v) != 0) {
		fprintf(stderr, "kv_transfer recv: cannot read %s, %s\n", k, v);
		return -1;
	}
	splitzip_params p;
	splitzip_params_init(&p);
	p.n_threads = 1;
	const size_t G = r->cache.n_groups, gp = c->geo.group_pages;
	r->n_slots = c->mode == KV_MODE_COMPRESSED ? G : c->slots;
	r->slot_cap = splitzip_pages_bound(gp, r->cache.page_bytes);
	r->slot = calloc(r->n_slots, sizeof *r->slot);
	r->iov = calloc(r->n_slots * gp, sizeof *r->iov);
	r->req = calloc(G, sizeof *r->req);
	r->kind = calloc(G, sizeof *r->kind);
	r->len = calloc(G, sizeof *r->len);
	r->status = calloc(G, sizeof *r->status);
	r->ack = calloc(G, sizeof *r->ack);
	r->ack_req = calloc(G, sizeof *r->ack_req);
	if (splitzip_ctx_create(&p, &r->ctx) != SPLITZIP_OK || !r->slot || !r->iov || !r->req ||
	    !r->kind || !r->len || !r->status || !r->ack || !r->ack_req)
		return -1;
	for (size_t s = 0; s < r->n_slots; s++)
		if (!(r->slot[s] = aligned_alloc(256, (r->slot_cap + 255) / 256 * 256)))
			return -1;
	return 0;
}

static void teardown(receiver *r)
{
	for (size_t s = 0; r->slot && s < r->n_slots; s++)
		free(r->slot[s]);
	free(r->slot);
	free(r->iov);
	free(r->req);
	free(r->kind);
	free(r->len);
	free(r->status);
	free(r->ack);
	free(r->ack_req);
	splitzip_ctx_free(r->ctx);
	kv_cache_free(&r->cache);
	kv_cache_free(&r->want);
}

int kv_receiver_main(const char *bind, unsigned port, int verbose)
{
	receiver r;
	memset(&r, 0, sizeof r);
	r.verbose = verbose;
	if (kv_net_init(&r.net) != 0 || kv_net_accept(&r.net, bind, port, 600) != 0) {
		fprintf(stderr, "kv_transfer recv: cannot listen on %s:%u\n", bind ? bind : "*",
		        port);
		kv_net_close(&r.net);
		return 1;
	}
	kv_req c =
	    kv_recv(&r.net, KV_TAG(KV_MSG_CONFIG, 0, 0, 0), ~(uint64_t)0, &r.cfg, sizeof r.cfg);
	int rc = kv_wait(&r.net, c, NULL, 600);
	kv_release(c);
	if (rc == 0)
		rc = setup(&r);
	if (rc == 0) {
		uint32_t ready = KV_MAGIC;
		kv_req w = kv_send(&r.net, KV_TAG(KV_MSG_READY, 0, 0, 0), &ready, sizeof ready);
		rc = kv_wait(&r.net, w, NULL, 60);
		kv_release(w);
	}
	int data_errors = 0;
	for (unsigned k = 0; rc == 0 && k < r.cfg.reps; k++)
		rc = run_rep(&r, k, &data_errors);
	if (rc == 0 && verbose)
		printf("kv_transfer recv: %u reps done, %d data errors reported\n", r.cfg.reps,
		       data_errors);
	kv_net_close(&r.net);
	teardown(&r);
	return rc != 0 ? 1 : data_errors ? 3 : 0;
}
