/*
 * test_pickle.c -- the pickle decoder under the PyTorch snapshot reader:
 * every plain-data opcode in every protocol, the memo, refusal of every
 * opcode that would run code (and of real payloads), hostile shapes and
 * limits, trace entries streamed as their batch closes, and diagnostics
 * from the decoder's thread reaching the caller's sink in order.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decoder_plain_values_all_protocols),
		cmocka_unit_test(decoder_refuses_every_executing_opcode),
		cmocka_unit_test(decoder_refuses_real_payloads),
		cmocka_unit_test(decoder_limits_and_hostile_shapes),
		cmocka_unit_test(decoder_streams_trace_entries),
		cmocka_unit_test(decoder_thread_diagnostics_reach_the_caller),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
