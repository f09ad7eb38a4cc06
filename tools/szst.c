/*
 * szst.c -- the splitzip safetensors container (doc/FORMAT.md §11): header encoding and
 * validation, the metadata (stored safetensors header and tensor table) and its checks against
 * the header, the layout of a new container, and CRC-32.
 */
#include <stdio.h>
#include <string.h>

#include "safetensors.h"

/* ---- CRC-32 (the zlib / PNG polynomial, reflected), eight bytes per step ----------------------
 */

static uint32_t crc_table[8][256];
static int crc_ready;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[0][i] = c;
	}
	for (int t = 1; t < 8; t++)
		for (int i = 0; i < 256; i++)
			crc_table[t][i] =
			    (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xFF];
	crc_ready = 1;
}

uint32_t crc32_update(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p;
	if (!crc_ready)
		crc_init();
	crc = ~crc;
	for (; n >= 8; n -= 8, b += 8) {
		uint32_t lo = crc ^ ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		                     (uint32_t)b[3] << 24);
		crc = crc_table[7][lo & 0xFF] ^ crc_table[6][(lo >> 8) & 0xFF] ^
		      crc_table[5][(lo >> 16) & 0xFF] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][b[4]] ^ crc_table[2][b[5]] ^ crc_table[1][b[6]] ^
		      crc_table[0][b[7]];
	}
	while (n--)
		crc = crc_table[0][(crc ^ *b++) & 0xFF] ^ (crc >> 8);
	return ~crc;
}

/* ---- Little-endian fields ------------------------------------------------------------------- */

static uint64_t get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

static int all_zero(const unsigned char *p, size_t n)
{
	while (n--)
		if (*p++)
			return 0;
	return 1;
}

/* ---- Versions and encodings ------------------------------------------------------------------ */

int szst_is_v2_dtype(const st_tensor *t)
{
	unsigned d = st_frame_dtype(t);
	return d != 0 && !st_is_bf16(t);
}

unsigned szst_version_for(const st_header *sth)
{
	for (size_t i = 0; i < sth->n; i++)
		if (szst_is_v2_dtype(&sth->t[i]))
			return 2;
	return 1;
}

unsigned szst_encoding(const st_tensor *t, unsigned version)
{
	return st_is_bf16(t) || (version >= 2 && szst_is_v2_dtype(t)) ? SZST_FRAMES : SZST_RAW;
}

/* ---- Header (64 bytes) ---------------------------------------------------------------------- */

void szst_write_header(unsigned char out[SZST_HEADER_SIZE], const szst_header *h)
{
	memset(out, 0, SZST_HEADER_SIZE);
	memcpy(out, SZST_MAGIC, 4);
	out[4] = (unsigned char)h->version;
	put_le(out + 8, h->count, 4);
	put_le(out + 16, h->source_header_size, 8);
	put_le(out + 24, h->source_size, 8);
	put_le(out + 32, h->container_size, 8);
	put_le(out + 40, h->meta_crc, 4);
	put_le(out + 60, crc32_update(0, out, 60), 4);
}

/* Step 6: the sizes must be consistent with each other. */
static st_error check_sizes(const szst_header *h)
{
	if (h->source_header_size < 10 || h->source_header_size > 8 + (uint64_t)ST_MAX_HEADER ||
	    h->source_size < h->source_header_size || h->container_size % 16)
		return ST_CORRUPT;
	if (szst_data_offset(h) > h->container_size)
		return ST_CORRUPT;
	return ST_OK;
}

st_error szst_read_header(const unsigned char *p, size_t avail, uint64_t file_size, szst_header *h)
{
	if (avail < SZST_HEADER_SIZE) /* step 1 */
		return memcmp(p, SZST_MAGIC, avail < 4 ? avail : 4) ? ST_BAD_MAGIC : ST_TRUNCATED;
	if (memcmp(p, SZST_MAGIC, 4) != 0) /* 2 */
		return ST_BAD_MAGIC;
	if (p[4] == 0) /* 3 */
		return ST_CORRUPT;
	if (p[4] > SZST_VERSION)
		return ST_UNSUPPORTED_VERSION;
	if (get_le(p + 60, 4) != crc32_update(0, p, 60)) /* 4 */
		return ST_HEADER_CHECKSUM;
	if (!all_zero(p + 5, 3) || !all_zero(p + 12, 4) || !all_zero(p + 44, 16)) /* 5 */
		return ST_CORRUPT;
	h->version = p[4];
	h->count = (uint32_t)get_le(p + 8, 4);
	h->source_header_size = get_le(p + 16, 8);
	h->source_size = get_le(p + 24, 8);
	h->container_size = get_le(p + 32, 8);
	h->meta_crc = (uint32_t)get_le(p + 40, 4);
	st_error e = check_sizes(h); /* 6 */
	if (e)
		return e;
	if (file_size < h->container_size) /* 7 */
		return ST_TRUNCATED;
	return file_size > h->container_size ? ST_CORRUPT : ST_OK;
}

/* ---- Metadata: stored safetensors header, padding, tensor table ------------------------------ */

void szst_write_entry(unsigned char *p, const szst_entry *e)
{
	memset(p, 0, SZST_ENTRY_SIZE);
	p[0] = (unsigned char)e->encoding;
	put_le(p + 4, e->raw_crc, 4);
	put_le(p + 8, e->source_size, 8);
	put_le(p + 16, e->stored_offset, 8);
	put_le(p + 24, e->stored_size, 8);
}

static st_error table_bad(char *detail, size_t cap, const char *what, const st_tensor *t)
{
	char name[96];
	st_printable(t->name, name, sizeof name);
	snprintf(detail, cap, "tensor '%s': %s", name, what);
	return ST_BAD_TABLE;
}

/* Step 11 for entry i of a container of 'version', which must start at *pos; advances *pos past
 * it. */
static st_error check_entry(const unsigned char *p, const st_tensor *t, unsigned version,
                            uint64_t *pos, szst_entry *e, char *detail, size_t cap)
{
	e->encoding = p[0];
	e->raw_crc = (uint32_t)get_le(p + 4, 4);
	e->source_size = get_le(p + 8, 8);
	e->stored_offset = get_le(p + 16, 8);
	e->stored_size = get_le(p + 24, 8);
	if (!all_zero(p + 1, 3) || (e->encoding == SZST_FRAMES && e->raw_crc))
		return ST_CORRUPT;
	if (e->encoding != szst_encoding(t, version))
		return table_bad(detail, cap, "encoding does not match its dtype", t);
	if (e->source_size != t->end - t->begin)
		return table_bad(detail, cap, "size differs from its data_offsets", t);
	if (e->stored_offset != *pos)
		return table_bad(detail, cap, "stored offset is not where it must be", t);
	if (e->encoding == SZST_RAW ? e->stored_size != e->source_size
	                            : e->stored_size < 64 || e->stored_size % 16)
		return table_bad(detail, cap, "stored size impossible for its encoding", t);
	if (e->stored_size > UINT64_MAX - 16 - *pos)
		return table_bad(detail, cap, "stored size out of range", t);
	*pos = szst_align16(*pos + e->stored_size);
	return ST_OK;
}

st_error szst_read_meta(const szst_header *h, const unsigned char *meta, st_header *sth,
                        szst_entry *e, char *detail, size_t cap)
{
	uint64_t shs = h->source_header_size, meta_len = szst_data_offset(h) - SZST_HEADER_SIZE;
	detail[0] = 0;
	memset(sth, 0, sizeof *sth);
	if (crc32_update(0, meta, (size_t)meta_len) != h->meta_crc) /* step 8 */
		return ST_METADATA_CHECKSUM;
	if (!all_zero(meta + shs, (size_t)(szst_align16(shs) - shs)) || /* 9 */
	    get_le(meta, 8) != shs - 8)                                 /* 10 */
		return ST_CORRUPT;
	st_error err = st_parse(sth, meta + 8, (size_t)(shs - 8), h->source_size - shs);
	if (err) {
		snprintf(detail, cap, "stored safetensors header: %s", sth->detail);
		return err;
	}
	if (sth->n != h->count) { /* 11 */
		snprintf(detail, cap, "%u table entries for %zu tensors", h->count, sth->n);
		return ST_BAD_TABLE;
	}
	const unsigned char *table = meta + szst_table_offset(h) - SZST_HEADER_SIZE;
	uint64_t pos = szst_data_offset(h);
	for (size_t i = 0; i < sth->n; i++) {
		err = check_entry(table + i * SZST_ENTRY_SIZE, &sth->t[i], h->version, &pos, &e[i],
		                  detail, cap);
		if (err)
			return err;
	}
	if (pos != h->container_size) {
		snprintf(detail, cap, "the tensors end at byte %llu, the container at %llu",
		         (unsigned long long)pos, (unsigned long long)h->container_size);
		return ST_BAD_TABLE;
	}
	if (h->version == 2 && szst_version_for(sth) != 2) {
		snprintf(detail, cap, "version 2 without an F16, F32 or FP8 tensor");
		return ST_BAD_TABLE;
	}
	return ST_OK;
}

void szst_build(szst_header *h, const unsigned char *src_header, szst_entry *e, unsigned char *meta)
{
	uint64_t shs = h->source_header_size, pos = szst_data_offset(h);
	for (uint32_t i = 0; i < h->count; i++) {
		e[i].stored_offset = pos;
		pos = szst_align16(pos + e[i].stored_size);
	}
	h->container_size = pos;
	size_t meta_len = (size_t)(szst_data_offset(h) - SZST_HEADER_SIZE);
	memset(meta, 0, meta_len);
	memcpy(meta, src_header, (size_t)shs);
	unsigned char *table = meta + szst_table_offset(h) - SZST_HEADER_SIZE;
	for (uint32_t i = 0; i < h->count; i++)
		szst_write_entry(table + (size_t)i * SZST_ENTRY_SIZE, &e[i]);
	h->meta_crc = crc32_update(0, meta, meta_len);
}
