/*
 * test_snapshot.c -- PyTorch memory snapshots: the pickle
 * decoder (every plain-data opcode, the memo, refusal of every opcode that
 * would run code, truncation and corruption), the snapshot reader in each
 * schema generation (fixtures written by CPython's pickle, see
 * fixtures/gen_snapshots.py), and the flat form's equivalence.
 */
#include "testutil.h"
#include "analyzer/store/correlate.h"
#include "parsers/torch/pickle.h"
#include "parsers/torch/torch_snapshot.h"
#include "lib/input.h"
#include "lib/strbuf.h"
#include "reports/report.h"
#include "analyzer/ingest/ingest.h"

#include <zlib.h>

#include <pthread.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0_NS (1700000000000000LL * 1000)
#define MiB (1024 * 1024)
#define SEG0 0x7F0000000000LL
#define SEG1 0x7F1000000000LL

/* ---- decoder ---- */

/* Decode a fixture file with no handler; returns the top value. */
static struct pk_val decode_file(const char *rel, struct pk_result *res, struct sink *s)
{
	size_t n;
	char *data = t_slurp(rel, &n);
	struct input in;
	struct pk_handler h = { NULL, NULL, NULL };

	assert_int_equal(input_open_mem(&in, rel, data, n), 0);
	assert_int_equal(pk_decode(&in, &h, s, res), 0);
	input_close(&in);
	free(data);
	return res->top;
}

static const struct pk_val *get(const struct pk_val *d, const char *k)
{
	const struct pk_val *v;
	assert_int_equal(d->type, PK_DICT);
	v = pk_dict_get(d->u.o, k);
	if (!v)
		fail_msg("key %s missing", k);
	return v;
}

static void check_values(int proto)
{
	char rel[64];
	struct pk_result res;
	struct sink s;
	struct pk_val top;
	const struct pk_val *v, *ints;
	static const int64_t want[] = { 0, 1, 255, 256, 65535, 65536, -1, -2147483648LL,
					2147483648LL, 1099511627776LL, INT64_MIN,
					INT64_MAX };

	memset(&s, 0, sizeof(s));
	snprintf(rel, sizeof(rel), "tests/data/snapshot/values.p%d.pickle", proto);
	top = decode_file(rel, &res, &s);
	assert_int_equal(res.status, PK_DONE);
	assert_int_equal(res.protocol, proto == 0 ? -1 : proto);
	assert_int_equal(s.n_errors, 0);
	ints = get(&top, "ints");
	assert_int_equal(ints->type, PK_LIST);
	assert_int_equal(ints->u.o->u.c.n, 14);
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++) {
		assert_int_equal(ints->u.o->u.c.v[i].type, PK_INT);
		assert_int_equal(ints->u.o->u.c.v[i].u.i, want[i]);
	}
	/* 2**64 and -2**70 do not fit: marked, not wrapped */
	assert_int_equal(ints->u.o->u.c.v[12].type, PK_BIGINT);
	assert_int_equal(ints->u.o->u.c.v[13].type, PK_BIGINT);
	assert_int_equal(pk_int(&ints->u.o->u.c.v[12]), OL_NULL);
	v = get(&top, "float");
	assert_int_equal(v->type, PK_FLOAT);
	assert_true(v->u.f == 1.5);
	assert_true(get(&top, "neg")->u.f == -0.25);
	assert_int_equal(get(&top, "t")->type, PK_BOOL);
	assert_int_equal(get(&top, "t")->u.i, 1);
	assert_int_equal(get(&top, "f")->u.i, 0);
	assert_int_equal(get(&top, "none")->type, PK_NONE);
	assert_string_equal(pk_str(get(&top, "text")), "caf\xc3\xa9 \xe2\x98\x83");
	/* a lone surrogate (surrogatepass) becomes U+FFFD, the rest is kept */
	assert_string_equal(pk_str(get(&top, "lone")), "a\xef\xbf\xbd" "b");
	v = get(&top, "tuple");
	assert_int_equal(v->type, PK_TUPLE);
	assert_int_equal(v->u.o->u.c.n, 4);
	assert_int_equal(v->u.o->u.c.v[3].u.i, 4);
	v = get(&top, "pair");
	assert_int_equal(v->type, PK_TUPLE);
	assert_int_equal(v->u.o->u.c.v[1].u.i, 8);
	assert_string_equal(pk_str(get(get(&top, "one"), "k")), "v");
	assert_int_equal(get(&top, "empty")->u.o->u.c.n, 0);
	v = get(&top, "nested");
	assert_int_equal(v->u.o->depth, 3);
	/* a shared list is one object, reached twice through the memo */
	v = get(&top, "shared");
	assert_int_equal(v->u.o->u.c.n, 2);
	assert_ptr_equal(v->u.o->u.c.v[0].u.o, v->u.o->u.c.v[1].u.o);
	assert_string_equal(pk_str(get(&v->u.o->u.c.v[0].u.o->u.c.v[0], "name")), "forward");
	if (proto >= 4) {
		v = get(&top, "bytes");
		assert_int_equal(v->type, PK_BYTES);
		assert_int_equal(v->u.o->u.str.n, 4);
		assert_memory_equal(v->u.o->u.str.s, "xy\0z", 4);
		assert_int_equal(get(&top, "set")->type, PK_SET);
		assert_int_equal(get(&top, "set")->u.o->u.c.v[0].u.i, 5);
		assert_int_equal(get(&top, "frozen")->u.o->u.c.v[0].u.i, 6);
	}
	pk_release(&res.top);
}

static void decoder_plain_values_all_protocols(void **state)
{
	(void)state;
	check_values(0);
	check_values(2);
	check_values(4);
	check_values(5);
}

/* Every opcode that would import, call or build objects is refused with
 * its name and byte offset, and nothing after it is read. */
static void decoder_refuses_every_executing_opcode(void **state)
{
	static const unsigned char ops[] = { 'c', 0x93, 'R', 'b', 'i', 'o', 0x81, 0x92,
					     0x82, 0x83, 0x84, 'P', 'Q', 0x97, 0x98 };
	(void)state;
	for (size_t i = 0; i < sizeof(ops); i++) {
		struct timeline *tl = t_open();
		unsigned char p[] = { 0x80, 0x04, ']', 0x94, ops[i], 'K', 1, 'a', '.' };
		char want[80];
		t_parse_mem(tl, "torch_snapshot", "evil.pickle", (const char *)p, sizeof(p));
		snprintf(want, sizeof(want), "pickle offset 4: opcode %s (0x%02x) refused%%",
			 pk_opname(ops[i]), ops[i]);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity='error'"
				       " AND message LIKE '%s'", want), 1);
		assert_int_equal(t_int(tl, "SELECT offset FROM diagnostic"), 4);
		t_close(tl);
	}
}

/* Pickles as CPython writes them for an os.system payload and for a class
 * instance: refused at the GLOBAL / STACK_GLOBAL, never run. */
static void decoder_refuses_real_payloads(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	t_parse_file(tl, "tests/data/snapshot/evil_reduce.p2.pickle");
	t_parse_file(tl, "tests/data/snapshot/evil_reduce.p4.pickle");
	t_parse_file(tl, "tests/data/snapshot/evil_obj.p4.pickle");
	assert_string_equal(t_text(tl, "SELECT message FROM diagnostic d JOIN artifact a ON"
				       " a.id = d.artifact_id WHERE a.path LIKE '%%reduce.p2%%'"),
			    "pickle offset 23: opcode GLOBAL (0x63) refused: it imports a module"
			    " attribute; a memory snapshot is plain data and never contains it");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '%%opcode STACK_GLOBAL (0x93) refused%%'"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM artifact WHERE kind='torch_snapshot'"
			       " AND status='partial'"), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace"), 0);
	t_close(tl);
}

/* Decode bytes with no handler; returns the number of error diagnostics
 * and copies the first message into msg. */
static unsigned decode_bytes(const unsigned char *p, size_t n, enum pk_status *st,
			     char *msg, size_t msz)
{
	struct input in;
	struct sink s;
	struct pk_handler h = { NULL, NULL, NULL };
	struct pk_result res;
	struct timeline *tl = t_open();

	assert_true(timeline_artifact_begin(tl, "x", "torch_snapshot", n, 0) > 0);
	s = tl->sink;
	input_open_mem(&in, "x", p, n);
	pk_decode(&in, &h, &s, &res);
	*st = res.status;
	pk_release(&res.top);
	input_close(&in);
	tl->sink.n_errors = s.n_errors;
	timeline_artifact_end(tl, 1, "ok", n, 0);
	snprintf(msg, msz, "%s", t_text(tl, "SELECT message FROM diagnostic ORDER BY id"));
	t_close(tl);
	return s.n_errors;
}

/* Hostile shapes: reference cycles, too deep nesting, a memo fetch of an
 * entry that left the window, a string longer than the file. */
static void decoder_limits_and_hostile_shapes(void **state)
{
	static const unsigned char self_item[] = { 0x80, 4, ']', 0x94, 'h', 0, 'a', '.' };
	static const unsigned char self_key[] = { 0x80, 4, '}', 0x94, 'h', 0, 'K', 1, 's', '.' };
	static const unsigned char long_str[] = { 0x80, 4, 'X', 0xff, 0xff, 0xff, 0x00, 'a', '.' };
	/* L1.append(L2), then L2.append(1): L2 was already placed */
	static const unsigned char placed[] = { 0x80, 4, ']', 0x94, ']', 0x94, 'a',
						'h', 1, 'K', 1, 'a', '.' };
	unsigned char deep[200];
	unsigned char *far;
	size_t n = 0, i;
	enum pk_status st;
	char msg[600];
	(void)state;

	assert_int_equal(decode_bytes(self_item, sizeof(self_item), &st, msg, sizeof(msg)), 1);
	assert_string_equal(msg, "pickle offset 6: APPEND of a container into itself");
	assert_int_equal(decode_bytes(self_key, sizeof(self_key), &st, msg, sizeof(msg)), 1);
	assert_string_equal(msg, "pickle offset 8: SETITEM of a container into itself");
	assert_int_equal(decode_bytes(placed, sizeof(placed), &st, msg, sizeof(msg)), 1);
	assert_string_equal(msg, "pickle offset 11: APPEND into a container already placed in"
			    " another (recursive structures are not supported)");
	assert_int_equal(decode_bytes(long_str, sizeof(long_str), &st, msg, sizeof(msg)), 1);
	assert_int_equal(st, PK_CORRUPT);
	assert_string_equal(msg, "pickle offset 2: BINUNICODE length larger than the rest of"
			    " the file or the limit");
	deep[n++] = 0x80;
	deep[n++] = 4;
	for (i = 0; i < 70; i++)
		deep[n++] = ']';
	for (i = 0; i < 69; i++)
		deep[n++] = 'a';
	deep[n++] = '.';
	assert_true(decode_bytes(deep, n, &st, msg, sizeof(msg)) >= 1);
	assert_string_equal(msg, "pickle offset 135: containers nested deeper than 64");
	/* 70,000 memoized strings, then a fetch of the first: it left the
	 * 65,536-entry window of entries never fetched */
	far = malloc(8 + 70000 * 4 + 8);
	n = 0;
	far[n++] = 0x80; far[n++] = 4; far[n++] = ']'; far[n++] = 0x94; far[n++] = '(';
	for (i = 0; i < 70000; i++) {
		far[n++] = 0x8c; far[n++] = 1; far[n++] = 'x'; far[n++] = 0x94;
	}
	far[n++] = 'h'; far[n++] = 1;      /* the first string: dropped */
	far[n++] = 'j'; far[n++] = 0x70; far[n++] = 0x11; far[n++] = 1; far[n++] = 0; /* 70000: held */
	far[n++] = 'e'; far[n++] = '.';
	assert_int_equal(decode_bytes(far, n, &st, msg, sizeof(msg)), 1);
	assert_int_equal(st, PK_DONE);
	assert_string_equal(msg, "pickle offset 280005: memo index 1 is not held (never stored, or"
			    " dropped after being streamed or leaving the memo window); using None");
	free(far);
}

/* Streaming: each trace entry is handed over as its APPENDS batch closes
 * and is not kept by its list. */
struct count_ud {
	uint64_t items, max_index, held_max;
};

static uint32_t c_open(void *ud, uint32_t parent, enum pk_type type,
		       const struct pk_val *key, uint64_t index)
{
	(void)ud; (void)type; (void)index;
	if (parent == PK_TAG_TOP)
		return 1;
	if (parent == 1 && key && pk_str(key) && !strcmp(pk_str(key), "device_traces"))
		return 2;
	if (parent == 2)
		return 3;
	return 0;
}

static int c_item(void *ud, uint32_t tag, struct pk_obj *c, const struct pk_val *key,
		  const struct pk_val *val, uint64_t index, uint64_t offset)
{
	struct count_ud *u = ud;
	(void)key; (void)offset;
	if (tag != 3)
		return 0;
	assert_int_equal(val->type, PK_DICT);
	assert_int_equal(index, u->items);
	u->items++;
	if (c->u.c.n > u->held_max)
		u->held_max = c->u.c.n;
	return 1;
}

static void decoder_streams_trace_entries(void **state)
{
	size_t n;
	char *data = t_slurp("tests/data/snapshot/big.p4.pickle", &n);
	struct input in;
	struct count_ud u = { 0, 0, 0 };
	struct pk_handler h = { &u, c_open, c_item };
	struct pk_result res;
	struct sink s;
	const struct pk_val *tr;
	(void)state;

	memset(&s, 0, sizeof(s));
	input_open_mem(&in, "big", data, n);
	assert_int_equal(pk_decode(&in, &h, &s, &res), 0);
	assert_int_equal(res.status, PK_DONE);
	assert_int_equal(s.n_errors, 0);
	assert_int_equal(u.items, 2600);
	assert_int_equal(u.held_max, 0);
	tr = pk_dict_get(res.top.u.o, "device_traces");
	assert_non_null(tr);
	/* the device list counted its items but holds none */
	assert_int_equal(tr->u.o->u.c.v[0].u.o->u.c.count, 2600);
	assert_int_equal(tr->u.o->u.c.v[0].u.o->u.c.n, 0);
	pk_release(&res.top);
	input_close(&in);
	free(data);
}

/* ---- the snapshot reader ---- */

/* The scenario of fixtures/gen_snapshots.py, 2.2+ generations. */
static void assert_main_scenario(struct timeline *tl, int proto, int timed)
{
	int64_t s1;

	assert_string_equal(t_text(tl, "SELECT form FROM snapshot"), "dict");
	assert_int_equal(t_int(tl, "SELECT protocol FROM snapshot"), proto);
	assert_int_equal(t_int(tl, "SELECT devices FROM snapshot"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic"), 0);
	/* segments and blocks at snapshot time */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM segment WHERE device = 0"
			       " AND address = %lld AND total_size = %d AND allocated_size = %d"
			       " AND segment_type = 'large'", SEG0, 20 * MiB, 2 * MiB + 512 * 1024), 1);
	assert_int_equal(t_int(tl, "SELECT total_size FROM segment WHERE device = 1"), 2 * MiB);
	assert_string_equal(t_text(tl, "SELECT segment_type FROM segment WHERE device = 1"), "small");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM block"), 5);
	assert_int_equal(t_int(tl, "SELECT sum(size) FROM block b JOIN segment s ON"
			       " s.id = b.segment_id WHERE s.device = 0"), 20 * MiB);
	assert_int_equal(t_int(tl, "SELECT address FROM block WHERE size = %d", 2 * MiB),
			 SEG0 + 0x100000);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM block WHERE state = 'active_allocated'"), 2);
	/* trace: 8 (+1 marker in 2.0) on device 0, 3 on device 1 */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace WHERE device = 1"), 3);
	assert_string_equal(t_text(tl, "SELECT action FROM trace WHERE device = 0 AND seq = 3"),
			    "free_requested");
	if (timed)
		assert_int_equal(t_int(tl, "SELECT time_ns FROM trace WHERE device = 0 AND seq = 1"),
				 T0_NS + 10000);
	else
		assert_int_equal(t_int(tl, "SELECT count(*) FROM trace WHERE time_ns IS NOT NULL"), 0);
	/* lifetimes */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM alloc"), 5);
	assert_int_equal(t_int(tl, "SELECT free_seq FROM alloc WHERE device = 0 AND"
			       " state = 'freed'"), 4);
	assert_int_equal(t_int(tl, "SELECT alloc_seq FROM alloc WHERE device = 0 AND"
			       " state = 'freed'"), 1);
	assert_int_equal(t_int(tl, "SELECT size FROM alloc WHERE device = 0 AND"
			       " state = 'freed'"), MiB);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM alloc WHERE state = 'live'"), 2);
	assert_int_equal(t_int(tl, "SELECT sum(size) FROM alloc WHERE state = 'live'"),
			 2 * MiB + 512 * 1024);
	assert_int_equal(t_int(tl, "SELECT addr FROM alloc WHERE state = 'orphan_free'"),
			 SEG0 + 0x400000);
	assert_int_equal(t_int(tl, "SELECT alloc_seq FROM alloc WHERE state = 'orphan_free'"),
			 OL_NULL);
	assert_int_equal(t_int(tl, "SELECT stack_id FROM alloc WHERE state = 'orphan_free'"),
			 OL_NULL);
	assert_int_equal(t_int(tl, "SELECT free_seq FROM alloc WHERE device = 1"), 2);
	if (timed)
		assert_int_equal(t_int(tl, "SELECT free_ns - alloc_ns FROM alloc WHERE device = 0"
				       " AND state = 'freed'"), 21000);
	/* stacks: innermost first, shared by A1 and A3 */
	s1 = t_int(tl, "SELECT stack_id FROM alloc WHERE device = 0 AND alloc_seq = 1");
	assert_true(s1 > 0);
	assert_int_equal(t_int(tl, "SELECT stack_id FROM alloc WHERE alloc_seq = 6"), s1);
	assert_string_equal(t_text(tl, "SELECT name FROM frame WHERE stack_id = %lld AND idx = 0",
				   (long long)s1), "forward");
	assert_int_equal(t_int(tl, "SELECT line FROM frame WHERE stack_id = %lld AND idx = 0",
			       (long long)s1), 125);
	assert_string_equal(t_text(tl, "SELECT file FROM frame WHERE stack_id = %lld AND idx = 2",
				   (long long)s1), "/srv/app/server.py");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM stack"), 2);
	assert_int_equal(t_int(tl, "SELECT stack_id FROM block WHERE size = 524288 AND"
			       " state = 'active_allocated'"), s1);
	/* the OOM */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'"), 1);
	assert_int_equal(t_int(tl, "SELECT bytes FROM event WHERE kind = 'torch_oom'"), 100 * MiB);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.device_free_bytes') FROM event"),
			 12345678);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.device') FROM event"), 0);
	assert_int_equal(t_int(tl, "SELECT device_free FROM trace WHERE action = 'oom'"), 12345678);
	assert_int_equal(t_int(tl, "SELECT addr FROM trace WHERE action = 'oom'"), OL_NULL);
	if (timed) {
		assert_int_equal(t_int(tl, "SELECT time_ns FROM event"), T0_NS + 60000);
		/* series from the trace */
		assert_string_equal(t_text(tl, "SELECT group_concat(CAST(value AS INTEGER), ' ') FROM"
				" (SELECT value FROM sample p JOIN series s ON s.id = p.series_id WHERE"
				" s.name = 'torch.allocated_bytes' AND s.entity = 'cuda:0'"
				" ORDER BY time_ns)"), "3145728 2621440");
		/* per millisecond: the peak (at +20 us) and the level at its end */
		assert_int_equal(t_int(tl, "SELECT min(time_ns) FROM sample p JOIN series s ON"
				       " s.id = p.series_id WHERE s.name = 'torch.allocated_bytes'"
				       " AND s.entity = 'cuda:0'"), T0_NS + 20000);
		assert_string_equal(t_text(tl, "SELECT group_concat(CAST(value AS INTEGER), ' ') FROM"
				" (SELECT value FROM sample p JOIN series s ON s.id = p.series_id WHERE"
				" s.name = 'torch.allocated_bytes' AND s.entity = 'cuda:1'"
				" ORDER BY time_ns)"), "256 0");
		assert_int_equal(t_int(tl, "SELECT value FROM sample p JOIN series s ON"
				       " s.id = p.series_id WHERE s.name = 'torch.reserved_bytes'"
				       " AND s.entity = 'cuda:0'"), 20 * MiB);
		assert_string_equal(t_text(tl, "SELECT unit FROM series WHERE entity = 'cuda:1'"
					       " AND name = 'torch.allocated_bytes'"), "bytes");
		assert_int_equal(t_int(tl, "SELECT peak_allocated_bytes FROM snapshot"), 3145728);
	} else {
		assert_int_equal(t_int(tl, "SELECT count(*) FROM sample"), 0);
		assert_int_equal(t_int(tl, "SELECT time_ns FROM event"), OL_NULL);
	}
}

static void assert_settings(struct timeline *tl)
{
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key ="
				       " 'torch.allocator.max_split_size'"), "-1");
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key ="
				       " 'torch.allocator.PYTORCH_CUDA_ALLOC_CONF'"),
			    "max_split_size_mb:512");
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key ="
				       " 'torch.allocator.expandable_segments'"), "false");
	assert_string_equal(t_text(tl, "SELECT value FROM meta WHERE key ="
				       " 'torch.allocator.garbage_collection_threshold'"), "0.0");
	assert_int_equal(t_int(tl, "SELECT json_extract(settings, '$.roundup_power2_divisions.\"32768\"')"
			       " FROM snapshot"), 0);
	assert_int_equal(t_int(tl, "SELECT json_extract(settings, '$.max_split_size') FROM snapshot"), -1);
}

static void snapshot_2_5_protocols_2_4(void **state)
{
	(void)state;
	for (int p = 2; p <= 4; p += 2) {
		struct timeline *tl = t_open();
		char rel[64];
		snprintf(rel, sizeof(rel), "tests/data/snapshot/v2_5.p%d.pickle", p);
		assert_int_equal(t_parse_file(tl, rel), 0);
		assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "torch_snapshot");
		assert_main_scenario(tl, p, 1);
		assert_settings(tl);
		assert_int_equal(t_int(tl, "SELECT trace_events FROM snapshot"), 11);
		assert_int_equal(t_int(tl, "SELECT count(*) FROM trace WHERE compile_context"
				       " IS NOT NULL OR user_metadata IS NOT NULL"), 0);
		t_close(tl);
	}
}

static void snapshot_2_11_protocol_5(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/v2_11.p5.pickle"), 0);
	assert_main_scenario(tl, 5, 1);
	assert_settings(tl);
	assert_string_equal(t_text(tl, "SELECT user_metadata FROM trace WHERE device = 0"
				       " AND seq = 2"), "req-7");
	assert_string_equal(t_text(tl, "SELECT user_metadata FROM trace WHERE device = 0"
				       " AND seq = 1"), "");
	assert_string_equal(t_text(tl, "SELECT compile_context FROM trace WHERE seq = 1"
				       " AND device = 0"), "N/A");
	assert_string_equal(t_text(tl, "SELECT pool_id FROM segment WHERE device = 0"), "0,0");
	assert_int_equal(t_int(tl, "SELECT is_expandable FROM segment WHERE device = 0"), 0);
	t_close(tl);
}

static void snapshot_2_0_history_blocks(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/v2_0.p4.pickle"), 0);
	assert_main_scenario(tl, 4, 0);
	assert_int_equal(t_int(tl, "SELECT trace_events FROM snapshot"), 12);
	assert_int_equal(t_int(tl, "SELECT size FROM trace WHERE action = 'snapshot'"),
			 2 * MiB + 512 * 1024);
	/* no allocator_settings in 2.0 */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM meta"), 0);
	assert_int_equal(t_int(tl, "SELECT settings IS NULL FROM snapshot"), 1);
	/* inactive blocks without history: address derived from the segment */
	assert_int_equal(t_int(tl, "SELECT address FROM block WHERE size = %d", 17 * MiB),
			 SEG0 + 0x300000);
	assert_int_equal(t_int(tl, "SELECT pool_id IS NULL AND is_expandable IS NULL FROM segment"
			       " WHERE device = 0"), 1);
	t_close(tl);
}

static void snapshot_2_1_expandable(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/v2_1.p4.pickle"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM segment"), 3);
	assert_int_equal(t_int(tl, "SELECT is_expandable FROM segment WHERE address ="
			       " 0x7E0000000000"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace WHERE action LIKE 'segment_%%map'"), 4);
	assert_int_equal(t_int(tl, "SELECT seq FROM trace WHERE action = 'oom'"), 11);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM alloc"), 5);
	assert_int_equal(t_int(tl, "SELECT stack_id IS NOT NULL FROM block WHERE size = %d", 2 * MiB), 1);
	t_close(tl);
}

static void snapshot_1_13_segment_list(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/v1_13_list.p2.pickle"), 0);
	assert_string_equal(t_text(tl, "SELECT form FROM snapshot"), "list");
	assert_int_equal(t_int(tl, "SELECT protocol FROM snapshot"), 2);
	assert_int_equal(t_int(tl, "SELECT devices FROM snapshot"), 2);
	assert_int_equal(t_int(tl, "SELECT trace_events FROM snapshot"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM segment"), 2);
	assert_int_equal(t_int(tl, "SELECT requested_size FROM segment WHERE device = 0"), OL_NULL);
	/* 1.13 blocks: requested size from history real_size, address from history */
	assert_int_equal(t_int(tl, "SELECT requested_size FROM block WHERE size = %d", 2 * MiB),
			 2 * MiB);
	assert_int_equal(t_int(tl, "SELECT address FROM block WHERE size = %d", 2 * MiB),
			 SEG0 + 0x100000);
	assert_int_equal(t_int(tl, "SELECT requested_size FROM block WHERE size = %d", 17 * MiB),
			 OL_NULL);
	assert_int_equal(t_int(tl, "SELECT count(DISTINCT stack_id) FROM block"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace"), 0);
	assert_int_equal(t_int(tl, "SELECT peak_allocated_bytes FROM snapshot"), OL_NULL);
	t_close(tl);
}

static void snapshot_big_batches_and_memo(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/big.p4.pickle"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace"), 2600);
	assert_int_equal(t_int(tl, "SELECT max(seq) FROM trace"), 2599);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM alloc WHERE state = 'freed'"), 650);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM alloc WHERE state = 'live'"), 650);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM stack"), 40 + 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace WHERE stack_id IS NULL"), 0);
	/* samples: at most two per millisecond, the peak among them */
	assert_int_equal(t_int(tl, "SELECT max(value) FROM sample p JOIN series s ON"
			       " s.id = p.series_id WHERE s.name = 'torch.allocated_bytes'"),
			 t_int(tl, "SELECT peak_allocated_bytes FROM snapshot"));
	assert_true(t_int(tl, "SELECT count(*) FROM sample p JOIN series s ON s.id = p.series_id"
			      " WHERE s.name = 'torch.allocated_bytes'") <=
		    2 * t_int(tl, "SELECT count(DISTINCT time_ns / 1000000) FROM trace"));
	assert_true(t_int(tl, "SELECT count(*) FROM sample") >= 4);
	t_close(tl);
}

static void snapshot_bigint_address_is_unknown(void **state)
{
	struct timeline *tl = t_open();
	(void)state;
	t_parse_file(tl, "tests/data/snapshot/bigint.p4.pickle");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace"), 1);
	assert_int_equal(t_int(tl, "SELECT addr FROM trace"), OL_NULL);
	assert_int_equal(t_int(tl, "SELECT size FROM trace"), 512);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE severity = 'warning'"
			       " AND message LIKE '%%does not fit 64 bits%%'"), 1);
	t_close(tl);
}

/* A cut pickle: what was read before the cut is kept, and the cut is
 * reported with its offset. */
static void snapshot_truncated_keeps_what_was_read(void **state)
{
	size_t n;
	char *data = t_slurp("tests/data/snapshot/big.p4.pickle", &n);
	struct timeline *tl = t_open();
	int64_t rows;
	(void)state;

	t_parse_mem(tl, "torch_snapshot", "cut.pickle", data, n * 6 / 10);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " '%%ends before its STOP%%'"), 1);
	assert_int_equal(t_int(tl, "SELECT offset FROM diagnostic"), (int64_t)(n * 6 / 10));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM segment"), 2);
	rows = t_int(tl, "SELECT count(*) FROM trace");
	assert_true(rows > 1000 && rows < 2600);
	/* the entries of the unfinished batch are kept too, in order */
	assert_int_equal(t_int(tl, "SELECT max(seq) + 1 FROM trace"), rows);
	assert_int_equal(t_int(tl, "SELECT trace_events FROM snapshot"), rows);
	t_close(tl);
	free(data);
}

static void snapshot_corrupt_opcode(void **state)
{
	size_t n;
	char *data = t_slurp("tests/data/snapshot/v2_5.p4.pickle", &n);
	struct timeline *tl = t_open();
	char *p;
	(void)state;

	/* overwrite the opcode of the 'free_requested' action string */
	p = memmem(data, n, "free_requested", 14);
	assert_non_null(p);
	p[-2] = (char)0xff;
	t_parse_mem(tl, "torch_snapshot", "bad.pickle", data, n);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message ="
			       " 'pickle offset %lld: unknown opcode 0xff: not a pickle, or corrupt'",
			       (long long)(p - 2 - data)), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM segment"), 2);
	/* the entries before it are kept */
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace"), 3);
	t_close(tl);
	free(data);
}

/* The decoder runs in a second thread, but the sink is the caller's:
 * every diagnostic it raises must reach the sink from the parsing thread,
 * with its byte offset, in order with the records (sink.h). A sink that
 * records, per diagnostic, the thread it came on and how many trace rows
 * it had stored by then. */
struct diag_seen {
	pthread_t thread;
	uint64_t offset;
	enum ol_severity sev;
	char msg[200];
	int64_t traces_before;
};

struct diag_sink {
	struct diag_seen d[8];
	size_t n;
	int64_t traces;
};

static int64_t ds_trace(struct sink *s, int64_t snap, const struct ol_trace *t)
{
	(void)snap; (void)t;
	((struct diag_sink *)s->ctx)->traces++;
	return 1;
}

static int64_t ds_diag(struct sink *s, uint64_t line, uint64_t offset, enum ol_severity sev,
		       const char *msg)
{
	struct diag_sink *r = s->ctx;
	(void)line;
	if (r->n < 8) {
		struct diag_seen *d = &r->d[r->n++];
		d->thread = pthread_self();
		d->offset = offset;
		d->sev = sev;
		snprintf(d->msg, sizeof(d->msg), "%s", msg);
		d->traces_before = r->traces;
	}
	return 1;
}

/* Parse n bytes of data with the threaded snapshot reader into r. */
static void parse_recorded(const char *data, size_t n, struct diag_sink *r)
{
	struct input in;
	struct sink s;

	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));
	s.ctx = r;
	s.path = "x.pickle";
	s.trace = ds_trace;
	s.diag = ds_diag;
	assert_int_equal(input_open_mem(&in, "x.pickle", data, n), 0);
	assert_true(torch_snapshot_parse(&in, &s) >= 0);
	input_close(&in);
	assert_int_equal(s.n_errors + s.n_warnings, r->n);
	for (size_t i = 0; i < r->n; i++)
		assert_true(pthread_equal(r->d[i].thread, pthread_self()));
}

static void decoder_thread_diagnostics_reach_the_caller(void **state)
{
	size_t n, nbig;
	char *data = t_slurp("tests/data/snapshot/v2_5.p4.pickle", &n), *p, want[120];
	char *big = t_slurp("tests/data/snapshot/big.p4.pickle", &nbig);
	struct diag_sink r;
	(void)state;

	/* a corrupt opcode: the decoder's error at its offset, then the
	 * reader's warning about the entry it cut short */
	p = memmem(data, n, "free_requested", 14);
	assert_non_null(p);
	p[-2] = (char)0xff;
	parse_recorded(data, n, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.d[0].sev, OL_ERROR);
	assert_int_equal(r.d[0].offset, (uint64_t)(p - 2 - data));
	snprintf(want, sizeof(want), "pickle offset %lld: unknown opcode 0xff: not a pickle,"
		 " or corrupt", (long long)(p - 2 - data));
	assert_string_equal(r.d[0].msg, want);
	assert_int_equal(r.d[1].sev, OL_WARN);
	assert_int_equal(r.d[1].offset, (uint64_t)(p - 2 - data));
	snprintf(want, sizeof(want), "pickle offset %lld: a trace entry without an action;"
		 " skipped", (long long)(p - 2 - data));
	assert_string_equal(r.d[1].msg, want);
	assert_int_equal(r.traces, 3);

	/* a cut pickle: the cut is said after the entries streamed before it
	 * (whole batches of 1,000) and before those of the open batch */
	parse_recorded(big, nbig * 6 / 10, &r);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.d[0].offset, (uint64_t)(nbig * 6 / 10));
	assert_non_null(strstr(r.d[0].msg, "ends before its STOP opcode"));
	assert_true(r.d[0].traces_before >= 1000 && r.d[0].traces_before % 1000 == 0);
	assert_true(r.traces > r.d[0].traces_before);
	free(data);
	free(big);
}

/* ---- the flat form ---- */

/* Convert a fixture pickle to the flat form in memory (as oomlens convert
 * does); returns the text, *n its length. */
static char *convert(const char *rel, size_t *n)
{
	size_t len;
	char *data = t_slurp(rel, &len), *out = NULL;
	struct input in;
	struct sink s;
	struct ts_ops ops;
	struct ts_writer *w;
	FILE *f = open_memstream(&out, n);

	memset(&s, 0, sizeof(s));
	assert_non_null(f);
	input_open_mem(&in, rel, data, len);
	w = ts_writer_new(f, &s, &ops);
	assert_int_equal(torch_snapshot_decode(&in, &s, &ops), 0);
	assert_true(ts_writer_free(w) > 0);
	fclose(f);
	input_close(&in);
	free(data);
	return out;
}

/* Every row of every table but artifact and diagnostic, as text. */
static char *dump_tables(struct timeline *tl)
{
	struct strbuf sb = STRBUF_INIT;
	sqlite3_stmt *t, *q;

	assert_int_equal(sqlite3_prepare_v2(tl->db, "SELECT name FROM sqlite_master WHERE"
					    " type = 'table' AND name NOT IN ('artifact', 'diagnostic')"
					    " ORDER BY name", -1, &t, NULL), SQLITE_OK);
	while (sqlite3_step(t) == SQLITE_ROW) {
		char sql[200];
		snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\" ORDER BY rowid",
			 (const char *)sqlite3_column_text(t, 0));
		if (sqlite3_prepare_v2(tl->db, sql, -1, &q, NULL) != SQLITE_OK) {
			/* WITHOUT ROWID tables */
			snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\" ORDER BY 1, 2",
				 (const char *)sqlite3_column_text(t, 0));
			assert_int_equal(sqlite3_prepare_v2(tl->db, sql, -1, &q, NULL), SQLITE_OK);
		}
		strbuf_addf(&sb, "== %s\n", (const char *)sqlite3_column_text(t, 0));
		while (sqlite3_step(q) == SQLITE_ROW) {
			for (int i = 0; i < sqlite3_column_count(q); i++) {
				const unsigned char *v = sqlite3_column_text(q, i);
				strbuf_addf(&sb, "%s|", v ? (const char *)v : "NULL");
			}
			strbuf_addch(&sb, '\n');
		}
		sqlite3_finalize(q);
	}
	sqlite3_finalize(t);
	return strbuf_detach(&sb, NULL);
}

static void flat_form_gives_the_same_timeline(void **state)
{
	static const char *const files[] = {
		"v1_13_list.p2.pickle", "v2_0.p4.pickle", "v2_1.p4.pickle", "v2_5.p2.pickle",
		"v2_5.p4.pickle", "v2_11.p5.pickle", "big.p4.pickle", "bigint.p4.pickle",
		"holders_frames.p4.pickle", "holders_history.p4.pickle",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		char rel[80];
		size_t pn, fn;
		char *pick, *flat, *a, *b;
		struct timeline *ta = t_open(), *tb = t_open();
		snprintf(rel, sizeof(rel), "tests/data/snapshot/%s", files[i]);
		pick = t_slurp(rel, &pn);
		flat = convert(rel, &fn);
		assert_true(torch_flat_sniff((unsigned char *)flat, fn) > 50);
		assert_int_equal(torch_snapshot_sniff((unsigned char *)flat, fn), 0);
		t_parse_mem(ta, "torch_snapshot", files[i], pick, pn);
		t_parse_mem(tb, "torch_snapshot_flat", files[i], flat, fn);
		a = dump_tables(ta);
		b = dump_tables(tb);
		assert_true(strlen(a) > 100);
		assert_string_equal(a, b);
		assert_int_equal(t_int(ta, "SELECT count(*) FROM diagnostic WHERE severity = 'error'"),
				 t_int(tb, "SELECT count(*) FROM diagnostic WHERE severity = 'error'"));
		free(a);
		free(b);
		free(pick);
		free(flat);
		t_close(ta);
		t_close(tb);
	}
}

static void flat_form_bad_lines_and_truncation(void **state)
{
	size_t fn;
	char *flat = convert("tests/data/snapshot/v2_5.p4.pickle", &fn);
	struct strbuf sb = STRBUF_INIT;
	struct timeline *tl = t_open();
	char *cut;
	(void)state;

	/* a garbage line 3, and the file cut before its end record */
	cut = strstr(flat, "{\"type\":\"trace\",\"device\":1,\"seq\":1");
	assert_non_null(cut);
	{
		char *l3 = strchr(strchr(flat, '\n') + 1, '\n') + 1;
		strbuf_add(&sb, flat, (size_t)(l3 - flat));
		strbuf_addstr(&sb, "{\"type\": \"segment\", oops\n");
		strbuf_add(&sb, l3, (size_t)(cut - l3));
	}
	t_parse_mem(tl, "torch_snapshot_flat", "cut.jsonl", sb.buf, sb.len);
	assert_int_equal(t_int(tl, "SELECT line FROM diagnostic WHERE message LIKE"
			       " 'expected one JSON object per line%%'"), 3);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'no end record%%'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM trace"), 9);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM alloc WHERE device = 1 AND state = 'live'"), 1);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM segment"), 2);
	/* not the header first: nothing read */
	t_parse_mem(tl, "torch_snapshot_flat", "nohdr.jsonl", "{\"type\":\"end\"}\n", 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM diagnostic WHERE message LIKE"
			       " 'expected the header record%%'"), 1);
	strbuf_release(&sb);
	free(flat);
	t_close(tl);
}

/* The JSON report's snapshots section and torch_oom event. */
static void json_report_snapshots(void **state)
{
	struct timeline *tl = t_open();
	json_t *r, *sn, *oom, *ev;
	size_t i;
	int found = 0;
	(void)state;

	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/v2_5.p4.pickle"), 0);
	assert_int_equal(t_parse_file(tl, "tests/data/snapshot/v1_13_list.p2.pickle"), 0);
	r = report_json(tl->db);
	assert_int_equal(json_array_size(json_object_get(r, "snapshots")), 2);
	sn = json_array_get(json_object_get(r, "snapshots"), 0);
	assert_int_equal(json_integer_value(json_object_get(sn, "devices")), 2);
	assert_int_equal(json_integer_value(json_object_get(sn, "segments")), 2);
	assert_int_equal(json_integer_value(json_object_get(sn, "reserved_bytes")), 22 * MiB);
	assert_int_equal(json_integer_value(json_object_get(sn, "allocated_bytes")),
			 2 * MiB + 512 * 1024);
	assert_int_equal(json_integer_value(json_object_get(sn, "trace_events")), 11);
	assert_int_equal(json_integer_value(json_object_get(sn, "allocs")), 4);
	assert_int_equal(json_integer_value(json_object_get(sn, "peak_allocated_bytes")), 3145728);
	assert_int_equal(json_array_size(json_object_get(sn, "ooms")), 1);
	oom = json_array_get(json_object_get(sn, "ooms"), 0);
	assert_int_equal(json_integer_value(json_object_get(oom, "device")), 0);
	assert_int_equal(json_integer_value(json_object_get(oom, "requested_bytes")), 100 * MiB);
	assert_int_equal(json_integer_value(json_object_get(oom, "device_free_bytes")), 12345678);
	assert_string_equal(json_string_value(json_object_get(oom, "time")),
			    "2023-11-14T22:13:20.000060Z");
	/* the segments-only snapshot: no trace figures */
	sn = json_array_get(json_object_get(r, "snapshots"), 1);
	assert_true(json_is_null(json_object_get(sn, "peak_allocated_bytes")));
	assert_int_equal(json_array_size(json_object_get(sn, "ooms")), 0);
	json_array_foreach(json_object_get(r, "events"), i, ev)
		if (!strcmp(json_string_value(json_object_get(ev, "kind")), "torch_oom")) {
			found++;
			assert_int_equal(json_integer_value(json_object_get(ev, "device_free_bytes")),
					 12345678);
			assert_int_equal(json_integer_value(json_object_get(ev, "bytes")), 100 * MiB);
		}
	assert_int_equal(found, 1);
	json_decref(r);
	t_close(tl);
}

/* Users gzip multi-GB snapshots: read through gzip, detected by content. */
static void snapshot_gzipped(void **state)
{
	char path[] = "/tmp/oomlens-snap-XXXXXX";
	int fd = mkstemp(path);
	size_t n;
	char *data = t_slurp("tests/data/snapshot/v2_5.p4.pickle", &n);
	gzFile gz;
	struct timeline *tl = t_open();
	struct ingest_cfg cfg = { .quiet = 1 };
	struct ingest_stats st;
	char *p = path;
	(void)state;

	assert_true(fd >= 0);
	gz = gzdopen(fd, "wb");
	assert_int_equal(gzwrite(gz, data, (unsigned)n), (int)n);
	gzclose(gz);
	assert_int_equal(ingest_paths(tl, &p, 1, &cfg, &st), 0);
	assert_string_equal(t_text(tl, "SELECT kind FROM artifact"), "torch_snapshot");
	assert_int_equal(t_int(tl, "SELECT compressed FROM artifact"), 1);
	assert_main_scenario(tl, 4, 1);
	unlink(path);
	free(data);
	t_close(tl);
}

static void sniff_by_content(void **state)
{
	size_t n;
	char *data = t_slurp("tests/data/snapshot/v2_5.p4.pickle", &n);
	(void)state;
	assert_true(torch_snapshot_sniff((unsigned char *)data, n) > 50);
	assert_int_equal(torch_snapshot_sniff((const unsigned char *)"\x80\x04}.", 4), 0);
	assert_int_equal(torch_snapshot_sniff((const unsigned char *)"segments total_size", 19), 0);
	free(data);
}

/* The trace only sees what was allocated inside its window; the weights
 * and caches allocated before it are in the segments. The series end on
 * the level the segments give (the fixture's trace starts after 15 GiB of
 * weights and 48 GiB of KV cache were allocated). */
static void series_anchored_to_segments(void **state)
{
	struct timeline *tl = t_open();
	int64_t seg_alloc, last, first;
	(void)state;

	assert_int_equal(t_parse_file(tl, "fixtures/leak_gpu_snapshot/oom_snapshot.pickle"), 0);
	seg_alloc = t_int(tl, "SELECT sum(allocated_size) FROM segment WHERE device = 0");
	last = t_int(tl, "SELECT CAST(value AS INTEGER) FROM sample p JOIN series s ON"
		     " s.id = p.series_id WHERE s.name = 'torch.allocated_bytes'"
		     " AND s.entity = 'cuda:0' ORDER BY time_ns DESC, p.rowid DESC LIMIT 1");
	first = t_int(tl, "SELECT CAST(value AS INTEGER) FROM sample p JOIN series s ON"
		      " s.id = p.series_id WHERE s.name = 'torch.allocated_bytes'"
		      " AND s.entity = 'cuda:0' ORDER BY time_ns, p.rowid LIMIT 1");
	assert_true(seg_alloc > 60LL * 1024 * 1024 * 1024);
	assert_int_equal(last, seg_alloc);
	assert_true(first > 60LL * 1024 * 1024 * 1024);   /* the weights were there */
	assert_int_equal(t_int(tl, "SELECT peak_allocated_bytes FROM snapshot"),
			 t_int(tl, "SELECT CAST(max(value) AS INTEGER) FROM sample p JOIN series s"
			       " ON s.id = p.series_id WHERE s.name = 'torch.allocated_bytes'"));
	t_close(tl);
}

/* One OOM, two witnesses: the snapshot's `oom` entry and the server's
 * OutOfMemoryError ("Tried to allocate 0.12 GiB") are linked; an OOM of
 * another size in another log is not. */
static void same_oom_in_snapshot_and_log(void **state)
{
	struct timeline *tl = t_open();
	static const char other[] =
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a"
		" total capacity of 73.00 GiB of which 0.08 GiB is free.\n";
	(void)state;

	assert_int_equal(t_parse_file(tl, "fixtures/leak_gpu_snapshot"), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'"), 2);
	assert_int_equal(t_int(tl, "SELECT json_extract(e.data, '$.same_as_event') FROM event e"
			       " JOIN artifact a ON a.id = e.artifact_id WHERE a.path LIKE"
			       " '%%server.err'"),
			 t_int(tl, "SELECT e.id FROM event e JOIN artifact a ON a.id = e.artifact_id"
			       " WHERE a.path LIKE '%%.pickle' AND e.kind = 'torch_oom'"));
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom' AND"
			       " json_extract(data, '$.same_as_event') IS NULL"), 1);
	t_close(tl);

	tl = t_open();
	assert_int_equal(t_parse_file(tl, "fixtures/leak_gpu_snapshot/oom_snapshot.pickle"), 0);
	t_parse_mem(tl, "server_log", "other.log", other, 0);
	assert_int_equal(correlate_events(tl), 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'torch_oom'"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE"
			       " json_extract(data, '$.same_as_event') IS NOT NULL"), 0);
	t_close(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decoder_plain_values_all_protocols),
		cmocka_unit_test(decoder_refuses_every_executing_opcode),
		cmocka_unit_test(decoder_refuses_real_payloads),
		cmocka_unit_test(decoder_limits_and_hostile_shapes),
		cmocka_unit_test(decoder_streams_trace_entries),
		cmocka_unit_test(snapshot_2_5_protocols_2_4),
		cmocka_unit_test(snapshot_2_11_protocol_5),
		cmocka_unit_test(snapshot_2_0_history_blocks),
		cmocka_unit_test(snapshot_2_1_expandable),
		cmocka_unit_test(snapshot_1_13_segment_list),
		cmocka_unit_test(snapshot_big_batches_and_memo),
		cmocka_unit_test(snapshot_bigint_address_is_unknown),
		cmocka_unit_test(snapshot_truncated_keeps_what_was_read),
		cmocka_unit_test(snapshot_corrupt_opcode),
		cmocka_unit_test(decoder_thread_diagnostics_reach_the_caller),
		cmocka_unit_test(flat_form_gives_the_same_timeline),
		cmocka_unit_test(flat_form_bad_lines_and_truncation),
		cmocka_unit_test(json_report_snapshots),
		cmocka_unit_test(snapshot_gzipped),
		cmocka_unit_test(sniff_by_content),
		cmocka_unit_test(series_anchored_to_segments),
		cmocka_unit_test(same_oom_in_snapshot_and_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
