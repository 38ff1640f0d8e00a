/*
 * test_sink_tee.c -- one parser, two sinks (parsers/common/sink_tee.h):
 * the store records and the derive stage groups. The tee must hand the
 * second sink each record the first stored, with the first's id, and
 * nothing the first refused; diagnostics are counted where ingest reads
 * them. On a real snapshot (fixtures/spike_gpu_snapshot), the store's
 * sink alone writes the records and no holder, and the teed ingest
 * (ingest_parse) writes the holders too (issue 25: holders move from the
 * store's write path to analyzer/derive/).
 */
#include "testutil.h"
#include "analyzer/ingest/formats.h"
#include "analyzer/ingest/ingest.h"
#include "lib/input.h"
#include "lib/strbuf.h"
#include "parsers/common/sink_tee.h"

#include <string.h>

/* A sink that counts the blocks it is handed and answers `answer`; the
 * second of a tee also notes the tee's id when it is called. */
struct rec {
	int64_t answer;
	int blocks, diags;
	int64_t last_parent, seen_id;
	const int64_t *tee_id;
};

static int64_t rec_block(struct sink *s, int64_t segment_id, const struct ol_block *b)
{
	struct rec *r = s->ctx;

	(void)b;
	r->blocks++;
	r->last_parent = segment_id;
	if (r->tee_id)
		r->seen_id = *r->tee_id;
	return r->answer;
}

static int64_t rec_diag(struct sink *s, uint64_t line, uint64_t offset, enum ol_severity sev,
			const char *msg)
{
	(void)line; (void)offset; (void)sev; (void)msg;
	((struct rec *)s->ctx)->diags++;
	return 1;
}

static void rec_sink(struct sink *s, struct rec *r, int64_t answer)
{
	memset(s, 0, sizeof(*s));
	memset(r, 0, sizeof(*r));
	r->answer = answer;
	s->ctx = r;
	s->block = rec_block;
	s->diag = rec_diag;
}

static void second_sees_what_first_stored_with_its_id(void **state)
{
	struct sink a, b;
	struct rec ra, rb;
	struct sink_tee tee;
	struct ol_block blk = { .address = 4096, .size = 512 };
	(void)state;

	rec_sink(&a, &ra, 42);
	rec_sink(&b, &rb, 1);
	sink_tee_init(&tee, &a, &b);
	rb.tee_id = &tee.id;
	assert_int_equal(sink_block(&tee.sink, 7, &blk), 42);   /* the first's id */
	assert_int_equal(ra.blocks, 1);
	assert_int_equal(rb.blocks, 1);
	assert_int_equal(rb.last_parent, 7);
	assert_int_equal(rb.seen_id, 42);

	ra.answer = -1;                                          /* the store failed */
	assert_int_equal(sink_block(&tee.sink, 7, &blk), -1);
	assert_int_equal(rb.blocks, 1);                          /* not handed on */

	ra.answer = 43;
	rb.answer = -1;                                          /* the second failed */
	assert_int_equal(sink_block(&tee.sink, 8, &blk), -1);
	assert_int_equal(rb.seen_id, 43);

	/* an op the first lacks: nothing stored, nothing handed on */
	assert_int_equal(sink_event(&tee.sink, &(struct ol_event){ .kind = "x" }), 1);
}

static void diagnostics_reach_and_count_in_the_first(void **state)
{
	struct sink a, b;
	struct rec ra, rb;
	struct sink_tee tee;
	(void)state;

	rec_sink(&a, &ra, 1);
	rec_sink(&b, &rb, 1);
	sink_tee_init(&tee, &a, &b);
	sink_diagf(&tee.sink, 3, 0, OL_ERROR, "bad %d", 1);
	sink_diagf(&tee.sink, 4, 0, OL_WARN, "odd");
	sink_diagf(&tee.sink, 5, 0, OL_INFO, "note");
	assert_int_equal(ra.diags, 3);
	assert_int_equal(rb.diags, 0);
	assert_int_equal(a.n_errors, 1);
	assert_int_equal(a.n_warnings, 1);
	assert_int_equal(tee.sink.n_errors, 1);
	assert_int_equal(b.n_errors, 0);
}

/* Parse fixtures/spike_gpu_snapshot/snapshot.pickle into tl, teed
 * (ingest_parse) or into the store's sink alone. */
static void parse_snapshot(struct timeline *tl, int teed)
{
	const char *rel = "fixtures/spike_gpu_snapshot/snapshot.pickle";
	const struct format *f = format_by_kind("torch_snapshot");
	struct strbuf err = STRBUF_INIT;
	struct input in;
	int r;

	assert_non_null(f);
	assert_int_equal(input_open(&in, t_src(rel), &err), 0);
	assert_true(timeline_artifact_begin(tl, rel, f->kind, in.size, 0) > 0);
	r = teed ? ingest_parse(tl, f, &in) : f->parse(&in, &tl->sink);
	assert_true(r > 0);
	assert_int_equal(timeline_artifact_end(tl, 1, "ok", in.offset, 0), 0);
	input_close(&in);
	strbuf_release(&err);
}

static void the_store_records_and_derive_groups(void **state)
{
	struct timeline *alone = t_open(), *teed = t_open();
	(void)state;

	parse_snapshot(alone, 0);
	parse_snapshot(teed, 1);
	/* the same records stored either way */
	assert_true(t_int(alone, "SELECT count(*) FROM alloc") > 100);
	assert_int_equal(t_int(alone, "SELECT count(*) FROM alloc"),
			 t_int(teed, "SELECT count(*) FROM alloc"));
	assert_int_equal(t_int(alone, "SELECT count(*) FROM block"),
			 t_int(teed, "SELECT count(*) FROM block"));
	/* the holders only from the derive stage's sink */
	assert_int_equal(t_int(alone, "SELECT count(*) FROM holder"), 0);
	assert_int_equal(t_int(alone, "SELECT count(*) FROM snapshot WHERE recording IS NOT NULL"), 0);
	assert_true(t_int(teed, "SELECT count(*) FROM holder WHERE tool = 'torch_snapshot'"
			  " AND scope = 'peak'") > 0);
	assert_true(t_int(teed, "SELECT count(*) FROM block WHERE holder_id IS NOT NULL") > 0);
	assert_int_equal(t_int(teed, "SELECT count(*) FROM snapshot WHERE recording IS NOT NULL"), 1);
	t_close(alone);
	t_close(teed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(second_sees_what_first_stored_with_its_id),
		cmocka_unit_test(diagnostics_reach_and_count_in_the_first),
		cmocka_unit_test(the_store_records_and_derive_groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
