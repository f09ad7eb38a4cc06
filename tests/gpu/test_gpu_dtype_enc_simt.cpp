/*
 * test_gpu_dtype_enc_simt.cpp -- the GPU encoder of the dtypes FP8 E4M3, FP8 E5M2, FP16 and
 * FP32 (backends/gpu/sz_gpu_dtype_enc.cuh), run on the CPU through the SIMT harness at warp
 * size 32 and 64, against the host encoder (splitzip_compress_dtype on a scalar context):
 * the same status and the same frame byte for byte, nothing written past the frame (nor
 * anything on an error), and every frame decoded back by the host decoder.
 *
 * Usage: test_gpu_dtype_enc_simt [--quick] [TEST...]   (--list prints the test names)
 * Environment: SZ_NATIVEKV_DIR, a folder with the real K/V tensors in their native dtypes
 * (llama2-7b-chat_L10_K.f16, gpt2-124m_allL_V.f32, ...: the nativekv data set); the test that
 * reads them says so and does nothing without it.
 */
#include "sz_simt_compat.h"

#include "sz_gpu_driver.cuh"
#include "sz_gpu_dtype_enc.cuh"
#include "gpu_simt_launcher.h"
#include "sz_simt_testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

/* ---- Configurations and data --------------------------------------------------------------- */

struct cfg {
	unsigned dtype = SPLITZIP_DTYPE_FP16;
	unsigned log2 = 10;
	unsigned flags = 0;
	splitzip_encoding enc = SPLITZIP_ENCODING_ENTROPY;
	bool cb_fixed = false;
	uint8_t cb[16] = {};
	bool tb_fixed = false;
	splitzip_entropy_table tb{};
};

/* Whether n bytes at a and b are equal (memcmp is undefined for the NULL of an empty vector,
 * even with n = 0). */
static bool sz_same_bytes(const void *a, const void *b, size_t n)
{
	return n == 0 || memcmp(a, b, n) == 0;
}

static const sz_test_schedule k_sched = {
    SZ_SIMT_LANES_FORWARD, SZ_SIMT_BLOCKS_INCREASING, 0, 0xA5, 6, 1};
static const sz_test_schedule k_scheds[] = {
    {SZ_SIMT_LANES_REVERSE, SZ_SIMT_BLOCKS_REVERSED, 0, 0x00, 5, 5},
    {SZ_SIMT_LANES_SEEDED, SZ_SIMT_BLOCKS_SHUFFLED, 7, 0xFF, 7, 3},
    {SZ_SIMT_LANES_SEEDED, SZ_SIMT_BLOCKS_INCREASING, 3, 0x11, 64, 2},
};

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd()
{
	g_rng ^= g_rng << 13;
	g_rng ^= g_rng >> 7;
	g_rng ^= g_rng << 17;
	return (uint32_t)(g_rng >> 11);
}

static unsigned width_of(unsigned dtype)
{
	return (unsigned)splitzip_dtype_width(dtype);
}

static void put_elem(std::vector<uint8_t> &v, size_t i, unsigned w, uint32_t x)
{
	for (unsigned k = 0; k < w; k++)
		v[w * i + k] = (uint8_t)(x >> (8 * k));
}

/* An element of 'dtype' with exponent x and random other bits. */
static uint32_t with_exponent(unsigned dtype, unsigned x)
{
	const uint32_t r = rnd() ^ (rnd() << 16);
	switch (dtype) {
	case SPLITZIP_DTYPE_FP8_E4M3:
		return (r & 0x87u) | (x << 3);
	case SPLITZIP_DTYPE_FP8_E5M2:
		return (r & 0x83u) | (x << 2);
	case SPLITZIP_DTYPE_FP16:
		return (r & 0x83FFu) | (x << 10);
	default:
		return (r & 0x807FFFFFu) | (x << 23);
	}
}

/*
 * n elements statistically like a KV cache: exponents around a centre (a rounded normal of
 * spread 'sd' exponents, so their order-0 entropy is near the 2.6-3 bits of real tensors),
 * 1 in 'outl' of them (0: none) anywhere in the dtype's range, sign and mantissa random.
 */
static std::vector<uint8_t> kv_like(unsigned dtype, size_t n, double sd, unsigned outl)
{
	const unsigned e = dtype == SPLITZIP_DTYPE_FP8_E4M3 ? 4
	                   : dtype == SPLITZIP_DTYPE_FP32   ? 8
	                                                    : 5;
	const int top = (1 << e) - 1, centre = e == 8 ? 122 : e == 5 ? 13 : 6;
	std::vector<uint8_t> v(width_of(dtype) * n);
	for (size_t i = 0; i < n; i++) {
		double s = 0; /* Irwin-Hall: a normal of variance 1 */
		for (int k = 0; k < 12; k++)
			s += (double)(rnd() & 0xFFFF) / 65536.0;
		int x = centre + (int)(sd * (s - 6.0) + (s >= 6.0 ? 0.5 : -0.5));
		if (outl && rnd() % outl == 0)
			x = (int)(rnd() % (unsigned)(top + 1));
		x = x < 0 ? 0 : x > top ? top : x;
		put_elem(v, i, width_of(dtype), with_exponent(dtype, (unsigned)x));
	}
	return v;
}

static std::vector<uint8_t> random_bytes(size_t bytes)
{
	std::vector<uint8_t> v(bytes);
	for (size_t i = 0; i < bytes; i++)
		v[i] = (uint8_t)rnd();
	return v;
}

/* ---- The oracle and the GPU ---------------------------------------------------------------- */

static splitzip_ctx *oracle_ctx(const cfg &c)
{
	splitzip_params q;
	splitzip_params_init(&q);
	q.backend = SPLITZIP_BACKEND_SCALAR;
	q.chunk_log2 = c.log2;
	q.flags = c.flags;
	q.n_threads = 1;
	q.encoding = c.enc;
	if (c.cb_fixed) {
		q.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		memcpy(q.codebook.exponents, c.cb, 16);
	}
	if (c.tb_fixed) {
		q.table_mode = SPLITZIP_CODEBOOK_FIXED;
		q.table = c.tb;
	}
	splitzip_ctx *ctx = nullptr;
	if (splitzip_ctx_create(&q, &ctx) != SPLITZIP_OK) {
		fprintf(stderr, "cannot create the scalar oracle context\n");
		exit(2);
	}
	return ctx;
}

struct result {
	int32_t status = -1;
	std::vector<uint8_t> frame;
};

static result oracle(const cfg &c, const std::vector<uint8_t> &in, size_t n, size_t cap)
{
	splitzip_ctx *ctx = oracle_ctx(c);
	result r;
	r.frame.assign(cap ? cap : 1, 0);
	size_t size = 0;
	r.status = splitzip_compress_dtype(ctx, c.dtype, in.data(), n, r.frame.data(), cap, &size);
	r.frame.resize(r.status == SPLITZIP_OK ? size : 0);
	splitzip_ctx_free(ctx);
	return r;
}

/* The arguments of a frame of c (its frames and workspace left to the caller). */
static sz_gpu_dt_enc gpu_args(const cfg &c)
{
	sz_gpu_dt_enc a;
	memset(&a, 0, sizeof a);
	a.dtype = c.dtype;
	a.chunk_log2 = c.log2;
	a.flags = c.flags;
	a.encoding = (uint32_t)c.enc;
	a.split4.from_input = !c.cb_fixed;
	memcpy(a.split4.codebook, c.cb, 16);
	a.entropy.from_input = !c.tb_fixed;
	memcpy(a.entropy.table, c.tb.lengths, 256);
	a.entropy.table[SPLITZIP_ENTROPY_ESC] = c.tb.escape_length;
	return a;
}

/* An exact-size heap buffer at offset 'off' of a 16-byte aligned one, filled. */
struct dbuf {
	uint8_t *base;
	uint8_t *p;
	size_t n;
	dbuf(size_t size, unsigned off, int fill)
	    : base((uint8_t *)aligned_alloc(16, (size + off + 16) / 16 * 16)), p(base + off),
	      n(size)
	{
		memset(base, fill, (size + off + 16) / 16 * 16);
	}
	~dbuf()
	{
		free(base);
	}
	dbuf(const dbuf &) = delete;
	dbuf &operator=(const dbuf &) = delete;
};

/* One frame by the GPU kernels; off: the misalignment of input and output. */
template <int W>
static result gpu(const cfg &c, const std::vector<uint8_t> &in, size_t n, size_t cap,
                  const sz_test_schedule &s = k_sched, unsigned off = 0)
{
	const unsigned w = width_of(c.dtype);
	dbuf src(w * n, off, 0x5A), dst(cap, off, 0xEE);
	if (n)
		memcpy(src.p, in.data(), w * n);
	dbuf ws(sz_gpu_dt_workspace_size(1, n, c.log2), 0, s.fill);
	size_t size = 7;
	int32_t status = -1;
	sz_gpu_dt_enc a = gpu_args(c);
	a.frames.one.src = n ? src.p : nullptr;
	a.frames.one.n = n;
	a.frames.one.dst = dst.p;
	a.frames.one.cap = cap;
	a.frames.out_sizes = &size;
	a.frames.statuses = &status;
	a.ws = ws.p;
	a.max_elems = n;
	sz_test_launcher lc{W, s};
	sz_gpu_dt_compress<W>(lc, a, 1);
	CHECK(!lc.failed, "harness: %s", lc.first.msg);
	result r;
	r.status = status;
	if (status == SPLITZIP_OK) {
		CHECK(size <= cap, "size %zu > cap %zu", size, cap);
		r.frame.assign(dst.p, dst.p + (size <= cap ? size : cap));
	} else {
		CHECK(size == 0, "size %zu on status %d", size, status);
	}
	for (size_t i = r.frame.size(); i < cap; i++)
		if (dst.p[i] != 0xEE) {
			CHECK(false, "byte %zu of %zu past the frame (%zu bytes) written", i, cap,
			      r.frame.size());
			break;
		}
	return r;
}

static std::string describe(const cfg &c, size_t n)
{
	char b[160];
	snprintf(b, sizeof b, "%s n=%zu L=%u enc=%d cb=%s tb=%s flags=%u",
	         splitzip_dtype_name(c.dtype), n, c.log2, (int)c.enc,
	         c.cb_fixed ? "fixed" : "input", c.tb_fixed ? "fixed" : "input", c.flags);
	return b;
}

/* The host decoder gives the input back from frame f. */
static void check_roundtrip(const cfg &c, const std::vector<uint8_t> &in, size_t n,
                            const std::vector<uint8_t> &f)
{
	splitzip_ctx *ctx = oracle_ctx(c);
	const unsigned w = width_of(c.dtype);
	std::vector<uint8_t> out(w * n + 1, 0x33);
	size_t got = 0;
	const splitzip_status st =
	    splitzip_decompress_dtype(ctx, f.data(), f.size(), out.data(), w * n, &got);
	CHECK(st == SPLITZIP_OK && got == n && sz_same_bytes(out.data(), in.data(), w * n),
	      "%s: host decoder %s, %zu elements", describe(c, n).c_str(),
	      splitzip_error_string(st), got);
	splitzip_ctx_free(ctx);
}

/* GPU and host agree on (c, in[0, n)) at capacity 'cap' (0: the bound); the frame decodes. */
template <int W>
static bool same(const cfg &c, const std::vector<uint8_t> &in, size_t n, size_t cap = 0,
                 const sz_test_schedule &s = k_sched, unsigned off = 0)
{
	if (!cap)
		cap = splitzip_compress_bound_dtype(c.dtype, n);
	const result h = oracle(c, in, n, cap);
	const result g = gpu<W>(c, in, n, cap, s, off);
	bool ok = h.status == g.status && h.frame == g.frame;
	size_t at = 0;
	while (at < h.frame.size() && at < g.frame.size() && h.frame[at] == g.frame[at])
		at++;
	CHECK(ok,
	      "%s cap=%zu: host %d (%zu bytes, mode %d), gpu %d (%zu bytes, mode %d), first "
	      "difference at byte %zu",
	      describe(c, n).c_str(), cap, h.status, h.frame.size(),
	      h.frame.size() > 6 ? h.frame[6] : -1, g.status, g.frame.size(),
	      g.frame.size() > 6 ? g.frame[6] : -1, at);
	if (ok && g.status == SPLITZIP_OK)
		check_roundtrip(c, in, n, g.frame);
	return ok;
}

/* The mode of a frame (header byte 6). */
static int mode_of(const cfg &c, const std::vector<uint8_t> &in, size_t n)
{
	const result h = oracle(c, in, n, splitzip_compress_bound_dtype(c.dtype, n));
	return h.status == SPLITZIP_OK ? h.frame[6] : -1;
}

static const unsigned k_dtypes[] = {SPLITZIP_DTYPE_FP8_E4M3, SPLITZIP_DTYPE_FP8_E5M2,
                                    SPLITZIP_DTYPE_FP16, SPLITZIP_DTYPE_FP32};
static const splitzip_encoding k_encs[] = {SPLITZIP_ENCODING_SPLIT4, SPLITZIP_ENCODING_ENTROPY,
                                           SPLITZIP_ENCODING_AUTO};

/* A codebook and a table valid for the dtype, calibrated on other data of the same kind (so
 * that the frames have escapes): the histogram of a kv_like sample, narrowed. */
static void fixed_tables(cfg &c)
{
	const std::vector<uint8_t> s = kv_like(c.dtype, 4000, 0.8, 0);
	uint64_t hist[256] = {0};
	splitzip_histogram_dtype(c.dtype, s.data(), 4000, hist);
	splitzip_codebook cb;
	splitzip_codebook_from_histogram(hist, &cb);
	memcpy(c.cb, cb.exponents, 16);
	splitzip_entropy_table_from_histogram(hist, &c.tb);
	c.cb_fixed = c.tb_fixed = true;
}

/* ---- Tests --------------------------------------------------------------------------------- */

/* Every dtype x encoding x codebook/table source x checksum x size, both chunk sizes. */
template <int W> static void test_dtype_enc_sizes()
{
	const size_t sizes10[] = {0, 1, 63, 64, 65, 1000, 3 * 1024 + 17, 4096};
	const size_t sizes16[] = {1, 1000, 65536 + 4000};
	for (unsigned dt : k_dtypes)
		for (splitzip_encoding enc : k_encs) {
			if (dt == SPLITZIP_DTYPE_FP8_E4M3 && enc == SPLITZIP_ENCODING_SPLIT4)
				continue;
			for (unsigned variant = 0; variant < 4; variant++) {
				cfg c;
				c.dtype = dt;
				c.enc = enc;
				c.flags = variant & 1 ? SPLITZIP_FLAG_CONTENT_CHECKSUM : 0;
				if (variant & 2)
					fixed_tables(c);
				const std::vector<uint8_t> in = kv_like(dt, 65536 + 4000, 1.2, 300);
				c.log2 = 10;
				for (size_t n : sizes10)
					same<W>(c, in, n);
				if (g_quick)
					continue;
				c.log2 = 16;
				for (size_t n : sizes16)
					same<W>(c, in, n);
			}
		}
}

/* Every 8-bit pattern (FP8) and every 16-bit pattern (FP16; FP32 as the high half), in order
 * and shuffled; random bytes; a few values only. */
template <int W> static void test_dtype_enc_patterns()
{
	for (unsigned dt : k_dtypes) {
		const unsigned w = width_of(dt);
		const size_t n = w == 1 ? 4096 : 65536;
		std::vector<uint8_t> ordered(w * n), shuffled;
		for (size_t i = 0; i < n; i++)
			put_elem(ordered, i, w, w == 4 ? (uint32_t)i << 16 | (rnd() & 0xFFFF) : i);
		shuffled = ordered;
		for (size_t i = n - 1; i > 0; i--) {
			const size_t j = rnd() % (i + 1);
			for (unsigned k = 0; k < w; k++)
				std::swap(shuffled[w * i + k], shuffled[w * j + k]);
		}
		std::vector<uint8_t> few = kv_like(dt, n, 0.0, 0);
		const std::vector<uint8_t> rb = random_bytes(w * n);
		for (splitzip_encoding enc : k_encs) {
			if (dt == SPLITZIP_DTYPE_FP8_E4M3 && enc == SPLITZIP_ENCODING_SPLIT4)
				continue;
			cfg c;
			c.dtype = dt;
			c.enc = enc;
			c.log2 = 12;
			c.flags = SPLITZIP_FLAG_CONTENT_CHECKSUM;
			same<W>(c, ordered, n);
			same<W>(c, shuffled, n);
			same<W>(c, few, n);
			same<W>(c, rb, g_quick && n > 5000 ? 5000 : n);
			fixed_tables(c);
			same<W>(c, shuffled, n);
			same<W>(c, rb, n > 5000 ? 5000 : n);
		}
	}
}

/* Every mode is reached: the host's choice for these inputs covers stored, split4 and entropy
 * for every dtype that has them (so the comparisons above are not all of stored frames). */
template <int W> static void test_dtype_enc_modes()
{
	for (unsigned dt : k_dtypes) {
		bool seen[3] = {false, false, false};
		const std::vector<uint8_t> kv = kv_like(dt, 20000, 1.2, 300);
		const std::vector<uint8_t> rb = random_bytes(width_of(dt) * 20000);
		const std::vector<uint8_t> *ins[2] = {&kv, &rb};
		for (splitzip_encoding enc : k_encs)
			for (const std::vector<uint8_t> *in : ins) {
				if (dt == SPLITZIP_DTYPE_FP8_E4M3 &&
				    enc == SPLITZIP_ENCODING_SPLIT4)
					continue;
				cfg c;
				c.dtype = dt;
				c.enc = enc;
				c.log2 = 14;
				const int m = mode_of(c, *in, 20000);
				if (m >= 0 && m < 3)
					seen[m] = true;
				same<W>(c, *in, 20000);
			}
		CHECK(seen[0] && seen[2] && (seen[1] || dt == SPLITZIP_DTYPE_FP8_E4M3),
		      "%s: modes seen %d %d %d", splitzip_dtype_name(dt), seen[0], seen[1],
		      seen[2]);
	}
}

/* DST_TOO_SMALL one byte below the host's frame, OK at its size, for every mode; and the
 * fixed codebook or table that is not valid for the dtype is refused by the host check the
 * device API runs (splitzip_dtype_fixed_ok through splitzip_compress_dtype). */
template <int W> static void test_dtype_enc_capacity()
{
	for (unsigned dt : k_dtypes)
		for (splitzip_encoding enc : k_encs) {
			if (dt == SPLITZIP_DTYPE_FP8_E4M3 && enc == SPLITZIP_ENCODING_SPLIT4)
				continue;
			cfg c;
			c.dtype = dt;
			c.enc = enc;
			c.flags = SPLITZIP_FLAG_CONTENT_CHECKSUM;
			const size_t ns[] = {0, 100, 5000};
			for (size_t n : ns) {
				const std::vector<uint8_t> in = kv_like(dt, n, 1.0, 100);
				const result h =
				    oracle(c, in, n, splitzip_compress_bound_dtype(dt, n));
				CHECK(h.status == SPLITZIP_OK, "host %d", h.status);
				const size_t size = h.frame.size();
				same<W>(c, in, n, size);
				if (size > 1) {
					same<W>(c, in, n, size - 1);
					same<W>(c, in, n, 1);
				}
			}
		}
}

/* Several schedules (lane and block orders, fill bytes of the workspace, resident blocks) and
 * misaligned inputs and outputs give the same frames. */
template <int W> static void test_dtype_enc_schedules()
{
	for (unsigned dt : k_dtypes)
		for (splitzip_encoding enc : k_encs) {
			if (dt == SPLITZIP_DTYPE_FP8_E4M3 && enc == SPLITZIP_ENCODING_SPLIT4)
				continue;
			cfg c;
			c.dtype = dt;
			c.enc = enc;
			c.log2 = 10;
			c.flags = SPLITZIP_FLAG_CONTENT_CHECKSUM;
			const size_t n = 40 * 1024 + 333;
			const std::vector<uint8_t> in = kv_like(dt, n, 1.3, 200);
			for (const sz_test_schedule &s : k_scheds)
				same<W>(c, in, n, 0, s);
			same<W>(c, in, n, 0, k_sched, 3);
			same<W>(c, in, n, 0, k_sched, 1);
		}
}

/* A batch through the device arrays: frames of several sizes, one with more elements than
 * max_elems (INVALID_ARGUMENT), one too small a destination; each frame as alone. */
template <int W> static void test_dtype_enc_batch()
{
	const unsigned dt = SPLITZIP_DTYPE_FP16, w = 2;
	const size_t ns[] = {3000, 0, 20000, 777, 30000, 20000};
	const size_t nf = sizeof ns / sizeof ns[0], max = 20000;
	cfg c;
	c.dtype = dt;
	c.enc = SPLITZIP_ENCODING_AUTO;
	c.log2 = 11;
	c.flags = SPLITZIP_FLAG_CONTENT_CHECKSUM;
	std::vector<std::vector<uint8_t>> ins, outs;
	std::vector<const void *> srcs(nf);
	std::vector<void *> dsts(nf);
	std::vector<size_t> n_elems(nf), caps(nf), sizes(nf, 9);
	std::vector<int32_t> sts(nf, -1);
	for (size_t i = 0; i < nf; i++) {
		ins.push_back(kv_like(dt, ns[i], i == 3 ? 8.0 : 1.1, 400));
		outs.emplace_back(splitzip_compress_bound_dtype(dt, ns[i]) + 16, 0xEE);
		srcs[i] = ins[i].data();
		dsts[i] = outs[i].data();
		n_elems[i] = ns[i];
		caps[i] = i == 5 ? 100 : splitzip_compress_bound_dtype(dt, ns[i]);
	}
	std::vector<uint8_t> ws(sz_gpu_dt_workspace_size(nf, max, c.log2), 0x77);
	sz_gpu_dt_enc a = gpu_args(c);
	a.frames.srcs = srcs.data();
	a.frames.n_elems = n_elems.data();
	a.frames.dsts = dsts.data();
	a.frames.dst_caps = caps.data();
	a.frames.out_sizes = sizes.data();
	a.frames.statuses = sts.data();
	a.ws = ws.data();
	a.max_elems = max;
	sz_test_launcher lc{W, k_sched};
	sz_gpu_dt_compress<W>(lc, a, nf);
	CHECK(!lc.failed, "harness: %s", lc.first.msg);
	for (size_t i = 0; i < nf; i++) {
		if (ns[i] > max) {
			CHECK(sts[i] == SPLITZIP_ERROR_INVALID_ARGUMENT && sizes[i] == 0,
			      "frame %zu: %d", i, sts[i]);
			continue;
		}
		const result h = oracle(c, ins[i], ns[i], caps[i]);
		const bool ok = sts[i] == h.status &&
		                (h.status != SPLITZIP_OK ||
		                 (sizes[i] == h.frame.size() &&
		                  sz_same_bytes(outs[i].data(), h.frame.data(), h.frame.size())));
		CHECK(ok, "frame %zu (n=%zu): host %d (%zu bytes), gpu %d (%zu bytes)", i, ns[i],
		      h.status, h.frame.size(), sts[i], sizes[i]);
		(void)w;
	}
}

/* Real K/V tensors in their native dtypes (FP16, FP32) and FP8 E5M2 made from the FP16 ones
 * with scale 1.0 (round to nearest even into the top byte, saturating at 57344), whole. */
static bool read_file(const std::string &path, std::vector<uint8_t> &out)
{
	FILE *f = fopen(path.c_str(), "rb");
	if (!f)
		return false;
	out.clear();
	uint8_t b[65536];
	size_t k;
	while ((k = fread(b, 1, sizeof b, f)) > 0)
		out.insert(out.end(), b, b + k);
	fclose(f);
	return true;
}

static uint8_t fp16_to_e5m2(uint16_t h)
{
	if ((h & 0x7C00) == 0x7C00) /* infinity or NaN: keep its class */
		return (uint8_t)(h >> 8 | ((h & 0xFF) ? 0x02 : 0));
	uint32_t m = h & 0x7FFF;
	const uint32_t low = m & 0xFF, hi = m >> 8;
	uint32_t r = hi + (low > 0x80 || (low == 0x80 && (hi & 1)));
	if (r > 0x7B)
		r = 0x7B; /* saturate at the largest finite value */
	return (uint8_t)(r | ((h >> 8) & 0x80));
}

template <int W> static void test_dtype_enc_real_kv()
{
	const char *dir = getenv("SZ_NATIVEKV_DIR");
	if (!dir || !*dir) {
		printf("     SZ_NATIVEKV_DIR not set: no real tensors\n");
		return;
	}
	const char *files[] = {"llama2-7b-chat_L10_K.f16", "llama3-8b-instruct_L10_V.f16",
	                       "gpt2-124m_allL_K.f32"};
	for (const char *name : files) {
		std::vector<uint8_t> raw;
		const bool got = read_file(std::string(dir) + "/" + name, raw);
		CHECK(got, "cannot read %s/%s", dir, name);
		if (!got)
			continue;
		const bool f32 = strstr(name, ".f32") != nullptr;
		std::vector<std::pair<unsigned, std::vector<uint8_t>>> sets;
		sets.push_back({f32 ? SPLITZIP_DTYPE_FP32 : SPLITZIP_DTYPE_FP16, raw});
		if (!f32) {
			std::vector<uint8_t> e(raw.size() / 2);
			for (size_t i = 0; i < e.size(); i++)
				e[i] = fp16_to_e5m2((uint16_t)(raw[2 * i] | raw[2 * i + 1] << 8));
			sets.push_back({SPLITZIP_DTYPE_FP8_E5M2, e});
		}
		for (auto &s : sets) {
			size_t n = s.second.size() / width_of(s.first);
			if (g_quick && n > 70000)
				n = 70000;
			for (splitzip_encoding enc : k_encs) {
				cfg c;
				c.dtype = s.first;
				c.enc = enc;
				c.log2 = enc == SPLITZIP_ENCODING_SPLIT4 ? 12 : 14;
				c.flags = SPLITZIP_FLAG_CONTENT_CHECKSUM;
				same<W>(c, s.second, n);
			}
		}
	}
}

static const sz_simt_test k_tests[] = {
    SZ_SIMT_TEST(test_dtype_enc_sizes),     SZ_SIMT_TEST(test_dtype_enc_patterns),
    SZ_SIMT_TEST(test_dtype_enc_modes),     SZ_SIMT_TEST(test_dtype_enc_capacity),
    SZ_SIMT_TEST(test_dtype_enc_schedules), SZ_SIMT_TEST(test_dtype_enc_batch),
    SZ_SIMT_TEST(test_dtype_enc_real_kv),
};

int main(int argc, char **argv)
{
	return sz_simt_run_tests(k_tests, sizeof(k_tests) / sizeof(k_tests[0]), argc, argv);
}
