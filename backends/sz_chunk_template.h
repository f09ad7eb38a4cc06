/*
 * sz_chunk_template.h -- the chunk loops of the SIMD encoders and decoders, written once for
 * every ISA: the choice of the encoder path, the head that aligns the output for streaming
 * stores, the main loop over whole blocks and the partial block at the end.
 *
 * A template in the manner of libdeflate's *_template.h: a backend defines its block kernels
 * (the instructions that really differ per ISA: split, code lookup, escape compaction, decode
 * interleave) and the parameters below, then includes this file. The inclusion defines static
 * functions whose names start with the prefix SZ_CHUNK_PREFIX, among them the kernel table
 * entries SZ_CHUNK_PREFIX##_encode_chunk and ##_decode_chunk (and ##_encode_chunk_stream and
 * ##_decode_chunk_stream with SZ_CHUNK_STREAM), compiled with the ISA flags of the including
 * translation unit; at the end the parameters are #undef'd, so a translation unit may include
 * the file again with other parameters.
 *
 * Parameters (all required unless marked):
 *   SZ_CHUNK_PREFIX    name prefix (avx2 gives avx2_encode_chunk, avx2_encode_impl, ...)
 *   SZ_CHUNK_VL        elements per block kernel call (AVX2, AVX-512: 64; NEON 32)
 *   SZ_CHUNK_STREAM    1: the ISA has non-temporal stores; the kernels' 'stream' argument says
 *                      to store the bulk of the output (the encoder's sign/mantissa bytes, the
 *                      decoded elements) with them, to a 64-byte aligned address, and
 *                      SZ_CHUNK_SFENCE() orders them; needs SZ_CHUNK_VL 64. 0: no _stream
 *                      entries (the backend uses its ordinary ones), 'stream' is always 0.
 *   SZ_CHUNK_SFENCE()  with SZ_CHUNK_STREAM only: the store fence after streaming stores
 *   SZ_CHUNK_WINDOW32  1: the encoder has the SZ_WINDOW32 path (codebooks spanning at most 32
 *                      exponent values); 0: such codebooks take SZ_ANY
 *   SZ_CHUNK_MASKED    1: the kernels do partial blocks themselves (masked loads and stores)
 *                      and append the escapes; 0: they take whole blocks, the template runs a
 *                      partial block through them on a zero-padded copy and appends the
 *                      escapes
 *   SZ_CHUNK_ESC_BITS  with SZ_CHUNK_MASKED 0 only: what the encode kernel returns, 1: bit j
 *                      set iff element j is an escape; 0: nonzero iff some element is
 *   SZ_ENC_CONSTS      the type of the encoder's constants
 *   SZ_ENC_INIT(k, t, path)     sets *k up for the tables t and the path
 *   SZ_DEC_CONSTS      the type of the decoder's constants
 *   SZ_DEC_INIT(k, thi, tlo)    sets *k up from the 16-entry tables thi[c] = codebook[c] >> 1
 *                               and tlo[c] = (codebook[c] & 1) << 7 (uint8_t[16] each)
 *   SZ_CNT_BLOCK_ADDS  the most a block kernel adds to one nibble counter (1 or 2): the
 *                      template flushes before a nibble could pass 15
 *   SZ_ENC_BLOCK, SZ_DEC_BLOCK  the block kernels, k a const pointer to the constants.
 *     With SZ_CHUNK_MASKED 1:
 *       size_t SZ_ENC_BLOCK(k, s, i0, codes, sm, esc_pos, esc_exp, n_esc, path, partial,
 *                           valid, stream, cs, acc, np)
 *         encodes the first 'valid' elements of the block at s (all SZ_CHUNK_VL of them
 *         unless 'partial'), chunk position i0: (valid + 1) / 2 code bytes (a zero nibble
 *         after an odd end) and 'valid' sign/mantissa bytes; appends its escapes at
 *         esc_pos/esc_exp + n_esc; with np > 0, adds the codes of its 'valid' elements to the
 *         byte counters *acc (cnt_add, tables in *cs); returns the new escape count.
 *       void SZ_DEC_BLOCK(k, codes, sm, dst, partial, valid, stream)
 *         decodes the first 'valid' elements of the block.
 *     With SZ_CHUNK_MASKED 0:
 *       uint64_t SZ_ENC_BLOCK(k, s, codes, sm, path, stream, cs, acc, np)
 *         encodes SZ_CHUNK_VL elements (with np > 0, adds their codes to *acc); returns the
 *         escapes as SZ_CHUNK_ESC_BITS says.
 *       void SZ_DEC_BLOCK(k, codes, sm, dst, stream)
 *         decodes SZ_CHUNK_VL elements.
 *     'path', 'stream' and 'np' (0: no counting, cs and acc unused) are compile-time
 *     constants in every call, so each kernel compiles to one specialised copy per (path,
 *     stream, np).
 *
 * The counter. encode_count_chunk (the frame driver's one-pass encode with a predicted
 * codebook) counts up to 8 watched codes as it encodes, with the code counter of
 * sz_watch_template.h, which the backend includes before this file: its cnt_state (the pair
 * tables and totals) and cnt_acc (the byte counters), set up by cnt_init, flushed by
 * cnt_flush and read by cnt_finish here, and added to by cnt_add in the block kernel. A block
 * costs one table lookup and one byte add per code vector and pair of watched codes, with no
 * branch; every 15 / SZ_CNT_BLOCK_ADDS blocks this template has the counters flushed into the
 * totals. Out of the cache the lookups mostly run in the shadow of the memory traffic: the
 * encode from the input takes 1.05-1.09x the fixed-codebook encode's time with AVX-512, but
 * 1.3x with AVX2, whose fixed encode is faster than memcpy (doc/BENCHMARKS.md, "One-pass
 * encode from the input: what it costs").
 */
#ifndef SZ_WATCH_TEMPLATE
#error "sz_chunk_template.h: include sz_watch_template.h first (the code counter)"
#endif
#if !defined(SZ_CHUNK_PREFIX) || !defined(SZ_CHUNK_VL) || !defined(SZ_CHUNK_STREAM) ||             \
    !defined(SZ_CHUNK_WINDOW32) || !defined(SZ_CHUNK_MASKED) || !defined(SZ_ENC_CONSTS) ||         \
    !defined(SZ_ENC_INIT) || !defined(SZ_DEC_CONSTS) || !defined(SZ_DEC_INIT) ||                   \
    !defined(SZ_ENC_BLOCK) || !defined(SZ_DEC_BLOCK) || !defined(SZ_CNT_BLOCK_ADDS)
#error "sz_chunk_template.h: a parameter is missing (see the list at the top)"
#endif
#if SZ_CHUNK_STREAM && (SZ_CHUNK_VL != 64 || !defined(SZ_CHUNK_SFENCE))
#error "sz_chunk_template.h: SZ_CHUNK_STREAM needs SZ_CHUNK_VL 64 and SZ_CHUNK_SFENCE"
#endif
#if !SZ_CHUNK_MASKED && !defined(SZ_CHUNK_ESC_BITS)
#error "sz_chunk_template.h: SZ_CHUNK_MASKED 0 needs SZ_CHUNK_ESC_BITS"
#endif

#include "sz_simd_common.h"

#define SZ_CN(name) SZ_PASTE(SZ_CHUNK_PREFIX, name)

/* ---- Encode -------------------------------------------------------------------------------- */

#if !SZ_CHUNK_MASKED
#if SZ_CHUNK_ESC_BITS
/* Append the escapes of mask m (element j of the block at s, chunk position i0) in order. */
static SZ_ALWAYS_INLINE size_t SZ_CN(emit_escapes)(const splitzip_enc_tables *t, uint64_t m,
                                                   const uint16_t *s, size_t len, size_t i0,
                                                   uint16_t *esc_pos, uint8_t *esc_exp, size_t k)
{
	(void)t;
	(void)len;
	while (m) {
		unsigned j = (unsigned)__builtin_ctzll(m);
		esc_pos[k] = (uint16_t)(i0 + j);
		esc_exp[k] = splitzip_bf16_exponent(s[j]);
		k++;
		m &= m - 1;
	}
	return k;
}
#else
/* Append the escapes among the first 'len' elements of the block at s (chunk position i0);
 * the kernel only said that there are some (m). */
static size_t SZ_CN(emit_escapes)(const splitzip_enc_tables *t, uint64_t m, const uint16_t *s,
                                  size_t len, size_t i0, uint16_t *esc_pos, uint8_t *esc_exp,
                                  size_t k)
{
	(void)m;
	for (size_t j = 0; j < len; j++) {
		uint8_t e = splitzip_bf16_exponent(s[j]);
		if (t->is_escape[e]) {
			esc_pos[k] = (uint16_t)(i0 + j);
			esc_exp[k] = e;
			k++;
		}
	}
	return k;
}
#endif
#endif

/* The counter of a chunk: the tables and totals, and the blocks added since the last flush. */
typedef struct SZ_CN(cnt_run) {
	cnt_state cs;
	unsigned pend;
} SZ_CN(cnt_run);

/* Before a block adds to the counter: flush it if the block could overflow a nibble. */
static SZ_ALWAYS_INLINE void SZ_CN(cnt_step)(SZ_CN(cnt_run) * r, cnt_acc *acc, const int np)
{
	if (np) {
		if (r->pend + SZ_CNT_BLOCK_ADDS > 15) {
			cnt_flush(&r->cs, acc, np);
			r->pend = 0;
		}
		r->pend += SZ_CNT_BLOCK_ADDS;
	}
}

/* Encode the whole block of elements i .. i + SZ_CHUNK_VL - 1 of the chunk. */
static SZ_ALWAYS_INLINE size_t SZ_CN(enc_block)(const SZ_ENC_CONSTS *k,
                                                const splitzip_enc_tables *t, const uint16_t *src,
                                                size_t i, uint8_t *codes, uint8_t *sm,
                                                uint16_t *esc_pos, uint8_t *esc_exp, size_t n_esc,
                                                const int path, const int stream,
                                                SZ_CN(cnt_run) * r, cnt_acc *acc, const int np)
{
	SZ_CN(cnt_step)(r, acc, np);
#if SZ_CHUNK_MASKED
	(void)t;
	return SZ_ENC_BLOCK(k, src + i, i, codes + i / 2, sm + i, esc_pos, esc_exp, n_esc, path, 0,
	                    SZ_CHUNK_VL, stream, &r->cs, acc, np);
#else
	(void)stream; /* a kernel without streaming stores may ignore it */
	uint64_t m = SZ_ENC_BLOCK(k, src + i, codes + i / 2, sm + i, path, stream, &r->cs, acc, np);
	if (SZ_UNLIKELY(m))
		n_esc = SZ_CN(emit_escapes)(t, m, src + i, SZ_CHUNK_VL, i, esc_pos, esc_exp, n_esc);
	return n_esc;
#endif
}

/*
 * Encode the partial block of rem < SZ_CHUNK_VL elements at chunk position i (the streaming
 * head, the end of the chunk) with ordinary stores. Without masked kernels, through the same
 * kernel on a zero-padded copy: only the first rem results are kept, and the code nibble after
 * an odd last element stays zero (FORMAT.md §4.2); the counter then counted the padding too,
 * SZ_CHUNK_VL - rem elements 0 with the code t->code_of[0], which '*pad' collects.
 */
static SZ_ALWAYS_INLINE size_t SZ_CN(enc_tail)(const SZ_ENC_CONSTS *k, const splitzip_enc_tables *t,
                                               const uint16_t *src, size_t i, size_t rem,
                                               uint8_t *codes, uint8_t *sm, uint16_t *esc_pos,
                                               uint8_t *esc_exp, size_t n_esc, const int path,
                                               SZ_CN(cnt_run) * r, cnt_acc *acc, const int np,
                                               size_t *pad)
{
	SZ_CN(cnt_step)(r, acc, np);
#if SZ_CHUNK_MASKED
	(void)t;
	(void)pad;
	return SZ_ENC_BLOCK(k, src + i, i, codes + i / 2, sm + i, esc_pos, esc_exp, n_esc, path, 1,
	                    rem, 0, &r->cs, acc, np);
#else
	uint16_t buf[SZ_CHUNK_VL] = {0};
	uint8_t cbuf[SZ_CHUNK_VL / 2], sbuf[SZ_CHUNK_VL];
	memcpy(buf, src + i, rem * 2);
	uint64_t m = SZ_ENC_BLOCK(k, buf, cbuf, sbuf, path, 0, &r->cs, acc, np);
	if (np)
		*pad += SZ_CHUNK_VL - rem;
#if SZ_CHUNK_ESC_BITS
	m &= (1ull << rem) - 1; /* the zero padding is no escape */
#endif
	if (rem % 2)
		cbuf[rem / 2] &= 0x0F;
	memcpy(codes + i / 2, cbuf, (rem + 1) / 2);
	memcpy(sm + i, sbuf, rem);
	return SZ_CN(emit_escapes)(t, m, buf, rem, i, esc_pos, esc_exp, n_esc);
#endif
}

/*
 * The streaming kernels (outputs far larger than the caches: their inputs come from DRAM) ask
 * for their input SZ_CHUNK_PREFETCH elements ahead of the block they work on, past the chunk's
 * end too (a prefetch never faults). The hardware prefetchers alone leave the single-thread
 * pass short of the read bandwidth: on a 2-vCPU Xeon VM (256 MiB, one thread) the fixed-codebook
 * encode gained 18-30 %, the encode from the input 12-20 % and the decode 5-8 % at 2048
 * elements; 512, 4096 and 8192 gained less (doc/BENCHMARKS.md, "Software prefetch").
 */
#if SZ_CHUNK_STREAM
#ifndef SZ_CHUNK_PREFETCH
#define SZ_CHUNK_PREFETCH 2048
#endif

/* The two input lines of the encode block SZ_CHUNK_PREFETCH elements after the one at src. */
static SZ_ALWAYS_INLINE void SZ_CN(prefetch_enc)(const uint16_t *src)
{
	__builtin_prefetch(src + SZ_CHUNK_PREFETCH);
	__builtin_prefetch(src + SZ_CHUNK_PREFETCH + 32);
}

/* The code and sign/mantissa lines of the decode block SZ_CHUNK_PREFETCH elements ahead. */
static SZ_ALWAYS_INLINE void SZ_CN(prefetch_dec)(const uint8_t *codes, const uint8_t *sm)
{
	__builtin_prefetch(sm + SZ_CHUNK_PREFETCH);
	__builtin_prefetch(codes + SZ_CHUNK_PREFETCH / 2);
}
#endif

/*
 * Encode a chunk; with np > 0 (the pair tables of the watch w in use), add the counts of the
 * watched codes to cnt.
 */
static SZ_ALWAYS_INLINE size_t SZ_CN(encode_impl)(const splitzip_enc_tables *t, const uint16_t *src,
                                                  size_t n, uint8_t *codes, uint8_t *sm,
                                                  uint16_t *esc_pos, uint8_t *esc_exp,
                                                  const int path, int stream,
                                                  const splitzip_watch *w, uint64_t *cnt,
                                                  const int np)
{
	SZ_ENC_CONSTS k;
	SZ_ENC_INIT(&k, t, path);
	SZ_CN(cnt_run) r;
	cnt_acc acc;
	size_t pad = 0; /* elements of zero padding counted (unmasked kernels) */
	r.pend = 0;
	if (np)
		cnt_init(&r.cs, &acc, w, np);
	size_t n_esc = 0, i = 0;
#if SZ_CHUNK_STREAM
	if (stream) {
		/* A head of h < 64 elements with ordinary stores makes sm 64-byte aligned (whole
		 * lines: a line written partly by ordinary and partly by streaming stores is
		 * slow); h must be even so that the codes stay byte-aligned. */
		size_t h = (size_t)(-(uintptr_t)sm & 63);
		stream = h % 2 == 0 && h < n;
		if (stream && h) {
			n_esc = SZ_CN(enc_tail)(&k, t, src, 0, h, codes, sm, esc_pos, esc_exp,
			                        n_esc, path, &r, &acc, np, &pad);
			i = h;
		}
	}
	if (stream) {
		for (; i + SZ_CHUNK_VL <= n; i += SZ_CHUNK_VL) {
			SZ_CN(prefetch_enc)(src + i);
			n_esc = SZ_CN(enc_block)(&k, t, src, i, codes, sm, esc_pos, esc_exp, n_esc,
			                         path, 1, &r, &acc, np);
		}
		SZ_CHUNK_SFENCE();
	} else {
		for (; i + SZ_CHUNK_VL <= n; i += SZ_CHUNK_VL)
			n_esc = SZ_CN(enc_block)(&k, t, src, i, codes, sm, esc_pos, esc_exp, n_esc,
			                         path, 0, &r, &acc, np);
	}
#else
	(void)stream;
	for (; i + SZ_CHUNK_VL <= n; i += SZ_CHUNK_VL)
		n_esc = SZ_CN(enc_block)(&k, t, src, i, codes, sm, esc_pos, esc_exp, n_esc, path, 0,
		                         &r, &acc, np);
#endif
	if (i < n)
		n_esc = SZ_CN(enc_tail)(&k, t, src, i, n - i, codes, sm, esc_pos, esc_exp, n_esc,
		                        path, &r, &acc, np, &pad);
	if (np) {
		uint64_t loc[SPLITZIP_WATCH_MAX] = {0};
		cnt_flush(&r.cs, &acc, np);
		cnt_finish(&r.cs, np, loc);
		const unsigned pad_slot = w->slot[t->code_of[0]];
		if (pad_slot)
			loc[pad_slot - 1] -= pad;
		for (unsigned j = 0; j < w->n; j++)
			cnt[j] += loc[j];
	}
	return n_esc;
}

/* The encoder path of the codebook: one copy of the chunk loop per path (and stream, np). */
static SZ_ALWAYS_INLINE size_t SZ_CN(encode_dispatch)(const splitzip_enc_tables *t,
                                                      const uint16_t *src, size_t n, uint8_t *codes,
                                                      uint8_t *sm, uint16_t *esc_pos,
                                                      uint8_t *esc_exp, const int stream,
                                                      const splitzip_watch *w, uint64_t *cnt,
                                                      const int np)
{
	if (t->contiguous)
		return SZ_CN(encode_impl)(t, src, n, codes, sm, esc_pos, esc_exp, SZ_WINDOW16,
		                          stream, w, cnt, np);
#if SZ_CHUNK_WINDOW32
	if (t->codebook[15] - t->base < 32)
		return SZ_CN(encode_impl)(t, src, n, codes, sm, esc_pos, esc_exp, SZ_WINDOW32,
		                          stream, w, cnt, np);
#endif
	return SZ_CN(encode_impl)(t, src, n, codes, sm, esc_pos, esc_exp, SZ_ANY, stream, w, cnt,
	                          np);
}

static size_t SZ_CN(encode_chunk)(const splitzip_enc_tables *t, const uint16_t *src, size_t n,
                                  uint8_t *codes, uint8_t *sm, uint16_t *esc_pos, uint8_t *esc_exp)
{
	return SZ_CN(encode_dispatch)(t, src, n, codes, sm, esc_pos, esc_exp, 0, NULL, NULL, 0);
}

/* The counting encoder with two or four pair tables. */
static size_t SZ_CN(encode_count_chunk)(const splitzip_enc_tables *t, const splitzip_watch *w,
                                        const uint16_t *src, size_t n, uint8_t *codes, uint8_t *sm,
                                        uint16_t *esc_pos, uint8_t *esc_exp,
                                        uint64_t cnt[SPLITZIP_WATCH_MAX])
{
	if (w->n_pairs <= 2)
		return SZ_CN(encode_dispatch)(t, src, n, codes, sm, esc_pos, esc_exp, 0, w, cnt, 2);
	return SZ_CN(encode_dispatch)(t, src, n, codes, sm, esc_pos, esc_exp, 0, w, cnt, 4);
}

#if SZ_CHUNK_STREAM
static size_t SZ_CN(encode_chunk_stream)(const splitzip_enc_tables *t, const uint16_t *src,
                                         size_t n, uint8_t *codes, uint8_t *sm, uint16_t *esc_pos,
                                         uint8_t *esc_exp)
{
	return SZ_CN(encode_dispatch)(t, src, n, codes, sm, esc_pos, esc_exp, 1, NULL, NULL, 0);
}

static size_t SZ_CN(encode_count_chunk_stream)(const splitzip_enc_tables *t,
                                               const splitzip_watch *w, const uint16_t *src,
                                               size_t n, uint8_t *codes, uint8_t *sm,
                                               uint16_t *esc_pos, uint8_t *esc_exp,
                                               uint64_t cnt[SPLITZIP_WATCH_MAX])
{
	if (w->n_pairs <= 2)
		return SZ_CN(encode_dispatch)(t, src, n, codes, sm, esc_pos, esc_exp, 1, w, cnt, 2);
	return SZ_CN(encode_dispatch)(t, src, n, codes, sm, esc_pos, esc_exp, 1, w, cnt, 4);
}
#endif

/* ---- Decode -------------------------------------------------------------------------------- */

/* Decode the partial block of rem < SZ_CHUNK_VL elements with ordinary stores (without masked
 * kernels, through the same kernel on zero-padded copies). */
static SZ_ALWAYS_INLINE void SZ_CN(dec_tail)(const SZ_DEC_CONSTS *k, const uint8_t *codes,
                                             const uint8_t *sm, size_t rem, uint16_t *dst)
{
#if SZ_CHUNK_MASKED
	SZ_DEC_BLOCK(k, codes, sm, dst, 1, rem, 0);
#else
	uint8_t cbuf[SZ_CHUNK_VL / 2] = {0}, sbuf[SZ_CHUNK_VL] = {0};
	uint16_t obuf[SZ_CHUNK_VL];
	memcpy(cbuf, codes, (rem + 1) / 2);
	memcpy(sbuf, sm, rem);
	SZ_DEC_BLOCK(k, cbuf, sbuf, obuf, 0);
	memcpy(dst, obuf, rem * 2);
#endif
}

#if SZ_CHUNK_MASKED
#define SZ_DEC_WHOLE(k, codes, sm, dst, stream)                                                    \
	SZ_DEC_BLOCK(k, codes, sm, dst, 0, SZ_CHUNK_VL, stream)
#else
#define SZ_DEC_WHOLE(k, codes, sm, dst, stream) SZ_DEC_BLOCK(k, codes, sm, dst, stream)
#endif

static SZ_ALWAYS_INLINE void SZ_CN(decode_impl)(const uint8_t codebook[16], const uint8_t *codes,
                                                const uint8_t *sm, size_t n, uint16_t *dst,
                                                int stream)
{
	uint8_t thi[16], tlo[16];
	for (unsigned c = 0; c < 16; c++) {
		thi[c] = (uint8_t)(codebook[c] >> 1);
		tlo[c] = (uint8_t)((codebook[c] & 1) << 7);
	}
	SZ_DEC_CONSTS k;
	SZ_DEC_INIT(&k, thi, tlo);
	size_t i = 0;
#if SZ_CHUNK_STREAM
	if (stream) {
		/* A head of h elements with ordinary stores makes dst 64-byte aligned (whole
		 * lines, see encode_impl); h must be even so that the codes stay byte-aligned. */
		size_t hb = (size_t)(-(uintptr_t)dst & 63), h = hb / 2;
		stream = hb % 4 == 0 && h < n;
		if (stream && h) {
			SZ_CN(dec_tail)(&k, codes, sm, h, dst);
			i = h;
		}
	}
	if (stream) {
		for (; i + SZ_CHUNK_VL <= n; i += SZ_CHUNK_VL) {
			SZ_CN(prefetch_dec)(codes + i / 2, sm + i);
			SZ_DEC_WHOLE(&k, codes + i / 2, sm + i, dst + i, 1);
		}
		SZ_CHUNK_SFENCE();
	} else {
		for (; i + SZ_CHUNK_VL <= n; i += SZ_CHUNK_VL)
			SZ_DEC_WHOLE(&k, codes + i / 2, sm + i, dst + i, 0);
	}
#else
	(void)stream;
	for (; i + SZ_CHUNK_VL <= n; i += SZ_CHUNK_VL)
		SZ_DEC_WHOLE(&k, codes + i / 2, sm + i, dst + i, 0);
#endif
	if (i < n)
		SZ_CN(dec_tail)(&k, codes + i / 2, sm + i, n - i, dst + i);
}

static void SZ_CN(decode_chunk)(const uint8_t codebook[16], const uint8_t *codes, const uint8_t *sm,
                                size_t n, uint16_t *dst)
{
	SZ_CN(decode_impl)(codebook, codes, sm, n, dst, 0);
}

#if SZ_CHUNK_STREAM
static void SZ_CN(decode_chunk_stream)(const uint8_t codebook[16], const uint8_t *codes,
                                       const uint8_t *sm, size_t n, uint16_t *dst)
{
	SZ_CN(decode_impl)(codebook, codes, sm, n, dst, 1);
}
#endif

#undef SZ_DEC_WHOLE
#undef SZ_CN
#undef SZ_CHUNK_PREFIX
#undef SZ_CHUNK_VL
#undef SZ_CHUNK_STREAM
#undef SZ_CHUNK_SFENCE
#undef SZ_CHUNK_WINDOW32
#undef SZ_CHUNK_MASKED
#undef SZ_CHUNK_ESC_BITS
#undef SZ_ENC_CONSTS
#undef SZ_ENC_INIT
#undef SZ_DEC_CONSTS
#undef SZ_DEC_INIT
#undef SZ_ENC_BLOCK
#undef SZ_DEC_BLOCK
#undef SZ_CNT_BLOCK_ADDS
