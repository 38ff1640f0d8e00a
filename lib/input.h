/*
 * input.h -- one artifact opened for reading: a plain file, a compressed
 * file (gzip, xz, zstd, bzip2: read transparently), a block of memory
 * (tests and fuzzers), or a stream a callback gives (an archive's member,
 * analyzer/ingest/archive.c).
 *
 * Parsers read an input either as bytes (input_read) or as lines
 * (input_getline); they do not mix the two. Memory is bounded: one buffer
 * of INPUT_BUFSZ bytes whatever the file size. Lines longer than
 * INPUT_MAX_LINE are cut there; the rest of the line is skipped and
 * in->line_cut is set for that line, so the parser can say so.
 */
#ifndef OOMLENS_INPUT_H
#define OOMLENS_INPUT_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/hash.h"

struct hash_async;

#define INPUT_BUFSZ (1u << 20)
#define INPUT_MAX_LINE (INPUT_BUFSZ - 1)
/* From this size on, the content hash runs on its own thread. */
#define INPUT_HASH_ASYNC_MIN (16u << 20)

struct strbuf;

struct input {
	const char *path;       /* display name, not owned */
	int fd;                 /* -1 for memory inputs */
	void *gz;               /* gzFile when compressed, else NULL */
	int compressed;         /* 1: compressed on disk (gzip, xz, zstd, bzip2) */
	uint64_t size;          /* bytes on disk (compressed size for .gz);
				 * for a stream, its size if known, else 0 */
	void *arc;              /* struct archive * reading an xz, zstd or
				 * bzip2 file (libarchive's raw format), else NULL */
	int arc_fd;             /* the descriptor it reads (a dup), -1 */
	/* A stream: up to n bytes into dst; the count, 0 at its end, -1 on
	 * an error (the callback's errno-like code in *err). */
	ssize_t (*stream)(void *arg, void *dst, size_t n, int *err);
	void *stream_arg;
	int64_t mtime;          /* seconds since the epoch, 0 if unknown */
	uint64_t dev, ino;      /* the file's identity (0, 0 for memory inputs) */

	const unsigned char *mem; /* memory input (not owned) */
	size_t mem_len, mem_pos;

	unsigned char *buf;     /* read buffer */
	size_t pos, end;        /* unread bytes are buf[pos..end) */
	uint64_t offset;        /* uncompressed offset of buf[pos] */
	uint64_t line_offset;   /* offset of the line last returned */
	uint64_t lineno;        /* 1-based number of the line last returned */
	int line_cut;           /* the line last returned was cut */
	/* The bytes a parser looks out for (input_mark_bytes): marks[0..4)
	 * its bytes, marks[4..8) its also bytes; whether the line last
	 * returned may hold one of the first (line_marked), of the second
	 * (line_also). */
	unsigned char marks[8];
	int n_marks, n_first, n_also;
	int line_marked, line_also;
	/* When the marks differ in their low four bits: each at the index of
	 * its low four bits (a byte that matches no byte elsewhere), so one
	 * table look-up a byte tells a mark (first_table: the first kind
	 * alone); mark_wide: that is done 32 bytes a step (AVX2, checked at
	 * run time). */
	unsigned char mark_table[16], first_table[16];
	int mark_wide;
	/* What input_getline() runs: the AVX2 way with mark_wide, else the
	 * plain one. */
	int (*next_line)(struct input *in, const char **line, size_t *len);
	int eof;
	int error;              /* a read failed; errno-like code */
	uint64_t fd_pos;        /* bytes taken from fd so far (never past size) */
	int64_t mtime_ns;       /* the modification time at open, in ns */
	int gz_cut;             /* the gzip stream ended before its end (cut) */

	/* The content hash, fed with every byte the source gives, in order
	 * (uncompressed for .gz); hash_gap: a skip went around some bytes. */
	struct hash64 hash;
	int hash_gap;
	/* An input of INPUT_HASH_ASYNC_MIN bytes or more has it fed on a
	 * thread of its own behind the reads (hash_async.h); NULL when not
	 * (yet), or when no thread could be made (ha_tried: hashed in line). */
	struct hash_async *ha;
	int ha_tried;

	/* Optional: called after each buffer refill once progress_every more
	 * bytes were read (ingest uses it for its progress line). */
	void (*progress)(struct input *in, void *arg);
	void *progress_arg;
	uint64_t progress_every, progress_next;
};

/* Open path, which must be a regular file: it is checked before it is
 * opened (a FIFO, socket or device is refused, never opened, so nothing
 * blocks) and again on the open descriptor (the file was not swapped in
 * between). A file of the kernel's pseudo-filesystems (procfs, sysfs,
 * cgroupfs, debugfs...: /proc/kmsg says it is a regular empty file and
 * blocks a read) is refused by what its filesystem is. A plain file is
 * read up to its size at open (input_changed() tells what moved).
 * Opened read-only, never for writing. Returns 0, or -1 with a
 * message naming path and the reason in err (if not NULL). */
int input_open(struct input *in, const char *path, struct strbuf *err);
/* Whether the file changed under the reader, once parsing is done: 1
 * with why (n bytes; "changed while read: ...") when a plain file's size
 * or time is not what it was at open (the reader stopped at the size at
 * open: nothing appended is read, a file cut short gives fewer bytes) or a
 * gzip stream ended before its end; *lost is then 1 when bytes the file
 * had are missing (shrunk, cut), 0 when only more came (appended).
 * 0 when it is as it was. */
int input_changed(struct input *in, char *why, size_t n, int *lost);
/* What kind of file mode is, for messages: "a FIFO", "a directory"... */
const char *input_file_type(unsigned mode);
/* Wrap n bytes at data (not copied; they must outlive the input). */
int input_open_mem(struct input *in, const char *name, const void *data, size_t n);
/* A stream read through fn(arg, ...) (see struct input's stream), of
 * size bytes when known (0: unknown). Read once, in order: the same
 * buffer bound as a file; input_hash reads the rest through fn. Nothing
 * is owned: name and arg must outlive the input. Returns 0, or -1 when
 * memory ran out. */
int input_open_stream(struct input *in, const char *name,
		      ssize_t (*fn)(void *arg, void *dst, size_t n, int *err), void *arg,
		      uint64_t size);
/* The compression of a file whose first n bytes are head, by its magic:
 * "gzip", "xz", "zstd", "bzip2", or NULL for none of them. */
const char *input_compression(const unsigned char *head, size_t n);
void input_close(struct input *in);

/* Up to n bytes into dst. Returns the count, 0 at end, -1 on a read error. */
ssize_t input_read(struct input *in, void *dst, size_t n);
/* Skip n bytes. Returns the count skipped (less at end of input). */
uint64_t input_skip(struct input *in, uint64_t n);
/* Next line without its "\n" or "\r\n". Returns 1 with *line and *len set
 * (valid until the next call), 0 at end of input, -1 on a read error. */
int input_getline(struct input *in, const char **line, size_t *len);
/* Bytes (up to four, NUL-terminated; "" for none) that input_getline
 * looks for in the same pass as the newline: in->line_marked is 0 when
 * the line it returned holds none of them, 1 when it may hold one (a line
 * cut, the last one, or a "\r\n" ending count as marked). A parser that
 * treats a few bytes specially (colour codes) then skips a second scan.
 * also (up to four more, or NULL): told apart from them, in
 * in->line_also the same way. */
void input_mark_bytes(struct input *in, const char *bytes, const char *also);
/* The input's content hash in *hash: XXH64 of the whole content
 * (uncompressed for .gz). The bytes read so far were hashed as they came;
 * the rest is read now, so call it once parsing is done (the input is at
 * its end after; in->offset is left as the parser left it). Reading the
 * rest is bounded: with INPUT_HASH_AUTO, when a parser left more than
 * INPUT_HASH_READ_MAX bytes of a plain file unread (a core dump read
 * through a few headers), the hash is instead XXH64 of the size and of
 * INPUT_HASH_SAMPLES blocks spread over the file, and *sampled is set.
 * INPUT_HASH_WHOLE and INPUT_HASH_SAMPLED ask for one form (to compare
 * with a hash made before). Returns 0, or -1 on a read error (in->error
 * says which). */
#define INPUT_HASH_READ_MAX (256ull << 20)
#define INPUT_HASH_SAMPLES 64
enum input_hash_mode { INPUT_HASH_AUTO, INPUT_HASH_WHOLE, INPUT_HASH_SAMPLED };
int input_hash(struct input *in, enum input_hash_mode mode, uint64_t *hash, int *sampled);
/* Look at the first bytes without consuming them (up to INPUT_BUFSZ).
 * Returns a pointer to what is buffered and its length in *n. */
const unsigned char *input_peek(struct input *in, size_t want, size_t *n);
/* For a parser that passes over lines it would drop without reading
 * them one by one: the buffered bytes not yet read (from the start of
 * the next line, unless in->line_cut), their count in *n, reading none. */
const unsigned char *input_unread(const struct input *in, size_t *n);
/* Consume the first n of those bytes, which are `lines` whole lines, each
 * ending in a newline, the last starting at last_start: the offsets and
 * line count move as if input_getline() had returned each line. */
void input_consume_lines(struct input *in, size_t n, uint64_t lines, size_t last_start);

#endif
