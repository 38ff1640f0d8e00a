/*
 * archive_lazy.c -- libarchive, loaded when the first archive is opened.
 *
 * Linked at start-up, libarchive brought libxml2, ICU and libstdc++ with
 * it, and the dynamic linker resolved their symbols on every run: 5
 * million instructions, 5 % of reading a 4 MB server log, for a library
 * most runs never call (bench/RESULTS.md). oomlens is therefore not
 * linked against it: this file defines the libarchive functions oomlens
 * calls, with the prototypes of <archive.h>, and each forwards to the
 * real one, which the first archive_read_new() finds with dlopen() and
 * dlsym(). A function missing from the library is a load failure.
 *
 * When libarchive cannot be loaded, archive_read_new() returns NULL (as
 * when out of memory) and archive_lazy_why() says why; every other
 * function here is only reached through the struct archive that a
 * successful archive_read_new() gave, so the library is there.
 */
#include "lib/archive_lazy.h"

#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

/* The functions oomlens calls, in one list: the pointers to the real
 * ones and their loading are made from it. */
#define ARCHIVE_FUNCS(X)                                                         \
	X(archive_read_new) X(archive_read_free) X(archive_read_open)            \
	X(archive_read_open_fd) X(archive_read_next_header) X(archive_read_data) \
	X(archive_read_support_filter_bzip2) X(archive_read_support_filter_gzip) \
	X(archive_read_support_filter_lzma) X(archive_read_support_filter_xz)    \
	X(archive_read_support_filter_zstd) X(archive_read_support_format_gnutar) \
	X(archive_read_support_format_raw) X(archive_read_support_format_tar)    \
	X(archive_read_support_format_zip_streamable) X(archive_error_string)    \
	X(archive_format) X(archive_set_error) X(archive_entry_filetype)         \
	X(archive_entry_mtime) X(archive_entry_mtime_is_set)                     \
	X(archive_entry_pathname) X(archive_entry_size) X(archive_entry_size_is_set)

static struct {
#define X(f) __typeof__(f) *f;
	ARCHIVE_FUNCS(X)
#undef X
} real;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char why[256];

/* The sonames tried, in order: libarchive 3's, then the development link. */
static const char *const sonames[] = { "libarchive.so.13", "libarchive.so" };

/* Load the library and every function (once); sets loaded or why. The
 * handle is kept for the life of the process. */
static void load(void)
{
	void *h = NULL;
	const char *err = "not found";
	size_t i;

	for (i = 0; i < sizeof(sonames) / sizeof(sonames[0]) && !h; i++)
		if (!(h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL)))
			err = dlerror();
	if (!h) {
		snprintf(why, sizeof(why), "libarchive could not be loaded: %s", err ? err : "?");
		return;
	}
#define X(f)                                                                          \
	if (!(*(void **)&real.f = dlsym(h, #f))) {                                   \
		snprintf(why, sizeof(why), "libarchive has no %s", #f);              \
		return;                                                              \
	}
	ARCHIVE_FUNCS(X)
#undef X
	loaded = 1;
}

const char *archive_lazy_why(void)
{
	pthread_once(&once, load);
	return loaded ? NULL : why;
}

struct archive *archive_read_new(void)
{
	pthread_once(&once, load);
	if (!loaded) {
		errno = ENOSYS;
		return NULL;
	}
	return real.archive_read_new();
}

int archive_read_free(struct archive *a)
{
	return real.archive_read_free(a);
}

int archive_read_open(struct archive *a, void *data, archive_open_callback *o,
		      archive_read_callback *r, archive_close_callback *c)
{
	return real.archive_read_open(a, data, o, r, c);
}

int archive_read_open_fd(struct archive *a, int fd, size_t block)
{
	return real.archive_read_open_fd(a, fd, block);
}

int archive_read_next_header(struct archive *a, struct archive_entry **e)
{
	return real.archive_read_next_header(a, e);
}

la_ssize_t archive_read_data(struct archive *a, void *buf, size_t n)
{
	return real.archive_read_data(a, buf, n);
}

int archive_read_support_filter_bzip2(struct archive *a)
{
	return real.archive_read_support_filter_bzip2(a);
}

int archive_read_support_filter_gzip(struct archive *a)
{
	return real.archive_read_support_filter_gzip(a);
}

int archive_read_support_filter_lzma(struct archive *a)
{
	return real.archive_read_support_filter_lzma(a);
}

int archive_read_support_filter_xz(struct archive *a)
{
	return real.archive_read_support_filter_xz(a);
}

int archive_read_support_filter_zstd(struct archive *a)
{
	return real.archive_read_support_filter_zstd(a);
}

int archive_read_support_format_gnutar(struct archive *a)
{
	return real.archive_read_support_format_gnutar(a);
}

int archive_read_support_format_raw(struct archive *a)
{
	return real.archive_read_support_format_raw(a);
}

int archive_read_support_format_tar(struct archive *a)
{
	return real.archive_read_support_format_tar(a);
}

int archive_read_support_format_zip_streamable(struct archive *a)
{
	return real.archive_read_support_format_zip_streamable(a);
}

const char *archive_error_string(struct archive *a)
{
	return real.archive_error_string(a);
}

int archive_format(struct archive *a)
{
	return real.archive_format(a);
}

/* The message is formatted here: a variadic call cannot be forwarded. */
void archive_set_error(struct archive *a, int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	real.archive_set_error(a, err, "%s", msg);
}

__LA_MODE_T archive_entry_filetype(struct archive_entry *e)
{
	return real.archive_entry_filetype(e);
}

time_t archive_entry_mtime(struct archive_entry *e)
{
	return real.archive_entry_mtime(e);
}

int archive_entry_mtime_is_set(struct archive_entry *e)
{
	return real.archive_entry_mtime_is_set(e);
}

const char *archive_entry_pathname(struct archive_entry *e)
{
	return real.archive_entry_pathname(e);
}

la_int64_t archive_entry_size(struct archive_entry *e)
{
	return real.archive_entry_size(e);
}

int archive_entry_size_is_set(struct archive_entry *e)
{
	return real.archive_entry_size_is_set(e);
}
