/*
 * cuda_core_writer.h -- writes synthetic CUDA GPU core dumps (format:
 * docs/formats.md, "CUDA core dumps") for tests, the fuzz corpus and the
 * benchmark: a tiny section model (ccw_add...) serialised as ELF64 with
 * the <elf.h>/<gelf.h> types, plus ccw_build(), which fills the model with
 * a known core in one of two layout generations. Deterministic.
 */
#ifndef OOMLENS_CUDA_CORE_WRITER_H
#define OOMLENS_CUDA_CORE_WRITER_H

#include <stddef.h>
#include <stdint.h>

struct ccw_sec {
	uint32_t type, link, info, name;
	uint64_t entsize, addr, size;
	unsigned char *data;     /* size bytes, or NULL for a sparse section */
	int64_t off_override;    /* >= 0: sh_offset written as is, data not written */
};

struct ccw {
	struct ccw_sec *s;
	size_t n, cap;
	unsigned char *strtab, *shstrtab;
	size_t strtab_len, shstrtab_len;
	int shdrs_first;         /* section headers right after the ELF header */
	uint16_t shentsize;      /* e_shentsize to write (64) */
	unsigned char osabi;     /* 0x33 */
};

/* Section indices of what ccw_build made (0 = not made). */
struct ccw_ids {
	uint32_t strtab, meta, devtbl, ctxtbl, modtbl, relf, elf, gridtbl, param,
		smtbl, ctatbl, shared, wptbl, lntbl, regs, bt, local, global0;
};

struct ccw_opts {
	int gen;                 /* 0: r346 row sizes, no metadata; 1: r615 sizes + metadata */
	int ndev;                /* devices (1 or 2; device 1 has no contexts) */
	int nctx;                /* contexts on device 0, each with one module */
	int nregions;            /* global memory sections */
	uint64_t region_size;    /* bytes each */
	int sparse;              /* regions have no bytes: they point into a hole */
	int exception;           /* put exception 14 on two lanes (and the SM row) */
};

/* Known values ccw_build writes, for the tests to compare with. */
#define CCW_KERNEL "_Z11fill_kernelPfi"
#define CCW_HELPER "_Z6helperv"
#define CCW_CODE_BASE 0x7fff00000000ull
#define CCW_CTX_ID(i) (0x55550000ull + (uint64_t)(i) * 0x100)
#define CCW_MOD_HANDLE(i) (0x7f0000001000ull + (uint64_t)(i) * 0x1000)
#define CCW_TID(i) (4242 + (i))
#define CCW_REGION_ADDR(i, size) (0x7f1000000000ull + (uint64_t)(i) * 2 * (size))
#define CCW_TIMESTAMP 1764440560u   /* 2025-11-29T18:22:40Z */

void ccw_init(struct ccw *w);
void ccw_free(struct ccw *w);
/* Intern s in .strtab; returns its offset. */
uint64_t ccw_str(struct ccw *w, const char *s);
/* Add a section (data copied; NULL data = sparse, no bytes). Returns its index. */
uint32_t ccw_add(struct ccw *w, uint32_t type, const char *name, uint32_t link,
		 uint32_t info, uint64_t entsize, const void *data, uint64_t size);
/* Fill w with the core o describes; ids gets the section indices. */
int ccw_build(struct ccw *w, const struct ccw_opts *o, struct ccw_ids *ids);
/* A small relocated cubin naming CCW_KERNEL and CCW_HELPER at base. */
int ccw_cubin(uint64_t base, unsigned char **out, size_t *n);
/* Serialise: *out gets the bytes up to the sparse area; *total the file
 * length including it. */
int ccw_serialise(struct ccw *w, unsigned char **out, size_t *n, uint64_t *total);
/* Write to path (gzip: compressed; the sparse area becomes a hole when
 * not compressed). Returns 0 or -1. */
int ccw_write_file(struct ccw *w, const char *path, int gzip);

#endif
