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

#define DV(field) INT_COLUMN(struct ol_gpu_device, field)
#define DT(field) TEXT_COLUMN(struct ol_gpu_device, field)
static const struct col device_cols[] = {
	ID_COLUMN, ARTIFACT_COL,
	DV(device), DT(name), DT(type), DT(sm_type), DV(dev_id), DV(pci_bus_id),
	DV(pci_dev_id), DV(num_sms), DV(warps_per_sm), DV(lanes_per_warp),
	DV(regs_per_lane), DV(preds_per_lane), DV(sm_major), DV(sm_minor),
	DV(instruction_size), DV(status), DV(uregs_per_warp), DV(upreds_per_warp),
	DV(barriers_per_warp), DV(contexts),
};
static const struct table device_table = TABLE("gpu_device", device_cols, NULL, NULL, NULL);

#define CX(field) INT_COLUMN(struct ol_gpu_context, field)
static const struct col context_cols[] = {
	ID_COLUMN, ARTIFACT_COL,
	CX(device), CX(row), CX(context_id), CX(tid), CX(device_idx), CX(shared_window),
	CX(local_window), CX(global_window), CX(modules),
};
static const struct table context_table = TABLE("gpu_context", context_cols, NULL, NULL, NULL);

#define MD(field) INT_COLUMN(struct ol_gpu_module, field)
static const struct col module_cols[] = {
	ID_COLUMN, ARTIFACT_COL,
	MD(device), MD(context_id), MD(module_handle), MD(size), MD(elf_size), MD(kernels),
	COLUMN(struct ol_gpu_module, functions, "TEXT", COL_JSON),
};
static const struct table module_table = TABLE("gpu_module", module_cols, NULL, NULL, NULL);

#define GR(field) INT_COLUMN(struct ol_gpu_grid, field)
#define GT(field) TEXT_COLUMN(struct ol_gpu_grid, field)
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
	INT_COLUMN(struct ol_gpu_region, device),
	TEXT_COLUMN(struct ol_gpu_region, kind),
	INT_COLUMN(struct ol_gpu_region, address),
	INT_COLUMN(struct ol_gpu_region, size),
	INT_COLUMN(struct ol_gpu_region, file_offset),
	COLUMN(struct ol_gpu_region, complete, "INTEGER", COL_CINT),
};
static const struct table region_table = TABLE("gpu_region", region_cols, NULL, NULL,
	"CREATE INDEX gpu_region_artifact ON gpu_region(artifact_id);\n");

static const struct col thread_cols[] = {
	ID_COLUMN, ARTIFACT_COL,
	INT_COLUMN(struct ol_thread, pid),
	INT_COLUMN(struct ol_thread, tid),
	TEXT_COLUMN(struct ol_thread, name),
	INT_COLUMN(struct ol_thread, signal),
	COLUMN(struct ol_thread, crashed, "INTEGER", COL_CINT),
	COLUMN(struct ol_thread, stack_id, "INTEGER REFERENCES stack(id)", COL_REF),
};
static const struct table thread_table = TABLE("thread", thread_cols, NULL, NULL, NULL);

const struct table *const timeline_cores_tables[] = {
	&device_table, &context_table, &module_table, &grid_table, &region_table,
	&thread_table, NULL
};

RECORD_OP(gpu_device, struct ol_gpu_device, device_table)
RECORD_OP(gpu_context, struct ol_gpu_context, context_table)
RECORD_OP(gpu_module, struct ol_gpu_module, module_table)
RECORD_OP(gpu_grid, struct ol_gpu_grid, grid_table)
RECORD_OP(gpu_region, struct ol_gpu_region, region_table)
RECORD_OP(thread, struct ol_thread, thread_table)

void timeline_bind_cores(struct sink *s)
{
	s->gpu_device = op_gpu_device;
	s->gpu_context = op_gpu_context;
	s->gpu_module = op_gpu_module;
	s->gpu_grid = op_gpu_grid;
	s->gpu_region = op_gpu_region;
	s->thread = op_thread;
}
