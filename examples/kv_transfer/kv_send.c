/*
 * kv_send.c -- the prefill side: moves its paged KV cache to the receiver, group by group,
 * in one of three modes, and times each repetition from the first byte it touches to the
 * receiver's acknowledgement of the last group (decoded into the destination pages).
 *
 *   raw         every group's pages straight from the cache (one iov message, zero copy)
 *   compressed  compress every group (splitzip_pages_compress), then send them all; the
 *               receiver decodes once everything arrived: no overlap at all
 *   pipelined   compress group i+1 while group i is on the wire ('slots' staging buffers);
 *               the receiver decodes each group on arrival. With the fallback (the default)
 *               the first groups probe both ways, raw then compressed, and the rest go the
 *               way that moved more cache bytes per second between acknowledgements: where
 *               the codec cannot keep up with the link the transfer stays raw, so it is
 *               never slower than raw beyond the probe.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_proto.h"

#define KV_TIMEOUT_S 600.0

typedef struct rep_stats {
	double seconds;
	uint64_t wire, comp_ns, comp_bytes;
	size_t n_stream, n_raw;
	int bad_acks;
	kv_result result;
} rep_stats;

typedef struct sender {
	const kv_send_opts *o;
	kv_net net;
	kv_cache cache;
	splitzip_ctx *ctx;
	uint32_t cb_id;
	size_t n_slots, slot_cap;
	uint8_t **slot;
	size_t *slot_len; /* the stream in each slot */
	kv_req *slot_req;
	ucp_dt_iov_t *iov; /* n_slots x group_pages */
	uint8_t *junk;     /* corrupt tests: a message longer than any receive buffer */
	kv_ack *ack;
	kv_req *ack_req;
	uint64_t *ack_ns;
	size_t next_ack;
	unsigned rep;
	int decided, probing;
	unsigned choice;
	double thr_stream, thr_raw; /* probe results, cache bytes per second */
	double thr_comp, thr_dec;   /* the codec during the probe: compress here, decode there */
	uint64_t t_rep, t_probe;    /* start of the repetition, of the compressed probe */
	rep_stats st;
} sender;

/* The acknowledgements that arrived, in group order, with the time they were seen. */
static void poll_acks(sender *s)
{
	while (s->next_ack < s->cache.n_groups) {
		const int t = kv_test(s->ack_req[s->next_ack], NULL);
		if (t == 0)
			return;
		s->ack_ns[s->next_ack] = kv_now_ns();
		if (t < 0 || s->ack[s->next_ack].status != SPLITZIP_OK)
			s->st.bad_acks++;
		kv_release(s->ack_req[s->next_ack]);
		s->ack_req[s->next_ack] = NULL;
		s->next_ack++;
	}
}

/* Progress until 'r' completes (acknowledgements are noted meanwhile). */
static int wait_req(sender *s, kv_req *r)
{
	const uint64_t t0 = kv_now_ns();
	for (unsigned k = 0; *r; k++) {
		const int t = kv_test(*r, NULL);
		if (t != 0) {
			kv_release(*r);
			*r = NULL;
			return t > 0 ? 0 : -1;
		}
		ucp_worker_progress(s->net.worker);
		poll_acks(s);
		if (s->net.failed || ((k & 1023) == 0 && kv_now_ns() - t0 > KV_TIMEOUT_S * 1e9))
			return -1;
	}
	return 0;
}

static int wait_acks(sender *s)
{
	const uint64_t t0 = kv_now_ns();
	while (s->next_ack < s->cache.n_groups) {
		ucp_worker_progress(s->net.worker);
		poll_acks(s);
		if (s->net.failed || kv_now_ns() - t0 > KV_TIMEOUT_S * 1e9)
			return -1;
	}
	return 0;
}

/* Progress until the acknowledgements of groups 0..n-1 are in. */
static int wait_acks_upto(sender *s, size_t n)
{
	const uint64_t t0 = kv_now_ns();
	while (s->next_ack < n) {
		ucp_worker_progress(s->net.worker);
		poll_acks(s);
		if (s->net.failed || kv_now_ns() - t0 > KV_TIMEOUT_S * 1e9)
			return -1;
	}
	return 0;
}

/*
 * The probe of the pipelined sender with the fallback: groups [0, P) go raw, [P, 2P)
 * compressed, each batch timed from its first byte to the acknowledgement of its last group
 * (the pipeline drains between them: groups in flight interleave on the connection, so only
 * whole batches time well). The rest goes the way that moved more cache bytes per second.
 * Called before group g is sent; -1 if the peer went away.
 */
/* Groups per probe batch: --probe-groups, or about 1/16 of the groups, 4 to 16, and at
 * most a quarter of them (small caches). */
static size_t probe_groups(const sender *s)
{
	const size_t G = s->cache.n_groups;
	size_t P = s->o->probe_groups > 0 ? (size_t)s->o->probe_groups : G / 16;
	if (s->o->probe_groups <= 0)
		P = P < 4 ? 4 : P > 16 ? 16 : P;
	if (P > (G - 1) / 4)
		P = (G - 1) / 4;
	return P < 1 ? 1 : P;
}

/*
 * Compress the rest when the compressed batch moved at least as many cache bytes per second as
 * the raw one, and the codec at both ends outran the raw transfer by half again (KV_CODEC_MARGIN).
 * The second rule guards a short probe against noise where it matters: when the link is no
 * faster than the cores, codec and network stack share each end's core, and a codec not well
 * ahead of the raw rate loses in the long run even if a short batch said otherwise.
 */
#define KV_CODEC_MARGIN 1.5
static unsigned probe_verdict(double stream, double raw, double comp, double dec)
{
	const int faster = stream >= raw;
	const int codec_ahead = comp >= KV_CODEC_MARGIN * raw && dec >= KV_CODEC_MARGIN * raw;
	return faster && codec_ahead ? KV_KIND_STREAM : KV_KIND_RAW;
}

/*
 * The probe, called before group g is sent: group 0 raw warms the connection up (not timed),
 * groups [1, P+1) go raw and [P+1, 2P+1) compressed, each batch timed from its first byte to
 * the acknowledgement of its last group (the pipeline drains between batches: groups in flight
 * interleave on the connection, so only whole batches time well). -1 if the peer went away.
 */
static int probe_step(sender *s, size_t g)
{
	const size_t P = probe_groups(s);
	const double batch = (double)P * s->cache.geo.group_pages * s->cache.page_bytes;
	if (g != 1 && g != P + 1 && g != 2 * P + 1)
		return 0;
	if (wait_acks_upto(s, g) != 0)
		return -1;
	if (g == 1) {
		s->t_probe = kv_now_ns();
	} else if (g == P + 1) {
		s->thr_raw = batch / ((double)(s->ack_ns[P] - s->t_probe) * 1e-9);
		s->t_probe = kv_now_ns();
	} else {
		s->thr_stream = batch / ((double)(s->ack_ns[2 * P] - s->t_probe) * 1e-9);
		/* The codec at each end, from the probe's groups: this sender's compress time and
		 * the decode time the receiver reports in its acknowledgements. */
		uint64_t dec_ns = 0;
		for (size_t k = P + 1; k <= 2 * P; k++)
			dec_ns += s->ack[k].decode_ns;
		s->thr_comp =
		    s->st.comp_ns ? (double)s->st.comp_bytes / ((double)s->st.comp_ns * 1e-9) : 0;
		s->thr_dec = dec_ns ? batch / ((double)dec_ns * 1e-9) : 0;
		s->choice = probe_verdict(s->thr_stream, s->thr_raw, s->thr_comp, s->thr_dec);
		s->decided = 1;
	}
	return 0;
}

/* How group g travels (see probe_step for the fallback). */
static unsigned choose_kind(const sender *s, size_t g)
{
	const kv_config *c = &s->o->cfg;
	if (c->mode == KV_MODE_RAW)
		return KV_KIND_RAW;
	if (c->mode == KV_MODE_COMPRESSED || !s->o->fallback || c->corrupt)
		return KV_KIND_STREAM;
	if (s->decided && !s->probing)
		return s->choice; /* decided on an earlier transfer of this connection */
	const size_t P = probe_groups(s);
	if (g <= P)
		return KV_KIND_RAW; /* the warm-up group and the raw batch */
	return g <= 2 * P || !s->decided ? KV_KIND_STREAM : s->choice;
}

static int compress_group(sender *s, size_t g, size_t slot)
{
	size_t first, count;
	kv_cache_group(&s->cache, g, &first, &count);
	const uint64_t t0 = kv_now_ns();
	splitzip_status st = splitzip_pages_compress(
	    s->ctx, s->cb_id, s->o->checksum ? 0 : SPLITZIP_PAGES_NO_CHECKSUM, count,
	    (const void *const *)&s->cache.page[first], &s->cache.bytes[first], s->slot[slot],
	    s->slot_cap, &s->slot_len[slot]);
	s->st.comp_ns += kv_now_ns() - t0;
	s->st.comp_bytes += count * s->cache.page_bytes;
	if (st != SPLITZIP_OK)
		fprintf(stderr, "kv_transfer send: group %zu: %s\n", g, splitzip_error_string(st));
	return st == SPLITZIP_OK ? 0 : -1;
}

/* Test senders damage every third group: header, truncation, not a stream, too long. */
static size_t corrupt(sender *s, size_t g, uint8_t *buf, size_t len, const void **out)
{
	*out = buf;
	if (!s->o->cfg.corrupt || g % 3 != 1)
		return len;
	unsigned how = s->o->cfg.corrupt == KV_CORRUPT_FLIP       ? 0
	               : s->o->cfg.corrupt == KV_CORRUPT_TRUNCATE ? 1
	                                                          : (unsigned)(g / 3) % 4;
	switch (how) {
	case 0:
		buf[20] ^= 0x10; /* in the stream header: HEADER_CHECKSUM */
		return len;
	case 1:
		return len > 100 ? len - 100 : len / 2; /* TRUNCATED */
	case 2:
		memcpy(buf, "JUNK", 4); /* not a page stream: BAD_MAGIC */
		return len;
	default:
		*out = s->junk; /* longer than the receiver's buffer: a transport error */
		return s->slot_cap + 4096;
	}
}

static kv_req send_group(sender *s, size_t g, size_t slot, unsigned kind)
{
	size_t first, count;
	kv_cache_group(&s->cache, g, &first, &count);
	ucp_dt_iov_t *iov = &s->iov[slot * s->cache.geo.group_pages];
	const uint64_t tag = KV_TAG(KV_MSG_DATA, kind, s->rep, g);
	if (kind == KV_KIND_STREAM) {
		s->st.n_stream++;
		const void *buf;
		const size_t len = corrupt(s, g, s->slot[slot], s->slot_len[slot], &buf);
		s->st.wire += len;
		return kv_send(&s->net, tag, buf, len);
	}
	s->st.n_raw++;
	s->st.wire += count * s->cache.page_bytes;
	if (!s->o->cfg.raw_iov) { /* staged: pack the pages into one buffer, one bulk send */
		for (size_t k = 0; k < count; k++)
			memcpy(s->slot[slot] + k * s->cache.page_bytes, s->cache.page[first + k],
			       s->cache.page_bytes);
		return kv_send(&s->net, tag, s->slot[slot], count * s->cache.page_bytes);
	}
	for (size_t k = 0; k < count; k++) {
		iov[k].buffer = s->cache.page[first + k];
		iov[k].length = s->cache.page_bytes;
	}
	return kv_send_iov(&s->net, tag, iov, count);
}

/* raw and pipelined: group g waits for its slot, is compressed (or not) and sent. */
static int run_pipelined(sender *s)
{
	for (size_t g = 0; g < s->cache.n_groups; g++) {
		const size_t slot = g % s->n_slots;
		if (wait_req(s, &s->slot_req[slot]) != 0 || (s->probing && probe_step(s, g) != 0))
			return -1;
		const unsigned kind = choose_kind(s, g);
		if (kind == KV_KIND_STREAM && compress_group(s, g, slot) != 0)
			return -1;
		s->slot_req[slot] = send_group(s, g, slot, kind);
		ucp_worker_progress(s->net.worker);
		poll_acks(s);
	}
	return 0;
}

/* compressed: everything compressed first, then everything sent. */
static int run_serial(sender *s)
{
	for (size_t g = 0; g < s->cache.n_groups; g++)
		if (compress_group(s, g, g) != 0)
			return -1;
	for (size_t g = 0; g < s->cache.n_groups; g++)
		s->slot_req[g] = send_group(s, g, g, KV_KIND_STREAM);
	return 0;
}

static int run_rep(sender *s, unsigned rep)
{
	memset(&s->st, 0, sizeof s->st);
	s->rep = rep;
	s->next_ack = 0;
	/* The probe runs on the first transfer of the connection, and again every 'reprobe'
	 * transfers; the transfers between reuse its decision (a serving engine keeps it per
	 * peer: probing every request would cost more than it saves on small ones). */
	s->probing = s->o->cfg.mode == KV_MODE_PIPELINED && s->o->fallback && !s->o->cfg.corrupt &&
	             (!s->decided || (s->o->reprobe && rep % s->o->reprobe == 0));
	if (s->probing) {
		s->decided = 0;
		s->thr_raw = s->thr_stream = s->thr_comp = s->thr_dec = 0;
	}
	kv_req res = kv_recv(&s->net, KV_TAG(KV_MSG_RESULT, 0, rep, 0), ~(uint64_t)0, &s->st.result,
	                     sizeof s->st.result);
	for (size_t g = 0; g < s->cache.n_groups; g++)
		s->ack_req[g] = kv_recv(&s->net, KV_TAG(KV_MSG_ACK, 0, rep, g), ~(uint64_t)0,
		                        &s->ack[g], sizeof s->ack[g]);
	const uint64_t t0 = s->t_rep = kv_now_ns();
	int rc = s->o->cfg.mode == KV_MODE_COMPRESSED ? run_serial(s) : run_pipelined(s);
	if (rc == 0)
		rc = wait_acks(s);
	s->st.seconds = rc == 0 ? (double)(s->ack_ns[s->cache.n_groups - 1] - t0) * 1e-9 : 0;
	for (size_t k = 0; k < s->n_slots && rc == 0; k++)
		rc = wait_req(s, &s->slot_req[k]);
	if (rc == 0)
		rc = kv_wait(&s->net, res, NULL, KV_TIMEOUT_S);
	kv_release(res);
	return rc;
}

/* The codebook, calibrated once on the first pages (offline, per model), and its name. */
static int make_ctx(sender *s)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.n_threads = 1;
	p.flags = s->o->checksum ? SPLITZIP_FLAG_CONTENT_CHECKSUM : 0;
	if (s->o->fixed_codebook) {
		uint64_t hist[256] = {0};
		const size_t n = s->cache.n_pages < 64 ? s->cache.n_pages : 64;
		for (size_t i = 0; i < n; i++)
			splitzip_histogram((const uint16_t *)s->cache.page[i],
			                   s->cache.page_bytes / 2, hist);
		splitzip_codebook_from_histogram(hist, &p.codebook);
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		s->cb_id = 2166136261u; /* FNV-1a of the 16 exponents */
		for (int k = 0; k < 16; k++)
			s->cb_id = (s->cb_id ^ p.codebook.exponents[k]) * 16777619u;
	}
	return splitzip_ctx_create(&p, &s->ctx) == SPLITZIP_OK ? 0 : -1;
}

static int setup(sender *s)
{
	const kv_config *c = &s->o->cfg;
	if (kv_cache_alloc(&s->cache, &c->geo) != 0 ||
	    kv_cache_fill(&s->cache, c->data_k, c->data_v) != 0) {
		fprintf(stderr, "kv_transfer send: cannot build the cache from %s, %s\n", c->data_k,
		        c->data_v);
		return -1;
	}
	if (make_ctx(s) != 0)
		return -1;
	const size_t G = s->cache.n_groups, gp = c->geo.group_pages;
	s->n_slots = c->mode == KV_MODE_COMPRESSED ? G : c->slots;
	s->slot_cap = splitzip_pages_bound(gp, s->cache.page_bytes);
	s->slot = calloc(s->n_slots, sizeof *s->slot);
	s->slot_len = calloc(s->n_slots, sizeof *s->slot_len);
	s->slot_req = calloc(s->n_slots, sizeof *s->slot_req);
	s->iov = calloc(s->n_slots * gp, sizeof *s->iov);
	s->ack = calloc(G, sizeof *s->ack);
	s->ack_req = calloc(G, sizeof *s->ack_req);
	s->ack_ns = calloc(G, sizeof *s->ack_ns);
	s->junk = c->corrupt ? calloc(1, s->slot_cap + 4096) : NULL;
	if (!s->slot || !s->slot_len || !s->slot_req || !s->iov || !s->ack || !s->ack_req ||
	    !s->ack_ns || (c->corrupt && !s->junk))
		return -1;
	for (size_t k = 0; k < s->n_slots; k++)
		if (!(s->slot[k] = aligned_alloc(256, (s->slot_cap + 255) / 256 * 256)))
			return -1;
	return 0;
}

static void teardown(sender *s)
{
	for (size_t k = 0; s->slot && k < s->n_slots; k++)
		free(s->slot[k]);
	free(s->slot);
	free(s->slot_len);
	free(s->slot_req);
	free(s->iov);
	free(s->ack);
	free(s->ack_req);
	free(s->ack_ns);
	free(s->junk);
	splitzip_ctx_free(s->ctx);
	kv_cache_free(&s->cache);
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static const char *const k_modes[] = {"raw", "compressed", "pipelined"};

/* One line per repetition, then the summary (JSON with --json). */
static void report(const sender *s, const rep_stats *all, unsigned n_all, unsigned warmup)
{
	const rep_stats *r = all + warmup;
	const unsigned n = n_all - warmup;
	uint64_t wire_all = 0;
	for (unsigned k = 0; k < n_all; k++)
		wire_all += all[k].wire;
	const kv_config *c = &s->o->cfg;
	const double cache = (double)s->cache.n_pages * s->cache.page_bytes;
	double *t = calloc(n ? n : 1, sizeof *t);
	for (unsigned k = 0; k < n; k++)
		t[k] = r[k].seconds;
	qsort(t, n, sizeof *t, cmp_double);
	const double med = n ? t[n / 2] : 0, p95 = n ? t[(size_t)(0.95 * (n - 1) + 0.5)] : 0;
	const rep_stats *l = &r[n ? n - 1 : 0];
	const double comp = l->comp_ns ? (double)l->comp_bytes / (double)l->comp_ns : 0;
	const double dec =
	    l->result.decode_ns ? (double)l->comp_bytes / (double)l->result.decode_ns : 0;
	printf(s->o->json
	           ? "{\"mode\":\"%s\",\"fallback\":%d,\"cache_bytes\":%.0f,\"page_bytes\":%zu,"
	             "\"groups\":%zu,\"reps\":%u,\"median_s\":%.6f,\"p95_s\":%.6f,"
	             "\"wire_bytes\":%llu,\"ratio\":%.4f,\"stream_groups\":%zu,"
	             "\"raw_groups\":%zu,\"compress_gbps\":%.3f,\"decode_gbps\":%.3f,"
	             "\"probe_stream_gbps\":%.3f,\"probe_raw_gbps\":%.3f,\"probe_comp_gbps\":%.3f,"
	             "\"probe_dec_gbps\":%.3f,\"bad\":%d,"
	             "\"wire_all_reps\":%llu,\"times\":["
	           : "mode %s fallback %d: cache %.0f bytes (pages of %zu, %zu groups), %u reps: "
	             "median %.6f s, p95 %.6f s, wire %llu bytes (ratio %.4f), %zu compressed "
	             "and %zu raw groups, compress %.3f GB/s, decode %.3f GB/s, probe %.3f vs "
	             "%.3f GB/s (codec %.3f / %.3f), errors %d, %llu wire bytes in all "
	             "repetitions\n",
	       k_modes[c->mode], s->o->fallback, cache, s->cache.page_bytes, s->cache.n_groups, n,
	       med, p95, (unsigned long long)l->wire, l->wire ? cache / (double)l->wire : 0,
	       l->n_stream, l->n_raw, comp, dec, s->thr_stream * 1e-9, s->thr_raw * 1e-9,
	       s->thr_comp * 1e-9, s->thr_dec * 1e-9,
	       l->bad_acks + (int)l->result.bad_groups + (int)l->result.bad_pages,
	       (unsigned long long)wire_all);
	for (unsigned k = 0; s->o->json && k < n; k++) /* in repetition order */
		printf("%s%.6f", k ? "," : "", r[k].seconds);
	if (s->o->json)
		printf("]}\n");
	free(t);
}

static int exchange_config(sender *s)
{
	uint32_t ready = 0;
	kv_req r =
	    kv_recv(&s->net, KV_TAG(KV_MSG_READY, 0, 0, 0), ~(uint64_t)0, &ready, sizeof ready);
	kv_req w = kv_send(&s->net, KV_TAG(KV_MSG_CONFIG, 0, 0, 0), &s->o->cfg, sizeof s->o->cfg);
	int rc = kv_wait(&s->net, w, NULL, 60) | kv_wait(&s->net, r, NULL, 600);
	kv_release(w);
	kv_release(r);
	if (rc != 0 || ready != KV_MAGIC) {
		fprintf(stderr, "kv_transfer send: the receiver did not accept the run\n");
		return -1;
	}
	return 0;
}

int kv_sender_main(const kv_send_opts *o)
{
	sender s;
	memset(&s, 0, sizeof s);
	s.o = o;
	int rc = setup(&s);
	if (rc == 0 &&
	    (kv_net_init(&s.net) != 0 || kv_net_connect(&s.net, o->host, o->port) != 0)) {
		fprintf(stderr, "kv_transfer send: cannot connect to %s:%u\n", o->host, o->port);
		rc = -1;
	}
	if (rc == 0)
		rc = exchange_config(&s);
	rep_stats *reps = calloc(o->cfg.reps ? o->cfg.reps : 1, sizeof *reps);
	unsigned done = 0, bad = 0;
	for (unsigned k = 0; rc == 0 && reps && k < o->cfg.reps; k++) {
		rc = run_rep(&s, k);
		reps[done++] = s.st;
		bad += s.st.bad_acks + s.st.result.bad_groups + (unsigned)s.st.result.bad_pages;
		if (!o->json)
			printf("%s %u: %.6f s, %llu wire bytes, %zu compressed + %zu raw groups, "
			       "probe %.3f vs %.3f GB/s%s\n",
			       k < o->warmup ? "warmup" : "rep", k, s.st.seconds,
			       (unsigned long long)s.st.wire, s.st.n_stream, s.st.n_raw,
			       s.thr_stream * 1e-9, s.thr_raw * 1e-9,
			       s.st.result.bad_pages ? ", PAGES DIFFER" : "");
	}
	if (rc == 0)
		report(&s, reps, done, o->warmup);
	else
		fprintf(stderr, "kv_transfer send: transfer failed\n");
	free(reps);
	kv_net_close(&s.net);
	teardown(&s);
	return rc != 0 ? 1 : bad && !o->cfg.corrupt ? 3 : 0;
}
