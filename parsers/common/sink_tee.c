/*
 * sink_tee.c -- the sink that hands each record to two sinks
 * (sink_tee.h): one forwarding op per sink op, made by the TEE_OP macros.
 */
#include "parsers/common/sink_tee.h"

/* Call the first sink's op; once it stored the record, the second's
 * with tee->id set to the first's result. */
#define TEE_BODY(op, ...) \
	struct sink_tee *tee = s->ctx; \
	int64_t r; \
	if (!tee->first->op) \
		return 1; \
	r = tee->first->op(tee->first, __VA_ARGS__); \
	if (r < 0 || !tee->second->op) \
		return r; \
	tee->id = r; \
	return tee->second->op(tee->second, __VA_ARGS__) < 0 ? -1 : r;

#define TEE_OP1(op, T1) \
	static int64_t tee_##op(struct sink *s, T1 a) { TEE_BODY(op, a) }
#define TEE_OP2(op, T1, T2) \
	static int64_t tee_##op(struct sink *s, T1 a, T2 b) { TEE_BODY(op, a, b) }
#define TEE_OP3(op, T1, T2, T3) \
	static int64_t tee_##op(struct sink *s, T1 a, T2 b, T3 c) { TEE_BODY(op, a, b, c) }
#define TEE_OP4(op, T1, T2, T3, T4) \
	static int64_t tee_##op(struct sink *s, T1 a, T2 b, T3 c, T4 d) { TEE_BODY(op, a, b, c, d) }

TEE_OP1(event, const struct ol_event *)
TEE_OP2(task, int64_t, const struct ol_task *)
TEE_OP3(series, const char *, const char *, const char *)
TEE_OP3(sample, int64_t, const struct ol_time *, double)
TEE_OP2(meta, const char *, const char *)
TEE_OP2(stack, const struct ol_frame *, size_t)
TEE_OP4(anchor, const char *, int64_t, int64_t, const char *)
TEE_OP1(capture, const struct ol_capture *)
TEE_OP2(mapping, int64_t, const struct ol_mapping *)
TEE_OP2(series_shift, int64_t, double)
TEE_OP1(snapshot, const struct ol_snapshot *)
TEE_OP2(snapshot_end, int64_t, const struct ol_snapshot *)
TEE_OP2(segment, int64_t, const struct ol_segment *)
TEE_OP2(block, int64_t, const struct ol_block *)
TEE_OP2(trace, int64_t, const struct ol_trace *)
TEE_OP2(alloc, int64_t, const struct ol_alloc *)
TEE_OP1(gpu_device, const struct ol_gpu_device *)
TEE_OP1(gpu_context, const struct ol_gpu_context *)
TEE_OP1(gpu_module, const struct ol_gpu_module *)
TEE_OP1(gpu_grid, const struct ol_gpu_grid *)
TEE_OP1(gpu_region, const struct ol_gpu_region *)
TEE_OP1(thread, const struct ol_thread *)
TEE_OP1(engine, const struct ol_engine *)
TEE_OP1(holder, const struct ol_holder *)

/* A diagnostic: the first sink's, counted and kept there (first error
 * included) by sink_diagf itself, as if the parser had called it there. */
static int64_t tee_diag(struct sink *s, uint64_t line, uint64_t offset,
			enum ol_severity sev, const char *msg)
{
	struct sink_tee *tee = s->ctx;

	return sink_diagf(tee->first, line, offset, sev, "%s", msg);
}

void sink_tee_init(struct sink_tee *tee, struct sink *first, struct sink *second)
{
	struct sink *s = &tee->sink;

	*s = (struct sink){ 0 };
	tee->first = first;
	tee->second = second;
	tee->id = 0;
	s->ctx = tee;
	s->opts = first->opts;
	s->path = first->path;
	s->event = tee_event;
	s->task = tee_task;
	s->series = tee_series;
	s->sample = tee_sample;
	s->meta = tee_meta;
	s->stack = tee_stack;
	s->anchor = tee_anchor;
	s->capture = tee_capture;
	s->mapping = tee_mapping;
	s->diag = tee_diag;
	s->series_shift = tee_series_shift;
	s->snapshot = tee_snapshot;
	s->snapshot_end = tee_snapshot_end;
	s->segment = tee_segment;
	s->block = tee_block;
	s->trace = tee_trace;
	s->alloc = tee_alloc;
	s->gpu_device = tee_gpu_device;
	s->gpu_context = tee_gpu_context;
	s->gpu_module = tee_gpu_module;
	s->gpu_grid = tee_gpu_grid;
	s->gpu_region = tee_gpu_region;
	s->thread = tee_thread;
	s->engine = tee_engine;
	s->holder = tee_holder;
}
