/*
 * kv_send.c -- the prefill side: moves its paged KV cache to the receiver, group by group,
 * in one of three modes, and times each repetition from the first byte it touches to the
 * receiver's acknowledgement of the last group (decoded into the destination pages).
 *
 *   raw         every group's pages packed into a staging slot (or one iov message) and sent
 *   compressed  compress every group (splitzip_pages_compress), then send them all; the
 *               receiver decodes once everything arrived: no overlap at all
 *   pipelined   compress group g+1 while group g is on the wire ('slots' staging buffers);
 *               the receiver decodes each group on arrival. How groups are packed: with
 *               --codec split4 or entropy every group that way; with auto (the default) the
 *               policy of kv_policy.h chooses raw, split4 or entropy for the connection.
 *
 * The policy's inputs, measured here: at the handshake this sender times both codecs on a
 * sample of its own pages (and sends the two sample streams, on which the receiver times its
 * decoder: READY carries the rates); the first transfer of a connection then sends one raw
 * lead group and a probe of raw groups, from which it learns the link rate and how much
 * network work each end's loop does per byte (its own time in UCX calls that did work, and the
 * receiver's from the acknowledgements). It chooses; a batch of groups of a codec way checks
 * the choice against the rate it really reaches; later the steady pipeline is watched in
 * windows for drift, which asks for a new probe; a probe also runs every --reprobe transfers.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_proto.h"

#define KV_TIMEOUT_S 600.0
#define KV_CALIB_REPS 5

typedef struct rep_stats {
	double seconds;
	uint64_t wire, pack_ns[KV_WAYS], pack_bytes[KV_WAYS];
	size_t groups[KV_WAYS];
	int bad_acks; /* acknowledgements with an error, or of another way than sent */
	unsigned probes, checks, switches;
	int way_end;     /* the policy's way when the repetition ended */
	double link_end; /* ... and its link rate (bytes per second) */
	kv_result result;
} rep_stats;

typedef struct sender {
	const kv_send_opts *o;
	kv_net net;
	kv_cache cache;
	splitzip_ctx *ctx[2][KV_WAYS]; /* [K or V][KV_WAY_SPLIT4 or KV_WAY_ENTROPY] */
	uint32_t table_id[2][KV_WAYS];
	size_t n_slots, slot_cap;
	uint8_t **slot;
	size_t *slot_len; /* the stream in each slot */
	kv_req *slot_req;
	ucp_dt_iov_t *iov; /* n_slots x group_pages */
	uint8_t *junk;     /* corrupt tests: a message longer than any receive buffer */
	kv_ack *ack;
	kv_req *ack_req;
	uint64_t *ack_ns;  /* when each acknowledgement was seen */
	uint64_t *ack_net; /* our network work so far, then */
	uint8_t *sent_way; /* per group: the way it travelled */
	uint64_t *sent_wire, *sent_ns;
	size_t next_ack, next_send;
	unsigned rep;
	kv_policy pol;
	int policy_on;                 /* pipelined with --codec auto */
	int want_probe;                /* a probe is due */
	int batch;                     /* enum kv_batch: the measured batch in progress */
	size_t batch_first, batch_end; /* its groups [first, end) */
	uint64_t lead_t0;              /* when a probe's lead group started */
	size_t steady_from, win_first; /* windows of the pipeline in steady state */
	unsigned windows;              /* windows and checks fed to the policy on this connection */
	kv_rates calib;                /* the handshake's rates */
	uint8_t *calib_buf[KV_WAYS];
	size_t calib_len[KV_WAYS];
	rep_stats st;
} sender;

/* What the policy measures: a probe (raw groups) or the check of a codec way. A batch starts
 * on an empty pipeline and is timed from the acknowledgement of its first group to that of its
 * last (the bytes of the groups after the first): the first group carries the start-up (an
 * empty pipeline packs several groups back to back before the network is progressed again),
 * the later ones the pipeline's steady rate. Messages are eager (kv_net.c): groups arrive in
 * order, one after the other. */
enum kv_batch { KV_BATCH_NONE = 0, KV_BATCH_PROBE, KV_BATCH_CHECK };

static size_t group_bytes(const sender *s, size_t g)
{
	size_t first, count;
	kv_cache_group(&s->cache, g, &first, &count);
	return count * s->cache.page_bytes;
}

/* Groups per probe and per window: --probe-groups, or about 1/16 of the groups, 4 to 16, and
 * at most a quarter of them (small caches); at least 2 (a rate needs two acknowledgements). */
static size_t probe_groups(const sender *s)
{
	const size_t G = s->cache.n_groups;
	size_t P = s->o->probe_groups > 0 ? (size_t)s->o->probe_groups : G / 16;
	if (s->o->probe_groups <= 0) {
		P = P < 4 ? 4 : P > 16 ? 16 : P;
		if (P > (G - 1) / 4)
			P = (G - 1) / 4;
	}
	return P < 2 ? 2 : P;
}

/* Groups that move in --batch-ms at 'rate' cache bytes per second, at least 'least'. */
static size_t groups_for(const sender *s, double rate, size_t least)
{
	const double want = s->o->batch_ms * 1e-3 * rate / (double)group_bytes(s, 0);
	return want > (double)least ? (size_t)want + 1 : least;
}

/* A batch from group 'first': P groups, or more when P would take less than --batch-ms at the
 * expected rate (a short batch is at the mercy of one preemption), up to the rest of the
 * transfer (a short transfer is measured whole). */
static size_t batch_groups(const sender *s, size_t first, double rate)
{
	const size_t n = groups_for(s, rate, probe_groups(s)), left = s->cache.n_groups - first;
	return n < left ? n : left;
}

/* Steady-state windows: once the pipeline is full again after a batch or the start of a
 * transfer, acknowledgement to acknowledgement, at least max(P, slots) groups and
 * --batch-ms at the checked rate, but one fits in a transfer; the policy watches them for
 * drift. */
static size_t window_groups(const sender *s)
{
	const size_t P = probe_groups(s), least = P > s->n_slots ? P : s->n_slots;
	const size_t n = groups_for(s, s->pol.ref, least), G = s->cache.n_groups;
	const size_t fit = G > s->n_slots + 1 ? G - s->n_slots - 1 : 1;
	return n < fit || least >= fit ? n : fit;
}

/* Sums over groups [a, e]: cache bytes, wire bytes, packing and unpacking time. */
typedef struct kv_sums {
	uint64_t bytes, wire, pack_ns, work_ns;
} kv_sums;

static kv_sums sums(const sender *s, size_t a, size_t e)
{
	kv_sums x = {0, 0, 0, 0};
	for (size_t k = a; k <= e; k++) {
		x.bytes += group_bytes(s, k);
		x.wire += s->sent_wire[k];
		x.pack_ns += s->sent_ns[k];
		x.work_ns += s->ack[k].work_ns;
	}
	return x;
}

static double per_s(uint64_t bytes, double ns)
{
	return ns > 0 ? (double)bytes / (ns * 1e-9) : 0;
}

static void act(sender *s, int action)
{
	s->windows++;
	if (action == KV_POLICY_SWITCH)
		s->st.switches++;
	else if (action == KV_POLICY_PROBE)
		s->want_probe = 1;
}

/* After acknowledgement e: a steady window [win_first, e] of the current way complete? */
static void maybe_window(sender *s, size_t e)
{
	const size_t a = s->win_first;
	if (!s->policy_on || s->o->fixed_rates || s->batch || e < s->steady_from ||
	    e != a + window_groups(s))
		return;
	s->win_first = e;               /* windows share their boundary acknowledgement */
	for (size_t k = a; k <= e; k++) /* one way only */
		if (s->sent_way[k] != (uint8_t)s->pol.way)
			return;
	const kv_sums x = sums(s, a, e);
	kv_window w = {per_s(x.bytes - group_bytes(s, a), (double)(s->ack_ns[e] - s->ack_ns[a])),
	               per_s(x.bytes, (double)x.pack_ns), per_s(x.bytes, (double)x.work_ns),
	               x.wire ? (double)x.bytes / (double)x.wire : 0};
	if (s->o->drift_test && s->windows >= s->o->drift_test)
		w.thr *= 0.5; /* test: a link that halved */
	act(s, kv_policy_window(&s->pol, &w));
}

/* The acknowledgements that arrived, in group order, with the time they were seen. */
static void poll_acks(sender *s)
{
	while (s->next_ack < s->cache.n_groups) {
		const size_t g = s->next_ack;
		const int t = kv_test(s->ack_req[g], NULL);
		if (t == 0)
			return;
		s->ack_ns[g] = kv_now_ns();
		s->ack_net[g] = s->net.net_ns;
		if (t < 0 || s->ack[g].status != SPLITZIP_OK || s->ack[g].way != s->sent_way[g])
			s->st.bad_acks++;
		kv_release(s->ack_req[g]);
		s->ack_req[g] = NULL;
		s->next_ack++;
		if (t > 0 && s->ack[g].status == SPLITZIP_OK && g > 0)
			maybe_window(s, g);
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
		kv_progress(&s->net);
		poll_acks(s);
		if (s->net.failed || ((k & 1023) == 0 && kv_now_ns() - t0 > KV_TIMEOUT_S * 1e9))
			return -1;
	}
	return 0;
}

/* Progress until the acknowledgements of groups 0..n-1 are in. */
static int wait_acks_upto(sender *s, size_t n)
{
	const uint64_t t0 = kv_now_ns();
	while (s->next_ack < n) {
		kv_progress(&s->net);
		poll_acks(s);
		if (s->net.failed || kv_now_ns() - t0 > KV_TIMEOUT_S * 1e9)
			return -1;
	}
	return 0;
}

/* Seconds of network work per byte moved. */
static double net_cost(uint64_t net_ns, uint64_t bytes)
{
	return bytes ? (double)net_ns * 1e-9 / (double)bytes : 0;
}

/* The batch's time: acknowledgement of its first group to that of its last. */
static double batch_ns(const sender *s)
{
	return (double)(s->ack_ns[s->batch_end - 1] - s->ack_ns[s->batch_first]);
}

/* The probe's raw batch is acknowledged: the link rate, each end's network work per byte
 * between the first acknowledgement and the last, the copy rates; with the latest codec
 * rates, the policy chooses. */
static void end_probe(sender *s)
{
	const size_t a = s->batch_first, e = s->batch_end - 1;
	const kv_sums x = sums(s, a, e), in = sums(s, a + 1, e); /* in: after the first */
	kv_rates r = s->pol.probes ? s->pol.rates : s->calib;
	r.link = per_s(in.wire, batch_ns(s));
	r.net_s = net_cost(s->ack_net[e] - s->ack_net[a], in.wire);
	r.net_r = net_cost(s->ack[e].net_ns - s->ack[a].net_ns, in.wire);
	r.enc[KV_WAY_RAW] = per_s(x.bytes, (double)x.pack_ns);
	r.dec[KV_WAY_RAW] = per_s(x.bytes, (double)x.work_ns);
	r.ratio[KV_WAY_RAW] = 1;
	kv_policy_probed(&s->pol, &r);
	s->st.probes++;
}

/* The check's batch of the current way is acknowledged: its rate and codec rates. */
static void end_check(sender *s)
{
	const kv_sums x = sums(s, s->batch_first, s->batch_end - 1);
	const kv_sums in = sums(s, s->batch_first + 1, s->batch_end - 1);
	const kv_window w = {per_s(in.bytes, batch_ns(s)), per_s(x.bytes, (double)x.pack_ns),
	                     per_s(x.bytes, (double)x.work_ns),
	                     x.wire ? (double)x.bytes / (double)x.wire : 0};
	s->st.checks++;
	act(s, kv_policy_window(&s->pol, &w));
}

/* Group g is next and the batch in progress ended: the policy learns from it. */
static int end_batch(sender *s, size_t g)
{
	if (wait_acks_upto(s, g) != 0)
		return -1;
	if (s->batch == KV_BATCH_PROBE)
		end_probe(s);
	else
		end_check(s);
	s->batch = KV_BATCH_NONE;
	s->steady_from = s->win_first = g + s->n_slots;
	return 0;
}

/* The rate a batch of this kind will move, for its size: a probe the last probe's link (or
 * the lead group's), a check the prediction of the way. */
static double batch_rate(const sender *s)
{
	if (s->batch == KV_BATCH_CHECK)
		return s->pol.pred[s->pol.way];
	if (s->pol.rates.link > 0)
		return s->pol.rates.link;
	const size_t lead = s->batch_first - 1;
	return s->batch_first > 0 && s->ack_ns[lead] > s->lead_t0
	           ? per_s(group_bytes(s, lead), (double)(s->ack_ns[lead] - s->lead_t0))
	           : 0;
}

/* A batch due at group g: a probe, or the check of a codec way not yet checked. A probe at
 * the start of a connection begins after one raw lead group (its rate sizes the batch). */
static void start_batch(sender *s, size_t g)
{
	const size_t P = probe_groups(s);
	const int kind = s->want_probe                                   ? KV_BATCH_PROBE
	                 : s->pol.way != KV_WAY_RAW && !(s->pol.ref > 0) ? KV_BATCH_CHECK
	                                                                 : KV_BATCH_NONE;
	const size_t first = g == 0 && kind == KV_BATCH_PROBE ? 1 : g;
	if (kind == KV_BATCH_NONE || first + P > s->cache.n_groups)
		return; /* too few groups left: the next transfer measures */
	s->batch = kind;
	s->batch_first = first;
	s->batch_end = first + P; /* at least; set when the batch starts */
	s->lead_t0 = kv_now_ns();
	if (kind == KV_BATCH_PROBE)
		s->want_probe = 0;
}

/* Before group g is sent: end or start a batch; at a batch's first group, drain the pipeline
 * and note the time and counters. */
static int plan(sender *s, size_t g)
{
	if (!s->policy_on || s->o->fixed_rates)
		return 0;
	if (s->batch && g == s->batch_end && end_batch(s, g) != 0)
		return -1;
	if (!s->batch)
		start_batch(s, g);
	if (s->batch && g == s->batch_first) {
		if (wait_acks_upto(s, g) != 0)
			return -1;
		s->batch_end = g + batch_groups(s, g, batch_rate(s));
	}
	return 0;
}

/* How group g travels. */
static int way_of(const sender *s, size_t g)
{
	const kv_send_opts *o = s->o;
	if (o->cfg.mode == KV_MODE_RAW)
		return KV_WAY_RAW;
	if (!s->policy_on)
		return o->codec == KV_CODEC_ENTROPY ? KV_WAY_ENTROPY : KV_WAY_SPLIT4;
	if (s->batch == KV_BATCH_PROBE && g < s->batch_end)
		return KV_WAY_RAW; /* the probe's batch, and its lead group */
	return s->pol.way;
}

static int compress_group(sender *s, size_t g, size_t slot, int way)
{
	size_t first, count;
	kv_cache_group(&s->cache, g, &first, &count);
	const unsigned kind = kv_cache_kind(&s->cache, first); /* the table of K or of V */
	const uint64_t t0 = kv_now_ns();
	splitzip_status st = splitzip_pages_compress(
	    s->ctx[kind][way], s->table_id[kind][way],
	    s->o->checksum ? 0 : SPLITZIP_PAGES_NO_CHECKSUM, count,
	    (const void *const *)&s->cache.page[first], &s->cache.bytes[first], s->slot[slot],
	    s->slot_cap, &s->slot_len[slot]);
	s->sent_ns[g] = kv_now_ns() - t0;
	s->st.pack_ns[way] += s->sent_ns[g];
	s->st.pack_bytes[way] += count * s->cache.page_bytes;
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

/* A raw group: staged (its pages packed into the slot, one bulk send) or one iov message. */
static kv_req send_raw(sender *s, size_t g, size_t slot, uint64_t tag)
{
	size_t first, count;
	kv_cache_group(&s->cache, g, &first, &count);
	const size_t pb = s->cache.page_bytes;
	s->sent_wire[g] = count * pb;
	if (!s->o->cfg.raw_iov) {
		const uint64_t t0 = kv_now_ns();
		for (size_t k = 0; k < count; k++)
			memcpy(s->slot[slot] + k * pb, s->cache.page[first + k], pb);
		s->sent_ns[g] = kv_now_ns() - t0;
		s->st.pack_ns[KV_WAY_RAW] += s->sent_ns[g];
		s->st.pack_bytes[KV_WAY_RAW] += count * pb;
		return kv_send(&s->net, tag, s->slot[slot], count * pb);
	}
	ucp_dt_iov_t *iov = &s->iov[slot * s->cache.geo.group_pages];
	for (size_t k = 0; k < count; k++) {
		iov[k].buffer = s->cache.page[first + k];
		iov[k].length = pb;
	}
	return kv_send_iov(&s->net, tag, iov, count);
}

static kv_req send_group(sender *s, size_t g, size_t slot, int way)
{
	s->sent_way[g] = (uint8_t)way;
	s->st.groups[way]++;
	if (way == KV_WAY_RAW) {
		const kv_req r = send_raw(s, g, slot, KV_TAG(KV_MSG_DATA, KV_KIND_RAW, s->rep, g));
		s->st.wire += s->sent_wire[g];
		return r;
	}
	const void *buf;
	const size_t len = corrupt(s, g, s->slot[slot], s->slot_len[slot], &buf);
	s->sent_wire[g] = len;
	s->st.wire += len;
	return kv_send(&s->net, KV_TAG(KV_MSG_DATA, KV_KIND_STREAM, s->rep, g), buf, len);
}

/* raw and pipelined: group g waits for its slot, is packed the chosen way and sent. */
static int run_pipelined(sender *s)
{
	for (size_t g = 0; g < s->cache.n_groups; g++) {
		const size_t slot = g % s->n_slots;
		if (wait_req(s, &s->slot_req[slot]) != 0 || plan(s, g) != 0)
			return -1;
		const int way = way_of(s, g);
		if (way != KV_WAY_RAW && compress_group(s, g, slot, way) != 0)
			return -1;
		s->slot_req[slot] = send_group(s, g, slot, way);
		s->next_send = g + 1;
		kv_progress(&s->net);
		poll_acks(s);
	}
	/* A batch that ends with the transfer. */
	return s->batch && s->batch_end == s->cache.n_groups ? end_batch(s, s->cache.n_groups) : 0;
}

/* compressed: everything compressed first, then everything sent. */
static int run_serial(sender *s)
{
	const int way = way_of(s, 0);
	for (size_t g = 0; g < s->cache.n_groups; g++)
		if (compress_group(s, g, g, way) != 0)
			return -1;
	for (size_t g = 0; g < s->cache.n_groups; g++)
		s->slot_req[g] = send_group(s, g, g, way);
	s->next_send = s->cache.n_groups;
	return 0;
}

static int run_rep(sender *s, unsigned rep)
{
	memset(&s->st, 0, sizeof s->st);
	s->rep = rep;
	s->next_ack = s->next_send = 0;
	s->batch = KV_BATCH_NONE;
	s->steady_from = s->win_first = s->n_slots; /* once the pipeline is full */
	/* The probe runs on the first transfer of the connection, and again every 'reprobe'
	 * transfers or when the rate drifts; the transfers between keep its choice, as a
	 * serving engine would per peer (probing every request would cost more than it saves). */
	if (rep > 0 && s->o->reprobe && rep % s->o->reprobe == 0)
		s->want_probe = 1;
	kv_req res = kv_recv(&s->net, KV_TAG(KV_MSG_RESULT, 0, rep, 0), ~(uint64_t)0, &s->st.result,
	                     sizeof s->st.result);
	for (size_t g = 0; g < s->cache.n_groups; g++)
		s->ack_req[g] = kv_recv(&s->net, KV_TAG(KV_MSG_ACK, 0, rep, g), ~(uint64_t)0,
		                        &s->ack[g], sizeof s->ack[g]);
	const uint64_t t0 = kv_now_ns();
	int rc = s->o->cfg.mode == KV_MODE_COMPRESSED ? run_serial(s) : run_pipelined(s);
	if (rc == 0)
		rc = wait_acks_upto(s, s->cache.n_groups);
	s->st.seconds = rc == 0 ? (double)(s->ack_ns[s->cache.n_groups - 1] - t0) * 1e-9 : 0;
	s->st.way_end = s->pol.way;
	s->st.link_end = s->pol.rates.link;
	for (size_t k = 0; k < s->n_slots && rc == 0; k++)
		rc = wait_req(s, &s->slot_req[k]);
	if (rc == 0)
		rc = kv_wait(&s->net, res, NULL, KV_TIMEOUT_S);
	kv_release(res);
	return rc;
}

/* A context of 'way' for pages of one kind; with fixed tables its codebook or entropy table
 * from 'hist' (calibrated once, offline and per model in a serving engine), named by a hash. */
static int make_ctx(sender *s, unsigned kind, int way, const uint64_t hist[256])
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.n_threads = 1;
	p.encoding = way == KV_WAY_SPLIT4 ? SPLITZIP_ENCODING_SPLIT4 : SPLITZIP_ENCODING_ENTROPY;
	uint32_t id = 2166136261u ^ kind; /* FNV-1a of the table */
	if (s->o->fixed_table && way == KV_WAY_SPLIT4) {
		splitzip_codebook_from_histogram(hist, &p.codebook);
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		for (int k = 0; k < 16; k++)
			id = (id ^ p.codebook.exponents[k]) * 16777619u;
	} else if (s->o->fixed_table) {
		splitzip_entropy_table_from_histogram(hist, &p.table);
		p.table_mode = SPLITZIP_CODEBOOK_FIXED;
		for (int k = 0; k < 256; k++)
			id = (id ^ p.table.lengths[k]) * 16777619u;
	}
	s->table_id[kind][way] = s->o->fixed_table ? id : 0;
	return splitzip_ctx_create(&p, &s->ctx[kind][way]) == SPLITZIP_OK ? 0 : -1;
}

/* Both codecs' contexts for K pages and for V pages, the tables from the first 64 of each. */
static int make_ctxs(sender *s)
{
	const size_t n_k = (size_t)s->cache.geo.layers * s->cache.geo.pages_per_layer;
	for (unsigned kind = 0; kind < 2; kind++) {
		uint64_t hist[256] = {0};
		for (size_t i = kind * n_k; i < kind * n_k + (n_k < 64 ? n_k : 64); i++)
			splitzip_histogram((const uint16_t *)s->cache.page[i],
			                   s->cache.page_bytes / 2, hist);
		for (int way = KV_WAY_SPLIT4; way < KV_WAYS; way++)
			if (make_ctx(s, kind, way, hist) != 0)
				return -1;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The median time of KV_CALIB_REPS packings of the sample (the first calib_pages pages) the
 * way 'way' (raw: the staging copy), into calib_buf[way] (raw: slot 0). */
static uint64_t time_pack(sender *s, int way, size_t n)
{
	uint64_t t[KV_CALIB_REPS];
	const size_t pb = s->cache.page_bytes;
	for (int k = 0; k < KV_CALIB_REPS; k++) {
		const uint64_t t0 = kv_now_ns();
		if (way == KV_WAY_RAW) {
			for (size_t i = 0; i < n; i++)
				memcpy(s->slot[0] + i * pb, s->cache.page[i], pb);
		} else if (splitzip_pages_compress(s->ctx[0][way], s->table_id[0][way],
		                                   s->o->checksum ? 0 : SPLITZIP_PAGES_NO_CHECKSUM,
		                                   n, (const void *const *)s->cache.page,
		                                   s->cache.bytes, s->calib_buf[way], s->slot_cap,
		                                   &s->calib_len[way]) != SPLITZIP_OK) {
			return 0;
		}
		t[k] = kv_now_ns() - t0;
	}
	qsort(t, KV_CALIB_REPS, sizeof *t, cmp_u64);
	return t[KV_CALIB_REPS / 2] ? t[KV_CALIB_REPS / 2] : 1;
}

/* The sender's codec rates on a sample of its own pages, and the streams for CALIB. */
static int calibrate(sender *s)
{
	const size_t n = s->o->cfg.calib_pages;
	const double bytes = (double)n * s->cache.page_bytes;
	memset(&s->calib, 0, sizeof s->calib);
	for (int way = KV_WAY_RAW; way < KV_WAYS; way++) {
		const uint64_t ns = time_pack(s, way, n);
		if (!ns)
			return -1;
		s->calib.enc[way] = bytes / ((double)ns * 1e-9);
		s->calib.ratio[way] = way == KV_WAY_RAW ? 1.0 : bytes / (double)s->calib_len[way];
	}
	return 0;
}

static int setup(sender *s)
{
	const kv_config *c = &s->o->cfg;
	if (kv_cache_alloc(&s->cache, &c->geo) != 0 ||
	    kv_cache_fill(&s->cache, c->data_k, c->data_v) != 0 || c->calib_pages == 0 ||
	    c->calib_pages > c->geo.group_pages || c->calib_pages > s->cache.n_pages) {
		fprintf(stderr, "kv_transfer send: cannot build the cache from %s, %s\n", c->data_k,
		        c->data_v);
		return -1;
	}
	if (make_ctxs(s) != 0)
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
	s->ack_net = calloc(G, sizeof *s->ack_net);
	s->sent_way = calloc(G, sizeof *s->sent_way);
	s->sent_wire = calloc(G, sizeof *s->sent_wire);
	s->sent_ns = calloc(G, sizeof *s->sent_ns);
	s->junk = c->corrupt ? calloc(1, s->slot_cap + 4096) : NULL;
	if (!s->slot || !s->slot_len || !s->slot_req || !s->iov || !s->ack || !s->ack_req ||
	    !s->ack_ns || !s->ack_net || !s->sent_way || !s->sent_wire || !s->sent_ns ||
	    (c->corrupt && !s->junk))
		return -1;
	for (int w = KV_WAY_SPLIT4; w < KV_WAYS; w++)
		if (!(s->calib_buf[w] = malloc(s->slot_cap)))
			return -1;
	for (size_t k = 0; k < s->n_slots; k++) { /* touched now: no page faults in a transfer */
		if (!(s->slot[k] = aligned_alloc(256, (s->slot_cap + 255) / 256 * 256)))
			return -1;
		memset(s->slot[k], 0, s->slot_cap);
	}
	return calibrate(s);
}

static void teardown(sender *s)
{
	for (size_t k = 0; s->slot && k < s->n_slots; k++)
		free(s->slot[k]);
	for (int w = 0; w < KV_WAYS; w++) {
		free(s->calib_buf[w]);
		splitzip_ctx_free(s->ctx[0][w]);
		splitzip_ctx_free(s->ctx[1][w]);
	}
	free(s->slot);
	free(s->slot_len);
	free(s->slot_req);
	free(s->iov);
	free(s->ack);
	free(s->ack_req);
	free(s->ack_ns);
	free(s->ack_net);
	free(s->sent_way);
	free(s->sent_wire);
	free(s->sent_ns);
	free(s->junk);
	kv_cache_free(&s->cache);
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static const char *const k_modes[] = {"raw", "compressed", "pipelined"};
static const char *const k_codecs[] = {"auto", "split4", "entropy"};

/* The way most groups of the timed repetitions took ("raw", "split4", "entropy"). */
static int main_way(const rep_stats *r, unsigned n)
{
	size_t sum[KV_WAYS] = {0};
	for (unsigned k = 0; k < n; k++)
		for (int w = 0; w < KV_WAYS; w++)
			sum[w] += r[k].groups[w];
	int best = KV_WAY_RAW;
	for (int w = 1; w < KV_WAYS; w++)
		if (sum[w] > sum[best])
			best = w;
	return best;
}

static double rate_of(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes / (double)ns : 0; /* GB/s */
}

/* The policy's measurements and predictions, as JSON fields or text. */
static void report_policy(const sender *s, int json)
{
	const kv_rates *r = &s->pol.rates;
	const double link = r->link > 0 ? r->link : 1;
	printf(json ? "\"link_gbps\":%.4f,\"net_s_ns\":%.3f,\"net_r_ns\":%.3f,"
	              "\"enc_gbps\":[%.3f,%.3f,%.3f],\"dec_gbps\":[%.3f,%.3f,%.3f],"
	              "\"ratios\":[1,%.4f,%.4f],\"predicted\":[%.3f,%.3f,%.3f],"
	              "\"observed\":[%.3f,%.3f,%.3f],\"probes\":%u,\"checks\":%u,\"switches\":%u,"
	            : "policy: link %.4f GB/s, network %.3f / %.3f ns/B, enc %.3f %.3f %.3f GB/s, "
	              "dec %.3f "
	              "%.3f %.3f GB/s, ratios 1 %.4f %.4f, predicted x raw %.3f %.3f %.3f, "
	              "observed %.3f %.3f %.3f, probes %u, checks %u, switches %u\n",
	       r->link * 1e-9, r->net_s * 1e9, r->net_r * 1e9, r->enc[0] * 1e-9, r->enc[1] * 1e-9,
	       r->enc[2] * 1e-9, r->dec[0] * 1e-9, r->dec[1] * 1e-9, r->dec[2] * 1e-9, r->ratio[1],
	       r->ratio[2], s->pol.pred[0] / link, s->pol.pred[1] / link, s->pol.pred[2] / link,
	       s->pol.obs[0] / link, s->pol.obs[1] / link, s->pol.obs[2] / link, s->pol.probes,
	       s->pol.checks, s->pol.switches);
}

/* One line per repetition, then the summary (JSON with --json). */
static void report(const sender *s, const rep_stats *all, unsigned n_all, unsigned warmup)
{
	const rep_stats *r = all + warmup, *l = &all[n_all - 1];
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
	const int way = main_way(r, n);
	uint64_t cb = l->pack_bytes[1] + l->pack_bytes[2], cn = l->pack_ns[1] + l->pack_ns[2];
	printf(s->o->json
	           ? "{\"mode\":\"%s\",\"codec\":\"%s\",\"way\":\"%s\",\"cache_bytes\":%.0f,"
	             "\"page_bytes\":%zu,\"groups\":%zu,\"reps\":%u,\"median_s\":%.6f,"
	             "\"p95_s\":%.6f,\"first_s\":%.6f,\"wire_bytes\":%llu,\"ratio\":%.4f,"
	             "\"groups_raw\":%zu,\"groups_split4\":%zu,\"groups_entropy\":%zu,"
	             "\"compress_gbps\":%.3f,\"decode_gbps\":%.3f,"
	           : "mode %s codec %s, way %s: cache %.0f bytes (pages of %zu, %zu groups), "
	             "%u reps: median %.6f s, p95 %.6f s, first transfer %.6f s, wire %llu "
	             "bytes (ratio %.4f), groups raw %zu split4 %zu entropy %zu, compress "
	             "%.3f GB/s, decode %.3f GB/s\n",
	       k_modes[c->mode], k_codecs[s->o->codec], kv_way_names[way], cache,
	       s->cache.page_bytes, s->cache.n_groups, n, med, p95, all[0].seconds,
	       (unsigned long long)l->wire, l->wire ? cache / (double)l->wire : 0, l->groups[0],
	       l->groups[1], l->groups[2], rate_of(cb, cn), rate_of(cb, l->result.decode_ns));
	report_policy(s, s->o->json);
	printf(s->o->json ? "\"bad\":%d,\"wire_all_reps\":%llu,\"times\":["
	                  : "errors %d, %llu wire bytes in all repetitions\n",
	       l->bad_acks + (int)l->result.bad_groups + (int)l->result.bad_pages,
	       (unsigned long long)wire_all);
	for (unsigned k = 0; s->o->json && k < n; k++) /* in repetition order */
		printf("%s%.6f", k ? "," : "", r[k].seconds);
	for (unsigned k = 0; s->o->json && k < n_all; k++) /* the way of every repetition */
		printf("%s\"%s\"", k ? "," : "],\"ways\":[", kv_way_names[main_way(&all[k], 1)]);
	for (unsigned k = 0; s->o->json && k < n_all; k++) /* the policy's link after each */
		printf("%s%.4f", k ? "," : "],\"links_gbps\":[", all[k].link_end * 1e-9);
	for (unsigned k = 0; s->o->json && k < warmup; k++) /* the warm-up repetitions */
		printf("%s%.6f", k ? "," : "],\"warmup_s\":[", all[k].seconds);
	if (s->o->json)
		printf("]}\n");
	free(t);
}

/* CONFIG, the two CALIB streams, then READY with the receiver's unpacking rates. */
static int exchange_config(sender *s)
{
	kv_ready ready;
	memset(&ready, 0, sizeof ready);
	kv_req r =
	    kv_recv(&s->net, KV_TAG(KV_MSG_READY, 0, 0, 0), ~(uint64_t)0, &ready, sizeof ready);
	kv_req w[KV_WAYS];
	w[0] = kv_send(&s->net, KV_TAG(KV_MSG_CONFIG, 0, 0, 0), &s->o->cfg, sizeof s->o->cfg);
	for (int way = KV_WAY_SPLIT4; way < KV_WAYS; way++)
		w[way] = kv_send(&s->net, KV_TAG(KV_MSG_CALIB, way, 0, 0), s->calib_buf[way],
		                 s->calib_len[way]);
	int rc = kv_wait(&s->net, r, NULL, KV_TIMEOUT_S);
	const int ok = rc == 0 && ready.magic == KV_MAGIC && ready.status == SPLITZIP_OK;
	for (int k = 0; k < KV_WAYS; k++) {
		if (ok)
			rc |= kv_wait(&s->net, w[k], NULL, 60);
		kv_release(w[k]);
	}
	kv_release(r);
	if (rc != 0 || !ok) {
		fprintf(stderr, "kv_transfer send: the receiver did not accept the run (%s)\n",
		        ready.magic ? splitzip_status_name((splitzip_status)ready.status)
		                    : "no answer");
		return -1;
	}
	for (int way = 0; way < KV_WAYS; way++)
		s->calib.dec[way] = ready.dec[way];
	return 0;
}

/* The policy of a new connection: probe on the first transfer, or (test) the given rates. */
static void start_policy(sender *s)
{
	const kv_send_opts *o = s->o;
	s->policy_on =
	    o->cfg.mode == KV_MODE_PIPELINED && o->codec == KV_CODEC_AUTO && !o->cfg.corrupt;
	kv_policy_init(&s->pol, &o->policy);
	s->pol.rates = s->calib;
	s->want_probe = s->policy_on && !o->fixed_rates;
	if (s->policy_on && o->fixed_rates) { /* test: these rates, this sample's ratios */
		kv_rates r = o->rates;
		for (int w = 0; w < KV_WAYS; w++)
			r.ratio[w] = s->calib.ratio[w];
		kv_policy_probed(&s->pol, &r);
	}
}

static int run_all(sender *s, rep_stats *reps, unsigned *done)
{
	const kv_send_opts *o = s->o;
	int rc = 0;
	for (unsigned k = 0; rc == 0 && k < o->cfg.reps; k++) {
		rc = run_rep(s, k);
		reps[(*done)++] = s->st;
		if (!o->json)
			printf("%s %u: %.6f s, %llu wire bytes, groups raw %zu split4 %zu entropy "
			       "%zu, "
			       "%u probes, %u checks, %u switches, way %s%s\n",
			       k < o->warmup ? "warmup" : "rep", k, s->st.seconds,
			       (unsigned long long)s->st.wire, s->st.groups[0], s->st.groups[1],
			       s->st.groups[2], s->st.probes, s->st.checks, s->st.switches,
			       kv_way_names[s->st.way_end],
			       s->st.result.bad_pages ? ", PAGES DIFFER" : "");
	}
	return rc;
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
	if (rc == 0)
		start_policy(&s);
	rep_stats *reps = calloc(o->cfg.reps ? o->cfg.reps : 1, sizeof *reps);
	unsigned done = 0, bad = 0;
	if (rc == 0)
		rc = reps ? run_all(&s, reps, &done) : -1;
	for (unsigned k = 0; k < done; k++)
		bad += reps[k].bad_acks + reps[k].result.bad_groups +
		       (unsigned)reps[k].result.bad_pages;
	if (rc == 0)
		report(&s, reps, done, o->warmup);
	else
		fprintf(stderr, "kv_transfer send: transfer failed\n");
	free(reps);
	kv_net_close(&s.net);
	teardown(&s);
	return rc != 0 ? 1 : bad && !o->cfg.corrupt ? 3 : 0;
}
