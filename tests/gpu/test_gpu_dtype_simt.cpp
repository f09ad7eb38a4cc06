/*
 * test_gpu_dtype_simt.cpp -- the GPU decoder of frames of every dtype (backends/gpu/
 * sz_gpu_dtype_dec.cuh: BF16, FP8 E4M3 and E5M2, FP16, FP32) run on the CPU through the SIMT
 * harness at warp size 32 and 64, against the library's host decoder on the scalar backend
 * (splitzip_frame_decompress_dtype): the same status for every input, the same bytes when it
 * decodes, nothing written outside the output's capacity, any output alignment.
 *
 * Usage: test_gpu_dtype_simt [--quick] [TEST...]   (--list prints the test names)
 * Environment: SZ_VECTORS_DIR, the golden vectors (tests/vectors).
 */
#include "sz_simt_compat.h"

#include "sz_gpu_driver.cuh"
#include "sz_gpu_dtype_dec.cuh"

#include "gpu_simt_launcher.h"
#include "sz_simt_testing.h"

extern "C" {
#include "sz_test_data.h"
}

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

/* Whether n bytes at a and b are equal (memcmp is undefined for the NULL of an empty vector,
 * even with n = 0). */
static bool sz_same_bytes(const void *a, const void *b, size_t n)
{
	return n == 0 || memcmp(a, b, n) == 0;
}

static const sz_test_schedule k_scheds[] = {
    {SZ_SIMT_LANES_FORWARD, SZ_SIMT_BLOCKS_INCREASING, 0, 0xA5, 6, 1},
    {SZ_SIMT_LANES_REVERSE, SZ_SIMT_BLOCKS_REVERSED, 0, 0x00, 5, 5},
    {SZ_SIMT_LANES_SEEDED, SZ_SIMT_BLOCKS_SHUFFLED, 7, 0xFF, 64, 3},
};

static const unsigned k_dtypes[] = {SPLITZIP_DTYPE_BF16, SPLITZIP_DTYPE_FP8_E4M3,
                                    SPLITZIP_DTYPE_FP8_E5M2, SPLITZIP_DTYPE_FP16,
                                    SPLITZIP_DTYPE_FP32};

/* Guard bytes around every output, which nothing may touch. */
#define GUARD 64u
#define GUARD_BYTE 0xC3u

/* What one decode returned: status, elements, and the output's bytes (capacity only). */
struct dec_out {
	int32_t status = -1;
	size_t n = 0;
	std::vector<uint8_t> bytes;
	bool guards_ok = true;
};

/* The host decoder (scalar backend): the oracle. */
static dec_out host_decode(const std::vector<uint8_t> &frame, size_t cap)
{
	static splitzip_ctx *ctx = nullptr;
	if (!ctx) {
		splitzip_params p;
		splitzip_params_init(&p);
		p.backend = SPLITZIP_BACKEND_SCALAR;
		p.n_threads = 1;
		if (splitzip_ctx_create(&p, &ctx) != SPLITZIP_OK)
			abort();
	}
	dec_out r;
	std::vector<uint8_t> src(frame), dst(cap + 1);
	src.push_back(0); /* a pointer also for an empty input (the kernels get one too) */
	size_t used = 0;
	r.status = splitzip_frame_decompress_dtype(ctx, src.data(), frame.size(), &used, dst.data(),
	                                           cap, &r.n);
	r.bytes.assign(dst.begin(), dst.begin() + (long)cap);
	return r;
}

/*
 * The kernels on one frame: an exact-size heap copy of the input (so that ASan sees any read
 * past it), the output at byte offset 'off' of a guarded buffer; 'nodst': no output pointer.
 */
template <int W>
static dec_out gpu_decode(const std::vector<uint8_t> &frame, size_t cap, unsigned off,
                          const sz_test_schedule &s, bool nodst = false)
{
	dec_out r;
	uint8_t *src = (uint8_t *)malloc(frame.size() ? frame.size() : 1);
	if (!frame.empty())
		memcpy(src, frame.data(), frame.size());
	std::vector<uint8_t> out(GUARD + off + cap + GUARD, GUARD_BYTE);
	std::vector<uint8_t> ws(SZ_GPU_DEC_WS_STRIDE, 0x5A);
	size_t n = 777;
	int32_t st = -1;
	sz_gpu_dt_dec a;
	memset(&a, 0, sizeof a);
	a.frames.one.src = src;
	a.frames.one.size = frame.size();
	a.frames.one.dst = nodst ? nullptr : out.data() + GUARD + off;
	a.frames.one.cap = cap;
	a.frames.out_elems = &n;
	a.frames.statuses = &st;
	a.ws = ws.data();
	sz_test_launcher lc{W, s};
	sz_gpu_dt_decompress<W>(lc, a, 1, cap);
	CHECK(!lc.failed, "harness: %s %s", sz_simt_code_name(lc.first.code), lc.first.msg);
	free(src);
	r.status = st;
	r.n = n;
	r.bytes.assign(out.begin() + GUARD + off, out.begin() + GUARD + off + (long)cap);
	for (size_t i = 0; i < out.size(); i++)
		if ((i < GUARD + off || i >= GUARD + off + cap) && out[i] != GUARD_BYTE)
			r.guards_ok = false;
	return r;
}

/* The kernels agree with the host on 'frame' decoded into 'cap' bytes at offset 'off'. */
template <int W>
static bool agree(const std::vector<uint8_t> &frame, size_t cap, unsigned off,
                  const sz_test_schedule &s, const char *what)
{
	const dec_out h = host_decode(frame, cap);
	const dec_out g = gpu_decode<W>(frame, cap, off, s);
	bool ok = g.status == h.status && g.guards_ok;
	CHECK(g.status == h.status, "%s: status %d, host %d", what, g.status, h.status);
	CHECK(g.guards_ok, "%s: a byte outside the output changed", what);
	if (h.status == SPLITZIP_OK) {
		const size_t w = splitzip_dtype_width(frame.size() > 5 ? frame[5] : 1);
		ok &= g.n == h.n && sz_same_bytes(g.bytes.data(), h.bytes.data(), w * h.n);
		CHECK(g.n == h.n, "%s: %zu elements, host %zu", what, g.n, h.n);
		CHECK(sz_same_bytes(g.bytes.data(), h.bytes.data(), w * h.n), "%s: bytes differ",
		      what);
	} else {
		CHECK(g.n == 0, "%s: %zu elements on error", what, g.n);
	}
	return ok;
}

/* ---- Inputs ------------------------------------------------------------------------------- */

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd()
{
	return sz_test_rand(&g_rng);
}

/* n elements of a dtype like a KV cache: exponents around a centre with a spread, 1 in
 * 'escape_every' uniform (escapes), random sign and mantissa. */
static std::vector<uint8_t> kv_like(unsigned dtype, size_t n, unsigned escape_every)
{
	splitzip_dtype_desc d{};
	(void)sz_dt_desc_get(dtype, &d);
	const unsigned top = (1u << d.ebits) - 1, centre = top / 2 - (d.ebits > 4 ? 2 : 1);
	std::vector<uint8_t> v(d.width * n);
	for (size_t i = 0; i < n; i++) {
		const uint64_t r = rnd();
		int x =
		    (int)centre + (int)(r % 5) - 2 - (int)((r >> 8) % 3 == 0 ? (r >> 10) % 4 : 0);
		if (escape_every && (r >> 20) % escape_every == 0)
			x = (int)((r >> 32) % (top + 1));
		x = x < 0 ? 0 : x > (int)top ? (int)top : x;
		const uint64_t m = rnd();
		const uint32_t p =
		    sz_dt_join_of(dtype, (unsigned)x, sz_dt_rest_of(dtype, 0, (uint32_t)m),
		                  sz_dt_rest_of(dtype, 1, (uint32_t)m));
		for (unsigned b = 0; b < d.width; b++)
			v[d.width * i + b] = (uint8_t)(p >> (8 * b));
	}
	return v;
}

/* Every pattern of a 1- or 2-byte dtype 'reps' times in a shuffled order; FP32: its specials
 * and random patterns. */
static std::vector<uint8_t> all_patterns(unsigned dtype, unsigned reps)
{
	const size_t w = splitzip_dtype_width(dtype);
	std::vector<uint32_t> p;
	if (w < 4) {
		for (unsigned k = 0; k < reps; k++)
			for (uint32_t x = 0; x < (1u << (8 * w)); x++)
				p.push_back(x);
	} else {
		const uint32_t sp[] = {0,           0x80000000u, 0x7F800000u, 0xFF800000u,
		                       0x7FC00000u, 0x7F800001u, 1,           0x807FFFFFu,
		                       0x3F800000u, 0xFFFFFFFFu};
		for (uint32_t x : sp)
			p.push_back(x);
		for (unsigned k = 0; k < 5000 * reps; k++)
			p.push_back((uint32_t)rnd());
	}
	for (size_t i = p.size(); i > 1; i--)
		std::swap(p[i - 1], p[rnd() % i]);
	std::vector<uint8_t> v(w * p.size());
	for (size_t i = 0; i < p.size(); i++)
		for (size_t b = 0; b < w; b++)
			v[w * i + b] = (uint8_t)(p[i] >> (8 * b));
	return v;
}

/* A frame of the elements by the host encoder (scalar backend); empty if it failed. */
static std::vector<uint8_t> host_encode(unsigned dtype, const std::vector<uint8_t> &el,
                                        splitzip_encoding enc, unsigned log2, bool checksum)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = SPLITZIP_BACKEND_SCALAR;
	p.n_threads = 1;
	p.encoding = enc;
	p.chunk_log2 = log2;
	p.flags = checksum ? SPLITZIP_FLAG_CONTENT_CHECKSUM : 0;
	splitzip_ctx *ctx = nullptr;
	std::vector<uint8_t> f;
	if (splitzip_ctx_create(&p, &ctx) != SPLITZIP_OK)
		return f;
	const size_t w = splitzip_dtype_width(dtype), n = el.size() / w;
	f.resize(splitzip_compress_bound_dtype(dtype, n));
	size_t size = 0;
	if (splitzip_compress_dtype(ctx, dtype, el.empty() ? nullptr : el.data(), n, f.data(),
	                            f.size(), &size) != SPLITZIP_OK)
		size = 0;
	f.resize(size);
	splitzip_ctx_free(ctx);
	return f;
}

static const splitzip_encoding k_encs[] = {SPLITZIP_ENCODING_SPLIT4, SPLITZIP_ENCODING_ENTROPY,
                                           SPLITZIP_ENCODING_AUTO};

/* ---- Tests -------------------------------------------------------------------------------- */

/* Every dtype x encoding x checksum x size x chunk size, KV-like data with escapes, decoded at
 * an aligned and an odd output address, under the schedules; every mode is seen. */
template <int W> static void test_dtype_roundtrip()
{
	const size_t sizes[] = {0, 1, 63, 64, 65, 255, 257, 1000, 3000, 70000};
	const size_t n_sizes = g_quick ? 8 : sizeof sizes / sizeof sizes[0];
	unsigned modes[3] = {0, 0, 0};
	unsigned runs = 0;
	for (unsigned dtype : k_dtypes)
		for (splitzip_encoding enc : k_encs)
			for (size_t si = 0; si < n_sizes; si++)
				for (unsigned ck = 0; ck < 2; ck++) {
					if (enc == SPLITZIP_ENCODING_SPLIT4 &&
					    dtype == SPLITZIP_DTYPE_FP8_E4M3)
						continue;
					const unsigned log2 = sizes[si] > 65536 ? 16 : 10;
					const std::vector<uint8_t> el =
					    kv_like(dtype, sizes[si], si % 2 ? 50 : 400);
					const std::vector<uint8_t> f =
					    host_encode(dtype, el, enc, log2, ck != 0);
					CHECK(!f.empty(), "host encode dtype %u", dtype);
					if (f.empty())
						continue;
					modes[f[6] % 3]++;
					char what[96];
					snprintf(what, sizeof what, "dtype %u mode %u n %zu ck %u",
					         dtype, f[6], sizes[si], ck);
					const sz_test_schedule &s = k_scheds[runs++ % 3];
					agree<W>(f, el.size(), 0, s, what);
					agree<W>(f, el.size() + 3, 1, s, what);
					const dec_out g = gpu_decode<W>(f, el.size(), 0, s);
					CHECK(
					    g.status != SPLITZIP_OK ||
					        sz_same_bytes(g.bytes.data(), el.data(), el.size()),
					    "%s: not the input", what);
				}
	CHECK(modes[0] && modes[1] && modes[2], "modes seen: stored %u split4 %u entropy %u",
	      modes[0], modes[1], modes[2]);
}

/* Every 8- and 16-bit pattern (FP32: specials and random) in every encoding. */
template <int W> static void test_dtype_all_patterns()
{
	for (unsigned dtype : k_dtypes)
		for (splitzip_encoding enc : k_encs) {
			if (enc == SPLITZIP_ENCODING_SPLIT4 && dtype == SPLITZIP_DTYPE_FP8_E4M3)
				continue;
			const std::vector<uint8_t> el = all_patterns(dtype, g_quick ? 1 : 3);
			for (unsigned ck = 0; ck < 2; ck++) {
				const std::vector<uint8_t> f =
				    host_encode(dtype, el, enc, 12, ck != 0);
				char what[64];
				snprintf(what, sizeof what, "all patterns dtype %u enc %d", dtype,
				         (int)enc);
				agree<W>(f, el.size(), ck, k_scheds[ck], what);
			}
		}
}

/* Argument and size statuses: a byte less of output, no output, truncated inputs, short
 * inputs, an input that is not a frame. */
template <int W> static void test_dtype_sizes()
{
	for (unsigned dtype : k_dtypes) {
		const std::vector<uint8_t> el = kv_like(dtype, 3000, 100);
		const std::vector<uint8_t> f =
		    host_encode(dtype, el, SPLITZIP_ENCODING_AUTO, 10, true);
		const sz_test_schedule &s = k_scheds[0];
		agree<W>(f, el.size() - 1, 0, s, "one byte less");
		agree<W>(f, 0, 0, s, "no room");
		const dec_out g = gpu_decode<W>(f, el.size(), 0, s, true);
		CHECK(g.status == SPLITZIP_ERROR_INVALID_ARGUMENT, "no output: %d", g.status);
		for (size_t cut :
		     {(size_t)0, (size_t)3, (size_t)63, (size_t)64, f.size() / 2, f.size() - 1}) {
			std::vector<uint8_t> t(f.begin(), f.begin() + (long)cut);
			agree<W>(t, el.size(), 0, s, "truncated");
		}
		std::vector<uint8_t> junk(f);
		junk[0] ^= 0x40;
		agree<W>(junk, el.size(), 0, s, "bad magic");
	}
}

/*
 * Random damage to valid frames of every dtype and mode (bytes of the body, of the header,
 * bits of the sections): the kernels give the host's status, and its bytes when it decodes.
 */
template <int W> static void test_dtype_mutations()
{
	const unsigned per = g_quick ? 20 : 120;
	unsigned n_ok = 0, n_bad = 0, runs = 0;
	for (unsigned dtype : k_dtypes)
		for (splitzip_encoding enc : k_encs) {
			if (enc == SPLITZIP_ENCODING_SPLIT4 && dtype == SPLITZIP_DTYPE_FP8_E4M3)
				continue;
			const std::vector<uint8_t> el = kv_like(dtype, 2500 + 37 * dtype, 60);
			for (unsigned ck = 0; ck < 2; ck++) {
				const std::vector<uint8_t> f =
				    host_encode(dtype, el, enc, 10, ck != 0);
				for (unsigned m = 0; m < per && f.size() > 64; m++) {
					std::vector<uint8_t> g(f);
					const uint64_t r = rnd();
					const size_t at =
					    r % 8 == 0 ? (size_t)(r >> 8) % 64
					               : 64 + (size_t)(r >> 8) % (g.size() - 64);
					if (r % 3 == 0)
						g[at] = (uint8_t)(r >> 40);
					else
						g[at] ^= (uint8_t)(1u << ((r >> 40) % 8));
					const bool ok =
					    agree<W>(g, el.size(), (unsigned)(r >> 50) % 3,
					             k_scheds[runs++ % 3], "mutation");
					(host_decode(g, el.size()).status == SPLITZIP_OK ? n_ok
					                                                 : n_bad)++;
					(void)ok;
				}
			}
		}
	CHECK(n_bad > n_ok, "mutations: %u decoded, %u rejected", n_ok, n_bad);
}

/* The golden frames of every dtype (tests/vectors/dtypes): valid ones decode to their
 * elements, invalid ones give their status, as the host does. */
template <int W> static void test_dtype_vectors()
{
	const char *root = getenv("SZ_VECTORS_DIR");
	unsigned seen = 0;
	for (const char *kind : {"valid", "invalid"}) {
		const std::string dir =
		    std::string(root ? root : "tests/vectors") + "/dtypes/" + kind;
		DIR *d = opendir(dir.c_str());
		CHECK(d != nullptr, "no vectors at %s (SZ_VECTORS_DIR)", dir.c_str());
		if (!d)
			continue;
		for (struct dirent *e; (e = readdir(d));) {
			const std::string name = e->d_name;
			if (name.size() < 4 || name.compare(name.size() - 3, 3, ".sz"))
				continue;
			size_t size = 0;
			uint8_t *p =
			    (uint8_t *)sz_test_read_file((dir + "/" + name).c_str(), &size);
			CHECK(p != nullptr, "read %s", name.c_str());
			if (!p)
				continue;
			std::vector<uint8_t> f(p, p + size);
			free(p);
			const size_t cap = 4 * 70000 + 64;
			agree<W>(f, cap, seen % 2, k_scheds[seen % 3], name.c_str());
			seen++;
		}
		closedir(d);
	}
	CHECK(seen >= 90, "only %u vectors", seen);
}

/* A batch of frames of every dtype through the device arrays, one of them damaged and one
 * without room: each frame's status and bytes are its own. */
template <int W> static void test_dtype_batch()
{
	std::vector<std::vector<uint8_t>> frames, els;
	for (unsigned dtype : k_dtypes)
		for (splitzip_encoding enc : {SPLITZIP_ENCODING_ENTROPY, SPLITZIP_ENCODING_AUTO}) {
			els.push_back(kv_like(dtype, 1500 + 500 * dtype, 80));
			frames.push_back(host_encode(dtype, els.back(), enc, 10, true));
		}
	frames[3][frames[3].size() - 20] ^= 0x11;
	const size_t nf = frames.size();
	std::vector<const void *> srcs(nf);
	std::vector<void *> dsts(nf);
	std::vector<size_t> sizes(nf), caps(nf), n(nf, 99);
	std::vector<int32_t> st(nf, -1);
	std::vector<std::vector<uint8_t>> outs(nf);
	size_t max = 0;
	for (size_t i = 0; i < nf; i++) {
		srcs[i] = frames[i].data();
		sizes[i] = frames[i].size();
		caps[i] = els[i].size() - (i == 5 ? 1 : 0);
		outs[i].assign(caps[i] + 1, 0xEE);
		dsts[i] = outs[i].data() + 1;
		max = caps[i] > max ? caps[i] : max;
	}
	std::vector<uint8_t> ws(SZ_GPU_DEC_WS_STRIDE * nf, 0x77);
	sz_gpu_dt_dec a;
	memset(&a, 0, sizeof a);
	a.frames.srcs = srcs.data();
	a.frames.src_sizes = sizes.data();
	a.frames.dsts = dsts.data();
	a.frames.dst_caps = caps.data();
	a.frames.out_elems = n.data();
	a.frames.statuses = st.data();
	a.ws = ws.data();
	for (const sz_test_schedule &s : k_scheds) {
		sz_test_launcher lc{W, s};
		sz_gpu_dt_decompress<W>(lc, a, nf, max);
		CHECK(!lc.failed, "harness: %s %s", sz_simt_code_name(lc.first.code), lc.first.msg);
		for (size_t i = 0; i < nf; i++) {
			const dec_out h = host_decode(frames[i], caps[i]);
			CHECK(st[i] == h.status, "frame %zu: %d, host %d", i, st[i], h.status);
			CHECK(h.status != SPLITZIP_OK ||
			          (n[i] == h.n &&
			           sz_same_bytes(outs[i].data() + 1, h.bytes.data(), caps[i])),
			      "frame %zu: elements", i);
		}
	}
	CHECK(st[3] == SPLITZIP_ERROR_CORRUPT_STREAM || st[3] == SPLITZIP_ERROR_CONTENT_CHECKSUM,
	      "damaged frame: %d", st[3]);
	CHECK(st[5] == SPLITZIP_ERROR_DST_TOO_SMALL, "frame without room: %d", st[5]);
	CHECK(st[0] == SPLITZIP_OK && st[9] == SPLITZIP_OK, "good frames: %d %d", st[0], st[9]);
}

int main(int argc, char **argv)
{
	static const sz_simt_test tests[] = {
	    SZ_SIMT_TEST(test_dtype_roundtrip), SZ_SIMT_TEST(test_dtype_all_patterns),
	    SZ_SIMT_TEST(test_dtype_sizes),     SZ_SIMT_TEST(test_dtype_mutations),
	    SZ_SIMT_TEST(test_dtype_vectors),   SZ_SIMT_TEST(test_dtype_batch),
	};
	return sz_simt_run_tests(tests, sizeof tests / sizeof tests[0], argc, argv);
}
