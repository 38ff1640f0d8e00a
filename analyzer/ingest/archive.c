/*
 * archive.c -- walk archives member by member with libarchive, from a
 * stream, nothing extracted to disk; see archive.h.
 *
 * One level is one libarchive reader over one struct input: the file
 * given (already uncompressed by input_open: .tar.gz, .tar.xz) or the
 * member of an outer level. A member up to AR_SPOOL_MAX bytes is read
 * into memory (a second format reads it again, a nested archive walks it
 * from there); a larger one is streamed to its reader once, its first
 * AR_SPOOL_MAX bytes served from memory. Every byte a level unpacks goes
 * through entry_data(), which counts it against the run's budget: past
 * the bound the level's reads fail, the member's reader sees a read
 * error, and the walk stops. Memory: per level, one block, one spool and
 * libarchive's own state; AR_MAX_DEPTH levels at most.
 */
#include "analyzer/ingest/archive.h"
#include "lib/bytes.h"
#include "lib/strbuf.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEVEL_BLOCK (64u * 1024)

/* One libarchive reader over one input, and the member it is on. */
struct level {
	struct archive *a;
	struct input *src;          /* what the archive is read from */
	unsigned char *block;       /* LEVEL_BLOCK bytes handed to libarchive */
	struct ar_budget *b;
	int depth;
	const char *container;      /* this archive's name, for its members */
	const char *parent;         /* the container this archive is in (for a
				     * compressed single member), or NULL */
	const char *self;           /* this archive's path in parent */
	uint64_t members;           /* regular members handed on */
	int broken;                 /* a read of the archive failed */
	/* the member being read: its first bytes in memory */
	unsigned char *spool;
	size_t spool_cap, spool_len, spool_pos;
};

uint64_t ar_default_limit(uint64_t size)
{
	uint64_t lim = AR_UNPACKED_FLOOR;

	if (size < AR_UNPACKED_MAX / AR_UNPACKED_RATIO && size * AR_UNPACKED_RATIO > lim)
		lim = size * AR_UNPACKED_RATIO;
	else if (size >= AR_UNPACKED_MAX / AR_UNPACKED_RATIO)
		lim = AR_UNPACKED_MAX;
	return lim;
}

int ar_sniff(const unsigned char *h, size_t n)
{
	if (n >= 4 && h[0] == 'P' && h[1] == 'K' &&
	    ((h[2] == 3 && h[3] == 4) || (h[2] == 5 && h[3] == 6) || (h[2] == '0' && h[3] == '0')))
		return 1;
	/* POSIX ustar ("ustar\0") and GNU tar ("ustar  \0") */
	return n >= 263 && !memcmp(h + 257, "ustar", 5) && (h[262] == 0 || h[262] == ' ');
}

/* libarchive's read callback: the next block of the level's input. */
static la_ssize_t level_read(struct archive *a, void *arg, const void **out)
{
	struct level *l = arg;
	ssize_t n = input_read(l->src, l->block, LEVEL_BLOCK);

	if (n < 0) {
		archive_set_error(a, EIO, "read error after %llu bytes",
				  (unsigned long long)l->src->offset);
		return -1;
	}
	*out = l->block;
	return (la_ssize_t)n;
}

/* Say why a walk ended early into b->why, unless said already: the
 * archive (container) and what its reader said. */
static void set_why(struct ar_budget *b, const char *container, const char *what)
{
	if (!b->why[0])
		snprintf(b->why, sizeof(b->why), "%s: %s", container, what ? what : "corrupt");
}

/* Stop the walk at a bound: why into b. */
static void refuse(struct ar_budget *b, const char *what)
{
	char got[32], lim[32];

	if (b->refused)
		return;
	b->refused = 1;
	snprintf(b->why, sizeof(b->why), "refused: %s (%s unpacked, the bound is %s: an"
		 " archive bomb, or evidence to unpack by hand); what was read before is kept",
		 what, ol_fmt_bytes(got, sizeof(got), (double)b->unpacked),
		 ol_fmt_bytes(lim, sizeof(lim), (double)b->limit));
}

/* Up to n bytes of the current member into dst, counted against the
 * budget. The count, 0 at the member's end, -1 with *err (EFBIG past the
 * bound, EIO when the archive is cut short or corrupt). */
static ssize_t entry_data(struct level *l, void *dst, size_t n, int *err)
{
	la_ssize_t r;

	if (l->b->refused) {
		*err = EFBIG;
		return -1;
	}
	r = archive_read_data(l->a, dst, n);
	if (r < 0) {
		if (!l->broken)
			set_why(l->b, l->container, archive_error_string(l->a));
		l->broken = 1;
		*err = EIO;
		return -1;
	}
	l->b->unpacked += (uint64_t)r;
	if (l->b->unpacked > l->b->limit) {
		refuse(l->b, "it unpacks to more than its bound");
		*err = EFBIG;
		return -1;
	}
	return (ssize_t)r;
}

/* The stream callback of a member's input: the spooled head, then the
 * rest from the archive. */
static ssize_t member_stream(void *arg, void *dst, size_t n, int *err)
{
	struct level *l = arg;

	if (l->spool_pos < l->spool_len) {
		size_t k = l->spool_len - l->spool_pos;
		if (k > n)
			k = n;
		memcpy(dst, l->spool + l->spool_pos, k);
		l->spool_pos += k;
		return (ssize_t)k;
	}
	return entry_data(l, dst, n, err);
}

/* Read the member's head into l->spool: up to AR_SPOOL_MAX bytes. 1
 * when that is all of it (cleanly), 0 when more is left or a read failed
 * (the stream then serves the head and meets the rest, or the error),
 * -1 when memory ran out. */
static int spool_member(struct level *l, uint64_t size)
{
	/* room for the whole (and one byte to meet its end), as the
	 * archive says it is; else grown as it comes */
	size_t want = size && size < AR_SPOOL_MAX ? (size_t)size + 1 : 256u * 1024;
	int err = 0;

	l->spool_len = l->spool_pos = 0;
	for (;;) {
		ssize_t r;
		if (l->spool_len == l->spool_cap || l->spool_cap < want) {
			unsigned char *p;
			size_t cap = l->spool_cap * 2 > want ? l->spool_cap * 2 : want;
			if (l->spool_len == AR_SPOOL_MAX)
				return 0;
			if (cap > AR_SPOOL_MAX)
				cap = AR_SPOOL_MAX;
			if (!(p = realloc(l->spool, cap)))
				return -1;
			l->spool = p;
			l->spool_cap = cap;
		}
		r = entry_data(l, l->spool + l->spool_len, l->spool_cap - l->spool_len, &err);
		if (r < 0)
			return 0;
		if (r == 0)
			return 1;
		l->spool_len += (size_t)r;
	}
}

/* Read what is left of the member, counted (the budget sees every byte
 * an archive unpacks, skipped or not), into the spool (never into
 * l->block: libarchive is still reading the packed bytes there). */
static void drain(struct level *l)
{
	int err;

	if (!l->spool_cap) {
		if (!(l->spool = malloc(LEVEL_BLOCK)))
			return;
		l->spool_cap = LEVEL_BLOCK;
	}
	while (entry_data(l, l->spool, l->spool_cap, &err) > 0)
		;
}

/* name (a member's path as the archive gives it) for display into out
 * (n bytes): a leading "./" or "/" dropped, control bytes, backslashes and
 * invalid UTF-8 as \xNN, cut at n. */
static void escape_name(const char *name, char *out, size_t n)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t o = 0;

	while (p[0] == '/' || (p[0] == '.' && p[1] == '/'))
		p += p[0] == '/' ? 1 : 2;
	while (*p && o + 5 < n) {
		int len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 :
			  (*p & 0xf8) == 0xf0 ? 4 : 0;
		int k, ok = len > 0 && (len > 1 || (*p >= 0x20 && *p != 0x7f && *p != '\\'));
		for (k = 1; ok && k < len; k++)
			ok = (p[k] & 0xc0) == 0x80;
		if (ok && len > 1 && o + (size_t)len < n) {
			memcpy(out + o, p, (size_t)len);
			o += (size_t)len;
			p += len;
		} else if (ok && len == 1) {
			out[o++] = (char)*p++;
		} else {
			o += (size_t)snprintf(out + o, n - o, "\\x%02x", *p++);
		}
	}
	out[o] = 0;
	if (!o)
		snprintf(out, n, "(unnamed)");
}

/* Whether a path inside an archive is hidden (a component starting with
 * '.', other than "." and ".."): skipped, as a folder walk skips them. */
static int hidden(const char *path)
{
	const char *p = path;

	for (;;) {
		if (p[0] == '.' && p[1] && p[1] != '/' && !(p[1] == '.' && (!p[2] || p[2] == '/')))
			return 1;
		p = strchr(p, '/');
		if (!p)
			return 0;
		p++;
	}
}

int ar_member_reopen(const struct ar_member *m, struct input *in)
{
	if (!m->data)
		return -1;
	if (input_open_mem(in, m->path, m->data, m->len) < 0)
		return -1;
	in->compressed = m->compressed;
	in->size = m->size;
	in->mtime = m->mtime;
	return 0;
}

static int walk_level(struct input *src, const char *container, const char *parent,
		      const char *self, int depth, struct ar_budget *b, ar_member_fn fn,
		      void *arg);

/* One regular member of l: walked as an archive when it is one (or is
 * compressed), else handed to fn. Returns 0, 1 (the walk is to stop
 * early), -1 (fn failed, or memory ran out). */
static int member(struct level *l, struct archive_entry *e, const char *name, int compressed,
		  ar_member_fn fn, void *arg)
{
	struct ar_member m = { l->container, name, NULL, 0, 0, compressed, NULL, 0 };
	struct input in;
	const char *comp;
	int whole, rc;

	if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0)
		m.size = (uint64_t)archive_entry_size(e);
	if (archive_entry_mtime_is_set(e))
		m.mtime = (int64_t)archive_entry_mtime(e);
	else if (l->src->mtime > 0)
		m.mtime = l->src->mtime;   /* a compressed member: its container's time */
	whole = spool_member(l, m.size);
	if (whole < 0)
		return -1;
	if (whole) {
		m.data = l->spool;
		m.len = l->spool_len;
		if (!m.size || compressed)
			m.size = m.len;
		rc = ar_member_reopen(&m, &in);
	} else {
		rc = input_open_stream(&in, name, member_stream, l, m.size);
		in.compressed = compressed;
		in.mtime = m.mtime;
	}
	if (rc < 0)
		return -1;
	m.in = &in;
	comp = input_compression(l->spool, l->spool_len);
	if (l->depth + 1 < AR_MAX_DEPTH && (ar_sniff(l->spool, l->spool_len) || comp)) {
		struct strbuf inner = STRBUF_INIT;
		strbuf_addf(&inner, "%s!/%s", l->container, name);
		if (strbuf_failed(&inner)) {
			input_close(&in);
			return -1;
		}
		rc = walk_level(&in, inner.buf, l->container, name, l->depth + 1, l->b, fn, arg);
		strbuf_release(&inner);
		if (rc == 1 && !l->b->refused) {
			/* a nested archive cut short or corrupt: noted (b->why),
			 * the walk of this one goes on */
			l->b->damaged = 1;
			rc = 0;
		}
	} else {
		rc = fn(arg, &m);
	}
	input_close(&in);
	l->members++;
	return rc;
}

/* Walk the archive src holds (see ar_walk); parent and self: the
 * container src is in and its path there (NULL at the top), for a
 * compressed single member (libarchive's raw format), which is handed on
 * under its own name in parent. */
static int walk_level(struct input *src, const char *container, const char *parent,
		      const char *self, int depth, struct ar_budget *b, ar_member_fn fn,
		      void *arg)
{
	struct level l = { NULL, src, NULL, b, depth, container, parent, self, 0, 0, NULL, 0, 0, 0 };
	struct archive_entry *e;
	char name[AR_NAME_MAX];
	int rc = 0, first = 1;

	l.a = archive_read_new();
	l.block = malloc(LEVEL_BLOCK);
	if (!l.a || !l.block) {
		rc = -1;
		goto out;
	}
	archive_read_support_format_tar(l.a);
	archive_read_support_format_gnutar(l.a);
	archive_read_support_format_zip_streamable(l.a);
	if (parent)
		archive_read_support_format_raw(l.a);
	archive_read_support_filter_gzip(l.a);
	archive_read_support_filter_bzip2(l.a);
	archive_read_support_filter_xz(l.a);
	archive_read_support_filter_lzma(l.a);
	archive_read_support_filter_zstd(l.a);
	if (archive_read_open(l.a, &l, NULL, level_read, NULL) != ARCHIVE_OK) {
		set_why(b, container, archive_error_string(l.a));
		rc = 1;
		goto out;
	}
	while (rc == 0) {
		int r = archive_read_next_header(l.a, &e);
		const char *raw;
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN || l.broken) {
			if (!l.broken)
				set_why(b, container, archive_error_string(l.a));
			rc = 1;
			break;
		}
		if (++b->members > (b->max_members ? b->max_members : AR_MAX_MEMBERS)) {
			b->members--;
			b->refused = 1;
			snprintf(b->why, sizeof(b->why), "refused: more than %u members (an archive"
				 " bomb, or evidence to unpack by hand; --max-members raises the"
				 " bound); what was read before is kept",
				 b->max_members ? b->max_members : AR_MAX_MEMBERS);
			rc = 1;
			break;
		}
		if (archive_format(l.a) == ARCHIVE_FORMAT_RAW) {
			/* a compressed single file: itself, uncompressed */
			if (!first)
				break;
			l.container = parent;
			rc = member(&l, e, self, 1, fn, arg);
			l.container = container;
		} else if (archive_entry_filetype(e) == AE_IFREG) {
			raw = archive_entry_pathname(e);
			escape_name(raw ? raw : "", name, sizeof(name));
			if (!hidden(name))
				rc = member(&l, e, name, 0, fn, arg);
		}
		first = 0;
		if (rc == 0)
			drain(&l);
		if (rc == 0 && (b->refused || l.broken))
			rc = 1;
	}
out:
	if (l.a)
		archive_read_free(l.a);
	free(l.block);
	free(l.spool);
	return rc;
}

int ar_walk(struct input *src, const char *container, struct ar_budget *b, ar_member_fn fn,
	    void *arg)
{
	int rc;

	b->why[0] = 0;
	b->refused = b->damaged = 0;
	b->unpacked = 0;
	rc = walk_level(src, container, NULL, NULL, 0, b, fn, arg);
	return rc == 0 && b->damaged ? 1 : rc;
}
