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
 * The handshake also measures this end's unpacking rates for the sender's policy: the two CALIB
 * streams (a sample of the sender's pages as split4 and as entropy) are decoded a few times
 * into the first destination pages, and the copy of the same bytes timed, and READY carries
 * the medians. Each acknowledgement carries the time spent on its group and this end's network
 * work so far, from which the sender learns how busy the network keeps this core.
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
	uint32_t ways[KV_WAYS];
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

/* Decode a page stream of 'len' bytes into the 'count' pages from 'first'; '*way' its encoding. */
static splitzip_status unpack(receiver *r, const uint8_t *src, size_t len, size_t first,
                              size_t count, uint32_t *way)
{
	size_t n_out = 0;
	splitzip_status st = splitzip_pages_decompress(
	    r->ctx, src, len, count, (void *const *)&r->cache.page[first], &r->cache.bytes[first],
	    SPLITZIP_PAGES_EXACT, NULL, NULL, &n_out);
	if (st == SPLITZIP_OK && n_out != count) /* a valid stream, but not this group's pages */
		st = SPLITZIP_ERROR_CORRUPT_STREAM;
	splitzip_pages_info info;
	if (st == SPLITZIP_OK && splitzip_pages_get_info(src, len, &info) == SPLITZIP_OK)
		*way = info.encoding == SPLITZIP_MODE_ENTROPY ? KV_WAY_ENTROPY : KV_WAY_SPLIT4;
	return st;
}

/* The status of a group whose receive completed ('ok' from kv_test), unpacking it: the
 * scatter of a staged raw group, or the decode of a stream. '*way': what it was. */
static int32_t land(receiver *r, size_t g, int ok, uint32_t *way)
{
	size_t first, count;
	kv_cache_group(&r->cache, g, &first, &count);
	*way = KV_WAY_RAW;
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
	r->wire += r->len[g];
	const uint64_t t0 = kv_now_ns();
	const splitzip_status st = unpack(r, r->slot[g % r->n_slots], r->len[g], first, count, way);
	r->decode_ns += kv_now_ns() - t0;
	return st;
}

static void acknowledge(receiver *r, size_t g, int32_t st, uint32_t way, uint64_t work_ns)
{
	r->status[g] = st;
	if (st == SPLITZIP_OK)
		r->ways[way]++;
	r->ack[g].group = (uint32_t)g;
	r->ack[g].status = st;
	r->ack[g].way = way;
	r->ack[g].work_ns = work_ns;
	r->ack[g].net_ns = r->net.net_ns;
	r->ack[g].at_ns = kv_now_ns();
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
				uint32_t way;
				const uint64_t w0 = kv_now_ns();
				const int32_t st = land(r, next_done, t, &way);
				acknowledge(r, next_done, st, way, kv_now_ns() - w0);
			}
			next_done++;
			idle = kv_now_ns();
			continue;
		}
		kv_progress(&r->net);
		if (r->net.failed || kv_now_ns() - idle > KV_IDLE_S * 1e9)
			return -1;
	}
	for (size_t g = 0; serial && g < G; g++) {
		uint32_t way = KV_WAY_RAW;
		const uint64_t w0 = kv_now_ns();
		const int32_t st = r->status[g] == SPLITZIP_OK ? land(r, g, 1, &way) : -1;
		acknowledge(r, g, st, way, kv_now_ns() - w0);
	}
	return 0;
}

/* One repetition, then the bit-for-bit check of the accepted groups and the result. */
static int run_rep(receiver *r, unsigned rep, int *data_errors)
{
	r->rep = rep;
	r->decode_ns = r->wire = r->net.net_ns = 0;
	memset(r->ways, 0, sizeof r->ways);
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
	memcpy(res.ways, r->ways, sizeof res.ways);
	if (r->verbose || res.bad_groups || res.bad_pages)
		printf("kv_transfer recv: rep %u: %zu groups, %u rejected, %llu accepted pages "
		       "differ, accepted raw %u split4 %u entropy %u, %llu wire bytes, decode %.3f "
		       "ms\n",
		       rep, r->cache.n_groups, res.bad_groups, (unsigned long long)res.bad_pages,
		       res.ways[0], res.ways[1], res.ways[2], (unsigned long long)res.wire_bytes,
		       (double)res.decode_ns * 1e-6);
	*data_errors += res.bad_groups + (res.bad_pages != 0);
	/* Clear the pages for the next repetition before the sender learns this one is over: the
	 * sender times from its first byte, and this end must be ready by then. */
	memset(r->cache.pool, 0, r->cache.n_pages * r->cache.page_bytes);
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
	    kv_cache_alloc(&r->want, &c->geo) != 0 || c->calib_pages < 1 ||
	    c->calib_pages > c->geo.group_pages || c->calib_pages > r->cache.n_pages) {
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
	for (size_t s = 0; s < r->n_slots; s++) { /* touched now: no page faults in a transfer */
		if (!(r->slot[s] = aligned_alloc(256, (r->slot_cap + 255) / 256 * 256)))
			return -1;
		memset(r->slot[s], 0, r->slot_cap);
	}
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

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

#define KV_CALIB_REPS 5

/* The median time of unpacking the sample in 'buf' (len bytes) into the first pages: a
 * page stream, or (raw) the scatter copy of its bytes; 0 if the stream is rejected. */
static uint64_t time_unpack(receiver *r, const uint8_t *buf, size_t len, int raw,
                            splitzip_status *st)
{
	uint64_t t[KV_CALIB_REPS];
	const size_t n = r->cfg.calib_pages, pb = r->cache.page_bytes;
	for (int k = 0; k < KV_CALIB_REPS; k++) {
		uint32_t way;
		const uint64_t t0 = kv_now_ns();
		if (raw) {
			for (size_t i = 0; i < n; i++)
				memcpy(r->cache.page[i], buf + i * pb, pb);
		} else if ((*st = unpack(r, buf, len, 0, n, &way)) != SPLITZIP_OK) {
			return 0;
		}
		t[k] = kv_now_ns() - t0;
	}
	qsort(t, KV_CALIB_REPS, sizeof *t, cmp_u64);
	return t[KV_CALIB_REPS / 2] ? t[KV_CALIB_REPS / 2] : 1;
}

/* The CALIB streams: receive both, time their decoding and the copy of as many bytes. */
static void calibrate(receiver *r, kv_ready *ready)
{
	const double bytes = (double)r->cfg.calib_pages * r->cache.page_bytes;
	ready->status = SPLITZIP_OK;
	for (int way = KV_WAY_SPLIT4; way < KV_WAYS && ready->status == SPLITZIP_OK; way++) {
		size_t len = 0;
		kv_req q = kv_recv(&r->net, KV_TAG(KV_MSG_CALIB, way, 0, 0), ~(uint64_t)0,
		                   r->slot[0], r->slot_cap);
		splitzip_status st = SPLITZIP_ERROR_TRUNCATED;
		const uint64_t ns = kv_wait(&r->net, q, &len, KV_IDLE_S) == 0
		                        ? time_unpack(r, r->slot[0], len, 0, &st)
		                        : 0;
		kv_release(q);
		ready->dec[way] = ns ? bytes / ((double)ns * 1e-9) : 0;
		ready->status = ns ? SPLITZIP_OK : st;
	}
	splitzip_status unused;
	const uint64_t ns = time_unpack(r, r->slot[0], 0, 1, &unused);
	ready->dec[KV_WAY_RAW] = bytes / ((double)ns * 1e-9);
}

/* Answer CONFIG: set up, time the CALIB streams, READY. */
static int handshake(receiver *r)
{
	kv_req c =
	    kv_recv(&r->net, KV_TAG(KV_MSG_CONFIG, 0, 0, 0), ~(uint64_t)0, &r->cfg, sizeof r->cfg);
	int rc = kv_wait(&r->net, c, NULL, KV_IDLE_S);
	kv_release(c);
	if (rc != 0)
		return -1;
	kv_ready ready;
	memset(&ready, 0, sizeof ready);
	ready.magic = KV_MAGIC;
	if (setup(r) != 0)
		ready.status = SPLITZIP_ERROR_INVALID_ARGUMENT; /* told, so the sender stops */
	else
		calibrate(r, &ready);
	if (r->cache
	        .pool) /* the calibration wrote the first pages; every repetition starts clean */
		memset(r->cache.pool, 0, r->cache.n_pages * r->cache.page_bytes);
	if (r->verbose || ready.status != SPLITZIP_OK)
		printf("kv_transfer recv: calibration %s: unpacking raw %.3f split4 %.3f entropy "
		       "%.3f GB/s\n",
		       splitzip_status_name((splitzip_status)ready.status), ready.dec[0] * 1e-9,
		       ready.dec[1] * 1e-9, ready.dec[2] * 1e-9);
	kv_req w = kv_send(&r->net, KV_TAG(KV_MSG_READY, 0, 0, 0), &ready, sizeof ready);
	rc = kv_wait(&r->net, w, NULL, 60);
	kv_release(w);
	return rc == 0 && ready.status == SPLITZIP_OK ? 0 : -1;
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
	int rc = handshake(&r);
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
