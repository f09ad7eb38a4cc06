/*
 * cli_frames.c -- the streaming frame reader shared by decompress, verify and info: reads one
 * frame header, validates it, then reads the rest of the frame without trusting the size it
 * claims (hostile input must not make the tool reserve memory the data never fills). A regular
 * file is mapped instead (map_input): its frames are used where they are, no copy.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

int reader_open(frame_reader *r, const char *path)
{
	memset(r, 0, sizeof *r);
	r->path = strcmp(path, "-") == 0 ? "(stdin)" : path;
	r->in = in_open(path);
	if (!r->in)
		return EXIT_IO;
	struct stat sb;
	r->remaining = -1;
	if (fstat(fileno(r->in), &sb) == 0 && S_ISREG(sb.st_mode) && r->in != stdin)
		r->remaining = (long long)sb.st_size;
	r->map = map_input(r->in, &r->map_size);
	return EXIT_OK;
}

void reader_close(frame_reader *r)
{
	unmap_input(r->map, r->map_size);
	in_close(r->in);
	free(r->buf);
}

/*
 * Read and validate the header of the next frame into 'hdr' and '*fi'. Returns 1, 0 at a clean
 * end of input, or -exit_code on error (a message has been printed).
 */
static int read_header(frame_reader *r, unsigned char *hdr, splitzip_frame_info *fi)
{
	size_t got;
	if (r->map) { /* a mapped file: the header is there, or the file ends */
		uint64_t left = r->map_size - r->pos;
		got = left < SPLITZIP_FRAME_HEADER_SIZE ? (size_t)left : SPLITZIP_FRAME_HEADER_SIZE;
		memcpy(hdr, r->map + r->pos, got);
	} else {
		got = read_fd(fileno(r->in), hdr, SPLITZIP_FRAME_HEADER_SIZE, r->path);
	}
	if (got == (size_t)-1)
		return -EXIT_IO;
	if (got == 0)
		return 0;
	splitzip_status st = splitzip_get_frame_info(hdr, got, fi);
	/* FORMAT.md §8.2: after the first frame, bytes that do not start a frame are damage to
	 * this stream, not some other kind of file. */
	if (st == SPLITZIP_ERROR_BAD_MAGIC && r->offset > 0)
		st = SPLITZIP_ERROR_CORRUPT_STREAM;
	if (st != SPLITZIP_OK) {
		msg("%s: frame at byte %llu: %s", r->path, (unsigned long long)r->offset,
		    splitzip_error_string(st));
		return -EXIT_DATA;
	}
	if (r->remaining >= 0 && fi->frame_size > (uint64_t)r->remaining) {
		msg("%s: frame at byte %llu: %s (frame of %llu bytes, %lld left in file)", r->path,
		    (unsigned long long)r->offset, splitzip_error_string(SPLITZIP_ERROR_TRUNCATED),
		    (unsigned long long)fi->frame_size, r->remaining);
		return -EXIT_DATA;
	}
	if (fi->frame_size > (uint64_t)SIZE_MAX / 2)
		return -EXIT_RESOURCES;
	return 1;
}

/* Grow r->buf to hold at least n bytes. Returns 0 if out of memory (nothing printed). */
static int reserve(frame_reader *r, size_t n)
{
	if (n <= r->cap)
		return 1;
	unsigned char *nb = (unsigned char *)realloc(r->buf, n);
	if (!nb)
		return 0;
	r->buf = nb;
	r->cap = n;
	advise_huge(nb, n);
	return 1;
}

/*
 * Put the header in r->buf and read the body after it. The body is read in steps that at most
 * double what has arrived (at least 1 MiB), growing the buffer only as data comes: on a pipe the
 * frame size is still an unverified claim, and a header announcing a frame of gigabytes must not
 * reserve them before the data is there. Returns 1 or -exit_code.
 */
static int read_body(frame_reader *r, const unsigned char *hdr, const splitzip_frame_info *fi)
{
	const size_t want = (size_t)fi->frame_size;
	size_t have = SPLITZIP_FRAME_HEADER_SIZE;
	if (!reserve(r, have)) {
		msg("out of memory");
		return -EXIT_RESOURCES;
	}
	memcpy(r->buf, hdr, have);
	while (have < want) {
		size_t step = have < ((size_t)1 << 20) ? (size_t)1 << 20 : have;
		size_t target = want - have < step ? want : have + step;
		if (!reserve(r, target)) {
			msg("out of memory (frame of %llu bytes)",
			    (unsigned long long)fi->frame_size);
			return -EXIT_RESOURCES;
		}
		size_t got = read_fd(fileno(r->in), r->buf + have, target - have, r->path);
		if (got == (size_t)-1)
			return -EXIT_IO;
		have += got;
		if (have != target) {
			msg("%s: frame at byte %llu: %s", r->path, (unsigned long long)r->offset,
			    splitzip_error_string(SPLITZIP_ERROR_TRUNCATED));
			return -EXIT_DATA;
		}
	}
	return 1;
}

/*
 * Read the next frame into r->buf. Returns 1 with '*size' set, 0 at a clean end of input, or
 * -exit_code on error (a message has been printed).
 */
int next_frame(frame_reader *r, size_t *size, splitzip_frame_info *fi)
{
	unsigned char hdr[SPLITZIP_FRAME_HEADER_SIZE];
	int k = read_header(r, hdr, fi);
	if (k <= 0)
		return k;
	if (r->map) { /* read_header checked that the whole frame is in the file */
		r->frame = r->map + r->pos;
		r->pos += fi->frame_size;
	} else {
		k = read_body(r, hdr, fi);
		if (k < 0)
			return k;
		r->frame = r->buf;
	}
	*size = (size_t)fi->frame_size;
	if (r->remaining >= 0)
		r->remaining -= (long long)fi->frame_size;
	return 1;
}
