/*
 * test_memray_bin.c -- memray capture files (parsers/tools/memray_bin.c) built
 * here byte by byte from the format (docs/formats.md "memray capture
 * files"): a header, a thread, a code object, frames, allocations and
 * RSS samples, then the same capture as an lz4 frame, cut, never closed,
 * of an unknown version, aggregated, and with a version-13 header. The
 * real captures are checked by hand (tests/memray_captures.py).
 */
#include "testutil.h"
#include "analyzer/ingest/formats.h"
#include "parsers/tools/memray_bin.h"

#include <lz4frame.h>
#include <stdlib.h>
#include <string.h>

#define START_MS 1767225600000LL  /* 2026-01-01T00:00:00Z */

struct buf { unsigned char b[4096]; size_t n; };

static void u8(struct buf *b, unsigned v) { b->b[b->n++] = (unsigned char)v; }

static void le(struct buf *b, uint64_t v, int n)
{
	while (n--) {
		u8(b, (unsigned)(v & 255));
		v >>= 8;
	}
}

static void varint(struct buf *b, uint64_t v)
{
	while (v >= 0x80) {
		u8(b, (unsigned)(v & 0x7f) | 0x80);
		v >>= 7;
	}
	u8(b, (unsigned)v);
}

static void svarint(struct buf *b, int64_t v)
{
	varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void str(struct buf *b, const char *s)
{
	memcpy(b->b + b->n, s, strlen(s) + 1);
	b->n += strlen(s) + 1;
}

/* The header: version, Python 3.12.0, no native traces, file format ff,
 * n records of allocation, start/end, command line, pid 4242, tid 7. */
static void header(struct buf *b, int version, int ff, uint64_t nalloc)
{
	b->n = 0;
	str(b, "memray");
	le(b, (uint64_t)version, 4);
	le(b, 0x030c00f0, 4);
	u8(b, 0);
	u8(b, (unsigned)ff);
	le(b, nalloc, 8);
	le(b, 0, 8);
	le(b, START_MS, 8);
	le(b, START_MS + 2500, 8);
	str(b, "python3 -m memray run -o x.bin train.py");
	le(b, 4242, 4);
	le(b, 7, 8);
	le(b, 0, 8);
	u8(b, 1);  /* pymalloc */
	u8(b, 0);
	u8(b, 0);
	if (version >= 13) {
		str(b, "/usr/lib/python3.12");
		str(b, "/venv/lib/python3.12/site-packages");
		str(b, "");
		str(b, "/app");
		str(b, "/usr/lib/python3.12");
		str(b, "");
	}
}

/* Thread 7; code object 1 "step" in /app/train.py from line 10 with a
 * 3.11+ location table of one entry (NO_COLUMNS, 8 code units, line +2);
 * a frame at byte offset 6 (line 12); malloc 1000 at 0x1000 (a cache
 * miss), RSS 50 MB at +1 s, calloc 24 at 0x2000, free 0x1000 (cache
 * index 1), RSS 60 MB at +2 s, then a malloc 8 with no frame. */
static void records(struct buf *b)
{
	u8(b, 12);                 /* CONTEXT_SWITCH */
	le(b, 7, 8);
	u8(b, 14);                 /* CODE_OBJECT */
	varint(b, 1);
	str(b, "step");
	str(b, "/app/train.py");
	svarint(b, 10);            /* first line, a delta from 0 */
	varint(b, 2);
	u8(b, 0x80 | 13 << 3 | 7);
	u8(b, 4);                  /* +2: (2 << 1) | sign 0 */
	u8(b, 0x40);               /* FRAME_PUSH, not an entry frame */
	varint(b, 1);
	svarint(b, 6);
	u8(b, 0x80 | 15 << 3 | 6); /* ALLOCATION, cache miss, MALLOC */
	svarint(b, 0x1000 >> 3);
	varint(b, 1000);
	u8(b, 2);                  /* MEMORY_RECORD */
	varint(b, 50000000);
	varint(b, 1000);
	u8(b, 0x80 | 15 << 3 | 0); /* ALLOCATION, cache miss, allocator byte */
	svarint(b, (0x2000 - 0x1000) >> 3);
	u8(b, 8);                  /* CALLOC */
	varint(b, 24);
	u8(b, 0x80 | 1 << 3 | 5);  /* ALLOCATION, cache index 1, FREE */
	u8(b, 2);
	varint(b, 60000000);
	varint(b, 2000);
	u8(b, 0x10);               /* FRAME_POP of 1 */
	u8(b, 0x80 | 15 << 3 | 6);
	svarint(b, 0x1000 >> 3);
	varint(b, 8);
}

static struct timeline *parse(const struct buf *b, int expect)
{
	struct timeline *tl = t_open();

	assert_int_equal(t_parse_mem(tl, "memray_capture", "x.bin", (const char *)b->b, b->n),
			 expect);
	return tl;
}

static const char *cap(struct timeline *tl, const char *path)
{
	return t_text(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE kind ="
		      " 'memray_capture'", path);
}

static int64_t stat(struct timeline *tl, const char *path)
{
	return t_int(tl, "SELECT json_extract(data, '$.%s') FROM event WHERE kind ="
		     " 'memray_stats'", path);
}

/* What the capture of records() reads as, compressed or not. */
static void check_capture(struct timeline *tl, int compressed)
{
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind = 'memray_capture'"), 4242);
	assert_int_equal(t_int(tl, "SELECT time_ns FROM event WHERE kind = 'memray_capture'"),
			 START_MS * 1000000);
	assert_string_equal(cap(tl, "command_line"), "python3 -m memray run -o x.bin train.py");
	assert_string_equal(cap(tl, "python_version"), "3.12.0");
	assert_string_equal(cap(tl, "python_allocator"), "pymalloc");
	assert_string_equal(cap(tl, "file_format"), "all_allocations");
	assert_string_equal(cap(tl, "end"), "trailer");
	assert_int_equal(atoi(cap(tl, "complete")), 1);
	assert_int_equal(atoi(cap(tl, "compressed")), compressed);
	assert_int_equal(atoi(cap(tl, "header_allocations")), 4);
	assert_int_equal(atoi(cap(tl, "end_time_ms")) != 0, 1);
	assert_int_equal(atoi(cap(tl, "rss_samples")), 2);
	/* RSS on UTC, entity pid:4242 */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM sample p JOIN series s ON s.id ="
			       " p.series_id WHERE s.name = 'proc.rss_bytes' AND s.entity ="
			       " 'pid:4242'"), 2);
	assert_int_equal(t_int(tl, "SELECT max(value) FROM sample p JOIN series s ON s.id ="
			       " p.series_id WHERE s.name = 'proc.rss_bytes'"), 60000000);
	assert_int_equal(t_int(tl, "SELECT max(time_ns) FROM sample"), (START_MS + 2000) * 1000000);
	assert_int_equal(t_int(tl, "SELECT value FROM sample p JOIN series s ON s.id = p.series_id"
			       " WHERE s.name = 'memray.heap_bytes' ORDER BY time_ns DESC LIMIT 1"),
			 24);
	/* the totals as memray stats counts them */
	assert_int_equal(stat(tl, "total_allocations"), 3);
	assert_int_equal(stat(tl, "total_allocated_bytes"), 1032);
	assert_int_equal(stat(tl, "peak_bytes"), 1024);
	assert_int_equal(stat(tl, "deallocations"), 1);
	assert_int_equal(stat(tl, "heap_at_end_bytes"), 32);
	assert_int_equal(stat(tl, "allocators.CALLOC"), 1);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.top_location') FROM event"
			       " WHERE kind = 'memray_stats'"), "step:/app/train.py:12");
	/* the holders: by size with a frame, then by count */
	assert_int_equal(t_int(tl, "SELECT bytes FROM holder WHERE tool = 'memray' AND rank = 1"
			       " AND bytes IS NOT NULL"), 1024);
	assert_int_equal(t_int(tl, "SELECT allocations FROM holder WHERE rank = 1 AND bytes IS"
			       " NOT NULL"), 2);
	assert_string_equal(t_text(tl, "SELECT f.file || ':' || f.line || ' ' || f.name FROM holder"
				   " h JOIN frame f ON f.stack_id = h.stack_id WHERE h.rank = 1 AND"
				   " h.bytes IS NOT NULL"), "/app/train.py:12 step");
	assert_string_equal(t_text(tl, "SELECT label FROM holder WHERE rank = 2 AND bytes IS NOT"
				   " NULL"), "<stack trace unavailable>");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM holder WHERE bytes IS NULL"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic"), 0);
}

static void plain_capture(void **state)
{
	struct buf b;
	struct timeline *tl;

	(void)state;
	header(&b, 12, 0, 4);
	records(&b);
	u8(&b, 1);  /* TRAILER */
	assert_int_equal(memray_bin_sniff(b.b, b.n), 100);
	tl = parse(&b, 3);
	check_capture(tl, 0);
	t_close(tl);
}

static void lz4_capture(void **state)
{
	struct buf b, z;
	struct timeline *tl;
	LZ4F_preferences_t prefs;
	size_t k;

	(void)state;
	header(&b, 12, 0, 4);
	records(&b);
	u8(&b, 1);
	memset(&prefs, 0, sizeof(prefs));
	prefs.frameInfo.blockMode = LZ4F_blockLinked;
	k = LZ4F_compressFrame(z.b, sizeof(z.b), b.b, b.n, &prefs);
	assert_false(LZ4F_isError(k));
	z.n = k;
	assert_int_equal(memray_bin_sniff(z.b, z.n), 100);
	assert_int_equal(memray_bin_sniff(z.b, 6), 30);  /* too little to tell */
	tl = parse(&z, 3);
	check_capture(tl, 1);
	t_close(tl);
	/* cut inside the frame: what was decoded is kept, the file offset said */
	z.n -= 12;
	tl = parse(&z, 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'error' AND"
			       " message LIKE '%%lz4 frame is cut at file byte%%'"), 1);
	t_close(tl);
}

static void cut_and_unclosed(void **state)
{
	struct buf b;
	struct timeline *tl;
	size_t full;

	(void)state;
	header(&b, 12, 0, 0);
	records(&b);
	full = b.n;
	/* cut in the last allocation's size varint's record: after its type */
	b.n = full - 3;
	tl = parse(&b, 3);
	assert_string_equal(cap(tl, "end"), "cut");
	assert_int_equal(atoi(cap(tl, "complete")), 0);
	assert_int_equal(atoi(cap(tl, "end_offset")), (int)(full - 4));
	assert_int_equal(t_int(tl, "SELECT offset FROM diagnostic WHERE severity = 'error'"),
			 (int64_t)(full - 4));
	assert_int_equal(stat(tl, "total_allocations"), 2);
	t_close(tl);
	/* never closed: the plain file's zero padding, no trailer */
	b.n = full;
	memset(b.b + b.n, 0, 64);
	b.n += 64;
	tl = parse(&b, 3);
	assert_string_equal(cap(tl, "end"), "padding");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'warning' AND"
			       " message LIKE '%%without memray''s trailer%%'"), 1);
	assert_int_equal(stat(tl, "total_allocations"), 3);
	t_close(tl);
	/* a byte after the padding: corrupt, said where */
	b.b[b.n - 10] = 0x42;
	tl = parse(&b, 3);
	assert_string_equal(cap(tl, "end"), "corrupt");
	t_close(tl);
	/* an unknown record type */
	b.n = full;
	u8(&b, 9);
	tl = parse(&b, 3);
	assert_string_equal(cap(tl, "problem"), "record type 9 unknown");
	assert_int_equal(atoi(cap(tl, "end_offset")), (int)full);
	t_close(tl);
}

static void versions(void **state)
{
	struct buf b;
	struct timeline *tl;

	(void)state;
	header(&b, 11, 0, 0);
	u8(&b, 1);
	tl = parse(&b, 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'error' AND"
			       " message LIKE '%%header version 11 is not one oomlens reads%%'"), 1);
	t_close(tl);
	header(&b, 13, 0, 4);
	records(&b);
	u8(&b, 1);
	tl = parse(&b, 3);
	assert_string_equal(cap(tl, "libdest"), "/usr/lib/python3.12");
	check_capture(tl, 0);
	t_close(tl);
	/* the header cut */
	header(&b, 12, 0, 0);
	b.n = 30;
	tl = parse(&b, 0);
	assert_int_equal(t_int(tl, "SELECT offset FROM diagnostic WHERE message LIKE"
			       " '%%header cut at byte%%'"), 30);
	t_close(tl);
	/* not memray at all */
	memcpy(b.b, "memrax", 6);
	assert_int_equal(memray_bin_sniff(b.b, b.n), 0);
	assert_int_equal(memray_bin_sniff((const unsigned char *)"\x04\x22\x4d", 3), 0);
}

static void aggregated(void **state)
{
	struct buf b;
	struct timeline *tl;
	int i;

	(void)state;
	header(&b, 12, 1, 0);
	u8(&b, 1);                /* MEMORY_SNAPSHOT: ms, rss, heap */
	le(&b, START_MS + 500, 8);
	le(&b, 40000000, 8);
	le(&b, 1000, 8);
	u8(&b, 2);                /* AGGREGATED_ALLOCATION */
	for (i = 0; i < 5; i++)   /* tid, allocator (padded), native, frame, generation */
		le(&b, i == 1 ? 6 : 0, 8);
	le(&b, 3, 8);             /* allocations in the high-water mark */
	le(&b, 1, 8);             /* leaked */
	le(&b, 3000, 8);          /* bytes in the high-water mark */
	le(&b, 700, 8);           /* bytes leaked */
	u8(&b, 4);                /* PYTHON_FRAME_INDEX */
	varint(&b, 0);
	varint(&b, 1);
	svarint(&b, 6);
	u8(&b, 0);
	u8(&b, 3);                /* PYTHON_TRACE_INDEX */
	varint(&b, 0);
	varint(&b, 0);
	u8(&b, 15);               /* AGGREGATED_TRAILER */
	tl = parse(&b, 3);
	assert_string_equal(cap(tl, "file_format"), "aggregated");
	assert_string_equal(cap(tl, "end"), "trailer");
	assert_int_equal(stat(tl, "peak_bytes"), 3000);
	assert_int_equal(stat(tl, "leaked_bytes"), 700);
	assert_int_equal(t_int(tl, "SELECT value FROM sample p JOIN series s ON s.id = p.series_id"
			       " WHERE s.name = 'proc.rss_bytes' AND s.entity = 'pid:4242'"), 40000000);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_capture),
		cmocka_unit_test(lz4_capture),
		cmocka_unit_test(cut_and_unclosed),
		cmocka_unit_test(versions),
		cmocka_unit_test(aggregated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
