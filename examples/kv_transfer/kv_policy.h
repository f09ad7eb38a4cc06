/*
 * kv_policy.h -- how one connection's KV groups travel: raw, split4 or entropy, chosen from the
 * codec rates measured at both ends and the link rate the sender sees, then checked against
 * what the chosen way really achieves, and probed again when the rate drifts. No UCX, no
 * clock, no library call: the sender feeds it numbers (kv_send.c), the unit test feeds it
 * synthetic ones (test_kv_policy.c), and python/splitzip/transfer.py is the same rule in
 * Python.
 *
 * The model. Each end is one core running one loop that does both the codec work and the
 * network work (the sender's loop compresses a group, then pushes bytes into the socket; the
 * receiver's pulls bytes and decodes). Per cache byte of way w, with ratio R_w (cache bytes per
 * wire byte; raw: 1):
 *
 *     sender    1 / enc_w + net_s / R_w     enc_w: packing rate (raw: the staging copy)
 *     receiver  1 / dec_w + net_r / R_w     dec_w: unpacking rate (raw: the scatter copy)
 *     link      1 / (link * R_w)            link: wire bytes per second of the raw probe
 *
 * and the way moves min(1 / sender, 1 / receiver, 1 / link) cache bytes per second: the two
 * loops and the wire run in parallel, but on each end the codec and the network stack share
 * the core. net_s and net_r, the seconds of network work per wire byte, come from the raw
 * probe: the time of each end's UCX calls that did work (progress that progressed, posting
 * sends and receives), per wire byte. On a slow link the cores are mostly idle, so the
 * smaller entropy stream wins; on a link as fast as the network stack (UCX over TCP on
 * loopback) a core is busy with the network alone, codec time adds to it, and raw wins.
 *
 * The choice prefers the simpler way: split4 over raw only when it is predicted GAIN faster,
 * entropy over the choice so far when PREFER faster (entropy spends more CPU for its last
 * tenth of ratio). After the probe, the first window of groups of the chosen way is its
 * check: its observed rate replaces the prediction, and the choice is made again over the
 * observed rates (raw: the probe's) and the predictions of the ways not yet seen, with
 * predictions made from the codec rates observed in the window. A way is seen at most once
 * per probe, so this ends; a way that is slower than raw in practice is dropped at once (the
 * raw fallback). Then every window is compared with the rate of the check: when DRIFT_WINDOWS
 * windows in a row are off by more than DRIFT (either way: a slower link, a faster one, a
 * busier core), and enough windows have passed since the probe (MIN_WINDOWS, doubled after
 * every probe that kept the way, up to MAX_HOLD: a noisy rate does not make it probe all the
 * time), the policy asks for a new probe. After a probe the current way is kept unless
 * another beats its prediction by SWAP (hysteresis: noise does not flip the way back and
 * forth).
 */
#ifndef KV_POLICY_H
#define KV_POLICY_H

enum kv_way { KV_WAY_RAW = 0, KV_WAY_SPLIT4 = 1, KV_WAY_ENTROPY = 2, KV_WAYS = 3 };

/* Rates in bytes per second (cache bytes unless said otherwise); 0 = not measured. */
typedef struct kv_rates {
	double enc[KV_WAYS];   /* sender: packing a group (raw: the staging copy) */
	double dec[KV_WAYS];   /* receiver: unpacking a group (raw: the scatter copy) */
	double ratio[KV_WAYS]; /* cache bytes per wire byte (raw: 1) */
	double link;           /* wire bytes per second of the raw probe */
	double net_s, net_r;   /* seconds of network work per wire byte at each end */
} kv_rates;

typedef struct kv_policy_params {
	double gain;   /* a codec way must be predicted this much faster than raw (0.05) */
	double prefer; /* entropy must be this much faster than split4 (0.02) */
	double drift;  /* a window this far off the checked rate counts as drift (0.25; 0: off) */
	double swap;   /* after a probe, another way must beat the current one by this (0.05) */
	unsigned drift_windows; /* windows of drift in a row that ask for a probe (2) */
	unsigned min_windows;   /* windows after a probe before drift counts (2) */
	unsigned max_hold;      /* ... doubled after each probe that kept the way, up to (32) */
	unsigned allowed;       /* bit mask of the ways that may be chosen (all: 7) */
} kv_policy_params;

/* What kv_policy_window() asks the sender to do next. */
enum kv_policy_action {
	KV_POLICY_KEEP = 0,   /* go on with kv_policy.way */
	KV_POLICY_SWITCH = 1, /* the check moved to another way: send the next groups that way */
	KV_POLICY_PROBE = 2   /* the rate drifted: probe the link again (kv_policy_probed) */
};

typedef struct kv_policy {
	kv_policy_params par;
	kv_rates rates;
	int way;              /* enum kv_way: how groups travel now */
	double pred[KV_WAYS]; /* predicted cache bytes per second */
	double obs[KV_WAYS];  /* observed in a check window since the last probe; 0 unseen */
	double ref;           /* the checked rate of 'way'; 0 while its check is pending */
	unsigned drift_run;   /* consecutive windows of drift */
	unsigned since_probe; /* windows since the last probe */
	unsigned hold;        /* windows after a probe before drift counts, now */
	unsigned probes, checks, switches; /* counters, for the report */
} kv_policy;

void kv_policy_defaults(kv_policy_params *par);
/* The throughput the model predicts for way w from 'r' (0 if a needed rate is missing). */
double kv_policy_predict(const kv_rates *r, int w);
/* The preferred way among values v[] (bytes per second, 0 = not a candidate), raw first. */
int kv_policy_prefer(const kv_policy_params *par, const double v[KV_WAYS]);
/* Start a connection: nothing measured yet, raw. */
void kv_policy_init(kv_policy *p, const kv_policy_params *par);
/* A probe measured 'r': predict every way and choose one (kept unless another wins by 'swap'
 * when a way was already in use). Returns the way. */
int kv_policy_probed(kv_policy *p, const kv_rates *r);
/* What the sender saw in a window of groups of the current way (0 = not measured). */
typedef struct kv_window {
	double thr;   /* cache bytes per second, from the receiver's acknowledgements */
	double enc;   /* the sender's packing rate of the way in it */
	double dec;   /* the receiver's unpacking rate of the way in it */
	double ratio; /* cache bytes per wire byte in it */
} kv_window;

/* Feed one window; returns an enum kv_policy_action (kv_policy.way is the way to use). */
int kv_policy_window(kv_policy *p, const kv_window *w);

extern const char *const kv_way_names[KV_WAYS];

#endif /* KV_POLICY_H */
