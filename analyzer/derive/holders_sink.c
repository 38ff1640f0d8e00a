/*
 * holders_sink.c -- the holders' sink (holders.h): the second sink of the
 * ingest's tee (parsers/common/sink_tee.h). It sees each snapshot record
 * after the store wrote it, with the id the store gave it, and hands it
 * to the collector (holders_collect.c); when the snapshot ends it has the
 * holders derived and written (holders_write.c). The store records; this
 * groups.
 */
#include "analyzer/derive/holders.h"

#include <string.h>

static struct holders_sink *hsink(struct sink *s)
{
	return s->ctx;
}

static int64_t op_snapshot(struct sink *s, const struct ol_snapshot *x)
{
	struct holders_sink *hs = hsink(s);

	if (*hs->stored_id > 0)
		holders_begin(&hs->h, *hs->stored_id, x->form);
	return 1;
}

/* The snapshot's end-of-file fields are stored: derive its holders. */
static int64_t op_snapshot_end(struct sink *s, int64_t id, const struct ol_snapshot *x)
{
	struct holders_sink *hs = hsink(s);

	(void)x;
	return holders_end(hs->tl, &hs->h, id) < 0 ? -1 : 1;
}

static int64_t op_segment(struct sink *s, int64_t snapshot_id, const struct ol_segment *x)
{
	struct holders_sink *hs = hsink(s);

	(void)snapshot_id;
	if (*hs->stored_id > 0)
		holders_segment(&hs->h, x);
	return 1;
}

static int64_t op_block(struct sink *s, int64_t segment_id, const struct ol_block *x)
{
	struct holders_sink *hs = hsink(s);

	(void)segment_id;
	if (*hs->stored_id > 0)
		holders_block(&hs->h, *hs->stored_id, x);
	return 1;
}

static int64_t op_trace(struct sink *s, int64_t snapshot_id, const struct ol_trace *x)
{
	(void)snapshot_id;
	holders_trace(&hsink(s)->h, x);
	return 1;
}

static int64_t op_alloc(struct sink *s, int64_t snapshot_id, const struct ol_alloc *x)
{
	(void)snapshot_id;
	holders_alloc(&hsink(s)->h, x);
	return 1;
}

void holders_sink_init(struct holders_sink *hs, struct timeline *tl, const int64_t *stored_id)
{
	memset(hs, 0, sizeof(*hs));
	hs->tl = tl;
	hs->stored_id = stored_id;
	hs->sink.ctx = hs;
	hs->sink.snapshot = op_snapshot;
	hs->sink.snapshot_end = op_snapshot_end;
	hs->sink.segment = op_segment;
	hs->sink.block = op_block;
	hs->sink.trace = op_trace;
	hs->sink.alloc = op_alloc;
}

void holders_sink_release(struct holders_sink *hs)
{
	holders_discard(&hs->h);
}
