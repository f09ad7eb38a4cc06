/*
 * fuzz_decode.c -- arbitrary bytes into every decoding entry point.
 *
 * Properties: no crash, no out-of-bounds access (the input is an exact-size heap buffer and the
 * output is allocated to exactly the element count the headers promise), every status is a
 * decoding status; get_frame_info() fields are in range; decompress(), verify() and a frame by
 * frame walk with frame_decompress() agree; a stream decodes only if decompressed_size() accepts
 * it, to exactly that many elements; one element less room is DST_TOO_SMALL; a decodable split4
 * or entropy frame is canonical: encoding its data with its own codebook or table and
 * parameters gives the same bytes. The same bytes also go to splitzip_codebook_deserialize()
 * and splitzip_entropy_table_deserialize(): accepted only if they re-serialise to themselves.
 */
#include "fuzz_common.h"

static void check_codebook_file(const uint8_t *p, size_t size)
{
	splitzip_codebook cb;
	splitzip_status st = splitzip_codebook_deserialize(p, size, &cb);
	FUZZ_CHECK(st == SPLITZIP_OK || st == SPLITZIP_ERROR_TRUNCATED ||
	               st == SPLITZIP_ERROR_BAD_CODEBOOK,
	           "codebook_deserialize: %s", splitzip_status_name(st));
	if (st != SPLITZIP_OK)
		return;
	uint8_t again[SPLITZIP_CODEBOOK_FILE_SIZE];
	FUZZ_CHECK(splitzip_codebook_validate(&cb) == SPLITZIP_OK, "accepted an invalid codebook");
	FUZZ_CHECK(splitzip_codebook_serialize(&cb, again, sizeof again) == SPLITZIP_OK,
	           "serialize");
	FUZZ_CHECK(size == sizeof again && memcmp(again, p, size) == 0,
	           "codebook file is not canonical");
}

static void check_table_file(const uint8_t *p, size_t size)
{
	splitzip_entropy_table t;
	splitzip_status st = splitzip_entropy_table_deserialize(p, size, &t);
	FUZZ_CHECK(st == SPLITZIP_OK || st == SPLITZIP_ERROR_TRUNCATED ||
	               st == SPLITZIP_ERROR_BAD_CODEBOOK,
	           "entropy_table_deserialize: %s", splitzip_status_name(st));
	if (st != SPLITZIP_OK)
		return;
	uint8_t again[SPLITZIP_ENTROPY_TABLE_FILE_SIZE];
	FUZZ_CHECK(splitzip_entropy_table_validate(&t) == SPLITZIP_OK, "accepted an invalid table");
	FUZZ_CHECK(splitzip_entropy_table_serialize(&t, again, sizeof again) == SPLITZIP_OK,
	           "serialize");
	FUZZ_CHECK(size == sizeof again && memcmp(again, p, size) == 0,
	           "table file is not canonical");
}

static void check_info(const splitzip_frame_info *fi)
{
	FUZZ_CHECK(fi->format_version == SPLITZIP_FORMAT_VERSION, "version %u", fi->format_version);
	const size_t w = splitzip_dtype_width(fi->dtype);
	FUZZ_CHECK(w != 0, "dtype %u", fi->dtype);
	FUZZ_CHECK(fi->chunk_log2 >= SPLITZIP_CHUNK_LOG2_MIN &&
	               fi->chunk_log2 <= SPLITZIP_CHUNK_LOG2_MAX,
	           "chunk_log2 %u", fi->chunk_log2);
	FUZZ_CHECK((fi->flags & ~SPLITZIP_FLAG_CONTENT_CHECKSUM) == 0, "flags %u", fi->flags);
	FUZZ_CHECK(fi->n_elems <= SPLITZIP_MAX_FRAME_ELEMS, "n_elems");
	FUZZ_CHECK(fi->frame_size >= SPLITZIP_FRAME_HEADER_SIZE && fi->frame_size % 16 == 0,
	           "frame_size %llu", (unsigned long long)fi->frame_size);
	FUZZ_CHECK(fi->n_escapes <= fi->n_elems, "more escapes than elements");
	static const splitzip_codebook zero;
	if (fi->mode == SPLITZIP_MODE_STORED) {
		FUZZ_CHECK(fi->n_escapes == 0, "stored frame with escapes");
		FUZZ_CHECK(memcmp(&fi->codebook, &zero, sizeof zero) == 0, "stored codebook");
	} else if (fi->mode == SPLITZIP_MODE_ENTROPY) {
		FUZZ_CHECK(memcmp(&fi->codebook, &zero, sizeof zero) == 0, "entropy codebook");
		FUZZ_CHECK(fi->frame_size < 64 + ((w * fi->n_elems + 15) & ~(uint64_t)15),
		           "entropy frame not smaller than stored");
	} else {
		FUZZ_CHECK(fi->mode == SPLITZIP_MODE_SPLIT4, "mode %d", (int)fi->mode);
		FUZZ_CHECK(splitzip_codebook_validate(&fi->codebook) == SPLITZIP_OK, "codebook");
	}
}

/* Encode a decoded frame again with the frame's own parameters. */
static void check_canonical(const uint8_t *frame, const splitzip_frame_info *fi,
                            const uint8_t *elems)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.chunk_log2 = fi->chunk_log2;
	p.flags = fi->flags;
	if (fi->dtype == SPLITZIP_DTYPE_FP8_E4M3) /* no split4 (FORMAT.md §2.2) */
		p.encoding = SPLITZIP_ENCODING_ENTROPY;
	if (fi->mode == SPLITZIP_MODE_SPLIT4) {
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		p.codebook = fi->codebook;
	}
	if (fi->mode == SPLITZIP_MODE_ENTROPY) { /* with its own table (FORMAT.md §6.5) */
		p.encoding = SPLITZIP_ENCODING_ENTROPY;
		p.table_mode = SPLITZIP_CODEBOOK_FIXED;
		FUZZ_CHECK(splitzip_frame_entropy_table(frame, (size_t)fi->frame_size, &p.table) ==
		               SPLITZIP_OK,
		           "the table of a decodable entropy frame");
	}
	splitzip_ctx *enc = NULL;
	FUZZ_CHECK(splitzip_ctx_create(&p, &enc) == SPLITZIP_OK, "ctx_create");
	size_t cap = splitzip_compress_bound_dtype(fi->dtype, (size_t)fi->n_elems), got = 0;
	uint8_t *again = (uint8_t *)malloc(cap);
	FUZZ_CHECK(again != NULL, "out of memory");
	splitzip_status st =
	    splitzip_compress_dtype(enc, fi->dtype, elems, (size_t)fi->n_elems, again, cap, &got);
	FUZZ_CHECK(st == SPLITZIP_OK, "re-encode: %s", splitzip_status_name(st));
	splitzip_frame_info ai;
	FUZZ_CHECK(splitzip_get_frame_info(again, got, &ai) == SPLITZIP_OK, "re-encoded info");
	/* A split4 or entropy frame must come back byte for byte. A stored frame does not
	 * record a codebook, so only a stored re-encoding (codebook from the data) must equal it.
	 */
	if (fi->mode != SPLITZIP_MODE_STORED || ai.mode == SPLITZIP_MODE_STORED)
		FUZZ_CHECK(got == fi->frame_size && memcmp(again, frame, got) == 0,
		           "decodable frame is not canonical (mode %d, re-encoded mode %d)",
		           (int)fi->mode, (int)ai.mode);
	free(again);
	splitzip_ctx_free(enc);
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t size)
{
	static const uint8_t empty[1];
	if (!p)
		p = empty; /* an empty input may come as NULL */
	check_codebook_file(p, size);
	check_table_file(p, size);

	splitzip_frame_info fi;
	splitzip_status ist = splitzip_get_frame_info(p, size, &fi);
	FUZZ_CHECK(fuzz_is_decode_status(ist) && ist != SPLITZIP_ERROR_DST_TOO_SMALL &&
	               ist != SPLITZIP_ERROR_CONTENT_CHECKSUM,
	           "get_frame_info: %s", splitzip_status_name(ist));
	if (ist == SPLITZIP_OK)
		check_info(&fi);

	uint64_t total = 0;
	splitzip_status dst_st = splitzip_decompressed_size(p, size, &total);
	FUZZ_CHECK(fuzz_is_decode_status(dst_st), "decompressed_size: %s",
	           splitzip_status_name(dst_st));
	/* Room for exactly the promised count; frames are never smaller than half their element
	 * count (an FP8 E4M3 element keeps 4 bits, FORMAT.md §2.2), so a hostile count cannot
	 * make this large. Up to 4 bytes per element (FP32). */
	size_t cap = dst_st == SPLITZIP_OK ? (size_t)total : size;
	FUZZ_CHECK(cap <= 2 * size, "decompressed_size %llu exceeds twice the input size %zu",
	           (unsigned long long)total, size);
	uint8_t *out = (uint8_t *)malloc(cap ? cap * 4 : 1);
	size_t width = 2; /* of the stream's dtype */
	if (ist == SPLITZIP_OK)
		width = splitzip_dtype_width(fi.dtype);
	FUZZ_CHECK(out != NULL, "out of memory");

	splitzip_ctx *ctx = NULL;
	FUZZ_CHECK(splitzip_ctx_create(NULL, &ctx) == SPLITZIP_OK, "ctx_create");
	size_t n = 0;
	splitzip_status st = splitzip_decompress_dtype(ctx, p, size, out, cap * width, &n);
	/* the BF16 call: the same, or UNSUPPORTED_FORMAT for a stream of another dtype */
	size_t n16 = 0;
	splitzip_status st16 =
	    splitzip_decompress(ctx, p, size, (uint16_t *)(void *)out, cap * width / 2, &n16);
	FUZZ_CHECK(st16 == (ist == SPLITZIP_OK && fi.dtype != SPLITZIP_DTYPE_BF16
	                        ? SPLITZIP_ERROR_UNSUPPORTED_FORMAT
	                        : st),
	           "BF16 decompress %s, decompress_dtype %s", splitzip_status_name(st16),
	           splitzip_status_name(st));
	FUZZ_CHECK(fuzz_is_decode_status(st) && st != SPLITZIP_ERROR_DST_TOO_SMALL,
	           "decompress: %s", splitzip_status_name(st));
	if (st == SPLITZIP_OK)
		FUZZ_CHECK(dst_st == SPLITZIP_OK && n == total,
		           "decoded %zu elements, decompressed_size said %s/%llu", n,
		           splitzip_status_name(dst_st), (unsigned long long)total);

	uint64_t vn = 0;
	splitzip_status vst = splitzip_verify(ctx, p, size, &vn);
	FUZZ_CHECK(vst == st, "verify %s, decompress %s", splitzip_status_name(vst),
	           splitzip_status_name(st));
	FUZZ_CHECK(vst != SPLITZIP_OK || vn == n, "verify count");

	/* Frame by frame: the same outcome, and each frame as its header describes it. */
	size_t off = 0, done = 0;
	splitzip_status wst = SPLITZIP_OK;
	do {
		size_t used = 0, got = 0;
		splitzip_frame_info h;
		if (off > 0 && splitzip_get_frame_info(p + off, size - off, &h) == SPLITZIP_OK &&
		    h.dtype != fi.dtype) {
			wst = SPLITZIP_ERROR_CORRUPT_STREAM; /* one dtype per stream (FORMAT.md
			                                        §8.2) */
			break;
		}
		wst =
		    splitzip_frame_decompress_dtype(ctx, p + off, size - off, &used,
		                                    out + width * done, (cap - done) * width, &got);
		if (wst != SPLITZIP_OK) {
			if (off > 0 && wst == SPLITZIP_ERROR_BAD_MAGIC)
				wst = SPLITZIP_ERROR_CORRUPT_STREAM;
			break;
		}
		splitzip_frame_info f;
		FUZZ_CHECK(splitzip_get_frame_info(p + off, size - off, &f) == SPLITZIP_OK,
		           "decodable frame without a valid header");
		FUZZ_CHECK(used == f.frame_size && got == f.n_elems && used <= size - off,
		           "frame_decompress sizes");
		check_canonical(p + off, &f, out + width * done);
		off += used;
		done += got;
	} while (off < size);
	FUZZ_CHECK(wst == st, "frame walk %s, decompress %s", splitzip_status_name(wst),
	           splitzip_status_name(st));

	if (st == SPLITZIP_OK && n > 0) {
		uint16_t *small = (uint16_t *)malloc((n - 1) ? (n - 1) * width : 1);
		FUZZ_CHECK(small != NULL, "out of memory");
		size_t n2 = 0;
		splitzip_status sst =
		    splitzip_decompress_dtype(ctx, p, size, small, (n - 1) * width, &n2);
		FUZZ_CHECK(sst == SPLITZIP_ERROR_DST_TOO_SMALL, "room n-1: %s",
		           splitzip_status_name(sst));
		free(small);
	}
	splitzip_ctx_free(ctx);
	free(out);
	return 0;
}
