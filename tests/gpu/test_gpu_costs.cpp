/*
 * test_gpu_costs.cpp -- what the GPU kernels cost, measured without a GPU: the SIMT harness
 * counts every global-memory access, atomic and block barrier of the kernels (through the
 * compat wrappers) and every launch of the driver's sequence. This program runs each call type
 * on real KV data, prints the figures per element, and fails when a call type exceeds its
 * budget (the budgets and why: doc/BENCHMARKS.md, "GPU costs without a GPU").
 *
 *   test_gpu_costs [--quick] [--markdown] [--warp 32|64]   (--quick: smaller frames, for a
 *   look only: the budgets are set for the full sizes)
 *
 * The harness pretends to be a device on which 'wave' blocks run at once (the driver sizes its
 * persistent grids and picks the one-block-per-frame path for batches by it): an H200 has
 * 132 x 4 = 528, here it is scaled down with the data (32 pages of 128 KiB stand for 4096).
 * Global bytes are what the kernels ask for; on a GPU some of them hit in L2 (the from-input
 * encode of small frames reads its input twice, the second time mostly from L2).
 */
#include "sz_simt_compat.h"

#include "sz_gpu_driver.cuh"
#include "sz_gpu_pages.cuh"

extern "C" {
#include "sz_test_data.h"
}

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

/* One call type and what it may cost per element (elements: uncompressed BF16 values). */
struct budget {
	double bytes;      /* global bytes read + written per element */
	double barriers;   /* block barriers per 1024 elements */
	double atomics;    /* global atomics per 1024 elements */
	unsigned launches; /* kernel launches per call */
};

struct row {
	std::string name;
	uint64_t elems;
	sz_simt_counts c;
	unsigned launches;
	budget b;
};

struct launcher {
	int warp;
	unsigned wave;
	bool failed = false;
	std::string msg;
	sz_simt_counts c{};
	unsigned launches = 0;
	launcher(int w, unsigned wv) : warp(w), wave(wv)
	{
	}
	template <typename... P> unsigned resident(void (*)(P...))
	{
		return wave;
	}
	template <typename... P, typename... A>
	void launch(const char *name, sz_gpu_dim g, unsigned block, void (*k)(P...), A... args)
	{
		if (failed)
			return;
		sz_simt_config cfg;
		cfg.warp = warp;
		cfg.grid = sz_simt_dim(g.x, g.y);
		cfg.block = sz_simt_dim(block);
		cfg.memcheck = false; /* the conformance suites check; here only the counts */
		const sz_simt_result r = sz_simt_launch(cfg, k, args...);
		if (r.code != SZ_SIMT_OK) {
			failed = true;
			msg = std::string(name) + ": " + r.msg;
		}
		launches++;
		c.gload_bytes += r.counts.gload_bytes;
		c.gstore_bytes += r.counts.gstore_bytes;
		c.gatomics += r.counts.gatomics;
		c.satomics += r.counts.satomics;
		c.gfences += r.counts.gfences;
		c.barriers += r.counts.barriers;
	}
};

static int g_warp = 32;
static std::vector<uint16_t> g_kv;

/* n elements of real KV, tiled. */
static std::vector<uint16_t> kv(size_t n, size_t offset)
{
	std::vector<uint16_t> v(n);
	for (size_t i = 0; i < n; i++)
		v[i] = g_kv[(offset + i) % g_kv.size()];
	return v;
}

struct call {
	unsigned flags;
	bool from_input;
	uint64_t
	    predict_from; /* 1: the codebook predicted from a sample (frames >= 2^22 elements) */
	uint8_t cb[16];
	bool entropy = false; /* the entropy encoding (mode 2), chunks of 2^14 */
	const splitzip_entropy_table *table = nullptr; /* entropy: fixed, else from the input */
};

/* Compress 'frames' (one call, batched if more than one); counts in lc; frames in out. */
template <int W>
static void compress(launcher &lc, const call &k, const std::vector<std::vector<uint16_t>> &in,
                     std::vector<std::vector<uint8_t>> *out)
{
	const size_t nf = in.size();
	uint64_t max_elems = 0;
	for (const auto &v : in)
		max_elems = v.size() > max_elems ? v.size() : max_elems;
	out->assign(nf, std::vector<uint8_t>());
	std::vector<const uint16_t *> srcs(nf);
	std::vector<void *> dsts(nf);
	std::vector<size_t> n(nf), caps(nf), sizes(nf);
	std::vector<int32_t> st(nf, -1);
	for (size_t f = 0; f < nf; f++) {
		(*out)[f].resize(splitzip_compress_bound(in[f].size()));
		srcs[f] = in[f].data();
		dsts[f] = (*out)[f].data();
		n[f] = in[f].size();
		caps[f] = (*out)[f].size();
	}
	const unsigned L = k.entropy ? 14 : 12;
	const unsigned enc = k.entropy ? SPLITZIP_ENCODING_ENTROPY : SPLITZIP_ENCODING_SPLIT4;
	std::vector<uint8_t> ws(sz_gpu_workspace_size_for(nf, max_elems, L, enc));
	sz_gpu_enc a;
	memset(&a, 0, sizeof a);
	a.frames.srcs = srcs.data();
	a.frames.n_elems = n.data();
	a.frames.dsts = dsts.data();
	a.frames.dst_caps = caps.data();
	a.frames.out_sizes = sizes.data();
	a.frames.statuses = st.data();
	a.ws = ws.data();
	a.max_elems = max_elems;
	a.chunk_log2 = L;
	a.flags = k.flags;
	a.split4.from_input = k.from_input;
	memcpy(a.split4.codebook, k.cb, 16);
	a.encoding = enc;
	a.entropy.from_input = k.table == nullptr;
	if (k.table) {
		memcpy(a.entropy.table, k.table->lengths, 256);
		a.entropy.table[SPLITZIP_ENTROPY_ESC] = k.table->escape_length;
	}
	sz_gpu_compress<W>(lc, a, nf, k.predict_from ? k.predict_from : SZ_GPU_SAMPLE_ALL_ELEMS);
	for (size_t f = 0; f < nf; f++) {
		if (st[f] != SPLITZIP_OK) {
			lc.failed = true;
			lc.msg = "compress status " + std::to_string(st[f]);
		}
		(*out)[f].resize(sizes[f]);
	}
}

template <int W>
static void decompress(launcher &lc, const std::vector<std::vector<uint8_t>> &frames,
                       const std::vector<std::vector<uint16_t>> &in)
{
	const size_t nf = frames.size();
	uint64_t max_elems = 0;
	std::vector<const void *> srcs(nf);
	std::vector<uint16_t *> dsts(nf);
	std::vector<size_t> sizes(nf), caps(nf), n(nf);
	std::vector<int32_t> st(nf, -1);
	std::vector<std::vector<uint16_t>> out(nf);
	for (size_t f = 0; f < nf; f++) {
		out[f].resize(in[f].size());
		srcs[f] = frames[f].data();
		sizes[f] = frames[f].size();
		dsts[f] = out[f].data();
		caps[f] = in[f].size();
		max_elems = in[f].size() > max_elems ? in[f].size() : max_elems;
	}
	std::vector<uint8_t> ws(sz_gpu_dec_workspace_size(nf));
	sz_gpu_dec a;
	memset(&a, 0, sizeof a);
	a.frames.srcs = srcs.data();
	a.frames.src_sizes = sizes.data();
	a.frames.dsts = dsts.data();
	a.frames.dst_caps = caps.data();
	a.frames.out_elems = n.data();
	a.frames.statuses = st.data();
	a.ws = ws.data();
	sz_gpu_decompress<W>(lc, a, nf, max_elems);
	for (size_t f = 0; f < nf; f++)
		if (st[f] != SPLITZIP_OK || out[f] != in[f]) {
			lc.failed = true;
			lc.msg = "decode status " + std::to_string(st[f]);
		}
}

static int g_failures;

static void add_row(std::vector<row> &rows, const std::string &name, const launcher &lc,
                    uint64_t elems, const budget &b)
{
	if (lc.failed) {
		fprintf(stderr, "FAIL %s: %s\n", name.c_str(), lc.msg.c_str());
		g_failures++;
	}
	rows.push_back(row{name, elems, lc.c, lc.launches, b});
}

/*
 * The budgets. Bytes: an encode must read 2 bytes and write 1.5 per element, a decode the
 * reverse, plus escapes (3 bytes each, about 0.2-1 % of real KV), the chunk table (4 bytes per
 * 4096 elements) and the exponents' trip through the workspace: 3.6 bytes leave 0.1 for those.
 * A codebook from the input of a frame below 2^22 elements reads its input twice (5.6); a
 * predicted one adds its sample, 1 chunk in 16 (3.85), and a second pass when the prediction
 * was wrong (6.2). Pages add their descriptors and headers (3.7; 5.7 from the input).
 * Barriers: two per tile of NW x 4096 elements plus a few per frame and block; atomics: a
 * ticket, two look-back words and a look-back window of W words per tile. Launches: init +
 * kernel per call, one for a batch of pages.
 */
template <int W> static budget multi_budget(double bytes, unsigned passes, double extra_barriers)
{
	const double tile = (double)(SZ_GPU_THREADS / W) * SZ_GPU_WARP_ELEMS;
	return budget{bytes, passes * 2 * 1024.0 / tile + 0.15 + extra_barriers,
	              passes * (W + 8) * 1024.0 / tile + 0.5, 2};
}

/*
 * Page streams (doc/FORMAT.md §12) of real KV pages, every table from the pages, with and
 * without checksums: the stream written, then scattered back. Bytes per element of the pages;
 * the passes of a compression (sz_gpu_pages.cuh): the histogram of all pages (2 B), each page's
 * cost under the tables (2 B), per candidate the gather of the coded pages into the workspace
 * (4 B) and the frame encoder over it (3.5 B), then the pack of the chosen frames (3 B); AUTO
 * runs the gather and the encoder twice. A decompression: the validating block, the frame
 * decoder into the workspace (3.5 B), the scatter into the pages (4 B). Budgets: today's figures
 * rounded up, a regression guard; the checksum adds no pass (the frames' content checksums are
 * hashed from registers; raw pages, none here, are hashed once).
 */
template <int W>
static void page_stream(std::vector<row> &rows, size_t n_pages, size_t page_elems,
                        splitzip_encoding e, bool checksum, const budget &be, const budget &bd)
{
	std::vector<std::vector<uint16_t>> pages;
	std::vector<const void *> ptrs;
	std::vector<size_t> bytes;
	for (size_t i = 0; i < n_pages; i++) {
		pages.push_back(kv(page_elems, i * page_elems * 7));
		ptrs.push_back(pages.back().data());
		bytes.push_back(page_elems * 2);
	}
	const uint64_t total = n_pages * page_elems, max = page_elems * 2;
	std::vector<uint8_t> dst(splitzip_pages_bound(n_pages, max));
	std::vector<uint8_t> ws(sz_gpu_pages_ws_size(n_pages, max, 12, e));
	size_t size = 0;
	int32_t st = -1;
	sz_gpu_pages_enc a;
	memset(&a, 0, sizeof a);
	a.in.ptrs = (void *const *)ptrs.data();
	a.in.bytes = bytes.data();
	a.n_pages = n_pages;
	a.max_page_bytes = max;
	a.dst = dst.data();
	a.dst_cap = dst.size();
	a.out_size = &size;
	a.status = &st;
	a.ws = ws.data();
	a.encoding = (uint32_t)e;
	a.chunk_log2 = 12;
	a.checksum = checksum;
	const char *en = e == SPLITZIP_ENCODING_SPLIT4    ? "split4"
	                 : e == SPLITZIP_ENCODING_ENTROPY ? "entropy"
	                                                  : "auto";
	const std::string what = "page stream, " + std::to_string(n_pages) + " x " +
	                         std::to_string(page_elems * 2 / 1024) + " KiB pages, " + en +
	                         (checksum ? ", checksum" : "");
	launcher c{W, 16};
	sz_gpu_pages_compress<W>(c, a);
	if (st != SPLITZIP_OK) {
		c.failed = true;
		c.msg = "page compress status " + std::to_string(st);
	}
	add_row(rows, what + ": compress", c, total, be);
	std::vector<std::vector<uint16_t>> out(n_pages, std::vector<uint16_t>(page_elems));
	std::vector<void *> optr;
	for (auto &p : out)
		optr.push_back(p.data());
	std::vector<uint8_t> wsd(sz_gpu_pages_dec_ws_size(n_pages, max)), states(n_pages);
	std::vector<size_t> sizes(n_pages);
	size_t n_out = 0;
	sz_gpu_pages_dec d;
	memset(&d, 0, sizeof d);
	d.src = dst.data();
	d.src_size = size;
	d.out.ptrs = optr.data();
	d.out.bytes = bytes.data();
	d.n_pages = n_pages;
	d.max_page_bytes = max;
	d.exact = 1;
	d.page_sizes = sizes.data();
	d.page_states = states.data();
	d.n_pages_out = &n_out;
	d.status = &st;
	d.ws = wsd.data();
	launcher u{W, 16};
	sz_gpu_pages_decompress<W>(u, d);
	if (st != SPLITZIP_OK || out != pages) {
		u.failed = true;
		u.msg = "page decompress status " + std::to_string(st);
	}
	add_row(rows, what + ": decompress", u, total, bd);
}

template <int W> static void page_streams(std::vector<row> &rows, bool quick)
{
	/* launches: a compression's fixed sequence (init, histogram, table, cost, per candidate
	 * scan, gather, the frame encoder's launches and sizes, plan, pack, raw checksum, finish);
	 * a decompression's (head, the frame decoder's launches, raw checksum, finish, scatter) */
	/* Barriers: each per-page kernel runs one block per page with a few barriers, so 2 KiB
	 * pages (1024 elements) pay about ten per 1024 elements, 32 KiB pages one sixteenth of
	 * that; blocks have the same threads at W = 32 and 64. The checksum adds one launch. */
	(void)W;
	const budget s4{17.5, 11.0, 2.5, 14}, s4_big{16.5, 2.0, 2.5, 14}, ent{19.5, 11.0, 1.5, 17},
	    au{27.5, 12.5, 2.5, 22}, dec{8.2, 1.8, 0.2, 7}, dec_big{8.0, 0.5, 0.2, 7};
	const size_t small = quick ? 64 : 256, big = quick ? 8 : 32;
	for (int ck = 0; ck < 2; ck++) {
		page_stream<W>(rows, small, 1024, SPLITZIP_ENCODING_SPLIT4, ck, s4, dec);
		page_stream<W>(rows, big, 16384, SPLITZIP_ENCODING_SPLIT4, ck, s4_big, dec_big);
		page_stream<W>(rows, small, 1024, SPLITZIP_ENCODING_ENTROPY, ck, ent, dec);
	}
	page_stream<W>(rows, small, 1024, SPLITZIP_ENCODING_AUTO, true, au, dec);
}

/* The call types: one frame of real KV (and of KV-like data whose codebook a sample predicts),
 * and batches of pages. */
template <int W> static std::vector<row> measure(bool quick)
{
	std::vector<row> rows;
	const size_t n = quick ? (size_t)1 << 19 : (size_t)1 << 21; /* 1 or 4 MiB */
	uint8_t window[16];
	splitzip_codebook cbk;
	std::vector<uint16_t> calib = kv(1 << 20, 12345); /* calibrated on other data */
	splitzip_calibrate(calib.data(), calib.size(), &cbk);
	memcpy(window, cbk.exponents, 16);
	std::vector<uint16_t> skewed(n);
	sz_test_generate(SZ_GEN_KV_SKEWED, 7, skewed.data(), n);
	const budget enc = multi_budget<W>(3.6, 1, 0), dec = {3.6, 0.05, 0.05, 3};
	const budget fi_exact = multi_budget<W>(5.6, 1, 0.2),
	             fi_pred = multi_budget<W>(3.85, 1, 0.2);
	const budget fi_miss = multi_budget<W>(6.2, 2, 0.2);
	/* batched decode: the headers (a warp per frame), then the two decoders */
	const budget penc = {3.7, 0.3, 0, 1}, pdec = {3.7, 0.15, 0, 3}, pfi = {5.7, 0.4, 0, 1};
	const budget senc = {3.7, 1.5, 0, 1}, sdec = {3.7, 1.0, 0, 3}, sfi = {5.7, 2.0, 0, 1};
	/*
	 * Entropy frames (mode 2, chunks of 2^14): the decode reads the sign/mantissa bytes (1),
	 * the words (about 0.7 per element on real KV) and the chunk table, and writes 2; each
	 * block builds the code's lookup table (a few barriers). The encode reads its input twice
	 * (the word counts, then the encode: 4), writes 1 + the words, and a table from the
	 * input adds the histogram pass (2 more); a handful of launches, a few global atomics per
	 * block. Today's figures rounded up: a regression guard.
	 */
	const budget edec = {3.5, 0.2, 0.05, 3}, eenc = {5.6, 0.1, 0.05, 5},
	             efi = {7.6, 0.15, 0.25, 6};
	splitzip_entropy_table etab;
	splitzip_entropy_calibrate(calib.data(), calib.size(), &etab);
	for (unsigned flags = 0; flags < 2; flags++) {
		const char *cs = flags ? ", checksum" : "";
		const std::vector<std::vector<uint16_t>> one{kv(n, 0)};
		std::vector<std::vector<uint8_t>> frames;
		call k = {flags, false, 0, {}};
		k.entropy = true;
		k.table = &etab;
		launcher a{W, 24};
		compress<W>(a, k, one, &frames);
		add_row(rows, std::string("entropy encode, calibrated table") + cs, a, n, eenc);
		launcher d{W, 24};
		decompress<W>(d, frames, one);
		add_row(rows, std::string("entropy decode") + cs, d, n, edec);
		k.table = nullptr;
		launcher e{W, 24};
		compress<W>(e, k, one, &frames);
		add_row(rows, std::string("entropy encode, table from input") + cs, e, n, efi);
	}
	for (unsigned flags = 0; flags < 2; flags++) {
		const char *cs = flags ? ", checksum" : "";
		const std::vector<std::vector<uint16_t>> one{kv(n, 0)};
		std::vector<std::vector<uint8_t>> frames;
		call k = {flags, false, 0, {}};
		memcpy(k.cb, window, 16);
		launcher a{W, 24};
		compress<W>(a, k, one, &frames);
		add_row(rows, std::string("encode, fixed codebook") + cs, a, n, enc);
		launcher d{W, 24};
		decompress<W>(d, frames, one);
		add_row(rows, std::string("decode") + cs, d, n, dec);
		k.from_input = true;
		launcher e{W, 24};
		compress<W>(e, k, one, &frames);
		add_row(rows, std::string("encode, codebook from input, < 8 MiB") + cs, e, n,
		        fi_exact);
		k.predict_from = 1; /* as frames of 2^22 elements or more */
		launcher p{W, 24};
		compress<W>(p, k, {skewed}, &frames);
		add_row(rows, std::string("encode, codebook from input, predicted (holds)") + cs, p,
		        n, fi_pred);
		launcher m{W, 24};
		compress<W>(m, k, one, &frames);
		add_row(rows,
		        std::string("encode, codebook from input, predicted (tiled KV: wrong)") +
		            cs,
		        m, n, fi_miss);
	}
	struct pages {
		size_t nf, elems;
		const char *name;
		budget enc, dec, fi;
	};
	const pages shapes[] = {{quick ? 8u : 32u, 65536, "128 KiB", penc, pdec, pfi},
	                        {quick ? 32u : 128u, 8192, "16 KiB", senc, sdec, sfi}};
	for (const pages &ps : shapes) {
		std::vector<std::vector<uint16_t>> in;
		for (size_t f = 0; f < ps.nf; f++)
			in.push_back(kv(ps.elems, f * ps.elems));
		const uint64_t total = ps.nf * ps.elems;
		const std::string what = std::to_string(ps.nf) + " x " + ps.name + " pages";
		std::vector<std::vector<uint8_t>> frames;
		call k = {0, false, 0, {}};
		memcpy(k.cb, window, 16);
		launcher a{W, 16};
		compress<W>(a, k, in, &frames);
		add_row(rows, what + ", encode, fixed codebook", a, total, ps.enc);
		launcher d{W, 16};
		decompress<W>(d, frames, in);
		add_row(rows, what + ", decode", d, total, ps.dec);
		k.from_input = true;
		launcher e{W, 16};
		compress<W>(e, k, in, &frames);
		add_row(rows, what + ", encode, codebook from input", e, total, ps.fi);
	}
	page_streams<W>(rows, quick);
	return rows;
}

static void print(const std::vector<row> &rows, bool markdown)
{
	if (markdown) {
		printf("| call (W = %d) | read B/elem | written B/elem | total B/elem (budget) | "
		       "barriers / 1024 elem (budget) | global atomics / 1024 elem (budget) | "
		       "launches (budget) |\n",
		       g_warp);
		printf("|---|---:|---:|---:|---:|---:|---:|\n");
	}
	for (const row &r : rows) {
		const double e = (double)r.elems, rd = (double)r.c.gload_bytes / e,
		             wr = (double)r.c.gstore_bytes / e;
		const double bar = 1024.0 * (double)r.c.barriers / e;
		const double at = 1024.0 * (double)r.c.gatomics / e;
		const bool over = rd + wr > r.b.bytes || bar > r.b.barriers || at > r.b.atomics ||
		                  r.launches > r.b.launches;
		if (over)
			g_failures++;
		if (markdown)
			printf("| %s | %.3f | %.3f | %.3f (%.2f) | %.3f (%.2f) | %.3f (%.2f) | %u "
			       "(%u) "
			       "|\n",
			       r.name.c_str(), rd, wr, rd + wr, r.b.bytes, bar, r.b.barriers, at,
			       r.b.atomics, r.launches, r.b.launches);
		else
			printf("%-4s %-55s %6.3f + %6.3f = %6.3f B/elem (<= %.2f), %6.3f barriers, "
			       "%6.3f atomics / 1024 elem, %u launches\n",
			       over ? "OVER" : "ok", r.name.c_str(), rd, wr, rd + wr, r.b.bytes,
			       bar, at, r.launches);
	}
}

int main(int argc, char **argv)
{
	bool quick = false, markdown = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--markdown"))
			markdown = true;
		else if (!strcmp(argv[i], "--warp") && i + 1 < argc)
			g_warp = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--quick] [--markdown] [--warp 32|64]\n",
			        argv[0]);
			return 2;
		}
	}
	size_t nk = 0;
	uint16_t *k = sz_test_load_kv("K", &nk);
	if (!k) {
		fprintf(stderr, "real KV sample missing\n");
		return 2;
	}
	g_kv.assign(k, k + nk);
	free(k);
	const std::vector<row> rows = g_warp == 64 ? measure<64>(quick) : measure<32>(quick);
	print(rows, markdown);
	sz_simt_release();
	if (g_failures)
		fprintf(stderr, "test_gpu_costs: %d call type(s) failed or over budget\n",
		        g_failures);
	return g_failures ? 1 : 0;
}
