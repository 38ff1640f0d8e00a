/*
 * timeline_cores.c -- the store for core dumps: CUDA GPU core
 * tables (gpu_device, gpu_context, gpu_module, gpu_grid, gpu_region) and
 * host core threads (thread). Host core mappings go to the core capture
 * and mapping tables of timeline.c. Schema in docs/schema.md "Core dumps".
 */
#include "analyzer/store/timeline_parts.h"

const char timeline_schema_cores[] =
	"CREATE TABLE gpu_device(\n"
	"  id INTEGER PRIMARY KEY, artifact_id INTEGER REFERENCES artifact(id),\n"
	"  device INTEGER, name TEXT, type TEXT, sm_type TEXT, dev_id INTEGER,\n"
	"  pci_bus_id INTEGER, pci_dev_id INTEGER, num_sms INTEGER,\n"
	"  warps_per_sm INTEGER, lanes_per_warp INTEGER, regs_per_lane INTEGER,\n"
	"  preds_per_lane INTEGER, sm_major INTEGER, sm_minor INTEGER,\n"
	"  instruction_size INTEGER, status INTEGER, uregs_per_warp INTEGER,\n"
	"  upreds_per_warp INTEGER, barriers_per_warp INTEGER, contexts INTEGER);\n"
	"CREATE TABLE gpu_context(\n"
	"  id INTEGER PRIMARY KEY, artifact_id INTEGER REFERENCES artifact(id),\n"
	"  device INTEGER, row INTEGER, context_id INTEGER, tid INTEGER,\n"
	"  device_idx INTEGER, shared_window INTEGER, local_window INTEGER,\n"
	"  global_window INTEGER, modules INTEGER);\n"
	"CREATE TABLE gpu_module(\n"
	"  id INTEGER PRIMARY KEY, artifact_id INTEGER REFERENCES artifact(id),\n"
	"  device INTEGER, context_id INTEGER, module_handle INTEGER, size INTEGER,\n"
	"  elf_size INTEGER, kernels INTEGER, functions TEXT);\n"
	"CREATE TABLE gpu_grid(\n"
	"  id INTEGER PRIMARY KEY, artifact_id INTEGER REFERENCES artifact(id),\n"
	"  device INTEGER, grid_id INTEGER, context_id INTEGER, module_handle INTEGER,\n"
	"  function_entry INTEGER, function TEXT, grid_x INTEGER, grid_y INTEGER,\n"
	"  grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER,\n"
	"  cluster_x INTEGER, cluster_y INTEGER, cluster_z INTEGER, status TEXT,\n"
	"  status_code INTEGER, kernel_type INTEGER, origin INTEGER, num_regs INTEGER,\n"
	"  host_tid INTEGER, exception TEXT);\n"
	"CREATE TABLE gpu_region(\n"
	"  id INTEGER PRIMARY KEY, artifact_id INTEGER REFERENCES artifact(id),\n"
	"  device INTEGER, kind TEXT, address INTEGER, size INTEGER,\n"
	"  file_offset INTEGER, complete INTEGER);\n"
	"CREATE INDEX gpu_region_artifact ON gpu_region(artifact_id);\n"
	"CREATE TABLE thread(\n"
	"  id INTEGER PRIMARY KEY, artifact_id INTEGER REFERENCES artifact(id),\n"
	"  pid INTEGER, tid INTEGER, name TEXT, signal INTEGER, crashed INTEGER,\n"
	"  stack_id INTEGER REFERENCES stack(id));\n";

static const char sql_device[] =
	"INSERT INTO gpu_device(artifact_id, device, name, type, sm_type, dev_id,"
	" pci_bus_id, pci_dev_id, num_sms, warps_per_sm, lanes_per_warp, regs_per_lane,"
	" preds_per_lane, sm_major, sm_minor, instruction_size, status, uregs_per_warp,"
	" upreds_per_warp, barriers_per_warp, contexts)"
	" VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";

static int64_t op_gpu_device(struct sink *s, const struct ol_gpu_device *d)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_device);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, tl->artifact_id);
	tl_bind_int(st, 2, d->device);
	tl_bind_text(st, 3, d->name);
	tl_bind_text(st, 4, d->type);
	tl_bind_text(st, 5, d->sm_type);
	tl_bind_int(st, 6, d->dev_id);
	tl_bind_int(st, 7, d->pci_bus_id);
	tl_bind_int(st, 8, d->pci_dev_id);
	tl_bind_int(st, 9, d->num_sms);
	tl_bind_int(st, 10, d->warps_per_sm);
	tl_bind_int(st, 11, d->lanes_per_warp);
	tl_bind_int(st, 12, d->regs_per_lane);
	tl_bind_int(st, 13, d->preds_per_lane);
	tl_bind_int(st, 14, d->sm_major);
	tl_bind_int(st, 15, d->sm_minor);
	tl_bind_int(st, 16, d->instruction_size);
	tl_bind_int(st, 17, d->status);
	tl_bind_int(st, 18, d->uregs_per_warp);
	tl_bind_int(st, 19, d->upreds_per_warp);
	tl_bind_int(st, 20, d->barriers_per_warp);
	tl_bind_int(st, 21, d->contexts);
	return tl_step(tl, st);
}

static const char sql_context[] =
	"INSERT INTO gpu_context(artifact_id, device, row, context_id, tid, device_idx,"
	" shared_window, local_window, global_window, modules) VALUES(?,?,?,?,?,?,?,?,?,?)";

static int64_t op_gpu_context(struct sink *s, const struct ol_gpu_context *c)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_context);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, tl->artifact_id);
	tl_bind_int(st, 2, c->device);
	tl_bind_int(st, 3, c->row);
	tl_bind_int(st, 4, c->context_id);
	tl_bind_int(st, 5, c->tid);
	tl_bind_int(st, 6, c->device_idx);
	tl_bind_int(st, 7, c->shared_window);
	tl_bind_int(st, 8, c->local_window);
	tl_bind_int(st, 9, c->global_window);
	tl_bind_int(st, 10, c->modules);
	return tl_step(tl, st);
}

static const char sql_module[] =
	"INSERT INTO gpu_module(artifact_id, device, context_id, module_handle, size,"
	" elf_size, kernels, functions) VALUES(?,?,?,?,?,?,?,?)";

static int64_t op_gpu_module(struct sink *s, const struct ol_gpu_module *m)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_module);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, tl->artifact_id);
	tl_bind_int(st, 2, m->device);
	tl_bind_int(st, 3, m->context_id);
	tl_bind_int(st, 4, m->module_handle);
	tl_bind_int(st, 5, m->size);
	tl_bind_int(st, 6, m->elf_size);
	tl_bind_int(st, 7, m->kernels);
	tl_bind_json(st, 8, m->functions);
	return tl_step(tl, st);
}

static const char sql_grid[] =
	"INSERT INTO gpu_grid(artifact_id, device, grid_id, context_id, module_handle,"
	" function_entry, function, grid_x, grid_y, grid_z, block_x, block_y, block_z,"
	" cluster_x, cluster_y, cluster_z, status, status_code, kernel_type, origin,"
	" num_regs, host_tid, exception)"
	" VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";

static int64_t op_gpu_grid(struct sink *s, const struct ol_gpu_grid *g)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_grid);
	int i;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, tl->artifact_id);
	tl_bind_int(st, 2, g->device);
	tl_bind_int(st, 3, g->grid_id);
	tl_bind_int(st, 4, g->context_id);
	tl_bind_int(st, 5, g->module_handle);
	tl_bind_int(st, 6, g->function_entry);
	tl_bind_text(st, 7, g->function);
	for (i = 0; i < 3; i++) {
		tl_bind_int(st, 8 + i, g->grid_dim[i]);
		tl_bind_int(st, 11 + i, g->block_dim[i]);
		tl_bind_int(st, 14 + i, g->cluster_dim[i]);
	}
	tl_bind_text(st, 17, g->status);
	tl_bind_int(st, 18, g->status_code);
	tl_bind_int(st, 19, g->kernel_type);
	tl_bind_int(st, 20, g->origin);
	tl_bind_int(st, 21, g->num_regs);
	tl_bind_int(st, 22, g->host_tid);
	tl_bind_text(st, 23, g->exception);
	return tl_step(tl, st);
}

static const char sql_region[] =
	"INSERT INTO gpu_region(artifact_id, device, kind, address, size, file_offset,"
	" complete) VALUES(?,?,?,?,?,?,?)";

static int64_t op_gpu_region(struct sink *s, const struct ol_gpu_region *r)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_region);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, tl->artifact_id);
	tl_bind_int(st, 2, r->device);
	tl_bind_text(st, 3, r->kind);
	tl_bind_int(st, 4, r->address);
	tl_bind_int(st, 5, r->size);
	tl_bind_int(st, 6, r->file_offset);
	sqlite3_bind_int(st, 7, r->complete);
	return tl_step(tl, st);
}

static const char sql_thread[] =
	"INSERT INTO thread(artifact_id, pid, tid, name, signal, crashed, stack_id)"
	" VALUES(?,?,?,?,?,?,?)";

static int64_t op_thread(struct sink *s, const struct ol_thread *t)
{
	struct timeline *tl = s->ctx;
	sqlite3_stmt *st = timeline_stmt(tl, sql_thread);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, tl->artifact_id);
	tl_bind_int(st, 2, t->pid);
	tl_bind_int(st, 3, t->tid);
	tl_bind_text(st, 4, t->name);
	tl_bind_int(st, 5, t->signal);
	sqlite3_bind_int(st, 6, t->crashed);
	tl_bind_int(st, 7, t->stack_id > 0 ? t->stack_id : OL_NULL);
	return tl_step(tl, st);
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
