/*
 * cuda_core_writer.c -- synthetic CUDA GPU core dumps; see
 * cuda_core_writer.h. Written by hand over the <gelf.h> types rather than
 * with elf_update(): libelf fills every gap between sections with bytes,
 * which would write out the multi-GiB holes the benchmark needs sparse.
 */
#include "cuda_core_writer.h"

#include <fcntl.h>
#include <stdio.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define SHT_CUDA(n) (SHT_LOUSER + (n))

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* Append s to a string table; capacity doubles at powers of two (the
 * length alone tells when to grow), so 70,000 names cost no quadratic copy. */
static size_t intern(unsigned char **tab, size_t *len, const char *s)
{
	size_t n = strlen(s) + 1, at = *len, cap = 64;

	while (cap < at)
		cap *= 2;
	if (!*tab || at + n > cap) {
		while (cap < at + n)
			cap *= 2;
		*tab = realloc(*tab, cap);
	}
	memcpy(*tab + at, s, n);
	*len += n;
	return at;
}

void ccw_init(struct ccw *w)
{
	memset(w, 0, sizeof(*w));
	w->shentsize = sizeof(Elf64_Shdr);
	w->osabi = 0x33;
	intern(&w->strtab, &w->strtab_len, "");
	intern(&w->shstrtab, &w->shstrtab_len, "");
	ccw_add(w, SHT_NULL, "", 0, 0, 0, "", 0);
}

void ccw_free(struct ccw *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->s[i].data);
	free(w->s);
	free(w->strtab);
	free(w->shstrtab);
	memset(w, 0, sizeof(*w));
}

uint64_t ccw_str(struct ccw *w, const char *s)
{
	return intern(&w->strtab, &w->strtab_len, s);
}

uint32_t ccw_add(struct ccw *w, uint32_t type, const char *name, uint32_t link,
		 uint32_t info, uint64_t entsize, const void *data, uint64_t size)
{
	struct ccw_sec *x;

	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		w->s = realloc(w->s, w->cap * sizeof(*w->s));
	}
	x = &w->s[w->n];
	memset(x, 0, sizeof(*x));
	x->type = type;
	x->name = (uint32_t)intern(&w->shstrtab, &w->shstrtab_len, name);
	x->link = link;
	x->info = info;
	x->entsize = entsize;
	x->size = size;
	x->off_override = -1;
	if (data) {
		x->data = malloc(size ? size : 1);
		memcpy(x->data, data, size);
	}
	return (uint32_t)w->n++;
}

/* ---- a tiny relocated cubin ---- */

int ccw_cubin(uint64_t base, unsigned char **out, size_t *n)
{
	static const char shstr[] = "\0.shstrtab\0.strtab\0.symtab\0.text";
	static const char str[] = "\0" CCW_KERNEL "\0" CCW_HELPER;
	Elf64_Ehdr eh;
	Elf64_Shdr sh[5];
	Elf64_Sym sym[3];
	size_t off, total;
	unsigned char *b;

	memset(&eh, 0, sizeof(eh));
	memset(sh, 0, sizeof(sh));
	memset(sym, 0, sizeof(sym));
	sym[1].st_name = 1;
	sym[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym[1].st_other = 0x10;   /* STO_CUDA_ENTRY: a kernel */
	sym[1].st_shndx = 4;
	sym[1].st_value = base;
	sym[1].st_size = 0x400;
	sym[2].st_name = (uint32_t)(2 + strlen(CCW_KERNEL));
	sym[2].st_info = ELF64_ST_INFO(STB_LOCAL, STT_FUNC);
	sym[2].st_shndx = 4;
	sym[2].st_value = base + 0x400;
	sym[2].st_size = 0x100;
	off = sizeof(eh);
	sh[1].sh_name = 1;  sh[1].sh_type = SHT_STRTAB; sh[1].sh_offset = off;
	sh[1].sh_size = sizeof(shstr);  off += sizeof(shstr);
	sh[2].sh_name = 11; sh[2].sh_type = SHT_STRTAB; sh[2].sh_offset = off;
	sh[2].sh_size = sizeof(str);  off += sizeof(str);
	off = (off + 7) & ~(size_t)7;
	sh[3].sh_name = 19; sh[3].sh_type = SHT_SYMTAB; sh[3].sh_offset = off;
	sh[3].sh_size = sizeof(sym); sh[3].sh_entsize = sizeof(Elf64_Sym);
	sh[3].sh_link = 2; sh[3].sh_info = 2; sh[3].sh_addralign = 8;
	off += sizeof(sym);
	sh[4].sh_name = 27; sh[4].sh_type = SHT_PROGBITS; sh[4].sh_offset = off;
	sh[4].sh_size = 16; sh[4].sh_addr = base; sh[4].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	off += 16;
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_ident[EI_OSABI] = 0x33;
	eh.e_ident[EI_ABIVERSION] = 7;
	eh.e_type = ET_EXEC;
	eh.e_machine = 190;
	eh.e_version = EV_CURRENT;
	eh.e_flags = 0x5a055a;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 5;
	eh.e_shstrndx = 1;
	eh.e_shoff = off;
	total = off + sizeof(sh);
	b = calloc(1, total);
	if (!b)
		return -1;
	memcpy(b, &eh, sizeof(eh));
	memcpy(b + sh[1].sh_offset, shstr, sizeof(shstr));
	memcpy(b + sh[2].sh_offset, str, sizeof(str));
	memcpy(b + sh[3].sh_offset, sym, sizeof(sym));
	memset(b + sh[4].sh_offset, 0x42, 16);
	memcpy(b + off, sh, sizeof(sh));
	*out = b;
	*n = total;
	return 0;
}

/* ---- the model ---- */

int ccw_build(struct ccw *w, const struct ccw_opts *o, struct ccw_ids *ids)
{
	/* Row sizes: r346 baseline vs r615. */
	const unsigned dev_sz = o->gen ? 88 : 72, grid_sz = o->gen ? 136 : 104,
		sm_sz = o->gen ? 48 : 8, cta_sz = o->gen ? 56 : 24, wp_sz = o->gen ? 80 : 32,
		ln_sz = o->gen ? 64 : 48;
	unsigned char dev[2 * 88], grid[136], sm[2 * 48], cta[56], wp[80], ln[2 * 64];
	unsigned char meta[32], bt[24], regs[16], param[16], shared[256], local[64];
	unsigned char *ctx, *cubin = NULL;
	size_t cubin_n;
	int i, ndev = o->ndev < 1 ? 1 : o->ndev > 2 ? 2 : o->ndev;
	uint32_t ctxtbl = 0;
	const uint64_t kaddr = CCW_CODE_BASE;

	memset(ids, 0, sizeof(*ids));
	memset(dev, 0, sizeof(dev));
	/* Device 0: an H100; device 1: an A100. */
	put64(dev + 0, ccw_str(w, "NVIDIA H100 80GB HBM3"));
	put64(dev + 8, ccw_str(w, "GH100"));
	put64(dev + 16, ccw_str(w, "sm_90"));
	put32(dev + 24, 0);
	put32(dev + 28, 0x1b);
	put32(dev + 32, 0);
	put32(dev + 36, 132);
	put32(dev + 40, 64);
	put32(dev + 44, 32);
	put32(dev + 48, 255);
	put32(dev + 52, 7);
	put32(dev + 56, 9);
	put32(dev + 60, 0);
	put32(dev + 64, 16);
	put32(dev + 68, 0);
	if (o->gen) {
		put32(dev + 72, 63);
		put32(dev + 76, 8);
		put32(dev + 80, 16);
	}
	if (ndev > 1) {
		unsigned char *d1 = dev + dev_sz;
		memcpy(d1, dev, dev_sz);
		put64(d1 + 0, ccw_str(w, "NVIDIA A100-SXM4-80GB"));
		put64(d1 + 8, ccw_str(w, "GA100"));
		put64(d1 + 16, ccw_str(w, "sm_80"));
		put32(d1 + 24, 1);
		put32(d1 + 28, 0x3b);
		put32(d1 + 36, 108);
		put32(d1 + 56, 8);
	}
	if (o->gen) {
		memset(meta, 0, sizeof(meta));
		put64(meta, ccw_str(w, "CUDA Driver coredump"));
		put32(meta + 8, 575);
		put32(meta + 12, 51);
		put32(meta + 16, 12);
		put32(meta + 20, 9);
		put32(meta + 24, 0);
		put32(meta + 28, CCW_TIMESTAMP);
		ids->meta = ccw_add(w, SHT_CUDA(22), ".cudbg.meta", 0, 0, 32, meta, 32);
	}
	ids->devtbl = ccw_add(w, SHT_CUDA(9), ".cudbg.devtbl", 0, 0, dev_sz, dev,
			      (uint64_t)dev_sz * ndev);
	/* Contexts, each with one module and its relocated cubin. */
	if (o->nctx > 0) {
		char name[64];
		ctx = calloc((size_t)o->nctx, 40);
		for (i = 0; i < o->nctx; i++) {
			unsigned char *r = ctx + 40 * i;
			put64(r, CCW_CTX_ID(i));
			put64(r + 8, 0x7ffe00000000ull);
			put64(r + 16, 0x7ffd00000000ull);
			put64(r + 24, 0);
			put32(r + 32, 0);
			put32(r + 36, CCW_TID(i));
		}
		ids->ctxtbl = ctxtbl = ccw_add(w, SHT_CUDA(10), ".cudbg.ctxtbl.dev0", ids->devtbl,
					       0, 40, ctx, 40ull * o->nctx);
		free(ctx);
		if (ccw_cubin(kaddr, &cubin, &cubin_n) < 0)
			return -1;
		for (i = 0; i < o->nctx; i++) {
			unsigned char m[8];
			uint32_t mt;
			put64(m, CCW_MOD_HANDLE(i));
			snprintf(name, sizeof(name), ".cudbg.modtbl.dev0.ctx%d", i);
			mt = ccw_add(w, SHT_CUDA(16), name, ctxtbl, (uint32_t)i, 8, m, 8);
			snprintf(name, sizeof(name), ".cudbg.relfimg.dev0.ctx%d", i);
			if (!i) {
				ids->modtbl = mt;
				ids->relf = ccw_add(w, SHT_CUDA(7), name, mt, 0, 0, cubin, cubin_n);
				snprintf(name, sizeof(name), ".cudbg.elfimg.dev0.ctx%d", i);
				ids->elf = ccw_add(w, SHT_CUDA(6), name, mt, 0, 0, cubin, cubin_n);
			} else {
				ccw_add(w, SHT_CUDA(7), name, mt, 0, 0, cubin, cubin_n);
			}
		}
		free(cubin);
		/* One grid running fill_kernel in context 0. */
		memset(grid, 0, sizeof(grid));
		put64(grid, 7);
		put64(grid + 8, CCW_CTX_ID(0));
		put64(grid + 16, 0xf1);
		put64(grid + 24, kaddr);
		put64(grid + 32, CCW_MOD_HANDLE(0));
		put32(grid + 56, 2);
		put32(grid + 60, 0);
		put32(grid + 64, 2);
		put32(grid + 68, 32);
		put32(grid + 72, 1024); put32(grid + 76, 1); put32(grid + 80, 1);
		put32(grid + 84, 256); put32(grid + 88, 1); put32(grid + 92, 1);
		put32(grid + 96, 0);
		put32(grid + 100, CCW_TID(0));
		if (o->gen) {
			put32(grid + 104, 1); put32(grid + 108, 1); put32(grid + 112, 1);
		}
		ids->gridtbl = ccw_add(w, SHT_CUDA(12), ".cudbg.gridtbl.dev0", ids->devtbl, 0,
				       grid_sz, grid, grid_sz);
		memset(param, 0x11, sizeof(param));
		ids->param = ccw_add(w, SHT_CUDA(18), ".cudbg.param.dev0.grid0", ids->gridtbl, 0,
				     0, param, sizeof(param));
	}
	/* Two SMs; the block of grid 7 runs on the second (smId 3). */
	memset(sm, 0, sizeof(sm));
	put32(sm, 0);
	put32(sm + sm_sz, 3);
	if (o->gen && o->exception) {
		put32(sm + sm_sz + 8, 14);
		put32(sm + sm_sz + 12, 1);
		put64(sm + sm_sz + 16, kaddr + 0x80);
	}
	ids->smtbl = ccw_add(w, SHT_CUDA(11), ".cudbg.smtbl.dev0", ids->devtbl, 0, sm_sz,
			     sm, 2ull * sm_sz);
	memset(cta, 0, sizeof(cta));
	put64(cta, 7);
	put32(cta + 8, 5);
	ids->ctatbl = ccw_add(w, SHT_CUDA(13), ".cudbg.ctatbl.dev0.sm1", ids->smtbl, 1, cta_sz,
			      cta, cta_sz);
	memset(shared, 0x5a, sizeof(shared));
	ids->shared = ccw_add(w, SHT_CUDA(4), ".cudbg.shared.dev0.sm1.cta0", ids->ctatbl, 0,
			      0, shared, sizeof(shared));
	memset(wp, 0, sizeof(wp));
	put64(wp, o->exception ? kaddr + 0x80 : 0);
	put32(wp + 8, 2);
	put32(wp + 12, 0xffffffffu);
	put32(wp + 16, 1);
	put32(wp + 20, 0);
	put32(wp + 24, o->exception ? 1 : 0);
	if (o->gen)
		put32(wp + 32, 32);
	ids->wptbl = ccw_add(w, SHT_CUDA(14), ".cudbg.wptbl.dev0.sm1.cta0", ids->ctatbl, 0,
			     wp_sz, wp, wp_sz);
	memset(ln, 0, sizeof(ln));
	for (i = 0; i < 2; i++) {
		unsigned char *r = ln + ln_sz * i;
		put64(r, kaddr + 0x80);
		put64(r + 8, 0x80);
		put32(r + 16, (uint32_t)i);
		put32(r + 20, (uint32_t)i);
		put32(r + 32, o->exception ? 14 : 0);
		put32(r + 36, 1);
	}
	ids->lntbl = ccw_add(w, SHT_CUDA(15), ".cudbg.lntbl.dev0.sm1.cta0.wp0", ids->wptbl, 0,
			     ln_sz, ln, 2ull * ln_sz);
	for (i = 0; i < 4; i++)
		put32(regs + 4 * i, 0x1000u + (uint32_t)i);
	ids->regs = ccw_add(w, SHT_CUDA(5), ".cudbg.regs.dev0.sm1.cta0.wp0.ln0", ids->lntbl, 0,
			    0, regs, sizeof(regs));
	memset(bt, 0, sizeof(bt));
	put64(bt, 0x80);
	put64(bt + 8, kaddr + 0x80);
	ids->bt = ccw_add(w, SHT_CUDA(8), ".cudbg.bt.dev0.sm1.cta0.wp0.ln0", ids->lntbl, 0,
			  24, bt, 24);
	memset(local, 0x6c, sizeof(local));
	ids->local = ccw_add(w, SHT_CUDA(3), ".cudbg.local.dev0.sm1.cta0.wp0.ln0", ids->lntbl,
			     0, 0, local, sizeof(local));
	w->s[ids->local].addr = 0xfffc00;
	/* Global memory blocks. */
	for (i = 0; i < o->nregions; i++) {
		char name[48];
		uint32_t g;
		unsigned char *fill = NULL;

		snprintf(name, sizeof(name), ".cudbg.global.%d", i);
		if (!o->sparse) {
			fill = malloc(o->region_size ? o->region_size : 1);
			memset(fill, 0x33, o->region_size);
		}
		g = ccw_add(w, SHT_CUDA(2), name, 0, 0, 0, fill, o->region_size);
		free(fill);
		w->s[g].addr = CCW_REGION_ADDR(i, o->region_size);
		if (!i)
			ids->global0 = g;
	}
	return 0;
}

/* ---- serialisation ---- */

int ccw_serialise(struct ccw *w, unsigned char **out, size_t *n, uint64_t *total)
{
	size_t nsec = w->n + 2;   /* + .strtab + .shstrtab */
	uint32_t strtab_i = (uint32_t)w->n, shstr_i = (uint32_t)w->n + 1;
	uint32_t strtab_name, shstr_name;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;
	uint64_t off, sparse_off, shoff;
	unsigned char *b;
	size_t i, k, len;

	strtab_name = (uint32_t)intern(&w->shstrtab, &w->shstrtab_len, ".strtab");
	shstr_name = (uint32_t)intern(&w->shstrtab, &w->shstrtab_len, ".shstrtab");
	sh = calloc(nsec, sizeof(*sh));
	if (!sh)
		return -1;
	off = sizeof(eh);
	shoff = 0;
	if (w->shdrs_first) {
		shoff = off;
		off += nsec * sizeof(*sh);
	}
	/* Data in the order .strtab, .shstrtab, then the sections (as real
	 * cores: strings first), so a cut tail loses sections, not names. */
	for (k = 0; k + 1 < nsec; k++) {
		size_t i = k == 0 ? strtab_i : k == 1 ? shstr_i : k - 1;
		uint64_t size = i == strtab_i ? w->strtab_len : i == shstr_i ? w->shstrtab_len
			      : w->s[i].size;
		const struct ccw_sec *x = i < w->n ? &w->s[i] : NULL;

		sh[i].sh_name = i == strtab_i ? strtab_name : i == shstr_i ? shstr_name : x->name;
		sh[i].sh_type = x ? x->type : SHT_STRTAB;
		sh[i].sh_size = size;
		if (x) {
			sh[i].sh_link = x->link;
			sh[i].sh_info = x->info;
			sh[i].sh_entsize = x->entsize;
			sh[i].sh_addr = x->addr;
		}
		sh[i].sh_addralign = 8;
		if (x && (x->off_override >= 0 || !x->data))
			continue;   /* placed below */
		off = (off + 7) & ~(uint64_t)7;
		sh[i].sh_offset = off;
		off += size;
	}
	off = (off + 7) & ~(uint64_t)7;
	if (!w->shdrs_first) {
		shoff = off;
		off += nsec * sizeof(*sh);
	}
	len = (size_t)off;
	/* Sparse sections: back to back in a hole after everything written. */
	sparse_off = (off + 4095) & ~(uint64_t)4095;
	for (i = 1; i < w->n; i++) {
		if (w->s[i].off_override >= 0)
			sh[i].sh_offset = (uint64_t)w->s[i].off_override;
		else if (!w->s[i].data) {
			sh[i].sh_offset = sparse_off;
			sparse_off += w->s[i].size;
		}
	}
	*total = sparse_off > ((len + 4095) & ~(uint64_t)4095) ? sparse_off : len;
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_ident[EI_OSABI] = w->osabi;
	eh.e_ident[EI_ABIVERSION] = 7;
	eh.e_type = ET_CORE;
	eh.e_machine = 190;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = w->shentsize;
	eh.e_shoff = shoff;
	/* Extended numbering past SHN_LORESERVE sections. */
	if (nsec >= SHN_LORESERVE) {
		eh.e_shnum = 0;
		sh[0].sh_size = nsec;
	} else {
		eh.e_shnum = (uint16_t)nsec;
	}
	if (shstr_i >= SHN_LORESERVE) {
		eh.e_shstrndx = SHN_XINDEX;
		sh[0].sh_link = shstr_i;
	} else {
		eh.e_shstrndx = (uint16_t)shstr_i;
	}
	b = calloc(1, len);
	if (!b) {
		free(sh);
		return -1;
	}
	memcpy(b, &eh, sizeof(eh));
	for (i = 1; i < nsec; i++) {
		const unsigned char *src = i == strtab_i ? w->strtab : i == shstr_i ?
			w->shstrtab : w->s[i].data;
		if (i < w->n && (w->s[i].off_override >= 0 || !src))
			continue;
		memcpy(b + sh[i].sh_offset, src, sh[i].sh_size);
	}
	memcpy(b + shoff, sh, nsec * sizeof(*sh));
	free(sh);
	*out = b;
	*n = len;
	return 0;
}

int ccw_write_file(struct ccw *w, const char *path, int gzip)
{
	unsigned char *b;
	size_t n;
	uint64_t total;
	int r = -1;

	if (ccw_serialise(w, &b, &n, &total) < 0)
		return -1;
	if (gzip) {
		gzFile gz = gzopen(path, "wb6");
		static const unsigned char zero[65536];
		uint64_t left = total - n;
		if (!gz)
			goto out;
		r = gzwrite(gz, b, (unsigned)n) == (int)n ? 0 : -1;
		while (!r && left) {
			unsigned k = left < sizeof(zero) ? (unsigned)left : sizeof(zero);
			r = gzwrite(gz, zero, k) == (int)k ? 0 : -1;
			left -= k;
		}
		if (gzclose(gz) != Z_OK)
			r = -1;
	} else {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			goto out;
		r = write(fd, b, n) == (ssize_t)n && ftruncate(fd, (off_t)total) == 0 ? 0 : -1;
		close(fd);
	}
out:
	free(b);
	return r;
}
