/*
 * timeline_cores.c -- the store for core dumps: CUDA GPU core
 * tables (gpu_device, gpu_context, gpu_module, gpu_grid, gpu_region) and
 * host core threads (thread). Host core mappings go to the core capture
 * and mapping tables of timeline_common.c. Schema in docs/schema.md
 * "Core dumps"; each table is one column list (table.h) and each sink op
 * one insert of the parser's record.
 */
#include "analyzer/store/timeline_parts.h"

#define ARTIFACT_COL ARTIFACT_COLUMN("INTEGER REFERENCES artifact(id)")

#define DV(field) COLUMN(struct ol_gpu_device, field, "INTEGER", COL_INT)
#define DT(field) COLUMN(struct ol_gpu_device, field, "TEXT", COL_TEXT)
static const struct col device_cols[] = {
	ID_COLUMN, ARTIFACT_COL,
	DV(device), DT(name), DT(type), DT(sm_type), DV(dev_id), DV(pci_bus_id),
	DV(pci_dev_id), DV(num_sms), DV(warps_per_sm), DV(lanes_per_warp),
	DV(regs_per_lane), DV(preds_per_lane), DV(sm_major), DV(sm_minor),
	DV(instruction_size), DV(status), DV(uregs_per_warp), DV(upreds_per_warp),
	DV(barriers_per_warp), DV(contexts),
};
static const struct table device_table = TABLE("gpu_device", device_cols, NULL, NULL, NULL);

#define CX(field) COLUMN(struct ol_gpu_context, field, "INTEGER", COL_INT)
static const struct col context_cols[] = {
	ID_COLUMN, ARTIFACT_COL,
	CX(device), CX(row), CX(context_id), CX(tid), CX(device_idx), CX(shared_window),
	CX(local_window), CX(global_window), CX(modules),
};
static const struct table context_table = TABLE("gpu_context", context_cols, NULL, NULL, NULL);

#define MD(field) COLUMN(struct ol_gpu_module, field, "INTEGER", COL_INT)
static const struct col module_cols[] = {
	ID_COLUMN, ARTIFACT_COL,
	MD(device), MD(context_id), MD(module_handle), MD(size), MD(elf_size), MD(kernels),
	COLUMN(struct ol_gpu_module, functions, "TEXT", COL_JSON),
};
static const struct table module_table = TABLE("gpu_module", module_cols, NULL, NULL, NULL);

#define GR(field) COLUMN(struct ol_gpu_grid, field, "INTEGER", COL_INT)
#define GT(field) COLUMN(struct ol_gpu_grid, field, "TEXT", COL_TEXT)
/* The three columns name_x, _y, _z of an int64_t[3] member. */
#define DIM_COLS(name, member) \
	{ name "_x", "INTEGER", COL_INT, offsetof(struct ol_gpu_grid, member[0]), AT_INSERT }, \
	{ name "_y", "INTEGER", COL_INT, offsetof(struct ol_gpu_grid, member[1]), AT_INSERT }, \
	{ name "_z", "INTEGER", COL_INT, offsetof(struct ol_gpu_grid, member[2]), AT_INSERT }
static const struct col grid_cols[] = {
	ID_COLUMN, ARTIFACT_COL,
	GR(device), GR(grid_id), GR(context_id), GR(module_handle), GR(function_entry),
	GT(function), DIM_COLS("grid", grid_dim), DIM_COLS("block", block_dim),
	DIM_COLS("cluster", cluster_dim), GT(status), GR(status_code), GR(kernel_type),
	GR(origin), GR(num_regs), GR(host_tid), GT(exception),
};
static const struct table grid_table = TABLE("gpu_grid", grid_cols, NULL, NULL, NULL);

static const struct col region_cols[] = {
	ID_COLUMN, ARTIFACT_COL,
	COLUMN(struct ol_gpu_region, device, "INTEGER", COL_INT),
	COLUMN(struct ol_gpu_region, kind, "TEXT", COL_TEXT),
	COLUMN(struct ol_gpu_region, address, "INTEGER", COL_INT),
	COLUMN(struct ol_gpu_region, size, "INTEGER", COL_INT),
	COLUMN(struct ol_gpu_region, file_offset, "INTEGER", COL_INT),
	COLUMN(struct ol_gpu_region, complete, "INTEGER", COL_CINT),
};
static const struct table region_table = TABLE("gpu_region", region_cols, NULL, NULL,
	"CREATE INDEX gpu_region_artifact ON gpu_region(artifact_id);\n");

static const struct col thread_cols[] = {
	ID_COLUMN, ARTIFACT_COL,
	COLUMN(struct ol_thread, pid, "INTEGER", COL_INT),
	COLUMN(struct ol_thread, tid, "INTEGER", COL_INT),
	COLUMN(struct ol_thread, name, "TEXT", COL_TEXT),
	COLUMN(struct ol_thread, signal, "INTEGER", COL_INT),
	COLUMN(struct ol_thread, crashed, "INTEGER", COL_CINT),
	COLUMN(struct ol_thread, stack_id, "INTEGER REFERENCES stack(id)", COL_REF),
};
static const struct table thread_table = TABLE("thread", thread_cols, NULL, NULL, NULL);

const struct table *const timeline_cores_tables[] = {
	&device_table, &context_table, &module_table, &grid_table, &region_table,
	&thread_table, NULL
};

static int64_t op_gpu_device(struct sink *s, const struct ol_gpu_device *d)
{
	return tl_insert(s->ctx, &device_table, 0, d);
}

static int64_t op_gpu_context(struct sink *s, const struct ol_gpu_context *c)
{
	return tl_insert(s->ctx, &context_table, 0, c);
}

static int64_t op_gpu_module(struct sink *s, const struct ol_gpu_module *m)
{
	return tl_insert(s->ctx, &module_table, 0, m);
}

static int64_t op_gpu_grid(struct sink *s, const struct ol_gpu_grid *g)
{
	return tl_insert(s->ctx, &grid_table, 0, g);
}

static int64_t op_gpu_region(struct sink *s, const struct ol_gpu_region *r)
{
	return tl_insert(s->ctx, &region_table, 0, r);
}

static int64_t op_thread(struct sink *s, const struct ol_thread *t)
{
	return tl_insert(s->ctx, &thread_table, 0, t);
}

void timeline_bind_cores(struct sink *s)
{
	s->gpu_device = op_gpu_device;
	s->gpu_context = op_gpu_context;
	s->gpu_module = op_gpu_module;
	s->gpu_grid = op_gpu_grid;
	s->gpu_region = op_gpu_region;
	s->thread = op_thread;
}
