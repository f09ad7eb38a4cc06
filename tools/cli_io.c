/*
 * cli_io.c -- file I/O of the splitzip command-line tool: output files written atomically
 * (temporary file renamed over the target), input files read in full, and the signal handling
 * that removes the temporary file on SIGINT/SIGTERM/SIGHUP.
 */
#define _DEFAULT_SOURCE /* madvise */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/*
 * Output to a path goes to a temporary file in the same directory that is renamed over the
 * target only after everything succeeded; on any failure (or SIGINT/SIGTERM/SIGHUP) the
 * temporary file is removed, so an existing file is never damaged and no partial output is left
 * behind. The temporary output file is removed by fail paths and signal handlers.
 */
static char tmp_path[4096];
static volatile sig_atomic_t tmp_active = 0;

static void on_signal(int sig)
{
	if (tmp_active)
		unlink(tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A mapped input file shrank under us: the run cannot go on (async-signal-safe calls only). */
static void on_sigbus(int sig)
{
	static const char m[] = "splitzip: the input file changed (shrank) while being read\n";
	(void)sig;
	if (tmp_active)
		unlink(tmp_path);
	if (write(STDERR_FILENO, m, sizeof m - 1) < 0)
		_exit(EXIT_IO);
	_exit(EXIT_IO);
}

void install_signal_handlers(void)
{
	signal(SIGBUS, on_sigbus);
	signal(SIGPIPE, SIG_IGN); /* broken pipes become EPIPE write errors with a message */
	signal(SIGXFSZ, SIG_IGN); /* a file size limit becomes an EFBIG write error, and the
	                           * temporary file is removed instead of left behind */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
}

/* Remove the temporary file. */
static void tmp_remove(void)
{
	unlink(tmp_path);
	tmp_active = 0;
}

static const char *write_error(int err)
{
	return err == EPIPE ? "broken pipe" : strerror(err);
}

/* ---- Output files ---------------------------------------------------------------------------- */

/* A device, FIFO or socket is written in place. Returns 1 and sets *rc if 'path' is one. */
static int out_open_direct(out_file *o, const char *path, int *rc)
{
	struct stat sb;
	if (stat(path, &sb) != 0 ||
	    !(S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode)))
		return 0;
	int fd = open(path, O_WRONLY | O_NOCTTY);
	if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
		msg("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		*rc = EXIT_IO;
		return 1;
	}
	o->path = path;
	o->direct = 1;
	*rc = EXIT_OK;
	return 1;
}

/* Create the temporary sibling of 'path' and open it as the output. */
static int out_open_temp(out_file *o, const char *path)
{
	int len = snprintf(tmp_path, sizeof tmp_path, "%s.splitzip-tmp.XXXXXX", path);
	if (len < 0 || (size_t)len >= sizeof tmp_path) {
		msg("%s: path too long", path);
		return EXIT_IO;
	}
	int fd = mkstemp(tmp_path);
	if (fd < 0) {
		msg("%s: cannot create temporary file: %s", path, strerror(errno));
		return EXIT_IO;
	}
	tmp_active = 1;
	/* mkstemp() creates the file with mode 0600; give the output the mode any new file gets
	 * (0666 less the umask), as a shell redirection would. */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "wb"))) {
		msg("%s: %s", path, strerror(errno));
		close(fd);
		tmp_remove();
		return EXIT_IO;
	}
	o->path = path;
	return EXIT_OK;
}

/*
 * Open the output: '-' is stdout; a device, FIFO or socket (/dev/null, /dev/full, a named pipe)
 * is written in place: it holds no data that could be overwritten, and renaming a temporary
 * file over it would replace the special file itself. Any other path gets a temporary sibling
 * that is renamed over the target on success.
 */
int out_open(out_file *o, const char *path, int force)
{
	memset(o, 0, sizeof *o);
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		o->to_stdout = 1;
		return EXIT_OK;
	}
	int rc;
	if (out_open_direct(o, path, &rc))
		return rc;
	struct stat sb;
	if (!force && lstat(path, &sb) == 0) {
		msg("%s: already exists; use -f to overwrite", path);
		return EXIT_EXISTS;
	}
	return out_open_temp(o, path);
}

int out_write(out_file *o, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, o->f) != n) {
		msg("%s: write failed: %s", o->to_stdout ? "(stdout)" : o->path,
		    write_error(errno));
		return EXIT_IO;
	}
	return EXIT_OK;
}

int out_write_fd(out_file *o, const void *p, size_t n)
{
	const char *c = (const char *)p;
	int fd = fileno(o->f);
	while (n > 0) {
		int old;
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
		ssize_t w = write(fd, c, n);
		pthread_setcancelstate(old, NULL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			msg("%s: write failed: %s", o->to_stdout ? "(stdout)" : o->path,
			    write_error(w < 0 ? errno : EIO));
			return EXIT_IO;
		}
		c += w;
		n -= (size_t)w;
	}
	return EXIT_OK;
}

/* Abandon the output: remove the temporary file. */
void out_abort(out_file *o)
{
	if (!o->f)
		return;
	if (o->direct) {
		fclose(o->f);
	} else if (!o->to_stdout) {
		fclose(o->f);
		tmp_remove();
	}
	o->f = NULL;
}

/* Flush (and sync if asked) and close o->f. Returns 1 with *err set on a failure, else 0. */
static int out_close(out_file *o, int sync, int *err)
{
	int bad = fflush(o->f) != 0 || (sync && fsync(fileno(o->f)) != 0);
	*err = errno;
	if (fclose(o->f) != 0 && !bad) {
		bad = 1;
		*err = errno;
	}
	o->f = NULL;
	return bad;
}

/* Finish a temporary file: sync, close and rename it over the target. */
static int out_commit_temp(out_file *o, int force)
{
	int err;
	if (out_close(o, 1, &err)) {
		msg("%s: write failed: %s", o->path, strerror(err));
		tmp_remove();
		return EXIT_IO;
	}
	struct stat sb;
	if (!force && lstat(o->path, &sb) == 0) { /* appeared while we worked */
		msg("%s: already exists; use -f to overwrite", o->path);
		tmp_remove();
		return EXIT_EXISTS;
	}
	if (rename(tmp_path, o->path) != 0) {
		msg("%s: cannot rename temporary file: %s", o->path, strerror(errno));
		tmp_remove();
		return EXIT_IO;
	}
	tmp_active = 0;
	return EXIT_OK;
}

/* Finish the output: flush, sync, and rename the temporary file over the target. */
int out_commit(out_file *o, int force)
{
	if (o->to_stdout) {
		if (fflush(stdout) != 0) {
			msg("(stdout): write failed: %s", write_error(errno));
			return EXIT_IO;
		}
		return EXIT_OK;
	}
	if (o->direct) {
		int err;
		if (out_close(o, 0, &err)) {
			msg("%s: write failed: %s", o->path, write_error(err));
			return EXIT_IO;
		}
		return EXIT_OK;
	}
	return out_commit_temp(o, force);
}

/* ---- Input files ----------------------------------------------------------------------------- */

FILE *in_open(const char *path)
{
	if (strcmp(path, "-") == 0)
		return stdin;
	FILE *f = fopen(path, "rb");
	if (!f)
		msg("%s: %s", path, strerror(errno));
	return f;
}

void in_close(FILE *f)
{
	if (f && f != stdin)
		fclose(f);
}

/* Read up to n bytes (fewer only at end of input). Returns bytes read, or (size_t)-1 on error. */
size_t read_full(FILE *f, void *buf, size_t n, const char *path)
{
	size_t got = 0;
	while (got < n) {
		size_t r = fread((char *)buf + got, 1, n - got, f);
		got += r;
		if (r == 0) {
			if (ferror(f)) {
				msg("%s: read failed: %s", path, strerror(errno));
				return (size_t)-1;
			}
			break;
		}
	}
	return got;
}

size_t read_fd(int fd, void *buf, size_t n, const char *path)
{
	size_t got = 0;
	while (got < n) {
		int old;
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
		ssize_t r = read(fd, (char *)buf + got, n - got);
		pthread_setcancelstate(old, NULL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			msg("%s: read failed: %s", path, strerror(errno));
			return (size_t)-1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return got;
}

uint64_t file_size_of(FILE *f)
{
	struct stat sb;
	if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size < 0)
		return 0;
	return (uint64_t)sb.st_size;
}

const unsigned char *map_input(FILE *f, uint64_t *size)
{
	struct stat sb;
	if (f == stdin || fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0 ||
	    (uint64_t)sb.st_size > SIZE_MAX)
		return NULL;
	void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fileno(f), 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, (size_t)sb.st_size, MADV_SEQUENTIAL);
	*size = (uint64_t)sb.st_size;
	return (const unsigned char *)p;
}

void unmap_input(const unsigned char *p, uint64_t size)
{
	if (p)
		munmap((void *)(uintptr_t)p, (size_t)size);
}

void prefault(const unsigned char *p, size_t n)
{
	if (!n)
		return;
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p & ~(page - 1);
#ifdef MADV_POPULATE_READ
	if (madvise((void *)a, (uintptr_t)p + n - a, MADV_POPULATE_READ) == 0)
		return;
#endif
	/* Older kernels: touch every page. */
	volatile unsigned char sink = 0;
	for (uintptr_t q = (uintptr_t)p; q < (uintptr_t)p + n; q = (q & ~(page - 1)) + page)
		sink ^= *(const volatile unsigned char *)q;
	(void)sink;
}
