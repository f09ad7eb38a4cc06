/*
 * kv_policy.c -- the decision rule of kv_policy.h: predict, prefer, check, and probe again on
 * drift. Pure arithmetic on the rates the caller measured.
 */
#include <math.h>
#include <string.h>

#include "kv_policy.h"

const char *const kv_way_names[KV_WAYS] = {"raw", "split4", "entropy"};

void kv_policy_defaults(kv_policy_params *par)
{
	par->gain = 0.05;
	par->prefer = 0.02;
	par->drift = 0.25;
	par->swap = 0.05;
	par->drift_windows = 2;
	par->min_windows = 2;
	par->max_hold = 32;
	par->allowed = (1u << KV_WAYS) - 1;
}

double kv_policy_predict(const kv_rates *r, int w)
{
	if (w < 0 || w >= KV_WAYS || !(r->link > 0))
		return 0;
	const double R = w == KV_WAY_RAW ? 1.0 : r->ratio[w];
	if (!(R > 0) || (w != KV_WAY_RAW && !(r->enc[w] > 0 && r->dec[w] > 0)))
		return 0;
	const double net_s = r->net_s > 0 ? r->net_s : 0, net_r = r->net_r > 0 ? r->net_r : 0;
	const double t_s = (r->enc[w] > 0 ? 1.0 / r->enc[w] : 0) + net_s / R;
	const double t_r = (r->dec[w] > 0 ? 1.0 / r->dec[w] : 0) + net_r / R;
	const double t_l = 1.0 / (r->link * R);
	const double t = t_s > t_r ? (t_s > t_l ? t_s : t_l) : (t_r > t_l ? t_r : t_l);
	return 1.0 / t;
}

int kv_policy_prefer(const kv_policy_params *par, const double v[KV_WAYS])
{
	int c = -1;
	for (int w = KV_WAY_RAW; w < KV_WAYS; w++) {
		if (!(par->allowed & (1u << w)) || !(v[w] > 0))
			continue;
		const double margin = c == KV_WAY_RAW ? par->gain : par->prefer;
		if (c < 0 || v[w] >= (1.0 + margin) * v[c])
			c = w;
	}
	return c < 0 ? KV_WAY_RAW : c;
}

void kv_policy_init(kv_policy *p, const kv_policy_params *par)
{
	memset(p, 0, sizeof *p);
	if (par)
		p->par = *par;
	else
		kv_policy_defaults(&p->par);
	p->way = KV_WAY_RAW;
	p->hold = p->par.min_windows;
}

/* The value of each way: what a check observed since the probe, else the prediction. */
static void values(const kv_policy *p, double v[KV_WAYS])
{
	for (int w = 0; w < KV_WAYS; w++)
		v[w] = p->obs[w] > 0 ? p->obs[w] : p->pred[w];
}

int kv_policy_probed(kv_policy *p, const kv_rates *r)
{
	const int in_use = p->probes > 0 ? p->way : -1;
	p->rates = *r;
	p->probes++;
	for (int w = 0; w < KV_WAYS; w++) {
		p->pred[w] = kv_policy_predict(r, w);
		p->obs[w] = 0;
	}
	p->obs[KV_WAY_RAW] = r->link; /* the probe itself moved raw groups */
	double v[KV_WAYS];
	values(p, v);
	int best = kv_policy_prefer(&p->par, v);
	/* Hysteresis: the way in use stays unless the new one is clearly better. */
	if (in_use >= 0 && best != in_use && (p->par.allowed & (1u << in_use)) && v[in_use] > 0 &&
	    v[best] < (1.0 + p->par.swap) * v[in_use])
		best = in_use;
	if (best != in_use && in_use >= 0)
		p->switches++;
	if (in_use >= 0 && best == in_use) /* a probe that changed nothing: wait longer */
		p->hold = 2 * p->hold > p->par.max_hold ? p->par.max_hold : 2 * p->hold;
	else
		p->hold = p->par.min_windows;
	p->way = best;
	p->ref = best == KV_WAY_RAW ? r->link : 0; /* raw was just seen; a codec way is checked */
	p->drift_run = 0;
	p->since_probe = 0;
	return best;
}

/* The check of the current way: its observation, then the choice over what is known. */
static int check(kv_policy *p, double thr)
{
	p->checks++;
	p->obs[p->way] = thr;
	for (int w = 0; w < KV_WAYS; w++)
		p->pred[w] = kv_policy_predict(&p->rates, w);
	double v[KV_WAYS];
	values(p, v);
	const int c = kv_policy_prefer(&p->par, v);
	if (c == p->way) {
		p->ref = thr;
		return KV_POLICY_KEEP;
	}
	p->way = c;
	p->switches++;
	p->ref = p->obs[c]; /* 0 for a way not seen yet: its first window is its check */
	return KV_POLICY_SWITCH;
}

int kv_policy_window(kv_policy *p, const kv_window *win)
{
	p->since_probe++;
	if (win->enc > 0)
		p->rates.enc[p->way] = win->enc;
	if (win->dec > 0)
		p->rates.dec[p->way] = win->dec;
	if (win->ratio > 0 && p->way != KV_WAY_RAW)
		p->rates.ratio[p->way] = win->ratio;
	if (!(win->thr > 0))
		return KV_POLICY_KEEP;
	if (!(p->ref > 0))
		return check(p, win->thr);
	if (p->par.drift > 0 && fabs(win->thr / p->ref - 1.0) > p->par.drift)
		p->drift_run++;
	else
		p->drift_run = 0;
	if (p->drift_run >= p->par.drift_windows && p->since_probe >= p->hold) {
		p->drift_run = 0;
		return KV_POLICY_PROBE;
	}
	return KV_POLICY_KEEP;
}
