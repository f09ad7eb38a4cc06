/*
 * kv_net.c -- the little the KV transfer needs from UCX: one context and worker (tag
 * matching), a listener that accepts one connection or an endpoint that connects, and
 * non-blocking tag sends and receives polled to completion. No callbacks: a request is polled
 * with ucp_request_check_status() / ucp_tag_recv_request_test(), so completion times are
 * observed where the program is, which is what the timings need.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "kv_proto.h"

static char kv_failed_req;
#define KV_FAILED ((kv_req)&kv_failed_req)

uint64_t kv_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

int kv_net_init(kv_net *n)
{
	memset(n, 0, sizeof *n);
	ucp_config_t *cfg = NULL;
	if (ucp_config_read(NULL, NULL, &cfg) != UCS_OK)
		return -1;
	/* Eager messages, whatever their size (unless UCX_RNDV_THRESH says otherwise): with the
	 * rendezvous protocol, UCX over TCP interleaves the messages in flight, so groups arrive
	 * all together and acknowledgements bunch; eager ones arrive one after the other, as fast
	 * (pre-posted receives take them in place). The policy times the acknowledgements. */
	if (!getenv("UCX_RNDV_THRESH"))
		ucp_config_modify(cfg, "RNDV_THRESH", "inf");
	ucp_params_t p;
	memset(&p, 0, sizeof p);
	p.field_mask = UCP_PARAM_FIELD_FEATURES;
	p.features = UCP_FEATURE_TAG;
	ucs_status_t st = ucp_init(&p, cfg, &n->ctx);
	ucp_config_release(cfg);
	if (st != UCS_OK)
		return -1;
	ucp_worker_params_t wp;
	memset(&wp, 0, sizeof wp);
	wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	wp.thread_mode = UCS_THREAD_MODE_SINGLE;
	return ucp_worker_create(n->ctx, &wp, &n->worker) == UCS_OK ? 0 : -1;
}

static void on_peer_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	(void)ep;
	(void)status;
	((kv_net *)arg)->failed = 1;
}

/* Close the endpoint (flush if the peer is alive, else force) and everything else. */
void kv_net_close(kv_net *n)
{
	if (n->ep) {
		ucp_request_param_t p;
		memset(&p, 0, sizeof p);
		p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
		p.flags = n->failed ? UCP_EP_CLOSE_FLAG_FORCE : 0;
		ucs_status_ptr_t r = ucp_ep_close_nbx(n->ep, &p);
		const uint64_t t0 = kv_now_ns();
		while (UCS_PTR_IS_PTR(r) && ucp_request_check_status(r) == UCS_INPROGRESS &&
		       kv_now_ns() - t0 < 2000000000ull)
			ucp_worker_progress(n->worker);
		if (UCS_PTR_IS_PTR(r))
			ucp_request_free(r);
	}
	if (n->listener)
		ucp_listener_destroy(n->listener);
	if (n->worker)
		ucp_worker_destroy(n->worker);
	if (n->ctx)
		ucp_cleanup(n->ctx);
	memset(n, 0, sizeof *n);
}

static void on_conn(ucp_conn_request_h req, void *arg)
{
	kv_net *n = (kv_net *)arg;
	if (n->conn)
		ucp_listener_reject(n->listener, req); /* one peer at a time */
	else
		n->conn = req;
}

static int sockaddr_of(const char *addr, unsigned port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof *sa);
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	if (!addr || !*addr) {
		sa->sin_addr.s_addr = INADDR_ANY;
		return 0;
	}
	return inet_pton(AF_INET, addr, &sa->sin_addr) == 1 ? 0 : -1;
}

int kv_net_accept(kv_net *n, const char *addr, unsigned port, double timeout_s)
{
	struct sockaddr_in sa;
	if (sockaddr_of(addr, port, &sa) != 0)
		return -1;
	ucp_listener_params_t lp;
	memset(&lp, 0, sizeof lp);
	lp.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
	lp.sockaddr.addr = (const struct sockaddr *)&sa;
	lp.sockaddr.addrlen = sizeof sa;
	lp.conn_handler.cb = on_conn;
	lp.conn_handler.arg = n;
	if (ucp_listener_create(n->worker, &lp, &n->listener) != UCS_OK)
		return -1;
	const uint64_t t0 = kv_now_ns();
	while (!n->conn) {
		ucp_worker_progress(n->worker);
		if ((double)(kv_now_ns() - t0) > timeout_s * 1e9)
			return -1;
	}
	ucp_ep_params_t ep;
	memset(&ep, 0, sizeof ep);
	ep.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
	                UCP_EP_PARAM_FIELD_ERR_HANDLER;
	ep.conn_request = n->conn;
	ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	ep.err_handler.cb = on_peer_error;
	ep.err_handler.arg = n;
	return ucp_ep_create(n->worker, &ep, &n->ep) == UCS_OK ? 0 : -1;
}

int kv_net_connect(kv_net *n, const char *addr, unsigned port)
{
	struct sockaddr_in sa;
	if (sockaddr_of(addr, port, &sa) != 0)
		return -1;
	ucp_ep_params_t ep;
	memset(&ep, 0, sizeof ep);
	ep.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
	                UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
	ep.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
	ep.sockaddr.addr = (const struct sockaddr *)&sa;
	ep.sockaddr.addrlen = sizeof sa;
	ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	ep.err_handler.cb = on_peer_error;
	ep.err_handler.arg = n;
	return ucp_ep_create(n->worker, &ep, &n->ep) == UCS_OK ? 0 : -1;
}

static kv_req as_req(ucs_status_ptr_t r)
{
	if (r == NULL)
		return NULL;
	return UCS_PTR_IS_ERR(r) ? KV_FAILED : (kv_req)r;
}

static ucp_request_param_t param_of(int iov)
{
	ucp_request_param_t p;
	memset(&p, 0, sizeof p);
	if (iov) {
		p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
		p.datatype = ucp_dt_make_iov();
	}
	return p;
}

/* The time of a posting call counts as network work (an eager send moves its bytes in it). */
static kv_req timed(kv_net *n, uint64_t t0, ucs_status_ptr_t r)
{
	n->net_ns += kv_now_ns() - t0;
	return as_req(r);
}

kv_req kv_send(kv_net *n, uint64_t tag, const void *buf, size_t len)
{
	ucp_request_param_t p = param_of(0);
	const uint64_t t0 = kv_now_ns();
	return timed(n, t0, ucp_tag_send_nbx(n->ep, buf, len, tag, &p));
}

kv_req kv_send_iov(kv_net *n, uint64_t tag, const ucp_dt_iov_t *iov, size_t count)
{
	ucp_request_param_t p = param_of(1);
	const uint64_t t0 = kv_now_ns();
	return timed(n, t0, ucp_tag_send_nbx(n->ep, iov, count, tag, &p));
}

kv_req kv_recv(kv_net *n, uint64_t tag, uint64_t mask, void *buf, size_t len)
{
	ucp_request_param_t p = param_of(0);
	const uint64_t t0 = kv_now_ns();
	return timed(n, t0, ucp_tag_recv_nbx(n->worker, buf, len, tag, mask, &p));
}

kv_req kv_recv_iov(kv_net *n, uint64_t tag, uint64_t mask, const ucp_dt_iov_t *iov, size_t count)
{
	ucp_request_param_t p = param_of(1);
	const uint64_t t0 = kv_now_ns();
	return timed(n, t0, ucp_tag_recv_nbx(n->worker, (void *)iov, count, tag, mask, &p));
}

int kv_test(kv_req r, size_t *len)
{
	if (r == NULL)
		return 1;
	if (r == KV_FAILED)
		return -1;
	ucs_status_t st;
	if (len) {
		ucp_tag_recv_info_t info;
		st = ucp_tag_recv_request_test(r, &info);
		if (st == UCS_OK)
			*len = info.length;
	} else {
		st = ucp_request_check_status(r);
	}
	return st == UCS_INPROGRESS ? 0 : st == UCS_OK ? 1 : -1;
}

unsigned kv_progress(kv_net *n)
{
	const uint64_t t0 = kv_now_ns();
	const unsigned k = ucp_worker_progress(n->worker);
	if (k)
		n->net_ns += kv_now_ns() - t0;
	return k;
}

int kv_wait(kv_net *n, kv_req r, size_t *len, double timeout_s)
{
	const uint64_t t0 = kv_now_ns();
	for (unsigned k = 0;; k++) {
		const int t = kv_test(r, len);
		if (t != 0)
			return t > 0 ? 0 : -1;
		kv_progress(n);
		if (n->failed)
			return -1;
		if ((k & 1023) == 0 && (double)(kv_now_ns() - t0) > timeout_s * 1e9)
			return -1;
	}
}

int kv_test_recv(kv_req r, size_t *len, unsigned *kind)
{
	if (r == NULL || r == KV_FAILED)
		return r == NULL ? 1 : -1;
	ucp_tag_recv_info_t info;
	const ucs_status_t st = ucp_tag_recv_request_test(r, &info);
	if (st == UCS_INPROGRESS)
		return 0;
	if (st == UCS_OK) {
		*len = info.length;
		*kind = KV_TAG_KIND(info.sender_tag);
	}
	return st == UCS_OK ? 1 : -1;
}

void kv_release(kv_req r)
{
	if (r && r != KV_FAILED)
		ucp_request_free(r);
}
