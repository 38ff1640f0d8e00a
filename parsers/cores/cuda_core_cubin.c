/*
 * cuda_core_cubin.c -- kernel names of a CUDA core: the STT_FUNC symbols
 * of each module's relocated cubin (an untrusted ELF image inside the
 * core, copied out and read with libelf), kept sorted by address so that
 * grids and exception pcs can be named.
 */
#include "parsers/cores/cuda_core_internal.h"

#include <stdlib.h>

#define STO_CUDA_ENTRY 0x10
#define MAX_IMAGE (256u << 20)     /* largest cubin we copy to parse */

#define DIAG(c, ...) core_diag(&(c)->out, __VA_ARGS__)

static int add_fn(struct core *c, const char *name, uint64_t value, uint64_t size,
		  const struct ol_gpu_module *m)
{
	struct fn *f;

	if (c->nfn == c->capfn) {
		size_t cap = c->capfn ? c->capfn * 2 : 64;
		struct fn *nf = realloc(c->fns, cap * sizeof(*nf));
		if (!nf)
			return -1;
		c->fns = nf;
		c->capfn = cap;
	}
	f = &c->fns[c->nfn];
	f->name = strdup(name);
	if (!f->name)
		return -1;
	f->value = value;
	f->size = size;
	f->device = m->device;
	f->module = (uint64_t)m->module_handle;
	c->nfn++;
	return 0;
}

/* May the cubin of section i be copied? Overlapping sections could name
 * one big image thousands of times: at most the file's size (or
 * MAX_IMAGE) is copied in all. 1 yes (counted), 0 no (said). */
static int within_budget(struct core *c, const struct sec *x, size_t i)
{
	if (x->size > MAX_IMAGE) {
		DIAG(c, x->off, OL_WARN, "section %zu: relocated cubin of %llu bytes is "
		     "larger than %u; its kernel names are not read", i,
		     (unsigned long long)x->size, MAX_IMAGE);
		return 0;
	}
	if (c->cubin_bytes == UINT64_MAX)
		return 0;   /* over budget: said once */
	if (c->cubin_bytes + x->size > (c->len > MAX_IMAGE ? c->len : MAX_IMAGE)) {
		DIAG(c, x->off, OL_WARN, "section %zu: the relocated cubins add up to more "
		     "bytes than the file holds (overlapping sections); kernel names of this "
		     "and later modules are not read", i);
		c->cubin_bytes = UINT64_MAX;
		return 0;
	}
	c->cubin_bytes += x->size;
	return 1;
}

/* What reading one cubin found. */
struct cubin {
	const struct sec *x;       /* its section in the core */
	size_t i;                  /* and that section's index */
	struct ol_gpu_module *m;
	int64_t kernels;
	unsigned bad_names;
};

/* The STT_FUNC symbols of one symbol table of image e. 0, 1 to stop
 * reading the image, -1 when out of memory (failed set). */
static int read_symtab(struct core *c, struct cubin *cb, Elf *e, Elf_Scn *scn)
{
	GElf_Shdr sh;
	Elf_Data *d;
	size_t symsz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT), k, n;

	if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
		return 0;
	if (sh.sh_entsize != symsz) {
		DIAG(c, cb->x->off, OL_ERROR, "section %zu: cubin symbol table has "
		     "sh_entsize %llu, expected %zu; skipped", cb->i,
		     (unsigned long long)sh.sh_entsize, symsz);
		return 0;
	}
	d = elf_getdata(scn, NULL);
	if (!d) {
		DIAG(c, cb->x->off, OL_ERROR, "section %zu: cubin symbol table at image "
		     "offset %llu cannot be read (%s)", cb->i,
		     (unsigned long long)sh.sh_offset, elf_errmsg(-1));
		return 0;
	}
	n = d->d_size / symsz;
	for (k = 1; k < n; k++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(d, (int)k, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		name = elf_strptr(e, sh.sh_link, sym.st_name);
		if (!name) {
			cb->bad_names++;
			continue;
		}
		if (sym.st_other & STO_CUDA_ENTRY)
			cb->kernels++;
		if (add_fn(c, name, sym.st_value, sym.st_size, cb->m) < 0) {
			c->out.failed = 1;
			return -1;
		}
		if (json_array_size(cb->m->functions) < 4096)
			json_array_append_new(cb->m->functions, ol_json_strn(name, strlen(name)));
	}
	return k > INT32_MAX;
}

/* Read the functions of module mr's relocated cubin (section i) into
 * c->fns and mr->m.functions. */
static void read_cubin(struct core *c, struct mod_rec *mr, size_t i)
{
	struct cubin cb = { &c->sec[i], i, &mr->m, 0, 0 };
	char *copy = NULL;
	Elf *e = NULL;
	Elf_Scn *scn = NULL;
	int r = 0;

	if (!cb.x->inb || !cb.x->size || !within_budget(c, cb.x, i))
		return;
	copy = c->scratch = malloc((size_t)cb.x->size);   /* freed by free_core after a jump */
	if (!copy)
		return;
	memcpy(copy, c->img + cb.x->off, (size_t)cb.x->size);
	e = elf_memory(copy, (size_t)cb.x->size);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		DIAG(c, cb.x->off, OL_ERROR, "section %zu: the relocated cubin of module 0x%llx "
		     "is not a readable ELF image (%s); kernel names unknown", i,
		     (unsigned long long)cb.m->module_handle, elf_errmsg(-1));
		goto out;
	}
	cb.m->functions = json_array();
	while (r == 0 && (scn = elf_nextscn(e, scn)))
		r = read_symtab(c, &cb, e, scn);
	if (r < 0)
		goto out;
	if (cb.bad_names)
		DIAG(c, cb.x->off, OL_ERROR, "section %zu: %u cubin function symbols have a "
		     "name offset outside their string table; those names are unknown",
		     i, cb.bad_names);
	cb.m->kernels = cb.kernels;
out:
	if (e)
		elf_end(e);
	c->scratch = NULL;
	free(copy);
}

static int cmp_fn(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;
	return x->value < y->value ? -1 : x->value > y->value;
}

void cc_read_cubins(struct core *c)
{
	size_t i;

	for (i = 0; i < c->nmod && !c->out.failed; i++)
		if (c->mods[i].relf)
			read_cubin(c, &c->mods[i], c->mods[i].relf);
	if (c->nfn)
		qsort(c->fns, c->nfn, sizeof(*c->fns), cmp_fn);
}

const char *cc_fn_at(const struct core *c, uint64_t pc, int64_t device, uint64_t module)
{
	size_t lo = 0, hi = c->nfn, j, steps;
	const char *best = NULL;

	while (lo < hi) {              /* first value > pc */
		size_t mid = lo + (hi - lo) / 2;
		if (c->fns[mid].value <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (j = lo, steps = 0; j > 0 && steps < 64; j--, steps++) {
		const struct fn *f = &c->fns[j - 1];
		uint64_t span = f->size ? f->size : 1;

		if (pc - f->value >= span)
			continue;
		if (device != OL_NULL && f->device != device)
			continue;
		if (f->module == module)
			return f->name;
		if (!best)
			best = f->name;
	}
	return best;
}
