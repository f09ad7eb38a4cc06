/*
 * test_gpu_pages_simt.cpp -- the GPU page-stream conformance suite, run on the CPU through the
 * SIMT harness: the kernels and launch sequences of backends/gpu/sz_gpu_pages.cuh (the ones
 * the CUDA and HIP modules run), at warp size 32 and 64, against the host page API
 * (api/sz_api_pages.c over the scalar backend), for page stream version 2 (doc/FORMAT.md §12):
 * every encoding (split4, entropy, auto; tables from the pages and fixed), with and without
 * checksums, pages given as pointer arrays and as a pool with indices. Streams must be
 * byte-identical; every damaged stream and every destination must get the host's status, page
 * sizes and page states; pages the states call UNTOUCHED keep their bytes; nothing is read or
 * written outside the buffers (each is an exact-size allocation: ASan builds see any access).
 *
 * Usage: test_gpu_pages_simt [--quick] [TEST...]   (--list prints the test names)
 */
#include "sz_simt_compat.h"

#include "sz_gpu_pages.cuh"
#include "gpu_simt_launcher.h"
#include "sz_simt_testing.h"

extern "C" {
#include "pages_util.h"
}

#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#if defined(__SANITIZE_ADDRESS__) || defined(SZ_SIMT_SANITIZED)
static const bool k_sanitized = true;
#else
static const bool k_sanitized = false;
#endif

/*
 * A schedule: lane and block order, fill byte, and the device it pretends to be: 'wave' blocks
 * fit on it at once (the frame driver takes the batched one-block-per-frame kernels,
 * sz_k_encode_pages / sz_k_decode_pages, for batches of at least half a wave), 'resident' of
 * them run interleaved in the harness.
 */
typedef sz_test_schedule schedule;
typedef sz_test_launcher simt_launcher;
/* Batches of 3 pages or more go through the batched kernels. */
static const schedule k_default_sched = {
    SZ_SIMT_LANES_FORWARD, SZ_SIMT_BLOCKS_INCREASING, 0, 0xA5, 6, 1};
/* Batches below 32 pages go through the per-frame kernels (several blocks per frame). */
static const schedule k_other_sched = {
    SZ_SIMT_LANES_SEEDED, SZ_SIMT_BLOCKS_SHUFFLED, 11, 0x00, 64, 3};

struct params {
	unsigned log2 = 12;
	splitzip_encoding enc = SPLITZIP_ENCODING_SPLIT4;
	bool checksum = true;
	bool fixed_cb = false, fixed_table = false;
	uint8_t codebook[16] = {};
	splitzip_entropy_table table{};
	uint32_t id = 0;
};

static splitzip_ctx *host_ctx(const params &p)
{
	splitzip_params q;
	splitzip_params_init(&q);
	q.backend = SPLITZIP_BACKEND_SCALAR;
	q.chunk_log2 = p.log2;
	q.encoding = p.enc;
	q.n_threads = 1;
	if (p.fixed_cb) {
		q.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		memcpy(q.codebook.exponents, p.codebook, 16);
	}
	if (p.fixed_table) {
		q.table_mode = SPLITZIP_CODEBOOK_FIXED;
		q.table = p.table;
	}
	splitzip_ctx *ctx = nullptr;
	if (splitzip_ctx_create(&q, &ctx) != SPLITZIP_OK) {
		fprintf(stderr, "cannot create the scalar context\n");
		exit(2);
	}
	return ctx;
}

static size_t max_bytes(const pu_pages &l)
{
	size_t m = 0;
	for (size_t i = 0; i < l.n; i++)
		m = l.bytes[i] > m ? l.bytes[i] : m;
	return m;
}

static unsigned options_of(const params &p)
{
	return p.checksum ? 0u : (unsigned)SPLITZIP_PAGES_NO_CHECKSUM;
}

/* The host's stream of 'l' (empty vector and '*st' on failure). */
static std::vector<uint8_t> host_pack(const pu_pages &l, const params &p, size_t cap,
                                      splitzip_status *st)
{
	splitzip_ctx *ctx = host_ctx(p);
	std::vector<uint8_t> out(cap ? cap : 1);
	size_t size = 0;
	*st = splitzip_pages_compress(ctx, p.id, options_of(p), l.n, (const void *const *)l.p,
	                              l.bytes, out.data(), cap, &size);
	splitzip_ctx_free(ctx);
	out.resize(*st == SPLITZIP_OK ? size : 0);
	return out;
}

/* An exact-size heap copy, so that ASan sees any access past the end. */
struct hbuf {
	uint8_t *p;
	size_t n;
	explicit hbuf(size_t size, int fill = 0xEE) : p((uint8_t *)malloc(size ? size : 1)), n(size)
	{
		memset(p, fill, size ? size : 1);
	}
	hbuf(const void *src, size_t size) : hbuf(size)
	{
		if (size)
			memcpy(p, src, size);
	}
	~hbuf()
	{
		free(p);
	}
	hbuf(const hbuf &) = delete;
	hbuf &operator=(const hbuf &) = delete;
};

struct enc_out {
	int32_t status = -1;
	size_t size = 77;
	std::vector<uint8_t> stream;
};

/* The kernels' parameters for p, as api/sz_api_pages_device.c sets them. */
static void enc_params(const params &p, sz_gpu_pages_enc &a)
{
	memset(&a, 0, sizeof a);
	a.encoding = (uint32_t)p.enc;
	a.chunk_log2 = p.log2;
	a.checksum = p.checksum;
	a.table_id = p.id;
	a.fixed[0] = p.fixed_cb;
	a.fixed[1] = p.fixed_table;
	memcpy(a.codebook, p.codebook, 16);
	memcpy(a.table, p.table.lengths, 256);
	a.table[SPLITZIP_ENTROPY_ESC] = p.table.escape_length;
}

/* Where the device reads pages from: copies of l (exact size; a NULL page stays NULL), or
 * l's own pages (copy false: a misaligned page stays misaligned), or a pool holding them in
 * shuffled slots with an index array. */
struct src_pages {
	std::vector<hbuf *> bufs;
	std::vector<const void *> ptrs;
	std::vector<size_t> bytes;
	hbuf *pool = nullptr;
	std::vector<int64_t> idx;
	size_t stride = 0;
	src_pages(const pu_pages &l, bool copy, bool as_pool) : ptrs(l.n + 1), bytes(l.n + 1)
	{
		if (as_pool) { /* every page the same size; slot of page i: (7 i + 3) mod n */
			stride = max_bytes(l) + 6;
			pool = new hbuf(stride * l.n + 1);
			for (size_t i = 0; i < l.n; i++) {
				idx.push_back((int64_t)((7 * i + 3) % l.n));
				memcpy(pool->p + stride * (size_t)idx[i], l.p[i], l.bytes[i]);
			}
			idx.push_back(0);
			return;
		}
		for (size_t i = 0; i < l.n; i++) {
			bufs.push_back(l.p[i] && copy ? new hbuf(l.p[i], l.bytes[i]) : new hbuf(0));
			ptrs[i] = l.p[i] && l.bytes[i] && copy ? bufs.back()->p : l.p[i];
			bytes[i] = l.bytes[i];
		}
	}
	~src_pages()
	{
		for (hbuf *b : bufs)
			delete b;
		delete pool;
	}
	sz_gpu_pages_io io(size_t n) const
	{
		sz_gpu_pages_io r;
		memset(&r, 0, sizeof r);
		if (pool) {
			r.pool = pool->p;
			r.index = idx.data();
			r.stride = stride;
			r.page_bytes = n ? bytes[0] : 0;
			r.pool_size = pool->n;
		} else {
			r.ptrs = (void *const *)ptrs.data();
			r.bytes = bytes.data();
		}
		return r;
	}
};

/* The device sequence ('max' bounds the sizes; 0: their maximum). */
template <int W>
static enc_out sim_pack(const pu_pages &l, const params &p, size_t cap, size_t max = 0,
                        const schedule &s = k_default_sched, bool copy = true, bool pool = false)
{
	if (!max)
		max = max_bytes(l);
	src_pages in(l, copy, pool);
	if (pool)
		in.bytes[0] = max;
	hbuf dst(cap), ws(sz_gpu_pages_ws_size(l.n, max, p.log2, (unsigned)p.enc), 0x5A);
	enc_out r;
	sz_gpu_pages_enc a;
	enc_params(p, a);
	a.in = in.io(l.n);
	a.n_pages = l.n;
	a.max_page_bytes = max;
	a.dst = dst.p;
	a.dst_cap = cap;
	a.out_size = &r.size;
	a.status = &r.status;
	a.ws = ws.p;
	simt_launcher lc{W, s};
	sz_gpu_pages_compress<W>(lc, a);
	CHECK(!lc.failed, "harness: %s", lc.first.msg);
	if (r.status == SPLITZIP_OK)
		r.stream.assign(dst.p, dst.p + r.size);
	return r;
}

struct dec_out {
	int32_t status = -1;
	size_t n_pages = 99;
	std::vector<size_t> sizes;
	std::vector<uint8_t> states;
	std::vector<std::vector<uint8_t>> pages;
};

/* Decoder options: EXACT, a page at an odd address, the destinations as a pool. */
struct dec_opts {
	bool exact = false;
	size_t misalign = ~(size_t)0;
	bool pool = false;
	const schedule *sched = &k_default_sched;
};

/* The device decoder into exact-size pages of caps[i] bytes (filled with 0xEE first). */
template <int W>
static dec_out sim_unpack(const uint8_t *s, size_t size, const std::vector<size_t> &caps,
                          const dec_opts &o = dec_opts())
{
	size_t max = 0;
	for (size_t c : caps)
		max = c > max ? c : max;
	const size_t n = caps.size();
	hbuf src(s, size), ws(sz_gpu_pages_dec_ws_size(n, max), 0x5A);
	std::vector<hbuf *> pages;
	std::vector<void *> ptrs(n + 1);
	hbuf *pool = o.pool ? new hbuf(max * n + 1) : nullptr; /* page i in slot n - 1 - i */
	std::vector<int64_t> idx(n + 1);
	for (size_t i = 0; i < n; i++) {
		idx[i] = (int64_t)(n - 1 - i);
		if (!pool) { /* page 'misalign' at an odd address */
			pages.push_back(new hbuf(caps[i] + (i == o.misalign)));
			ptrs[i] = pages.back()->p + (i == o.misalign);
		}
	}
	dec_out r;
	r.sizes.assign(n, 12345);
	r.states.assign(n, 0xCC);
	sz_gpu_pages_dec a;
	memset(&a, 0, sizeof a);
	a.src = src.p;
	a.src_size = size;
	if (pool) {
		a.out.pool = pool->p;
		a.out.index = idx.data();
		a.out.stride = max;
		a.out.page_bytes = max;
		a.out.pool_size = pool->n;
	} else {
		a.out.ptrs = (void *const *)ptrs.data();
		a.out.bytes = caps.data();
	}
	a.n_pages = n;
	a.max_page_bytes = max;
	a.exact = o.exact;
	a.page_sizes = r.sizes.data();
	a.page_states = r.states.data();
	a.n_pages_out = &r.n_pages;
	a.status = &r.status;
	a.ws = ws.p;
	simt_launcher lc{W, *o.sched};
	sz_gpu_pages_decompress<W>(lc, a);
	CHECK(!lc.failed, "harness: %s", lc.first.msg);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *b =
		    pool ? pool->p + max * (size_t)idx[i] : pages[i]->p + (i == o.misalign);
		r.pages.emplace_back(b, b + caps[i]);
		if (!pool)
			delete pages[i];
	}
	delete pool;
	return r;
}

/* The host decoder's status, sizes, states and pages for the same input (pages filled with
 * 0xEE first, as the device's). */
static dec_out host_unpack(const uint8_t *s, size_t size, const std::vector<size_t> &caps,
                           bool exact = false)
{
	params p;
	splitzip_ctx *ctx = host_ctx(p);
	hbuf src(s, size);
	std::vector<hbuf *> pages;
	std::vector<void *> ptrs(caps.size() + 1);
	for (size_t i = 0; i < caps.size(); i++) {
		pages.push_back(new hbuf(caps[i]));
		ptrs[i] = pages.back()->p;
	}
	dec_out r;
	r.sizes.assign(caps.size(), 12345);
	r.states.assign(caps.size(), 0xCC);
	r.n_pages = 99;
	r.status = splitzip_pages_decompress(ctx, src.p, size, caps.size(), ptrs.data(),
	                                     caps.data(), exact ? SPLITZIP_PAGES_EXACT : 0u,
	                                     r.sizes.data(), r.states.data(), &r.n_pages);
	for (size_t i = 0; i < caps.size(); i++) {
		r.pages.emplace_back(pages[i]->p, pages[i]->p + caps[i]);
		delete pages[i];
	}
	splitzip_ctx_free(ctx);
	return r;
}

/* memcmp that accepts NULL (an empty vector's data()) when there is nothing to compare. */
static bool same(const void *a, const void *b, size_t n)
{
	return n == 0 || memcmp(a, b, n) == 0;
}

static size_t first_diff(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b)
{
	size_t i = 0;
	while (i < a.size() && i < b.size() && a[i] == b[i])
		i++;
	return i;
}

/* The device's decode equals the host's: status, page count, sizes, states; WRITTEN pages hold
 * the host's bytes; UNTOUCHED pages (and every page when the status is a structural or
 * destination error) hold the fill. */
static void same_decode(const dec_out &got, const dec_out &want, const char *what, int k)
{
	CHECK(got.status == want.status, "%s %d: %s, host %s", what, k,
	      splitzip_status_name((splitzip_status)got.status),
	      splitzip_status_name((splitzip_status)want.status));
	CHECK(got.n_pages == want.n_pages && got.sizes == want.sizes && got.states == want.states,
	      "%s %d: page count %zu/%zu, sizes or states differ", what, k, got.n_pages,
	      want.n_pages);
	for (size_t i = 0; i < got.pages.size() && i < want.states.size(); i++) {
		if (want.states[i] == SPLITZIP_PAGE_WRITTEN)
			CHECK(same(got.pages[i].data(), want.pages[i].data(), want.sizes[i]),
			      "%s %d: page %zu", what, k, i);
		if (want.states[i] == SPLITZIP_PAGE_UNTOUCHED || want.states[i] == 0xCC)
			for (uint8_t b : got.pages[i])
				if (b != 0xEE) {
					CHECK(false, "%s %d: page %zu written", what, k, i);
					break;
				}
	}
}

/* Pack on both, compare bytes; unpack the stream on the device, compare the pages. */
template <int W>
static void roundtrip(const pu_pages &l, const params &p, const char *what,
                      const schedule &s = k_default_sched, bool pool = false)
{
	const size_t cap = splitzip_pages_bound(l.n, max_bytes(l));
	splitzip_status hst;
	const std::vector<uint8_t> ref = host_pack(l, p, cap, &hst);
	CHECK(hst == SPLITZIP_OK, "%s: host status %d", what, hst);
	enc_out got = sim_pack<W>(l, p, cap, 0, s, true, pool);
	CHECK(got.status == SPLITZIP_OK && got.stream == ref,
	      "%s (%zu pages, L=%u enc=%d sum=%d fixed=%d/%d): status %d, size %zu vs %zu, "
	      "differs at %zu",
	      what, l.n, p.log2, (int)p.enc, p.checksum, p.fixed_cb, p.fixed_table, got.status,
	      got.stream.size(), ref.size(), first_diff(got.stream, ref));
	std::vector<size_t> caps(l.bytes, l.bytes + l.n);
	dec_opts o;
	o.sched = &s;
	o.pool = pool;
	dec_out d = sim_unpack<W>(ref.data(), ref.size(), caps, o);
	CHECK(d.status == SPLITZIP_OK && d.n_pages == l.n, "%s: decode status %d, %zu pages", what,
	      d.status, d.n_pages);
	for (size_t i = 0; i < l.n && d.status == SPLITZIP_OK; i++)
		CHECK(d.sizes[i] == l.bytes[i] && d.states[i] == SPLITZIP_PAGE_WRITTEN &&
		          same(d.pages[i].data(), l.p[i], l.bytes[i]),
		      "%s: page %zu", what, i);
}

/* The parameters of encoding e: tables from the pages, or fixed ones (a window codebook and a
 * table calibrated on other data) named 'id'. */
static params params_of(splitzip_encoding e, unsigned log2, bool checksum, bool fixed,
                        uint32_t id = 0)
{
	params p;
	p.enc = e;
	p.log2 = log2;
	p.checksum = checksum;
	if (fixed) {
		p.fixed_cb = p.fixed_table = true;
		p.id = id;
		for (int k = 0; k < 16; k++)
			p.codebook[k] = (uint8_t)(112 + k);
		std::vector<uint16_t> cal(50000);
		sz_test_generate(SZ_GEN_KV_SKEWED, 99, cal.data(), cal.size());
		splitzip_entropy_calibrate(cal.data(), cal.size(), &p.table);
	}
	return p;
}

static const splitzip_encoding k_encs[] = {SPLITZIP_ENCODING_SPLIT4, SPLITZIP_ENCODING_ENTROPY,
                                           SPLITZIP_ENCODING_AUTO};

/* ==================================================================== */
/*                                Tests                                 */
/* ==================================================================== */

/* KV pages (2 KiB and 32 KiB, K and V alternating): every encoding, tables from the pages and
 * fixed, checksums on and off, the batched and the per-frame kernels. */
template <int W> static void test_pages_kv()
{
	pu_pages l = pu_make_kv(g_quick || k_sanitized ? 6 : 16, 32768, 1);
	pu_pages s = pu_make_kv(g_quick || k_sanitized ? 40 : 120, 2048, 3);
	for (splitzip_encoding e : k_encs) {
		roundtrip<W>(l, params_of(e, 12, true, false), "kv from pages");
		roundtrip<W>(s, params_of(e, 10, true, false), "kv 2 KiB");
		roundtrip<W>(l, params_of(e, 10, false, true, 0xABCD1234u), "kv fixed");
		/* a device on which these few pages are no batch: the per-frame kernels */
		roundtrip<W>(l, params_of(e, 12, true, false), "kv per-frame kernels",
		             k_other_sched);
	}
	pu_free(&l);
	pu_free(&s);
}

/* Every generator (raw pages among them), sizes from 0 to several chunks. */
template <int W> static void test_pages_mixed()
{
	static const size_t sizes[] = {0, 2, 64, 120, 128, 242, 4096, 8190, 30000, 2048, 0, 65538};
	const size_t n = sizeof sizes / sizeof sizes[0];
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++) {
		pu_pages l = pu_make(sizes, n, g, 3 + (uint64_t)g);
		const splitzip_encoding e = k_encs[g % 3];
		roundtrip<W>(l, params_of(e, 10 + (unsigned)g % 7, g & 1, false),
		             sz_test_gen_name(g));
		if (g % 3 == 0)
			roundtrip<W>(l, params_of(k_encs[(g / 3) % 3], 12, true, true, (uint32_t)g),
			             sz_test_gen_name(g));
		pu_free(&l);
	}
	pu_pages none = pu_make(nullptr, 0, 0, 0);
	for (splitzip_encoding e : k_encs)
		roundtrip<W>(none, params_of(e, 12, true, false), "no pages");
	static const size_t empty[] = {0, 0, 0};
	pu_pages zeros = pu_make(empty, 3, 0, 0);
	roundtrip<W>(zeros, params_of(SPLITZIP_ENCODING_AUTO, 12, true, false), "empty pages");
	pu_free(&zeros);
	pu_free(&none);
}

/* More pages than a block has threads: the scans, the table and the checks loop over tiles;
 * some pages raw. */
template <int W> static void test_pages_many()
{
	const size_t n = g_quick || k_sanitized ? 300 : 700;
	std::vector<size_t> sizes(n);
	for (size_t i = 0; i < n; i++)
		sizes[i] = i % 17 == 5 ? 0 : 256 + 2 * (i % 9) * 31;
	pu_pages l = pu_make(sizes.data(), n, -2, 2);
	for (size_t i = 0; i < n; i += 23) /* some raw pages */
		sz_test_generate(SZ_GEN_RANDOM, i, (uint16_t *)l.p[i], l.bytes[i] / 2);
	roundtrip<W>(l, params_of(SPLITZIP_ENCODING_SPLIT4, 12, true, false), "many");
	roundtrip<W>(l, params_of(SPLITZIP_ENCODING_AUTO, 10, true, false), "many auto",
	             k_other_sched);
	roundtrip<W>(l, params_of(SPLITZIP_ENCODING_ENTROPY, 10, false, true, 5), "many fixed");
	pu_free(&l);
}

/* A pool of same-size pages with an index array, both directions; bad indices. */
template <int W> static void test_pages_pool()
{
	pu_pages l = pu_make_kv(g_quick || k_sanitized ? 24 : 64, 2048, 5);
	for (splitzip_encoding e : k_encs)
		roundtrip<W>(l, params_of(e, 10, true, false), "pool", k_default_sched, true);
	const params p = params_of(SPLITZIP_ENCODING_SPLIT4, 12, true, false);
	for (int64_t bad : {(int64_t)-1, (int64_t)l.n * 4, (int64_t)1 << 62}) {
		src_pages in(l, true, true);
		in.idx[l.n / 2] = bad;
		hbuf dst(splitzip_pages_bound(l.n, 2048)),
		    ws(sz_gpu_pages_ws_size(l.n, 2048, 12, 1));
		enc_out r;
		sz_gpu_pages_enc a;
		enc_params(p, a);
		a.in = in.io(l.n);
		a.in.page_bytes = 2048;
		a.n_pages = l.n;
		a.max_page_bytes = 2048;
		a.dst = dst.p;
		a.dst_cap = dst.n;
		a.out_size = &r.size;
		a.status = &r.status;
		a.ws = ws.p;
		simt_launcher lc{W, k_default_sched};
		sz_gpu_pages_compress<W>(lc, a);
		CHECK(!lc.failed && r.status == SPLITZIP_ERROR_INVALID_ARGUMENT && r.size == 0,
		      "pool index %lld: %d", (long long)bad, r.status);
	}
	pu_free(&l);
}

/* Capacity and argument statuses, as the host reports them, for every encoding. */
template <int W> static void test_pages_statuses()
{
	static const size_t sizes[] = {8192, 3000, 0, 4096};
	pu_pages l = pu_make(sizes, 4, -1, 5);
	for (splitzip_encoding e : k_encs) {
		const params p = params_of(e, 12, true, false);
		splitzip_status hst;
		const std::vector<uint8_t> ref = host_pack(l, p, 1 << 20, &hst);
		enc_out r = sim_pack<W>(l, p, ref.size());
		CHECK(r.status == SPLITZIP_OK && r.stream == ref, "exact capacity: %d", r.status);
		for (size_t cap : {ref.size() - 1, (size_t)200, (size_t)64, (size_t)0}) {
			std::vector<uint8_t> h = host_pack(l, p, cap, &hst);
			r = sim_pack<W>(l, p, cap);
			CHECK(hst == SPLITZIP_ERROR_DST_TOO_SMALL &&
			          r.status == SPLITZIP_ERROR_DST_TOO_SMALL && r.size == 0,
			      "cap %zu: %d (host %d)", cap, r.status, hst);
		}
		r = sim_pack<W>(l, p, 1 << 16, 4096); /* a page above max_page_bytes */
		CHECK(r.status == SPLITZIP_ERROR_INVALID_ARGUMENT && r.size == 0, "max: %d",
		      r.status);
	}
	const params p;
	l.bytes[1] = 2999; /* odd */
	enc_out r = sim_pack<W>(l, p, 1 << 16);
	CHECK(r.status == SPLITZIP_ERROR_INVALID_ARGUMENT, "odd: %d", r.status);
	l.bytes[1] = 3000;
	uint8_t *keep = l.p[3];
	l.p[3] = nullptr; /* NULL with a size */
	r = sim_pack<W>(l, p, 1 << 16);
	CHECK(r.status == SPLITZIP_ERROR_INVALID_ARGUMENT, "NULL page: %d", r.status);
	l.p[3] = keep;
	/* A misaligned page: copied to an odd address, as the host API rejects it too. */
	std::vector<uint8_t> odd(4096 + 1);
	memcpy(odd.data() + 1, l.p[3], 4096);
	l.p[3] = odd.data() + 1;
	r = sim_pack<W>(l, p, 1 << 16, 0, k_default_sched, false);
	CHECK(r.status == SPLITZIP_ERROR_INVALID_ARGUMENT, "misaligned page: %d", r.status);
	l.p[3] = keep;
	pu_free(&l);
}

/* Destinations: more and larger are fine, fewer or smaller are DST_TOO_SMALL, and with EXACT
 * anything but the stream's geometry is GEOMETRY; the host's sizes and states. */
template <int W> static void test_pages_destinations()
{
	static const size_t sizes[] = {4096, 8192, 100, 0, 4096};
	pu_pages l = pu_make(sizes, 5, -1, 9);
	splitzip_status hst;
	const std::vector<uint8_t> s = host_pack(l, params(), 1 << 16, &hst);
	const std::vector<std::vector<size_t>> cases = {
	    {5000, 9000, 100, 64, 4096, 10, 10}, {4096, 8192, 100, 0},
	    {4096, 8190, 100, 0, 4096},          {4096, 8192, 100, 0, 4096},
	    {4096, 8192, 102, 0, 4096},
	};
	int k = 0;
	for (const std::vector<size_t> &caps : cases)
		for (bool exact : {false, true}) {
			dec_opts o;
			o.exact = exact;
			same_decode(sim_unpack<W>(s.data(), s.size(), caps, o),
			            host_unpack(s.data(), s.size(), caps, exact), "destinations",
			            k++);
		}
	/* A misaligned destination: INVALID_ARGUMENT before anything, as on the host. */
	const std::vector<size_t> caps(l.bytes, l.bytes + l.n);
	dec_opts o;
	o.misalign = 1;
	const dec_out mis = sim_unpack<W>(s.data(), s.size(), caps, o);
	CHECK(mis.status == SPLITZIP_ERROR_INVALID_ARGUMENT && mis.n_pages == 99,
	      "misaligned destination: %d", mis.status);
	for (size_t i = 0; i < l.n; i++)
		CHECK(mis.sizes[i] == 12345 && mis.states[i] == 0xCC,
		      "misaligned: outputs touched");
	/* A stream of version 3 (FP16 pages), which the host decodes: the kernels code BF16 pages
	 * only and report it as a reader of none of the dtypes 2-5 does (UNSUPPORTED_FORMAT,
	 * FORMAT.md §12.5 step 2), every page untouched. */
	splitzip_ctx *ctx = host_ctx(params());
	const void *pp[2] = {l.p[0], l.p[1]};
	const size_t pb[2] = {l.bytes[0], l.bytes[1]};
	std::vector<uint8_t> v3(splitzip_pages_bound_dtype(SPLITZIP_DTYPE_FP16, 2, l.bytes[1]));
	size_t size = 0;
	CHECK(splitzip_pages_compress_dtype(ctx, SPLITZIP_DTYPE_FP16, 0, 0, 2, pp, pb, v3.data(),
	                                    v3.size(), &size) == SPLITZIP_OK,
	      "host FP16 page stream");
	splitzip_ctx_free(ctx);
	v3.resize(size);
	const std::vector<size_t> caps3(pb, pb + 2);
	const dec_out host3 = host_unpack(v3.data(), v3.size(), caps3, true);
	CHECK(host3.status == SPLITZIP_OK && same(host3.pages[1].data(), l.p[1], pb[1]),
	      "host decode of version 3: %d", host3.status);
	const dec_out dev3 = sim_unpack<W>(v3.data(), v3.size(), caps3);
	CHECK(dev3.status == SPLITZIP_ERROR_UNSUPPORTED_FORMAT, "version 3 on the device: %d",
	      dev3.status);
	for (size_t i = 0; i < 2; i++)
		CHECK(dev3.states[i] == SPLITZIP_PAGE_UNTOUCHED &&
		          std::count(dev3.pages[i].begin(), dev3.pages[i].end(), 0xEE) ==
		              (std::ptrdiff_t)pb[i],
		      "version 3 on the device: page %zu touched", i);
	pu_free(&l);
}

/* One mutation of stream s (n pages): k selects the kind. */
static void mutate(std::vector<uint8_t> &s, size_t n, int k, uint64_t r)
{
	const size_t head = 64 + 4 * n;
	switch (k % 7) {
	case 0: /* header or page table, resealed */
		s[r % head] = (uint8_t)(r >> 20);
		pu_reseal(s.data(), s.size());
		break;
	case 1: /* a page table entry, resealed */
		pu_put(s.data() + 64 + 4 * ((r >> 8) % n), (uint64_t)((r >> 16) % 9000), 4);
		pu_reseal(s.data(), s.size());
		break;
	case 2:
		s[r % s.size()] ^= (uint8_t)(1u << ((r >> 32) % 8));
		break;
	case 3:
		s.resize((size_t)(r % s.size()));
		break;
	case 4: /* a frame body or the raw section */
		s[head + (r >> 8) % (s.size() - head)] = (uint8_t)r;
		break;
	case 5: { /* within the first frame's header, resealed as a frame */
		const size_t f = pu_align64(head);
		if (f + 64 <= s.size()) {
			s[f + (r >> 8) % 60] ^= (uint8_t)(1u << (r % 8));
			pu_reseal_frame(s.data() + f);
		}
		break;
	}
	default: /* the raw checksum */
		s[PG_RAWSUM + (r >> 8) % 8] ^= 1;
		pu_reseal(s.data(), s.size());
		break;
	}
}

/* Damage of every kind, resealed or not, to split4 and entropy streams with raw pages: the
 * device reports the host's status, sizes and states, and writes no page the states call
 * UNTOUCHED. */
template <int W> static void test_pages_hostile()
{
	static const size_t sizes[] = {8192, 2000, 0, 4098, 6000};
	pu_pages l = pu_make(sizes, 5, -1, 4);
	sz_test_generate(SZ_GEN_RANDOM, 3, (uint16_t *)l.p[1], 1000); /* a raw page */
	const int rounds = g_quick ? 70 : k_sanitized ? 140 : 560;
	uint64_t seed = 99 + W;
	for (int m = 0; m < 2; m++) {
		const params p = params_of(m ? SPLITZIP_ENCODING_ENTROPY : SPLITZIP_ENCODING_SPLIT4,
		                           m ? 10 : 12, true, m == 0, 77);
		splitzip_status hst;
		const std::vector<uint8_t> base = host_pack(l, p, 1 << 16, &hst);
		CHECK(hst == SPLITZIP_OK, "host pack %d", hst);
		const std::vector<size_t> caps(l.bytes, l.bytes + l.n);
		int ok = 0;
		for (int k = 0; k < rounds; k++) {
			std::vector<uint8_t> s = base;
			const uint64_t r = sz_test_rand(&seed);
			mutate(s, l.n, k, r);
			std::vector<size_t> c = caps;
			const size_t victim = (size_t)((r >> 40) % c.size());
			if (k % 11 == 10 && c[victim] >= 2)
				c[victim] -= 2; /* a smaller destination */
			dec_opts o;
			o.exact = k % 5 == 4;
			const dec_out want = host_unpack(s.data(), s.size(), c, o.exact);
			same_decode(sim_unpack<W>(s.data(), s.size(), c, o), want, "mutation", k);
			ok += want.status == SPLITZIP_OK;
		}
		CHECK(ok < rounds, "no mutation was rejected");
	}
	pu_free(&l);
}

/* Pages over more than one frame of 2^24 elements, a page cut by the frame boundary, the raw
 * pages after both frames (the slots, the frame offsets, the states of a failing second
 * frame). Large for the harness: skipped under the sanitizers and with --quick. */
template <int W> static void test_pages_frames()
{
	if (g_quick || k_sanitized)
		return;
	const size_t big = (size_t)1 << 23; /* bytes: 2^22 elements */
	std::vector<size_t> sizes = {big, big, big, big - 4096, 2 * 4096 + 64, 4096, 2048};
	pu_pages l = pu_make(sizes.data(), sizes.size(), -1, 6);
	sz_test_generate(SZ_GEN_RANDOM, 5, (uint16_t *)l.p[5], 2048); /* a raw page */
	const params p = params_of(SPLITZIP_ENCODING_SPLIT4, 12, true, false);
	roundtrip<W>(l, p, "two frames");
	splitzip_status hst;
	std::vector<uint8_t> s = host_pack(l, p, splitzip_pages_bound(l.n, big), &hst);
	const size_t f0 = pu_align64(64 + 4 * l.n); /* the first frame; Frame_Size at 40 */
	const size_t f1 = f0 + (size_t)pu_get(s.data() + f0 + 40, 8);
	s[f1 + 200] ^= 0x10; /* the second frame's body */
	const std::vector<size_t> caps(l.bytes, l.bytes + l.n);
	same_decode(sim_unpack<W>(s.data(), s.size(), caps), host_unpack(s.data(), s.size(), caps),
	            "second frame damaged", 0);
	pu_free(&l);
}

/* ==================================================================== */

static const sz_simt_test k_tests[] = {
    SZ_SIMT_TEST(test_pages_kv),       SZ_SIMT_TEST(test_pages_mixed),
    SZ_SIMT_TEST(test_pages_many),     SZ_SIMT_TEST(test_pages_pool),
    SZ_SIMT_TEST(test_pages_statuses), SZ_SIMT_TEST(test_pages_destinations),
    SZ_SIMT_TEST(test_pages_hostile),  SZ_SIMT_TEST(test_pages_frames),
};

int main(int argc, char **argv)
{
	return sz_simt_run_tests(k_tests, sizeof(k_tests) / sizeof(k_tests[0]), argc, argv);
}
