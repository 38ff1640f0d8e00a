/*
 * cuda_core_tables.c -- the hierarchy tables of a CUDA core, decoded row
 * by row from exactly sh_entsize bytes (fields past sh_entsize are absent,
 * bytes past what we know are skipped): the metadata row, the device
 * table, each device's contexts, each context's modules (with their cubin
 * sections) and each device's grids.
 */
#include "parsers/cores/cuda_core_internal.h"

#include <stdio.h>
#include <stdlib.h>

#define DIAG(c, ...) core_diag(&(c)->out, __VA_ARGS__)

static const char *const grid_status[] = {
	"invalid", "pending", "active", "sleeping", "terminated", "undetermined",
};

/* Zeroed room for one record of size bytes per row of the valid sections
 * of kind k; NULL (failed set) when out of memory. */
static void *alloc_rows(struct core *c, unsigned k, size_t size)
{
	size_t j, total = 0;
	void *p;

	FOR_KIND(c, k, j)
		if (c->sec[c->bykind[j]].valid)
			total += c->sec[c->bykind[j]].rows;
	p = calloc(total ? total : 1, size);
	if (!p)
		c->out.failed = 1;
	return p;
}

/* ---- metadata and devices ---- */

/* A meta key from the metadata row; remembers a store failure. */
static void meta(struct core *c, const char *key, const char *value)
{
	if (sink_meta(c->out.s, key, value) < 0)
		c->out.failed = 1;
}

void cc_read_meta(struct core *c)
{
	size_t j;
	unsigned char r[32];
	char buf[64];

	c->t = ol_time_none();
	FOR_KIND(c, K_META, j) {
		size_t i = c->bykind[j];
		struct sec *x = &c->sec[i];
		const char *gen;

		if (!x->inb || !x->entsize || x->entsize < 32 || x->size < x->entsize) {
			DIAG(c, shdr_off(c, i), OL_ERROR, "section %zu (metadata): %llu bytes "
			     "with sh_entsize %llu cannot hold a 32-byte row; skipped", i,
			     (unsigned long long)x->size, (unsigned long long)x->entsize);
			continue;
		}
		row(c, x, 0, r, sizeof(r));
		gen = cc_str_at(c, get64(r), x->off, "metadata generator name");
		if (gen)
			meta(c, "cuda.generator", gen);
		snprintf(buf, sizeof(buf), "%u.%u", get32(r + 8), get32(r + 12));
		meta(c, "cuda.driver_version", buf);
		snprintf(buf, sizeof(buf), "%u.%u", get32(r + 16), get32(r + 20));
		meta(c, "cuda.version", buf);
		snprintf(buf, sizeof(buf), "0x%x", get32(r + 24));
		meta(c, "cuda.coredump_flags", buf);
		if (get32(r + 28)) {
			c->t.clock = OL_CLOCK_UTC;
			c->t.utc_ns = (int64_t)get32(r + 28) * 1000000000;
		}
		return;   /* one metadata row is all there is */
	}
}

/* Device row i of the device table x. */
static void read_device(struct core *c, const struct sec *x, uint32_t i)
{
	struct ol_gpu_device *d = &c->devs[i];
	unsigned char r[88];

	row(c, x, i, r, sizeof(r));
	d->device = i;
	d->name = cc_str_at(c, get64(r), row_off(x, i, 0), "device name");
	d->type = cc_str_at(c, get64(r + 8), row_off(x, i, 8), "device type");
	d->sm_type = cc_str_at(c, get64(r + 16), row_off(x, i, 16), "device SM type");
	d->dev_id = get32(r + 24);
	d->pci_bus_id = get32(r + 28);
	d->pci_dev_id = get32(r + 32);
	d->num_sms = get32(r + 36);
	d->warps_per_sm = get32(r + 40);
	d->lanes_per_warp = get32(r + 44);
	d->regs_per_lane = get32(r + 48);
	d->preds_per_lane = get32(r + 52);
	d->sm_major = get32(r + 56);
	d->sm_minor = get32(r + 60);
	d->instruction_size = get32(r + 64);
	d->status = get32(r + 68);
	d->uregs_per_warp = opt32(x, r, 72);
	d->upreds_per_warp = opt32(x, r, 76);
	d->barriers_per_warp = opt32(x, r, 80);
	d->contexts = 0;
	if (d->lanes_per_warp > 32)
		DIAG(c, row_off(x, i, 44), OL_WARN, "device %u: %lld lanes per warp, "
		     "more than 32", i, (long long)d->lanes_per_warp);
	if (d->num_sms > 256)
		DIAG(c, row_off(x, i, 36), OL_WARN, "device %u: %lld SMs, more than "
		     "the 256 CUDA supports", i, (long long)d->num_sms);
}

void cc_read_devices(struct core *c)
{
	struct sec *x;
	uint32_t i;

	if (!c->devtbl) {
		DIAG(c, 0, OL_ERROR, "no usable device table (section type 0x80000009): "
		     "the core has no hierarchy; only memory regions are read");
		return;
	}
	x = &c->sec[c->devtbl];
	c->ndev = x->rows;
	if (c->ndev > 64)
		DIAG(c, x->off, OL_WARN, "device table has %u rows, more than the 64 "
		     "devices CUDA supports", c->ndev);
	c->devs = calloc(c->ndev ? c->ndev : 1, sizeof(*c->devs));
	if (!c->devs) {
		c->out.failed = 1;
		return;
	}
	for (i = 0; i < c->ndev; i++)
		read_device(c, x, i);
}

/* ---- contexts and modules ---- */

/* Context row k of context table x (of device x->info). */
static void read_context(struct core *c, struct sec *x, uint32_t k)
{
	struct ol_gpu_context *cx = &c->ctxs[c->nctx++].c;
	unsigned char r[40];
	size_t q;

	row(c, x, k, r, sizeof(r));
	cx->device = x->info;
	cx->row = k;
	cx->context_id = (int64_t)get64(r);
	cx->shared_window = (int64_t)get64(r + 8);
	cx->local_window = (int64_t)get64(r + 16);
	cx->global_window = (int64_t)get64(r + 24);
	cx->device_idx = get32(r + 32);
	cx->tid = get32(r + 36);
	cx->modules = 0;
	if (cx->device_idx != x->info)
		DIAG(c, row_off(x, k, 32), OL_WARN, "context %u of device %u: deviceIdx is "
		     "%lld, not the device its table hangs off", k, x->info,
		     (long long)cx->device_idx);
	c->devs[x->info].contexts++;
	/* Duplicate handles: kept (modules refer to rows), reported. */
	for (q = x->aux; q + 1 < c->nctx && q < (size_t)x->aux + 4096; q++)
		if (c->ctxs[q].c.context_id == cx->context_id) {
			DIAG(c, row_off(x, k, 0), OL_WARN, "context %u of device %u repeats "
			     "context id 0x%llx of row %lld", k, x->info,
			     (unsigned long long)cx->context_id, (long long)c->ctxs[q].c.row);
			break;
		}
}

void cc_read_contexts(struct core *c)
{
	size_t j;
	uint32_t k;

	c->ctxs = alloc_rows(c, K_CTX, sizeof(*c->ctxs));
	if (!c->ctxs)
		return;
	FOR_KIND(c, K_CTX, j) {
		struct sec *x = &c->sec[c->bykind[j]];

		if (!x->valid)
			continue;
		x->aux = (uint32_t)c->nctx;
		for (k = 0; k < x->rows; k++)
			read_context(c, x, k);
	}
}

/* Hang each (relocated) cubin section off the module row it names. */
static void attach_images(struct core *c)
{
	size_t j;

	for (j = c->kstart[K_ELFIMG]; j < c->kstart[K_RELFIMG + 1]; j++) {
		size_t i = c->bykind[j];
		struct sec *x = &c->sec[i];
		struct mod_rec *m;

		if (!x->valid)
			continue;
		m = &c->mods[c->sec[x->link].aux + x->info];
		if (x->kind == K_RELFIMG ? m->relf : m->elf) {
			DIAG(c, shdr_off(c, i), OL_WARN, "section %zu: a second %s for module "
			     "row %u; the first is used", i, cc_kind_name[x->kind], x->info);
			continue;
		}
		if (x->kind == K_RELFIMG) {
			m->relf = i;
			m->m.size = (int64_t)x->size;
		} else {
			m->elf = i;
			m->m.elf_size = (int64_t)x->size;
		}
	}
}

void cc_read_modules(struct core *c)
{
	size_t j;
	unsigned char r[8];

	c->mods = alloc_rows(c, K_MOD, sizeof(*c->mods));
	if (!c->mods)
		return;
	FOR_KIND(c, K_MOD, j) {
		struct sec *x = &c->sec[c->bykind[j]];
		struct ol_gpu_context *cx;
		uint32_t k;

		if (!x->valid)
			continue;
		cx = &c->ctxs[c->sec[x->link].aux + x->info].c;
		x->aux = (uint32_t)c->nmod;
		for (k = 0; k < x->rows; k++) {
			struct mod_rec *m = &c->mods[c->nmod++];

			row(c, x, k, r, sizeof(r));
			m->m.device = cx->device;
			m->m.context_id = cx->context_id;
			m->m.module_handle = (int64_t)get64(r);
			m->m.size = m->m.elf_size = OL_NULL;
			m->m.kernels = OL_NULL;
			cx->modules++;
		}
	}
	attach_images(c);
}

/* ---- grids ---- */

/* Grid row k of grid table x into the next grid record; a grid id the
 * table already had (from row first on) is said and dropped. */
static void read_grid(struct core *c, const struct sec *x, uint32_t k, size_t first)
{
	struct ol_gpu_grid *g = &c->grids[c->ngrid];
	unsigned char r[136];
	uint32_t st, a;
	size_t d;

	row(c, x, k, r, sizeof(r));
	g->device = x->info;
	g->grid_id = (int64_t)get64(r);
	for (d = first; d < c->ngrid && d - first < 4096; d++)
		if (c->grids[d].grid_id == g->grid_id) {
			DIAG(c, row_off(x, k, 0), OL_WARN, "grid row %u of device %u repeats "
			     "grid id %llu; the first is kept", k, x->info,
			     (unsigned long long)g->grid_id);
			memset(g, 0, sizeof(*g));
			return;
		}
	g->context_id = (int64_t)get64(r + 8);
	g->function_entry = (int64_t)get64(r + 24);
	g->module_handle = (int64_t)get64(r + 32);
	g->kernel_type = get32(r + 56);
	g->origin = get32(r + 60);
	st = get32(r + 64);
	g->status_code = st;
	g->status = st < 6 ? grid_status[st] : NULL;
	g->num_regs = get32(r + 68);
	for (a = 0; a < 3; a++) {
		g->grid_dim[a] = get32(r + 72 + 4 * a);
		g->block_dim[a] = get32(r + 84 + 4 * a);
		g->cluster_dim[a] = opt32(x, r, 104 + 4 * a);
	}
	g->host_tid = get32(r + 100);
	g->function = cc_fn_at(c, (uint64_t)g->function_entry, g->device,
			       (uint64_t)g->module_handle);
	c->ngrid++;
}

void cc_read_grids(struct core *c)
{
	size_t j;
	uint32_t k;

	c->grids = alloc_rows(c, K_GRID, sizeof(*c->grids));
	if (!c->grids)
		return;
	FOR_KIND(c, K_GRID, j) {
		const struct sec *x = &c->sec[c->bykind[j]];
		size_t first = c->ngrid;

		if (!x->valid)
			continue;
		for (k = 0; k < x->rows; k++)
			read_grid(c, x, k, first);
	}
}

struct ol_gpu_grid *cc_grid_by_id(struct core *c, int64_t device, int64_t id)
{
	size_t i;

	for (i = 0; i < c->ngrid; i++)
		if (c->grids[i].device == device && c->grids[i].grid_id == id)
			return &c->grids[i];
	return NULL;
}
