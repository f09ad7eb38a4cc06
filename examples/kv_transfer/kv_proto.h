/*
 * kv_proto.h -- what the KV transfer sender and receiver share: the paged KV cache they move,
 * the messages, and the helpers over UCX (kv_net.c) and the cache (kv_cache.c).
 *
 * The cache is layers x {K, V} x pages_per_layer pages of [tokens, kv_heads, head_dim] BF16
 * values, each page allocated on its own place in a pool (a paged KV cache: the pages of one
 * request are scattered). Logical page i = (kv * layers + layer) * pages_per_layer + p: the K
 * pages of every layer, then the V pages; a group is 'group_pages' consecutive logical pages,
 * the unit of pipelining, so a group holds K pages or V pages (but where the K pages end
 * inside a group). K and V have different exponent statistics: one entropy table over both
 * costs about 4 % of the ratio, so each kind has its own calibrated table.
 *
 * Messages are UCX tag messages on one endpoint (TCP); the tag carries the message type, for
 * data the kind (raw pages or a page stream), the repetition and the group:
 *
 *     bits 60-63 type   bits 56-59 kind   bits 32-47 repetition   bits 0-31 group
 *
 * The handshake: CONFIG (sender -> receiver) describes a run; two CALIB messages follow, a
 * sample of the sender's pages packed as a split4 and as an entropy page stream (kind 1 and
 * 2), on which the receiver times its decoder; READY answers with those decode rates. Then
 * per repetition: DATA carries a group, either its pages back to back (raw) or one page
 * stream (splitzip_pages_compress, split4 or entropy: the stream header says which); ACK
 * answers each group once it is in the destination pages, with the time the receiver spent
 * on it and its network work so far (the sender's policy, kv_policy.h, learns the
 * receiver's rates from them); RESULT closes a repetition with the receiver's bit-for-bit
 * check of every page, done outside the timed region.
 */
#ifndef KV_PROTO_H
#define KV_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include <ucp/api/ucp.h>

#include "kv_policy.h"
#include "splitzip.h"

#define KV_MAGIC 0x4B565A53u /* "SZVK" */
#define KV_VERSION 2u

enum kv_mode { KV_MODE_RAW = 0, KV_MODE_COMPRESSED = 1, KV_MODE_PIPELINED = 2 };
/* How the compressed and pipelined modes pack groups: the policy's choice per connection
 * (pipelined only), or one way for every group. */
enum kv_codec { KV_CODEC_AUTO = 0, KV_CODEC_SPLIT4 = 1, KV_CODEC_ENTROPY = 2 };
enum kv_kind { KV_KIND_RAW = 0, KV_KIND_STREAM = 1 };
enum kv_msg {
	KV_MSG_CONFIG = 1,
	KV_MSG_READY,
	KV_MSG_DATA,
	KV_MSG_ACK,
	KV_MSG_RESULT,
	KV_MSG_CALIB
};
/* Test senders (--corrupt): what they do to every third group. */
enum kv_corrupt { KV_CORRUPT_NONE = 0, KV_CORRUPT_FLIP, KV_CORRUPT_TRUNCATE, KV_CORRUPT_MIXED };

#define KV_TAG(type, kind, rep, group)                                                             \
	(((uint64_t)(type) << 60) | ((uint64_t)(kind) << 56) | ((uint64_t)((rep)&0xFFFFu) << 32) | \
	 (uint64_t)(uint32_t)(group))
#define KV_TAG_ANY_KIND (~((uint64_t)0xF << 56)) /* a mask that ignores the kind */
#define KV_TAG_KIND(tag) ((unsigned)(((tag) >> 56) & 0xF))

typedef struct kv_geometry {
	uint32_t layers, pages_per_layer, tokens, kv_heads, head_dim;
	uint32_t group_pages;
} kv_geometry;

/* A run, as the sender describes it to the receiver. */
typedef struct kv_config {
	uint32_t magic, version;
	uint32_t mode; /* enum kv_mode */
	uint32_t reps;
	kv_geometry geo;
	uint32_t corrupt;     /* enum kv_corrupt: the receiver expects damaged groups */
	uint32_t raw_iov;     /* raw groups as one iov message (zero copy) instead of staged */
	uint32_t slots;       /* staging slots (groups in flight) of each end, pipelined and raw */
	uint32_t calib_pages; /* pages of each CALIB stream (the first pages of group 0) */
	char data_k[512], data_v[512]; /* the real KV the cache is tiled from */
} kv_config;

/* The receiver's answer to CONFIG and CALIB. */
typedef struct kv_ready {
	uint32_t magic;
	int32_t status;      /* of decoding the CALIB streams (SPLITZIP_OK) */
	double dec[KV_WAYS]; /* its unpacking rates, cache bytes per second (raw: the copy) */
} kv_ready;

typedef struct kv_ack {
	uint32_t group;
	int32_t status; /* splitzip_status of the group, or -1 for a transport error */
	uint32_t way;   /* enum kv_way of what arrived (a stream's encoding from its header) */
	uint32_t reserved;
	uint64_t work_ns; /* receiver time spent unpacking the group (decode, or the scatter) */
	uint64_t net_ns;  /* receiver time in UCX calls that did work, this repetition */
	uint64_t at_ns;   /* receiver clock when it acknowledged */
} kv_ack;

typedef struct kv_result {
	int32_t status;         /* first failing status of the repetition */
	uint32_t bad_groups;    /* groups whose data was rejected */
	uint64_t bad_pages;     /* pages that differ from the sender's after the run */
	uint64_t wire_bytes;    /* data bytes received */
	uint64_t decode_ns;     /* total decode time */
	uint32_t ways[KV_WAYS]; /* accepted groups per way */
	uint32_t reserved;
} kv_result;

/* ---- The cache (kv_cache.c) ------------------------------------------------------------- */

typedef struct kv_cache {
	kv_geometry geo;
	size_t n_pages, page_bytes, n_groups;
	uint8_t *pool;  /* n_pages * page_bytes */
	uint8_t **page; /* logical page -> its place in the pool (a fixed permutation) */
	size_t *bytes;  /* page_bytes for every page (the page API's size array) */
} kv_cache;

int kv_cache_alloc(kv_cache *c, const kv_geometry *g);
void kv_cache_free(kv_cache *c);
/* Fill every page from the real K and V data (tiled); returns 0, or -1 if a file is unusable. */
int kv_cache_fill(kv_cache *c, const char *data_k, const char *data_v);
/* 0 for a K page, 1 for a V page. */
unsigned kv_cache_kind(const kv_cache *c, size_t page);
/* Pages of group 'g': first logical page and count. */
void kv_cache_group(const kv_cache *c, size_t g, size_t *first, size_t *count);
/* Pages first..first+count-1 of 'got' that differ from 'want'. */
uint64_t kv_cache_compare(const kv_cache *got, const kv_cache *want, size_t first, size_t count);

/* ---- UCX (kv_net.c) ---------------------------------------------------------------------- */

typedef struct kv_net {
	ucp_context_h ctx;
	ucp_worker_h worker;
	ucp_listener_h listener;
	ucp_ep_h ep;
	volatile ucp_conn_request_h conn; /* receiver: the pending connection request */
	volatile int failed;              /* the peer went away */
	uint64_t net_ns;                  /* time in UCX calls that did work: network work */
} kv_net;

int kv_net_init(kv_net *n);
void kv_net_close(kv_net *n);
/* Receiver: listen on addr:port and accept one connection (timeout_s seconds at most). */
int kv_net_accept(kv_net *n, const char *addr, unsigned port, double timeout_s);
/* Sender: connect to addr:port. */
int kv_net_connect(kv_net *n, const char *addr, unsigned port);

/* A request: NULL when the operation completed at once. */
typedef void *kv_req;
kv_req kv_send(kv_net *n, uint64_t tag, const void *buf, size_t len);
kv_req kv_send_iov(kv_net *n, uint64_t tag, const ucp_dt_iov_t *iov, size_t count);
kv_req kv_recv(kv_net *n, uint64_t tag, uint64_t mask, void *buf, size_t len);
kv_req kv_recv_iov(kv_net *n, uint64_t tag, uint64_t mask, const ucp_dt_iov_t *iov, size_t count);
/* 1 done, 0 in progress, -1 failed; on done, '*len' (may be NULL) receives a receive's length. */
int kv_test(kv_req r, size_t *len);
/* The same for a receive, with the kind from the sender's tag. */
int kv_test_recv(kv_req r, size_t *len, unsigned *kind);
/* Progress until done; 0 ok, -1 failed or timed out (timeout_s seconds). */
int kv_wait(kv_net *n, kv_req r, size_t *len, double timeout_s);
void kv_release(kv_req r);

/* One ucp_worker_progress(); its time is added to n->net_ns when it progressed something (as
 * is the time of every kv_send and kv_recv): the network work this end's core did, wall time
 * (a core taken away meanwhile counts, as it does for the codec's times). Returns what
 * ucp_worker_progress() returned. */
unsigned kv_progress(kv_net *n);

/* Monotonic nanoseconds. */
uint64_t kv_now_ns(void);

/* ---- The two ends (kv_send.c, kv_recv.c) ------------------------------------------------- */

typedef struct kv_send_opts {
	const char *host;
	unsigned port;
	kv_config cfg;
	unsigned codec;   /* enum kv_codec */
	int probe_groups; /* least groups per probe, check and window (0: automatic) */
	double batch_ms;  /* ... and at least this long at the expected rate */
	unsigned reprobe; /* probe again every this many transfers (0: once per connection) */
	int fixed_table;  /* a codebook and an entropy table calibrated once (on the first
	                   * pages) instead of from each group */
	int checksum;     /* streams carry checksums (the default) */
	unsigned warmup;  /* leading repetitions left out of the statistics */
	int json;
	int fixed_rates; /* test: decide once from 'rates', no probe, no check, no drift */
	kv_rates rates;
	unsigned drift_test; /* test: from this window on, report windows at half their rate */
	kv_policy_params policy;
} kv_send_opts;

int kv_sender_main(const kv_send_opts *o);
int kv_receiver_main(const char *bind, unsigned port, int verbose);

#endif /* KV_PROTO_H */
