/*
 * cuda_core_internal.h -- the state shared by the files of the CUDA core
 * reader, in the order it reads a core:
 *
 *   cuda_core.c             entry points: open, run the steps, emit, free
 *   cuda_core_sections.c    the section index: headers, bounds, kinds,
 *                           parent links; .strtab strings; memory regions
 *   cuda_core_tables.c      metadata, devices, contexts, modules, grids
 *   cuda_core_cubin.c       kernel names from the modules' relocated cubins
 *   cuda_core_exceptions.c  exception sites from lanes, SMs, broken warps
 *
 * Not for use outside those files; the reader's interface is cuda_core.h.
 * Byte offsets in diagnostics are offsets in the core file.
 */
#ifndef OOMLENS_CUDA_CORE_INTERNAL_H
#define OOMLENS_CUDA_CORE_INTERNAL_H

#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "parsers/cores/core_file.h"
#include "parsers/cores/cuda_core.h"

#define MAX_EXC 64                 /* distinct exception sites reported */
#define CC_STRTAB_MAX (16u << 20)  /* .strtab bytes copied out of the mapping */

/* Section kinds: sh_type - SHT_LOUSER. */
enum {
	K_NONE, K_MANAGED, K_GLOBAL, K_LOCAL, K_SHARED, K_REGS, K_ELFIMG, K_RELFIMG,
	K_BT, K_DEV, K_CTX, K_SM, K_GRID, K_CTA, K_WP, K_LN, K_MOD, K_PRED, K_PARAM,
	K_UREGS, K_UPRED, K_CB, K_META, K_CBU, K_MAX = K_CBU
};

extern const char *const cc_kind_name[K_MAX + 1];  /* "device table", ... */
extern const unsigned char cc_parent_of[K_MAX + 1]; /* sh_link's kind; K_NONE = root */

struct sec {
	uint64_t off, size, entsize, addr;
	uint32_t link, info;
	uint32_t rows;        /* usable rows of a valid table */
	uint32_t aux;         /* index of its first record (contexts, modules) */
	unsigned char kind;
	unsigned char inb;    /* its bytes are inside the file */
	unsigned char valid;  /* usable: bytes, rows and parent chain checked */
};

/* A function of a module's cubin (for naming kernels and pcs). */
struct fn {
	uint64_t value, size, module;
	int64_t device;
	char *name;
};

struct ctx_rec {
	struct ol_gpu_context c;
};

struct mod_rec {
	struct ol_gpu_module m;
	size_t relf, elf;     /* image sections, 0 = none */
};

/* One exception site: a device, grid and code, with the first lane (or SM,
 * or warp) that showed it. */
struct exc_rec {
	int64_t device, grid_id, sm, warp, lane, block[3], thread[3];
	int64_t pc, error_pc, code;
	const char *source;   /* "lane", "sm", "warp" */
	const char *detail;   /* SM exceptionString, or NULL */
	uint64_t lanes, offset;
};

struct core {
	struct core_out out;                /* sink, records, failed */
	struct core_elf file;
	const unsigned char *img;
	uint64_t len, shoff;
	struct sec *sec;
	size_t nsec;
	size_t *bykind, kstart[K_MAX + 2];  /* section indices grouped by kind */
	size_t devtbl;
	uint32_t ndev;
	struct ol_gpu_device *devs;
	size_t strtab;                      /* .strtab section, 0 = none */
	/* The .strtab bytes copied out of the mapping (at most CC_STRTAB_MAX,
	 * drawn from the run's budget): every name a row points at is read
	 * from here, so no string handed to the sink lies in the mapping (a
	 * file cut while the store copied one would fault inside SQLite). */
	char *strs;
	uint64_t nstrs, strs_drawn;
	struct ctx_rec *ctxs;
	size_t nctx;
	struct mod_rec *mods;
	size_t nmod;
	struct ol_gpu_grid *grids;
	size_t ngrid;
	struct fn *fns;
	size_t nfn, capfn;
	struct exc_rec exc[MAX_EXC];
	size_t nexc, exc_dropped;
	struct ol_time t;                   /* metadata timestamp */
	unsigned strtab_diags;
	uint64_t cubin_bytes;               /* cubin bytes copied so far */
	/* Held only while the mapping is read (c->img), so that a SIGBUS jump
	 * (core_guard.h) leaves nothing behind: free_core frees them. */
	void *scratch;                      /* a buffer (header spans, cubin copy) */
	json_t *pending;                    /* event data being built (emit_all) */
};

/* ---- reading rows ---- */

static inline uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* File offset of section header i. */
static inline uint64_t shdr_off(const struct core *c, size_t i)
{
	return c->shoff + (uint64_t)i * sizeof(Elf64_Shdr);
}

/* Row i of table section x, zero-padded to want bytes in buf (fields past
 * sh_entsize read as 0; use present() to tell them from real zeros). */
static inline const unsigned char *row(const struct core *c, const struct sec *x,
				       uint64_t i, unsigned char *buf, size_t want)
{
	size_t k = x->entsize < want ? (size_t)x->entsize : want;

	memset(buf, 0, want);
	memcpy(buf, c->img + x->off + i * x->entsize, k);
	return buf;
}

/* Is the field at off (size bytes) inside the rows of x? */
static inline int present(const struct sec *x, unsigned off, unsigned size)
{
	return off + size <= x->entsize;
}

/* A 32-bit field that newer rows have, or OL_NULL. */
static inline int64_t opt32(const struct sec *x, const unsigned char *r, unsigned off)
{
	return present(x, off, 4) ? (int64_t)get32(r + off) : OL_NULL;
}

/* File offset of field `field` of row i of x. */
static inline uint64_t row_off(const struct sec *x, uint64_t i, unsigned field)
{
	return x->off + i * x->entsize + field;
}

/* The section indices of kind k are bykind[kstart[k] .. kstart[k + 1]). */
#define FOR_KIND(c, k, j) for ((j) = (c)->kstart[k]; (j) < (c)->kstart[(k) + 1]; (j)++)

/* ---- cuda_core_sections.c ---- */

/* Index every section header: bounds, kinds, .strtab, overlaps (said),
 * grouping by kind. 0, or -1 when nothing can be read (said). */
int cc_index_sections(struct core *c);
/* Say that the section header table (shoff, shnum entries) does not fit
 * a file of size bytes. */
void cc_say_cut_headers(struct core *c, uint64_t shoff, uint64_t shnum, uint64_t size);
/* Check each table's rows and each section's parent, parent-first,
 * marking what is usable (sec.valid). */
void cc_validate(struct core *c);
/* Copy the .strtab section out of the mapping (c->strs), at most
 * CC_STRTAB_MAX bytes within the run's budget (the rest said and left
 * unread). Runs under the guard: a cut file jumps out of the memcpy. */
void cc_copy_strtab(struct core *c);
/* The .strtab string at off, from the copy (never a pointer into the
 * mapping; it lives as long as c), or NULL (0 = empty = unknown; out of
 * range, past the copy or unterminated: a diagnostic at where, the
 * field's offset). */
const char *cc_str_at(struct core *c, uint64_t off, uint64_t where, const char *what);
/* Record the memory regions (global, managed, local, shared, param). */
void cc_emit_regions(struct core *c);

/* ---- cuda_core_tables.c ---- */

void cc_read_meta(struct core *c);
void cc_read_devices(struct core *c);
void cc_read_contexts(struct core *c);
void cc_read_modules(struct core *c);
void cc_read_grids(struct core *c);
/* The grid of a device with this id, or NULL. */
struct ol_gpu_grid *cc_grid_by_id(struct core *c, int64_t device, int64_t id);

/* ---- cuda_core_cubin.c ---- */

/* Read every module's kernel names (c->fns sorted, m->functions). */
void cc_read_cubins(struct core *c);
/* The function containing pc, preferring the given device and module. */
const char *cc_fn_at(const struct core *c, uint64_t pc, int64_t device, uint64_t module);

/* ---- cuda_core_exceptions.c ---- */

/* Find the exception sites: lanes, then SMs, then (if none) broken warps. */
void cc_read_exceptions(struct core *c);
/* One cuda_exception event per site; names the grids' exceptions. */
void cc_emit_exceptions(struct core *c);

#endif
