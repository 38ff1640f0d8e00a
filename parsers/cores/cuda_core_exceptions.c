/*
 * cuda_core_exceptions.c -- where a CUDA core says the GPU faulted: the
 * lanes with an exception code (each lane table read with its warp, CTA
 * and SM rows), then the SM rows (r555+; they cover warps that already
 * exited), and when neither has one, a broken warp (trap, breakpoint).
 * Sites are grouped by device, grid and code; each becomes one
 * cuda_exception event naming the function at the faulting pc.
 */
#include "parsers/cores/cuda_core_internal.h"
#include "lib/vocab.h"

#include <stdio.h>

#define DIAG(c, ...) core_diag(&(c)->out, __VA_ARGS__)

/* Display names of CUDBGException_t (cudadebugger.h), by code. */
static const char *const exc_names[] = {
	"No exception", "Lane Illegal Address", "Lane User Stack Overflow",
	"Device Hardware Stack Overflow", "Warp Illegal Instruction",
	"Warp Out-of-range Address", "Warp Misaligned Address",
	"Warp Invalid Address Space", "Warp Invalid PC", "Warp Hardware Stack Overflow",
	"Device Illegal Address", "Lane Misaligned Address", "Warp Assert",
	"Lane Syscall Error", "Warp Illegal Address", "Lane Nonmigratable Atomsys",
	"Lane Invalid Atomsys", "Cluster Out-of-range Address",
	"Cluster Block Not Present", "Warp Stack Canary",
	"Warp Tensor Memory Access Check", "Warp Tensor Memory Leak",
	"Warp Call Requires Newer Driver", "Warp Misaligned PC", "Warp PC Overflow",
	"Warp Misaligned Register", "Warp Illegal Instruction Encoding",
	"Warp Illegal Instruction Parameter", "Warp Out-of-range Register",
	"Warp Invalid Constant Address", "Warp MMU Fault",
	"Warp Barrier Arrival Mismatch", "Cluster Shared Memory Issue",
	"Warp API Stack Error", "Warp Block Not Present", "Warp User Stack Overflow",
	"TMA Syscall Error",
};

#define N_EXC_NAMES (sizeof(exc_names) / sizeof(exc_names[0]))
#define TRAP_NAME "Warp trap or breakpoint"

static const char *exc_name(int64_t code, char *buf, size_t n)
{
	if (code == 0xFFFFFFFF)
		return "Unknown exception";
	if (code >= 0 && (size_t)code < N_EXC_NAMES)
		return exc_names[code];
	snprintf(buf, n, "exception %lld", (long long)code);
	return buf;
}

/* The site of (device, grid, code), new and zeroed if not seen; NULL
 * past MAX_EXC sites (counted). */
static struct exc_rec *exc_slot(struct core *c, int64_t device, int64_t grid, int64_t code)
{
	size_t i;

	for (i = 0; i < c->nexc; i++)
		if (c->exc[i].device == device && c->exc[i].grid_id == grid &&
		    c->exc[i].code == code)
			return &c->exc[i];
	if (c->nexc == MAX_EXC) {
		c->exc_dropped++;
		return NULL;
	}
	memset(&c->exc[c->nexc], 0, sizeof(c->exc[0]));
	return &c->exc[c->nexc++];
}

/* A site's place from its SM, CTA and warp rows: SM, warp, block, and
 * the warp's error pc. */
static void place_in_warp(struct exc_rec *e, const unsigned char *sr, const unsigned char *cr,
			  const unsigned char *wr)
{
	int a;

	e->sm = get32(sr);
	e->warp = get32(wr + 8);
	for (a = 0; a < 3; a++)
		e->block[a] = get32(cr + 8 + 4 * a);
	e->error_pc = get32(wr + 24) ? (int64_t)get64(wr) : OL_NULL;
}

/* The lanes of lane table i with an exception code. */
static void lane_table(struct core *c, size_t i)
{
	struct sec *ln = &c->sec[i], *wp, *cta, *sm;
	unsigned char lr[64], wr[80], cr[56], sr[48];
	int64_t dev, grid_id;
	uint32_t k;

	wp = &c->sec[ln->link];
	cta = &c->sec[wp->link];
	sm = &c->sec[cta->link];
	dev = sm->info;
	if (ln->rows > 32)
		DIAG(c, ln->off, OL_WARN, "section %zu: lane table with %u rows, more "
		     "than 32 lanes per warp", i, ln->rows);
	row(c, wp, ln->info, wr, sizeof(wr));
	row(c, cta, wp->info, cr, sizeof(cr));
	row(c, sm, cta->info, sr, sizeof(sr));
	grid_id = (int64_t)get64(cr);
	if (c->devs && dev < c->ndev && c->devs[dev].warps_per_sm &&
	    get32(wr + 8) >= c->devs[dev].warps_per_sm)
		DIAG(c, row_off(wp, ln->info, 8), OL_WARN, "warp id %u is not below "
		     "the device's %lld warps per SM", get32(wr + 8),
		     (long long)c->devs[dev].warps_per_sm);
	for (k = 0; k < ln->rows; k++) {
		uint32_t code, lane;
		struct exc_rec *e;
		int a;

		row(c, ln, k, lr, sizeof(lr));
		code = get32(lr + 32);
		lane = get32(lr + 16);
		if (lane >= 32) {
			DIAG(c, row_off(ln, k, 16), OL_WARN, "lane row %u: lane number "
			     "%u is not below 32", k, lane);
			continue;
		}
		if (!code || !(e = exc_slot(c, dev, grid_id, code)) || e->lanes++)
			continue;
		e->device = dev;
		e->grid_id = grid_id;
		e->code = code;
		e->source = "lane";
		place_in_warp(e, sr, cr, wr);
		e->lane = lane;
		for (a = 0; a < 3; a++)
			e->thread[a] = get32(lr + 20 + 4 * a);
		e->pc = (int64_t)get64(lr);
		e->offset = row_off(ln, k, 32);
	}
}

/* SM rows with an exception code no lane of that device showed. */
static void sm_table(struct core *c, size_t i)
{
	struct sec *sm = &c->sec[i];
	unsigned char sr[48];
	uint32_t k;
	size_t q;

	for (k = 0; k < sm->rows; k++) {
		uint32_t code;
		struct exc_rec *e = NULL;

		row(c, sm, k, sr, sizeof(sr));
		code = get32(sr + 8);
		if (!code)
			continue;
		for (q = 0; q < c->nexc; q++)
			if (c->exc[q].device == sm->info && c->exc[q].code == code)
				e = &c->exc[q];
		if (e)
			continue;   /* already known from its lanes */
		e = exc_slot(c, sm->info, OL_NULL, code);
		if (!e)
			continue;
		e->lanes = 0;
		e->device = sm->info;
		e->grid_id = OL_NULL;
		e->code = code;
		e->source = "sm";
		e->sm = get32(sr);
		e->warp = e->lane = e->pc = OL_NULL;
		e->block[0] = e->block[1] = e->block[2] = OL_NULL;
		e->thread[0] = e->thread[1] = e->thread[2] = OL_NULL;
		e->error_pc = get32(sr + 12) ? (int64_t)get64(sr + 16) : OL_NULL;
		if (present(sm, 40, 8))
			e->detail = cc_str_at(c, get64(sr + 40), row_off(sm, k, 40),
					      "SM exception string");
		e->offset = row_off(sm, k, 8);
	}
}

/* Warps of warp table i that are broken (a trap or breakpoint). */
static void warp_table(struct core *c, size_t i)
{
	struct sec *wp = &c->sec[i], *cta, *sm;
	unsigned char wr[80], cr[56], sr[48];
	uint32_t k;

	cta = &c->sec[wp->link];
	sm = &c->sec[cta->link];
	for (k = 0; k < wp->rows; k++) {
		struct exc_rec *e;
		int a;

		row(c, wp, k, wr, sizeof(wr));
		if (!get32(wr + 20))
			continue;
		row(c, cta, wp->info, cr, sizeof(cr));
		row(c, sm, cta->info, sr, sizeof(sr));
		e = exc_slot(c, sm->info, (int64_t)get64(cr), OL_NULL);
		if (!e || e->lanes++)
			continue;
		e->device = sm->info;
		e->grid_id = (int64_t)get64(cr);
		e->code = OL_NULL;
		e->source = "warp";
		place_in_warp(e, sr, cr, wr);
		e->lane = OL_NULL;
		for (a = 0; a < 3; a++)
			e->thread[a] = OL_NULL;
		e->pc = OL_NULL;
		e->offset = row_off(wp, k, 20);
	}
}

void cc_read_exceptions(struct core *c)
{
	size_t j;

	FOR_KIND(c, K_LN, j)
		if (c->sec[c->bykind[j]].valid)
			lane_table(c, c->bykind[j]);
	FOR_KIND(c, K_SM, j) {
		const struct sec *sm = &c->sec[c->bykind[j]];
		if (sm->valid && present(sm, 8, 16))
			sm_table(c, c->bykind[j]);
	}
	if (c->nexc)
		return;
	FOR_KIND(c, K_WP, j)
		if (c->sec[c->bykind[j]].valid)
			warp_table(c, c->bykind[j]);
}

/* ---- output ---- */

static json_t *triple(const int64_t v[3])
{
	return v[0] == OL_NULL ? json_null() :
		json_pack("[III]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2]);
}

/* The event data of site e (docs/json.md, cuda_exception), hung on
 * c->pending while it is built (free_core frees it if the store fails
 * half-way; its strings are copies, none lies in the mapping). */
static json_t *exc_data(struct core *c, const struct exc_rec *e, const struct ol_gpu_grid *g,
			const char *dname, const char *name, const char *fn)
{
	json_t *d = c->pending = json_object();

	json_object_set_new(d, "device", json_integer(e->device));
	json_object_set_new(d, "device_name", ol_json_str(dname));
	json_object_set_new(d, "exception", json_string(name));
	json_object_set_new(d, "code", ol_json_int(e->code));
	json_object_set_new(d, "source", json_string(e->source));
	json_object_set_new(d, "sm", ol_json_int(e->sm));
	json_object_set_new(d, "warp", ol_json_int(e->warp));
	json_object_set_new(d, "lane", ol_json_int(e->lane));
	json_object_set_new(d, "block", triple(e->block));
	json_object_set_new(d, "thread", triple(e->thread));
	json_object_set_new(d, "pc", ol_json_int(e->pc));
	json_object_set_new(d, "error_pc", ol_json_int(e->error_pc));
	json_object_set_new(d, "function", ol_json_str(fn));
	json_object_set_new(d, "grid_id", ol_json_int(e->grid_id));
	json_object_set_new(d, "context_id", g ? json_integer(g->context_id) : json_null());
	json_object_set_new(d, "lanes", json_integer((json_int_t)e->lanes));
	json_object_set_new(d, "detail", ol_json_str(e->detail));
	return d;
}

/* One cuda_exception event for site e. */
static void emit_exception(struct core *c, const struct exc_rec *e)
{
	struct ol_gpu_grid *g = e->grid_id != OL_NULL ?
		cc_grid_by_id(c, e->device, e->grid_id) : NULL;
	const char *dname = c->devs && e->device < c->ndev ? c->devs[e->device].name : NULL;
	char nbuf[32], summary[512];
	const char *name = e->code == OL_NULL ? TRAP_NAME : exc_name(e->code, nbuf, sizeof(nbuf));
	int64_t at = e->error_pc != OL_NULL ? e->error_pc : e->pc;
	const char *fn = at != OL_NULL ? cc_fn_at(c, (uint64_t)at, e->device,
		g ? (uint64_t)g->module_handle : 0) : NULL;
	struct ol_event ev;
	json_t *d;

	if (!fn && g)
		fn = g->function;
	if (g && !g->exception)
		g->exception = e->code == OL_NULL ? TRAP_NAME :
			       e->code < (int64_t)N_EXC_NAMES ? exc_names[e->code] :
			       "unknown exception";
	d = exc_data(c, e, g, dname, name, fn);
	snprintf(summary, sizeof(summary), "%s on device %lld%s%s%s in %s "
		 "(SM %lld, %llu lane%s)", name, (long long)e->device,
		 dname ? " (" : "", dname ? dname : "", dname ? ")" : "",
		 fn ? fn : "an unknown function", (long long)e->sm,
		 (unsigned long long)e->lanes, e->lanes == 1 ? "" : "s");
	memset(&ev, 0, sizeof(ev));
	ev.kind = vocab_event_kind(VE_CUDA_EXCEPTION);
	ev.t = c->t;
	ev.pid = OL_NULL;
	ev.bytes = OL_NULL;
	ev.line = e->offset;
	ev.summary = summary;
	ev.data = d;
	core_note(&c->out, sink_event(c->out.s, &ev));
	c->pending = NULL;
	json_decref(d);
}

void cc_emit_exceptions(struct core *c)
{
	size_t i;

	for (i = 0; i < c->nexc; i++)
		emit_exception(c, &c->exc[i]);
	if (c->exc_dropped)
		DIAG(c, 0, OL_WARN, "%zu more exception sites beyond the first %d not "
		     "reported", c->exc_dropped, MAX_EXC);
}
