/*
 * cuda_core_sections.c -- the section index of a CUDA core: every section
 * header read once, each section's bytes checked to lie inside the file,
 * sections grouped by kind, then tables validated kind by kind from the
 * device table down (a child is used only if its parent has the expected
 * kind, is usable itself and has the row sh_info names; this also rules
 * out sh_link cycles). Also the .strtab strings rows point at (copied out
 * of the mapping once, so that no name handed on lies in it), and the
 * memory regions, which are recorded from their headers only.
 */
#include "parsers/cores/cuda_core_internal.h"
#include "lib/budget.h"

#include <stdio.h>
#include <stdlib.h>

#define CUDA_OSABI 0x33
#define CUDA_ABIVERSION 7
#define MAX_OVERLAP_DIAGS 8

const char *const cc_kind_name[K_MAX + 1] = {
	"none", "managed memory", "global memory", "local memory", "shared memory",
	"registers", "cubin", "relocated cubin", "backtrace table", "device table",
	"context table", "SM table", "grid table", "CTA table", "warp table",
	"lane table", "module table", "predicates", "param memory",
	"uniform registers", "uniform predicates", "const-bank table", "metadata",
	"convergence barriers",
};

const unsigned char cc_parent_of[K_MAX + 1] = {
	[K_LOCAL] = K_LN, [K_SHARED] = K_CTA, [K_REGS] = K_LN, [K_ELFIMG] = K_MOD,
	[K_RELFIMG] = K_MOD, [K_BT] = K_LN, [K_CTX] = K_DEV, [K_SM] = K_DEV,
	[K_GRID] = K_DEV, [K_CTA] = K_SM, [K_WP] = K_CTA, [K_LN] = K_WP,
	[K_MOD] = K_CTX, [K_PRED] = K_LN, [K_PARAM] = K_GRID, [K_UREGS] = K_WP,
	[K_UPRED] = K_WP, [K_CB] = K_GRID, [K_CBU] = K_WP,
};

/* Baseline (oldest) row size of table kinds; 0 = a leaf. */
static const unsigned short baseline[K_MAX + 1] = {
	[K_DEV] = 72, [K_CTX] = 40, [K_MOD] = 8, [K_GRID] = 104, [K_CB] = 16,
	[K_SM] = 8, [K_CTA] = 24, [K_WP] = 32, [K_LN] = 48, [K_BT] = 24, [K_META] = 32,
};

/* Parents before children: the order tables are validated in. */
static const unsigned char kind_order[] = {
	K_DEV, K_CTX, K_GRID, K_SM, K_MOD, K_CTA, K_WP, K_LN, K_ELFIMG, K_RELFIMG,
	K_PARAM, K_CB, K_SHARED, K_UREGS, K_UPRED, K_CBU, K_LOCAL, K_REGS, K_PRED, K_BT,
};

#define DIAG(c, ...) core_diag(&(c)->out, __VA_ARGS__)

/* ---- the ELF header ---- */

/* Check the ELF header and that the section header table is in the file;
 * sets c->shoff. 0, or -1 (said): nothing can be read. */
static int check_header(struct core *c)
{
	GElf_Ehdr eh;
	uint64_t cnt;

	if (!gelf_getehdr(c->file.elf, &eh)) {
		DIAG(c, 0, OL_ERROR, "cannot read the ELF header: %s", elf_errmsg(-1));
		return -1;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		DIAG(c, 4, OL_ERROR, "not an ELF64 little-endian file (class %u, data %u); "
		     "CUDA cores are ELFCLASS64/ELFDATA2LSB", eh.e_ident[EI_CLASS],
		     eh.e_ident[EI_DATA]);
		return -1;
	}
	if (eh.e_ident[EI_OSABI] != CUDA_OSABI || eh.e_ident[EI_ABIVERSION] != CUDA_ABIVERSION)
		DIAG(c, 7, OL_WARN, "OS/ABI %u, ABI version %u: expected 0x33 and 7 for a "
		     "CUDA core (read anyway)", eh.e_ident[EI_OSABI],
		     eh.e_ident[EI_ABIVERSION]);
	if (eh.e_shentsize != sizeof(Elf64_Shdr))
		DIAG(c, 58, OL_ERROR, "e_shentsize is %u, expected 64; section headers "
		     "read as 64-byte entries", eh.e_shentsize);
	c->shoff = eh.e_shoff;
	/* libelf quietly gives no sections when their table is cut off. */
	cnt = eh.e_shnum;
	if (!cnt && eh.e_shoff && eh.e_shoff <= c->len && c->len - eh.e_shoff >= 64)
		cnt = get64(c->img + eh.e_shoff + 32);   /* extended numbering */
	if (!eh.e_shoff || !cnt) {
		DIAG(c, 40, OL_ERROR, "no section headers (e_shoff %llu): a CUDA core "
		     "keeps everything in sections; nothing can be read",
		     (unsigned long long)eh.e_shoff);
		return -1;
	}
	if (eh.e_shoff > c->len || cnt > (c->len - eh.e_shoff) / 64) {
		cc_say_cut_headers(c, eh.e_shoff, cnt, c->len);
		return -1;
	}
	return 0;
}

void cc_say_cut_headers(struct core *c, uint64_t shoff, uint64_t shnum, uint64_t size)
{
	DIAG(c, 40, OL_ERROR, "section header table at offset %llu (%llu entries "
	     "of 64 bytes) extends past the end of the file (%llu bytes): the "
	     "core is truncated; nothing can be read", (unsigned long long)shoff,
	     (unsigned long long)shnum, (unsigned long long)size);
}

/* ---- section headers ---- */

/* What reading the headers found beside the sections themselves. */
struct scan {
	size_t shstrndx;
	size_t unknown;            /* sections of kinds this reader does not know */
	uint32_t unknown_type;     /* the first of them */
	size_t *spans;             /* in-bounds sections with bytes, for overlaps */
	size_t nspans;
};

/* Read header i into c->sec[i]: kind, bounds (said when outside the
 * file), .strtab. */
static void read_header(struct core *c, size_t i, struct scan *sc)
{
	Elf_Scn *scn = elf_getscn(c->file.elf, i);
	GElf_Shdr sh;
	struct sec *x = &c->sec[i];
	const char *name;

	if (!scn || !gelf_getshdr(scn, &sh)) {
		DIAG(c, shdr_off(c, i), OL_ERROR, "section %zu: unreadable header: %s",
		     i, elf_errmsg(-1));
		return;
	}
	x->off = sh.sh_offset;
	x->size = sh.sh_size;
	x->entsize = sh.sh_entsize;
	x->addr = sh.sh_addr;
	x->link = sh.sh_link;
	x->info = sh.sh_info;
	if (sh.sh_type > SHT_LOUSER && sh.sh_type <= SHT_LOUSER + K_MAX)
		x->kind = (unsigned char)(sh.sh_type - SHT_LOUSER);
	else if (sh.sh_type >= SHT_LOUSER && !sc->unknown++)
		sc->unknown_type = sh.sh_type;
	if (sh.sh_type == SHT_NOBITS) {
		x->size = 0;
		return;
	}
	x->inb = sh.sh_offset <= c->len && sh.sh_size <= c->len - sh.sh_offset;
	if (!x->inb && (x->kind || sh.sh_type == SHT_STRTAB))
		DIAG(c, shdr_off(c, i), OL_ERROR, "section %zu (%s) at offset %llu, "
		     "%llu bytes, extends past the end of the file (%llu bytes)%s", i,
		     x->kind ? cc_kind_name[x->kind] : "string table",
		     (unsigned long long)sh.sh_offset, (unsigned long long)sh.sh_size,
		     (unsigned long long)c->len,
		     baseline[x->kind] || !x->kind ? ": skipped" : ": contents missing");
	if (x->inb && x->size)
		sc->spans[sc->nspans++] = i;
	if (sh.sh_type == SHT_STRTAB && !c->strtab && i != sc->shstrndx && sc->shstrndx &&
	    x->inb) {
		name = elf_strptr(c->file.elf, sc->shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".strtab"))
			c->strtab = i;
	}
}

/* A section index with a position (file offset or device address), to
 * sort sections by where they are, lowest index first on ties. */
struct span {
	uint64_t at;
	size_t i;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->at < y->at ? -1 : x->at > y->at ? 1 : (x->i > y->i) - (x->i < y->i);
}

/* Overlapping section contents: reported, reading goes on. */
static void report_overlaps(struct core *c, const size_t *idx, size_t n)
{
	struct span *v;
	unsigned reported = 0;
	uint64_t maxend = 0;
	size_t i, maxi = 0;

	if (n < 2 || !(v = malloc(n * sizeof(*v))))
		return;
	for (i = 0; i < n; i++) {
		v[i].at = c->sec[idx[i]].off;
		v[i].i = idx[i];
	}
	qsort(v, n, sizeof(*v), cmp_span);
	for (i = 0; i < n; i++) {
		struct sec *x = &c->sec[v[i].i];
		if (i && x->off < maxend && reported++ < MAX_OVERLAP_DIAGS)
			DIAG(c, shdr_off(c, v[i].i), OL_WARN, "section %zu (offset %llu, "
			     "%llu bytes) overlaps section %zu in the file", v[i].i,
			     (unsigned long long)x->off, (unsigned long long)x->size, maxi);
		if (x->off + x->size > maxend) {
			maxend = x->off + x->size;
			maxi = v[i].i;
		}
	}
	if (reported > MAX_OVERLAP_DIAGS)
		DIAG(c, 0, OL_WARN, "%u more overlapping sections not listed",
		     reported - MAX_OVERLAP_DIAGS);
	free(v);
}

/* Group the section indices by kind (counting sort) into bykind/kstart. */
static void group_by_kind(struct core *c)
{
	size_t fill[K_MAX + 1], i;

	memset(c->kstart, 0, sizeof(c->kstart));
	for (i = 1; i < c->nsec; i++)
		c->kstart[c->sec[i].kind + 1]++;
	for (i = 1; i < K_MAX + 2; i++)
		c->kstart[i] += c->kstart[i - 1];
	memcpy(fill, c->kstart, sizeof(fill));
	for (i = 1; i < c->nsec; i++)
		c->bykind[fill[c->sec[i].kind]++] = i;
}

int cc_index_sections(struct core *c)
{
	struct scan sc;
	size_t i, n;

	if (check_header(c) < 0)
		return -1;
	if (elf_getshdrnum(c->file.elf, &n) < 0) {
		DIAG(c, 60, OL_ERROR, "cannot count the sections: %s", elf_errmsg(-1));
		return -1;
	}
	memset(&sc, 0, sizeof(sc));
	if (elf_getshdrstrndx(c->file.elf, &sc.shstrndx) < 0) {
		DIAG(c, 62, OL_WARN, "no section name table (%s); .strtab is then found "
		     "by type", elf_errmsg(-1));
		sc.shstrndx = 0;
	}
	c->nsec = n;
	c->sec = calloc(n ? n : 1, sizeof(*c->sec));
	c->bykind = calloc(n ? n : 1, sizeof(*c->bykind));
	/* on the core while headers are read from the mapping: freed by
	 * free_core after a SIGBUS jump */
	sc.spans = c->scratch = calloc(n ? n : 1, sizeof(*sc.spans));
	if (!c->sec || !c->bykind || !sc.spans)
		return -1;   /* free_core frees them */
	for (i = 1; i < n; i++)
		read_header(c, i, &sc);
	if (sc.unknown)
		DIAG(c, 0, OL_INFO, "%zu sections of types this reader does not know "
		     "(first: 0x%x; a newer driver?) were skipped", sc.unknown, sc.unknown_type);
	report_overlaps(c, sc.spans, sc.nspans);
	c->scratch = NULL;
	free(sc.spans);
	group_by_kind(c);
	cc_copy_strtab(c);
	return 0;
}

/* ---- validation ---- */

/* Rows of table section i of kind k: x->rows set, 0; or -1 (said): the
 * table is skipped. */
static int check_rows(struct core *c, size_t i, unsigned k)
{
	struct sec *x = &c->sec[i];

	if (!x->entsize) {
		DIAG(c, shdr_off(c, i) + 56, OL_ERROR, "section %zu (%s): sh_entsize is 0; "
		     "table skipped", i, cc_kind_name[k]);
		return -1;
	}
	if (x->entsize < baseline[k]) {
		DIAG(c, shdr_off(c, i) + 56, OL_ERROR, "section %zu (%s): sh_entsize %llu is "
		     "smaller than the oldest row size (%u bytes); table skipped", i,
		     cc_kind_name[k], (unsigned long long)x->entsize, baseline[k]);
		return -1;
	}
	if (x->size % x->entsize)
		DIAG(c, x->off + x->size - x->size % x->entsize, OL_WARN, "section %zu (%s): "
		     "%llu bytes is not a whole number of %llu-byte rows; the last %llu bytes "
		     "are ignored", i, cc_kind_name[k], (unsigned long long)x->size,
		     (unsigned long long)x->entsize, (unsigned long long)(x->size % x->entsize));
	if (x->size / x->entsize > UINT32_MAX) {
		DIAG(c, shdr_off(c, i), OL_ERROR, "section %zu (%s): too many rows; table "
		     "skipped", i, cc_kind_name[k]);
		return -1;
	}
	x->rows = (uint32_t)(x->size / x->entsize);
	return 0;
}

/* Is section i's parent (sh_link, sh_info) the right kind, usable, and
 * does it have the row? 1 yes; 0 no (said, unless the parent was rejected
 * and said so itself). */
static int check_parent(struct core *c, size_t i, unsigned k)
{
	struct sec *x = &c->sec[i], *p;

	if (!x->link || x->link >= c->nsec) {
		DIAG(c, shdr_off(c, i) + 40, OL_ERROR, "section %zu (%s): sh_link %u is not "
		     "a section index; skipped", i, cc_kind_name[k], x->link);
		return 0;
	}
	p = &c->sec[x->link];
	if (p->kind != cc_parent_of[k]) {
		DIAG(c, shdr_off(c, i) + 40, OL_ERROR, "section %zu (%s): sh_link %u is a %s, "
		     "expected a %s; skipped", i, cc_kind_name[k], x->link,
		     cc_kind_name[p->kind], cc_kind_name[cc_parent_of[k]]);
		return 0;
	}
	if (!p->valid || (k == K_CTX || k == K_SM || k == K_GRID ? x->link != c->devtbl : 0))
		return 0;   /* its parent was rejected: said there */
	if (x->info >= p->rows) {
		DIAG(c, shdr_off(c, i) + 44, OL_ERROR, "section %zu (%s): sh_info %u is out of "
		     "range for its parent %s (%u rows); skipped", i, cc_kind_name[k],
		     x->info, cc_kind_name[p->kind], p->rows);
		return 0;
	}
	return 1;
}

void cc_validate(struct core *c)
{
	size_t o, j;

	for (o = 0; o < sizeof(kind_order); o++) {
		unsigned k = kind_order[o];

		FOR_KIND(c, k, j) {
			size_t i = c->bykind[j];
			struct sec *x = &c->sec[i];

			if (!x->inb && baseline[k])
				continue;   /* said in read_header */
			if (baseline[k] && check_rows(c, i, k) < 0)
				continue;
			if (k == K_DEV) {
				if (c->devtbl) {
					DIAG(c, shdr_off(c, i), OL_WARN, "section %zu: a second "
					     "device table; only section %zu is used", i, c->devtbl);
					continue;
				}
				c->devtbl = i;
				x->valid = 1;
				continue;
			}
			x->valid = check_parent(c, i, k);
		}
	}
}

/* ---- strings ---- */

void cc_copy_strtab(struct core *c)
{
	const struct sec *st;
	uint64_t n;

	if (!c->strtab)
		return;
	st = &c->sec[c->strtab];
	n = st->size < CC_STRTAB_MAX ? st->size : CC_STRTAB_MAX;
	if (!n)
		return;
	if (ol_budget_take(n) < 0) {
		DIAG(c, st->off, OL_ERROR, ".strtab (%llu bytes) does not fit in what is left "
		     "of %llu bytes (%s); names unknown", (unsigned long long)st->size,
		     (unsigned long long)ol_budget(), OL_BUDGET_HINT);
		return;
	}
	c->strs = malloc((size_t)n);
	if (!c->strs) {
		ol_budget_give(n);
		c->out.failed = 1;
		return;
	}
	c->strs_drawn = n;
	memcpy(c->strs, c->img + st->off, (size_t)n);   /* may fault: guarded */
	c->nstrs = n;
	if (n < st->size)
		DIAG(c, st->off + n, OL_WARN, ".strtab is %llu bytes; only its first %llu are "
		     "read, names past them are unknown", (unsigned long long)st->size,
		     (unsigned long long)n);
}

const char *cc_str_at(struct core *c, uint64_t off, uint64_t where, const char *what)
{
	const struct sec *st;
	const char *p;

	if (!off)
		return NULL;
	if (!c->strtab) {
		if (c->strtab_diags++ < 4)
			DIAG(c, where, OL_WARN, "%s refers to .strtab offset %llu but the core "
			     "has no usable .strtab section; name unknown", what,
			     (unsigned long long)off);
		return NULL;
	}
	st = &c->sec[c->strtab];
	if (off >= st->size) {
		if (c->strtab_diags++ < 16)
			DIAG(c, where, OL_ERROR, "%s: string offset %llu is out of range of "
			     ".strtab (%llu bytes); name unknown", what,
			     (unsigned long long)off, (unsigned long long)st->size);
		return NULL;
	}
	if (off >= c->nstrs)
		return NULL;    /* past what was copied: said once in cc_copy_strtab */
	p = c->strs + off;
	if (!memchr(p, 0, (size_t)(c->nstrs - off))) {
		if (c->strtab_diags++ < 16)
			DIAG(c, where, OL_ERROR, "%s: string at .strtab offset %llu is not "
			     "terminated inside the %s; name unknown", what,
			     (unsigned long long)off,
			     c->nstrs < st->size ? "bytes read" : "section");
		return NULL;
	}
	return p;
}

/* ---- memory regions ---- */

/* The device of a valid section: sh_info of the ancestor whose parent is
 * the device table. OL_NULL for root-level sections. */
static int64_t device_of(const struct core *c, size_t i)
{
	int depth;

	for (depth = 0; depth < 8 && i && i < c->nsec; depth++) {
		const struct sec *x = &c->sec[i];
		if (!x->valid || !cc_parent_of[x->kind])
			return OL_NULL;
		if (cc_parent_of[x->kind] == K_DEV)
			return x->info;
		i = x->link;
	}
	return OL_NULL;
}

/* Overlapping global/managed ranges: keep the first (lowest section), the
 * others lose their kind (said). 0, or -1 out of memory. */
static int drop_overlapping_ranges(struct core *c)
{
	size_t j, n = 0, m;
	struct span *v;
	uint64_t maxend = 0;

	m = (c->kstart[K_GLOBAL + 1] - c->kstart[K_GLOBAL]) +
	    (c->kstart[K_MANAGED + 1] - c->kstart[K_MANAGED]);
	v = malloc((m ? m : 1) * sizeof(*v));
	if (!v)
		return -1;
	for (j = c->kstart[K_MANAGED]; j < c->kstart[K_GLOBAL + 1]; j++) {
		v[n].at = c->sec[c->bykind[j]].addr;
		v[n++].i = c->bykind[j];
	}
	qsort(v, n, sizeof(*v), cmp_span);
	for (j = 0; j < n; j++) {
		struct sec *x = &c->sec[v[j].i];
		if (j && x->addr < maxend && x->size) {
			DIAG(c, shdr_off(c, v[j].i) + 16, OL_WARN, "section %zu: memory range "
			     "0x%llx+%llu overlaps an earlier one; not counted", v[j].i,
			     (unsigned long long)x->addr, (unsigned long long)x->size);
			x->kind = K_NONE;   /* dropped from the regions */
			continue;
		}
		if (x->addr + x->size > maxend)
			maxend = x->addr + x->size;
	}
	free(v);
	return 0;
}

void cc_emit_regions(struct core *c)
{
	static const unsigned char kinds[] = { K_GLOBAL, K_MANAGED, K_LOCAL, K_SHARED, K_PARAM };
	size_t o, j;

	if (drop_overlapping_ranges(c) < 0) {
		c->out.failed = 1;
		return;
	}
	for (o = 0; o < sizeof(kinds) && !c->out.failed; o++) {
		unsigned k = kinds[o];
		for (j = c->kstart[k]; j < c->kstart[k + 1] && !c->out.failed; j++) {
			size_t i = c->bykind[j];
			struct sec *x = &c->sec[i];
			struct ol_gpu_region r;

			if (x->kind != k || (cc_parent_of[k] && !x->valid))
				continue;
			r.device = cc_parent_of[k] ? device_of(c, i) : OL_NULL;
			r.kind = k == K_GLOBAL ? "global" : k == K_MANAGED ? "managed" :
				 k == K_LOCAL ? "local" : k == K_SHARED ? "shared" : "param";
			r.address = k == K_PARAM ? OL_NULL : (int64_t)x->addr;
			r.size = (int64_t)x->size;
			r.file_offset = (int64_t)x->off;
			r.complete = x->inb;
			core_note(&c->out, sink_gpu_region(c->out.s, &r));
		}
	}
}
