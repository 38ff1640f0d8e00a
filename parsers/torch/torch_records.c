/*
 * torch_records.c -- what the snapshot record layers share (see
 * torch_records.h): the field tables, one description per record, walked
 * by the flat writer and reader and by the pipe; and the once-per-key
 * stack ids of the model and the flat writer.
 */
#include "parsers/torch/torch_records.h"
#include "parsers/common/hashtab.h"

#define F(rec, field, type) { #field, type, offsetof(struct rec, field) }
#define POOL(rec) { "pool_id", TS_F_POOL, offsetof(struct rec, pool_a) }

_Static_assert(offsetof(struct ts_segment, pool_b) ==
	       offsetof(struct ts_segment, pool_a) + sizeof(int64_t), "pool pair");
_Static_assert(offsetof(struct ts_entry, pool_b) ==
	       offsetof(struct ts_entry, pool_a) + sizeof(int64_t), "pool pair");

static const struct ts_field segment_fields[] = {
	F(ts_segment, device, TS_F_INT),
	F(ts_segment, address, TS_F_INT),
	F(ts_segment, total_size, TS_F_INT),
	F(ts_segment, allocated_size, TS_F_INT),
	F(ts_segment, active_size, TS_F_INT),
	F(ts_segment, requested_size, TS_F_INT),
	F(ts_segment, stream, TS_F_INT),
	F(ts_segment, segment_type, TS_F_STR),
	POOL(ts_segment),
	F(ts_segment, is_expandable, TS_F_FLAG),
};

static const struct ts_field block_fields[] = {
	F(ts_block, address, TS_F_INT),
	F(ts_block, size, TS_F_INT),
	F(ts_block, requested_size, TS_F_INT),
	F(ts_block, state, TS_F_STR),
};

static const struct ts_field entry_fields[] = {
	F(ts_entry, device, TS_F_INT),
	F(ts_entry, seq, TS_F_INT),
	F(ts_entry, action, TS_F_STR),
	F(ts_entry, addr, TS_F_INT),
	F(ts_entry, size, TS_F_INT),
	F(ts_entry, stream, TS_F_INT),
	F(ts_entry, time_us, TS_F_INT),
	F(ts_entry, device_free, TS_F_INT),
	F(ts_entry, compile_context, TS_F_STR),
	F(ts_entry, user_metadata, TS_F_STR),
	POOL(ts_entry),
};

#define KIND(name, rec, fields) \
	{ name, sizeof(struct rec), offsetof(struct rec, frames), fields, \
	  sizeof(fields) / sizeof(fields[0]) }

const struct ts_kind ts_segment_kind = KIND("segment", ts_segment, segment_fields);
const struct ts_kind ts_block_kind = KIND("block", ts_block, block_fields);
const struct ts_kind ts_entry_kind = KIND("trace", ts_entry, entry_fields);

int64_t ts_stack_id(struct keymap *ids, const struct ts_frames *fr,
		    int64_t (*make)(void *ctx, const struct ol_frame *f, size_t n), void *ctx)
{
	const struct ol_frame *f;
	size_t n;
	int64_t id;

	if (!fr)
		return OL_NULL;
	if (keymap_get(ids, fr->key, &id))
		return id;
	/* an empty frame list: no stack was recorded */
	if (fr->get(fr, &f, &n) < 0 || n == 0)
		return OL_NULL;
	id = make(ctx, f, n);
	if (id < 0)
		return -1;
	if (fr->key)
		keymap_put(ids, fr->key, id);
	return id;
}
