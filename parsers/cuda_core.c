/*
 * cuda_core.c -- CUDA GPU core dumps (.nvcudmp): devices, contexts,
 * modules (with kernel names from their relocated cubins), grids,
 * exceptions and recorded device memory regions, read with libelf.
 *
 * The format (/work/shared/specs/cuda-coredump.md) is an ELF64 ET_CORE,
 * EM_CUDA file whose sections form a tree wired by sh_link (parent section)
 * and sh_info (parent row). We index every section header once, check each
 * section's bytes lie inside the file, validate tables kind by kind from the
 * device table down (a child is used only if its parent has the expected
 * type, is usable itself and has the row sh_info names; this also rules out
 * sh_link cycles), then decode rows from exactly sh_entsize bytes: fields
 * past sh_entsize are absent (NULL), bytes past what we know are skipped.
 * Memory leaves (global, managed, local, shared, param) are recorded from
 * their headers only; their contents are never touched, so an 8 GiB core
 * costs what its headers cost. A gzip-compressed core is inflated into an
 * unlinked sparse temporary file (size capped by cuda_core_gz_limit) and
 * mapped like a plain one.
 */
#include "parsers/cuda_core.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t cuda_core_gz_limit = 64ull << 30;

#define EM_CUDA_ 190
#define CUDA_OSABI 0x33
#define CUDA_ABIVERSION 7
#define STO_CUDA_ENTRY 0x10
#define MAX_IMAGE (256u << 20)     /* largest cubin we copy to parse */
#define MAX_EXC 64                 /* distinct exception sites reported */
#define MAX_OVERLAP_DIAGS 8

/* Section kinds: sh_type - SHT_LOUSER. */
enum {
	K_NONE, K_MANAGED, K_GLOBAL, K_LOCAL, K_SHARED, K_REGS, K_ELFIMG, K_RELFIMG,
	K_BT, K_DEV, K_CTX, K_SM, K_GRID, K_CTA, K_WP, K_LN, K_MOD, K_PRED, K_PARAM,
	K_UREGS, K_UPRED, K_CB, K_META, K_CBU, K_MAX = K_CBU
};

static const char *const kind_name[K_MAX + 1] = {
	"none", "managed memory", "global memory", "local memory", "shared memory",
	"registers", "cubin", "relocated cubin", "backtrace table", "device table",
	"context table", "SM table", "grid table", "CTA table", "warp table",
	"lane table", "module table", "predicates", "param memory",
	"uniform registers", "uniform predicates", "const-bank table", "metadata",
	"convergence barriers",
};

/* Expected parent kind (sh_link) per kind; K_NONE = root. */
static const unsigned char parent_of[K_MAX + 1] = {
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

/* CUDBGException_t display names (spec 7.1). */
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

static const char *const grid_status[] = {
	"invalid", "pending", "active", "sleeping", "terminated", "undetermined",
};

struct sec {
	uint64_t off, size, entsize, addr;
	uint32_t link, info;
	uint32_t rows;        /* usable rows of a valid table */
	uint32_t aux;         /* index of its first record (contexts, modules) */
	unsigned char kind;
	unsigned char inb;    /* its bytes are inside the file */
	unsigned char valid;  /* usable: bytes, rows and parent chain checked */
};

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

struct exc_rec {
	int64_t device, grid_id, sm, warp, lane, block[3], thread[3];
	int64_t pc, error_pc, code;
	const char *source;   /* "lane", "sm", "warp" */
	const char *detail;   /* SM exceptionString, or NULL */
	uint64_t lanes, offset;
};

struct core {
	struct sink *s;
	Elf *elf;
	const unsigned char *img;
	uint64_t len, shoff;
	struct sec *sec;
	size_t nsec;
	size_t *bykind, kstart[K_MAX + 2];  /* section indices grouped by kind */
	size_t devtbl;
	uint32_t ndev;
	struct ol_gpu_device *devs;
	size_t strtab;                      /* .strtab section, 0 = none */
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
	int records;
	int failed;                         /* a sink call returned -1 */
	unsigned strtab_diags;
	uint64_t cubin_bytes;               /* cubin bytes copied so far */
};

/* ---- little helpers ---- */

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* Record a diagnostic; remembers a store failure. */
#define DIAG(c, off, sev, ...) \
	do { if (sink_diagf((c)->s, 0, (off), (sev), __VA_ARGS__) < 0) (c)->failed = 1; } while (0)

static void note(struct core *c, int64_t r)
{
	if (r < 0)
		c->failed = 1;
	else
		c->records++;
}

static uint64_t shdr_off(const struct core *c, size_t i)
{
	return c->shoff + (uint64_t)i * sizeof(Elf64_Shdr);
}

/* Row i of table section x, zero-padded to want bytes in buf (fields past
 * sh_entsize read as 0; use present() to tell them from real zeros). */
static const unsigned char *row(const struct core *c, const struct sec *x, uint64_t i,
				unsigned char *buf, size_t want)
{
	size_t k = x->entsize < want ? (size_t)x->entsize : want;

	memset(buf, 0, want);
	memcpy(buf, c->img + x->off + i * x->entsize, k);
	return buf;
}

static int present(const struct sec *x, unsigned off, unsigned size)
{
	return off + size <= x->entsize;
}

static int64_t opt32(const struct sec *x, const unsigned char *r, unsigned off)
{
	return present(x, off, 4) ? (int64_t)get32(r + off) : OL_NULL;
}

static uint64_t row_off(const struct sec *x, uint64_t i, unsigned field)
{
	return x->off + i * x->entsize + field;
}

/* The NUL-terminated .strtab string at off, or NULL (0 = empty = unknown;
 * out of range or unterminated: a diagnostic at where, the field's offset). */
static const char *str_at(struct core *c, uint64_t off, uint64_t where, const char *what)
{
	const struct sec *st;
	const unsigned char *p;

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
	p = c->img + st->off + off;
	if (!memchr(p, 0, (size_t)(st->size - off))) {
		if (c->strtab_diags++ < 16)
			DIAG(c, where, OL_ERROR, "%s: string at .strtab offset %llu is not "
			     "terminated inside the section; name unknown", what,
			     (unsigned long long)off);
		return NULL;
	}
	return (const char *)p;
}

static const char *exc_name(int64_t code, char *buf, size_t n)
{
	if (code == 0xFFFFFFFF)
		return "Unknown exception";
	if (code >= 0 && (size_t)code < sizeof(exc_names) / sizeof(exc_names[0]))
		return exc_names[code];
	snprintf(buf, n, "exception %lld", (long long)code);
	return buf;
}

/* ---- opening ---- */

/* Inflate a gzip input into an unlinked temporary file, leaving holes for
 * zero blocks (cores are mostly zeros in places); at most
 * cuda_core_gz_limit bytes. Returns the fd or -1 (diagnostic given;
 * -2 when the sink failed). */
int core_inflate_tmp(struct input *in, struct sink *s)
{
	struct core cc, *c = &cc;
	const char *dir = getenv("TMPDIR");
	char path[4096];
	unsigned char *buf = NULL;
	uint64_t total = 0;
	int fd = -1;
	const size_t bsz = 256 * 1024;

	memset(c, 0, sizeof(*c));
	c->s = s;
	snprintf(path, sizeof(path), "%s/oomlens-cudacore-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		DIAG(c, 0, OL_ERROR, "cannot create a temporary file to inflate the gzip "
		     "core into (%s): %s", path, strerror(errno));
		goto out;
	}
	unlink(path);
	buf = malloc(bsz);
	if (!buf)
		goto fail;
	for (;;) {
		ssize_t n = input_read(in, buf, bsz);
		size_t k;

		if (n <= 0)
			break;
		if (total + (uint64_t)n > cuda_core_gz_limit) {
			n = (ssize_t)(cuda_core_gz_limit - total);
			DIAG(c, total, OL_ERROR, "the gzip core inflates to more than the "
			     "%llu-byte limit; only the first %llu bytes are read",
			     (unsigned long long)cuda_core_gz_limit,
			     (unsigned long long)cuda_core_gz_limit);
		}
		for (k = 0; k < (size_t)n && !buf[k]; k++)
			;
		if (k == (size_t)n) {
			if (lseek(fd, n, SEEK_CUR) < 0)
				goto fail;
		} else if (write(fd, buf, (size_t)n) != n) {
			goto fail;
		}
		total += (uint64_t)n;
		if (total >= cuda_core_gz_limit)
			break;
	}
	if (ftruncate(fd, (off_t)total) < 0)
		goto fail;
	goto out;
fail:
	DIAG(c, total, OL_ERROR, "cannot write the inflated core to a temporary file "
	     "after %llu bytes: %s", (unsigned long long)total, strerror(errno));
	close(fd);
	fd = -1;
out:
	free(buf);
	if (c->failed && fd >= 0) {
		close(fd);
		return -2;
	}
	return c->failed ? -2 : fd;
}

/* Explain why libelf refused the file, from its first 64 bytes. */
static void explain_bad_elf(struct core *c, const unsigned char *h, size_t n, uint64_t size)
{
	uint64_t shoff, shnum;

	if (n < sizeof(Elf64_Ehdr)) {
		DIAG(c, 0, OL_ERROR, "file of %llu bytes is shorter than an ELF64 header "
		     "(64 bytes)", (unsigned long long)size);
		return;
	}
	shoff = get64(h + 40);
	shnum = h[60] | (unsigned)h[61] << 8;
	if (shoff > size || shnum * 64 > size - shoff)
		DIAG(c, 40, OL_ERROR, "section header table at offset %llu (%llu entries "
		     "of 64 bytes) extends past the end of the file (%llu bytes): the core "
		     "is truncated; nothing can be read", (unsigned long long)shoff,
		     (unsigned long long)shnum, (unsigned long long)size);
	else
		DIAG(c, 0, OL_ERROR, "libelf cannot read the ELF structure: %s",
		     elf_errmsg(-1));
}

static int open_core(struct core *c, struct input *in, int *tmpfd, unsigned char **copy)
{
	unsigned char h[64];
	size_t hn = 0;
	size_t len;
	int fd = -1;

	if (in->mem) {
		/* elf_memory wants writable memory: work on a private copy. */
		*copy = malloc(in->mem_len ? in->mem_len : 1);
		if (!*copy)
			return -1;
		memcpy(*copy, in->mem, in->mem_len);
		in->offset = in->mem_len;
		c->elf = elf_memory((char *)*copy, in->mem_len);
		hn = in->mem_len < 64 ? in->mem_len : 64;
		memcpy(h, in->mem, hn);
	} else {
		if (in->compressed) {
			fd = *tmpfd = core_inflate_tmp(in, c->s);
			if (fd < 0) {
				if (fd == -2)
					c->failed = 1;
				*tmpfd = -1;
				return -1;
			}
		} else {
			fd = in->fd;
		}
		c->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		ssize_t r = pread(fd, h, 64, 0);
		hn = r > 0 ? (size_t)r : 0;
	}
	if (!c->elf || elf_kind(c->elf) != ELF_K_ELF) {
		uint64_t size = in->mem ? in->mem_len : (uint64_t)lseek(fd, 0, SEEK_END);
		explain_bad_elf(c, h, hn, size);
		return -1;
	}
	c->img = (const unsigned char *)elf_rawfile(c->elf, &len);
	c->len = len;
	if (!in->mem && !in->compressed)
		in->offset = len;
	return c->img ? 0 : -1;
}

/* ---- the section index ---- */

struct span {
	uint64_t off;
	size_t i;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off ? 1 : (x->i > y->i) - (x->i < y->i);
}

static int index_sections(struct core *c)
{
	GElf_Ehdr eh;
	size_t i, n, shstrndx, overlaps = 0;
	size_t *order = NULL;
	uint64_t maxend = 0;
	size_t maxi = 0, unknown = 0;
	uint32_t unknown_type = 0;

	if (!gelf_getehdr(c->elf, &eh)) {
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
	{
		/* libelf quietly gives no sections when their table is cut off. */
		uint64_t cnt = eh.e_shnum;
		if (!cnt && eh.e_shoff && eh.e_shoff <= c->len && c->len - eh.e_shoff >= 64)
			cnt = get64(c->img + eh.e_shoff + 32);   /* extended numbering */
		if (!eh.e_shoff || !cnt) {
			DIAG(c, 40, OL_ERROR, "no section headers (e_shoff %llu): a CUDA core "
			     "keeps everything in sections; nothing can be read",
			     (unsigned long long)eh.e_shoff);
			return -1;
		}
		if (eh.e_shoff > c->len || cnt > (c->len - eh.e_shoff) / 64) {
			DIAG(c, 40, OL_ERROR, "section header table at offset %llu (%llu entries "
			     "of 64 bytes) extends past the end of the file (%llu bytes): the "
			     "core is truncated; nothing can be read",
			     (unsigned long long)eh.e_shoff, (unsigned long long)cnt,
			     (unsigned long long)c->len);
			return -1;
		}
	}
	if (elf_getshdrnum(c->elf, &n) < 0) {
		DIAG(c, 60, OL_ERROR, "cannot count the sections: %s", elf_errmsg(-1));
		return -1;
	}
	if (elf_getshdrstrndx(c->elf, &shstrndx) < 0) {
		DIAG(c, 62, OL_WARN, "no section name table (%s); .strtab is then found "
		     "by type", elf_errmsg(-1));
		shstrndx = 0;
	}
	c->nsec = n;
	c->sec = calloc(n ? n : 1, sizeof(*c->sec));
	c->bykind = calloc(n ? n : 1, sizeof(*c->bykind));
	order = calloc(n ? n : 1, sizeof(*order));
	if (!c->sec || !c->bykind || !order) {
		free(order);
		return -1;
	}
	for (i = 1; i < n; i++) {
		Elf_Scn *scn = elf_getscn(c->elf, i);
		GElf_Shdr sh;
		struct sec *x = &c->sec[i];
		const char *name;

		if (!scn || !gelf_getshdr(scn, &sh)) {
			DIAG(c, shdr_off(c, i), OL_ERROR, "section %zu: unreadable header: %s",
			     i, elf_errmsg(-1));
			continue;
		}
		x->off = sh.sh_offset;
		x->size = sh.sh_size;
		x->entsize = sh.sh_entsize;
		x->addr = sh.sh_addr;
		x->link = sh.sh_link;
		x->info = sh.sh_info;
		if (sh.sh_type > SHT_LOUSER && sh.sh_type <= SHT_LOUSER + K_MAX)
			x->kind = (unsigned char)(sh.sh_type - SHT_LOUSER);
		else if (sh.sh_type >= SHT_LOUSER && !unknown++)
			unknown_type = sh.sh_type;
		if (sh.sh_type == SHT_NOBITS) {
			x->size = 0;
			continue;
		}
		x->inb = sh.sh_offset <= c->len && sh.sh_size <= c->len - sh.sh_offset;
		if (!x->inb && (x->kind || sh.sh_type == SHT_STRTAB))
			DIAG(c, shdr_off(c, i), OL_ERROR, "section %zu (%s) at offset %llu, "
			     "%llu bytes, extends past the end of the file (%llu bytes)%s", i,
			     x->kind ? kind_name[x->kind] : "string table",
			     (unsigned long long)sh.sh_offset, (unsigned long long)sh.sh_size,
			     (unsigned long long)c->len,
			     baseline[x->kind] || !x->kind ? ": skipped" : ": contents missing");
		if (x->inb && x->size)
			order[overlaps++] = i;   /* reused below as the overlap list */
		if (sh.sh_type == SHT_STRTAB && !c->strtab && i != shstrndx && shstrndx &&
		    x->inb) {
			name = elf_strptr(c->elf, shstrndx, sh.sh_name);
			if (name && !strcmp(name, ".strtab"))
				c->strtab = i;
		}
	}
	if (unknown)
		DIAG(c, 0, OL_INFO, "%zu sections of types this reader does not know "
		     "(first: 0x%x; a newer driver?) were skipped", unknown, unknown_type);
	/* Overlapping section contents: report, keep reading. */
	if (overlaps > 1) {
		struct span *v = malloc(overlaps * sizeof(*v));
		unsigned reported = 0;

		if (v) {
			for (i = 0; i < overlaps; i++) {
				v[i].off = c->sec[order[i]].off;
				v[i].i = order[i];
			}
			qsort(v, overlaps, sizeof(*v), cmp_span);
			for (i = 0; i < overlaps; i++) {
				struct sec *x = &c->sec[v[i].i];
				if (i && x->off < maxend && reported++ < MAX_OVERLAP_DIAGS)
					DIAG(c, shdr_off(c, v[i].i), OL_WARN, "section %zu "
					     "(offset %llu, %llu bytes) overlaps section %zu in "
					     "the file", v[i].i, (unsigned long long)x->off,
					     (unsigned long long)x->size, maxi);
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
	}
	free(order);
	/* Group by kind (counting sort). */
	memset(c->kstart, 0, sizeof(c->kstart));
	for (i = 1; i < n; i++)
		c->kstart[c->sec[i].kind + 1]++;
	for (i = 1; i < K_MAX + 2; i++)
		c->kstart[i] += c->kstart[i - 1];
	{
		size_t fill[K_MAX + 1];
		memcpy(fill, c->kstart, sizeof(fill));
		for (i = 1; i < n; i++)
			c->bykind[fill[c->sec[i].kind]++] = i;
	}
	return 0;
}

/* Check each table's rows and each section's parent, kinds in parent-first
 * order, marking what is usable (sec.valid). */
static void validate(struct core *c)
{
	size_t o, j;

	for (o = 0; o < sizeof(kind_order); o++) {
		unsigned k = kind_order[o];

		for (j = c->kstart[k]; j < c->kstart[k + 1]; j++) {
			size_t i = c->bykind[j];
			struct sec *x = &c->sec[i];
			struct sec *p;

			if (!x->inb && baseline[k])
				continue;   /* said in index_sections */
			if (baseline[k]) {
				if (!x->entsize) {
					DIAG(c, shdr_off(c, i) + 56, OL_ERROR, "section %zu (%s): "
					     "sh_entsize is 0; table skipped", i, kind_name[k]);
					continue;
				}
				if (x->entsize < baseline[k]) {
					DIAG(c, shdr_off(c, i) + 56, OL_ERROR, "section %zu (%s): "
					     "sh_entsize %llu is smaller than the oldest row size "
					     "(%u bytes); table skipped", i, kind_name[k],
					     (unsigned long long)x->entsize, baseline[k]);
					continue;
				}
				if (x->size % x->entsize)
					DIAG(c, x->off + x->size - x->size % x->entsize, OL_WARN,
					     "section %zu (%s): %llu bytes is not a whole number of "
					     "%llu-byte rows; the last %llu bytes are ignored", i,
					     kind_name[k], (unsigned long long)x->size,
					     (unsigned long long)x->entsize,
					     (unsigned long long)(x->size % x->entsize));
				if (x->size / x->entsize > UINT32_MAX) {
					DIAG(c, shdr_off(c, i), OL_ERROR, "section %zu (%s): too "
					     "many rows; table skipped", i, kind_name[k]);
					continue;
				}
				x->rows = (uint32_t)(x->size / x->entsize);
			}
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
			if (!x->link || x->link >= c->nsec) {
				DIAG(c, shdr_off(c, i) + 40, OL_ERROR, "section %zu (%s): sh_link "
				     "%u is not a section index; skipped", i, kind_name[k], x->link);
				continue;
			}
			p = &c->sec[x->link];
			if (p->kind != parent_of[k]) {
				DIAG(c, shdr_off(c, i) + 40, OL_ERROR, "section %zu (%s): sh_link "
				     "%u is a %s, expected a %s; skipped", i, kind_name[k], x->link,
				     kind_name[p->kind], kind_name[parent_of[k]]);
				continue;
			}
			if (!p->valid || (k == K_CTX || k == K_SM || k == K_GRID ?
					  x->link != c->devtbl : 0))
				continue;   /* its parent was rejected: said there */
			if (x->info >= p->rows) {
				DIAG(c, shdr_off(c, i) + 44, OL_ERROR, "section %zu (%s): sh_info "
				     "%u is out of range for its parent %s (%u rows); skipped", i,
				     kind_name[k], x->info, kind_name[p->kind], p->rows);
				continue;
			}
			x->valid = 1;
		}
	}
}

/* The device of a valid section: sh_info of the ancestor whose parent is
 * the device table. OL_NULL for root-level sections. */
static int64_t device_of(const struct core *c, size_t i)
{
	int depth;

	for (depth = 0; depth < 8 && i && i < c->nsec; depth++) {
		const struct sec *x = &c->sec[i];
		if (!x->valid || !parent_of[x->kind])
			return OL_NULL;
		if (parent_of[x->kind] == K_DEV)
			return x->info;
		i = x->link;
	}
	return OL_NULL;
}

/* ---- devices and metadata ---- */

static void read_devices(struct core *c)
{
	struct sec *x;
	uint32_t i;
	unsigned char r[88];

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
		c->failed = 1;
		return;
	}
	for (i = 0; i < c->ndev; i++) {
		struct ol_gpu_device *d = &c->devs[i];

		row(c, x, i, r, sizeof(r));
		d->device = i;
		d->name = str_at(c, get64(r), row_off(x, i, 0), "device name");
		d->type = str_at(c, get64(r + 8), row_off(x, i, 8), "device type");
		d->sm_type = str_at(c, get64(r + 16), row_off(x, i, 16), "device SM type");
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
}

static void read_meta(struct core *c)
{
	size_t j;
	unsigned char r[32];
	char buf[64];

	c->t = ol_time_none();
	for (j = c->kstart[K_META]; j < c->kstart[K_META + 1]; j++) {
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
		gen = str_at(c, get64(r), x->off, "metadata generator name");
		if (gen && sink_meta(c->s, "cuda.generator", gen) < 0)
			c->failed = 1;
		snprintf(buf, sizeof(buf), "%u.%u", get32(r + 8), get32(r + 12));
		if (sink_meta(c->s, "cuda.driver_version", buf) < 0)
			c->failed = 1;
		snprintf(buf, sizeof(buf), "%u.%u", get32(r + 16), get32(r + 20));
		if (sink_meta(c->s, "cuda.version", buf) < 0)
			c->failed = 1;
		snprintf(buf, sizeof(buf), "0x%x", get32(r + 24));
		if (sink_meta(c->s, "cuda.coredump_flags", buf) < 0)
			c->failed = 1;
		if (get32(r + 28)) {
			c->t.clock = OL_CLOCK_UTC;
			c->t.utc_ns = (int64_t)get32(r + 28) * 1000000000;
		}
		return;   /* one metadata row is all there is */
	}
}

/* ---- contexts, modules, cubins ---- */

static void read_contexts(struct core *c)
{
	size_t j, total = 0;
	unsigned char r[40];

	for (j = c->kstart[K_CTX]; j < c->kstart[K_CTX + 1]; j++)
		if (c->sec[c->bykind[j]].valid)
			total += c->sec[c->bykind[j]].rows;
	c->ctxs = calloc(total ? total : 1, sizeof(*c->ctxs));
	if (!c->ctxs) {
		c->failed = 1;
		return;
	}
	for (j = c->kstart[K_CTX]; j < c->kstart[K_CTX + 1]; j++) {
		size_t i = c->bykind[j];
		struct sec *x = &c->sec[i];
		uint32_t k;

		if (!x->valid)
			continue;
		x->aux = (uint32_t)c->nctx;
		for (k = 0; k < x->rows; k++) {
			struct ol_gpu_context *cx = &c->ctxs[c->nctx++].c;

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
				DIAG(c, row_off(x, k, 32), OL_WARN, "context %u of device %u: "
				     "deviceIdx is %lld, not the device its table hangs off",
				     k, x->info, (long long)cx->device_idx);
			c->devs[x->info].contexts++;
			/* Duplicate handles: kept (modules refer to rows), reported. */
			for (size_t q = x->aux; q + 1 < c->nctx && q < (size_t)x->aux + 4096; q++)
				if (c->ctxs[q].c.context_id == cx->context_id) {
					DIAG(c, row_off(x, k, 0), OL_WARN, "context %u of device "
					     "%u repeats context id 0x%llx of row %lld", k, x->info,
					     (unsigned long long)cx->context_id,
					     (long long)c->ctxs[q].c.row);
					break;
				}
		}
	}
}

static void read_modules(struct core *c)
{
	size_t j, total = 0;
	unsigned char r[8];

	for (j = c->kstart[K_MOD]; j < c->kstart[K_MOD + 1]; j++)
		if (c->sec[c->bykind[j]].valid)
			total += c->sec[c->bykind[j]].rows;
	c->mods = calloc(total ? total : 1, sizeof(*c->mods));
	if (!c->mods) {
		c->failed = 1;
		return;
	}
	for (j = c->kstart[K_MOD]; j < c->kstart[K_MOD + 1]; j++) {
		size_t i = c->bykind[j];
		struct sec *x = &c->sec[i];
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
	/* Attach the images. */
	for (j = c->kstart[K_ELFIMG]; j < c->kstart[K_RELFIMG + 1]; j++) {
		size_t i = c->bykind[j];
		struct sec *x = &c->sec[i];
		struct mod_rec *m;

		if (!x->valid)
			continue;
		m = &c->mods[c->sec[x->link].aux + x->info];
		if (x->kind == K_RELFIMG ? m->relf : m->elf) {
			DIAG(c, shdr_off(c, i), OL_WARN, "section %zu: a second %s for module "
			     "row %u; the first is used", i, kind_name[x->kind], x->info);
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

/* Read the STT_FUNC symbols of a relocated cubin (untrusted ELF inside the
 * core) into c->fns and m->functions. */
static void read_cubin(struct core *c, struct mod_rec *mr, size_t i)
{
	const struct sec *x = &c->sec[i];
	struct ol_gpu_module *m = &mr->m;
	char *copy = NULL;
	Elf *e = NULL;
	Elf_Scn *scn = NULL;
	int64_t kernels = 0;
	unsigned bad_names = 0;

	if (!x->inb || !x->size)
		return;
	if (x->size > MAX_IMAGE) {
		DIAG(c, x->off, OL_WARN, "section %zu: relocated cubin of %llu bytes is "
		     "larger than %u; its kernel names are not read", i,
		     (unsigned long long)x->size, MAX_IMAGE);
		return;
	}
	/* Overlapping sections could name one big image thousands of times:
	 * copy at most the file's size (or MAX_IMAGE) in all. */
	if (c->cubin_bytes == UINT64_MAX)
		return;   /* over budget: said once */
	if (c->cubin_bytes + x->size > (c->len > MAX_IMAGE ? c->len : MAX_IMAGE)) {
		DIAG(c, x->off, OL_WARN, "section %zu: the relocated cubins add up to more "
		     "bytes than the file holds (overlapping sections); kernel names of this "
		     "and later modules are not read", i);
		c->cubin_bytes = UINT64_MAX;
		return;
	}
	c->cubin_bytes += x->size;
	copy = malloc((size_t)x->size);
	if (!copy)
		goto out;
	memcpy(copy, c->img + x->off, (size_t)x->size);
	e = elf_memory(copy, (size_t)x->size);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		DIAG(c, x->off, OL_ERROR, "section %zu: the relocated cubin of module 0x%llx "
		     "is not a readable ELF image (%s); kernel names unknown", i,
		     (unsigned long long)m->module_handle, elf_errmsg(-1));
		goto out;
	}
	m->functions = json_array();
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t symsz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT), k, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		if (sh.sh_entsize != symsz) {
			DIAG(c, x->off, OL_ERROR, "section %zu: cubin symbol table has "
			     "sh_entsize %llu, expected %zu; skipped", i,
			     (unsigned long long)sh.sh_entsize, symsz);
			continue;
		}
		d = elf_getdata(scn, NULL);
		if (!d) {
			DIAG(c, x->off, OL_ERROR, "section %zu: cubin symbol table at image "
			     "offset %llu cannot be read (%s)", i,
			     (unsigned long long)sh.sh_offset, elf_errmsg(-1));
			continue;
		}
		n = d->d_size / symsz;
		for (k = 1; k < n; k++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)k, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name) {
				bad_names++;
				continue;
			}
			if (sym.st_other & STO_CUDA_ENTRY)
				kernels++;
			if (add_fn(c, name, sym.st_value, sym.st_size, m) < 0) {
				c->failed = 1;
				goto out;
			}
			if (json_array_size(m->functions) < 4096)
				json_array_append_new(m->functions, ol_json_strn(name, strlen(name)));
		}
		if (k > INT32_MAX)
			break;
	}
	if (bad_names)
		DIAG(c, x->off, OL_ERROR, "section %zu: %u cubin function symbols have a "
		     "name offset outside their string table; those names are unknown",
		     i, bad_names);
	m->kernels = kernels;
out:
	if (e)
		elf_end(e);
	free(copy);
}

static int cmp_fn(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;
	return x->value < y->value ? -1 : x->value > y->value;
}

/* The function containing pc, preferring the given device and module. */
static const char *fn_at(const struct core *c, uint64_t pc, int64_t device, uint64_t module)
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

/* ---- grids ---- */

static void read_grids(struct core *c)
{
	size_t j, total = 0;
	unsigned char r[136];

	for (j = c->kstart[K_GRID]; j < c->kstart[K_GRID + 1]; j++)
		if (c->sec[c->bykind[j]].valid)
			total += c->sec[c->bykind[j]].rows;
	c->grids = calloc(total ? total : 1, sizeof(*c->grids));
	if (!c->grids) {
		c->failed = 1;
		return;
	}
	for (j = c->kstart[K_GRID]; j < c->kstart[K_GRID + 1]; j++) {
		size_t i = c->bykind[j], first = c->ngrid;
		struct sec *x = &c->sec[i];
		uint32_t k, a;

		if (!x->valid)
			continue;
		for (k = 0; k < x->rows; k++) {
			struct ol_gpu_grid *g = &c->grids[c->ngrid];
			uint32_t st;
			size_t d;
			int dup = 0;

			row(c, x, k, r, sizeof(r));
			g->device = x->info;
			g->grid_id = (int64_t)get64(r);
			for (d = first; d < c->ngrid && d - first < 4096; d++)
				if (c->grids[d].grid_id == g->grid_id)
					dup = 1;
			if (dup) {
				DIAG(c, row_off(x, k, 0), OL_WARN, "grid row %u of device %u "
				     "repeats grid id %llu; the first is kept", k, x->info,
				     (unsigned long long)g->grid_id);
				memset(g, 0, sizeof(*g));
				continue;
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
			g->function = fn_at(c, (uint64_t)g->function_entry, g->device,
					    (uint64_t)g->module_handle);
			c->ngrid++;
		}
	}
}

static struct ol_gpu_grid *grid_by_id(struct core *c, int64_t device, int64_t id)
{
	size_t i;

	for (i = 0; i < c->ngrid; i++)
		if (c->grids[i].device == device && c->grids[i].grid_id == id)
			return &c->grids[i];
	return NULL;
}

/* ---- exceptions: lanes, then SMs, then broken warps ---- */

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

static void read_lanes(struct core *c)
{
	size_t j;
	unsigned char lr[64], wr[80], cr[56], sr[48];

	for (j = c->kstart[K_LN]; j < c->kstart[K_LN + 1]; j++) {
		size_t i = c->bykind[j];
		struct sec *ln = &c->sec[i], *wp, *cta, *sm;
		int64_t dev, grid_id;
		uint32_t k;

		if (!ln->valid)
			continue;
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

			row(c, ln, k, lr, sizeof(lr));
			code = get32(lr + 32);
			lane = get32(lr + 16);
			if (lane >= 32) {
				DIAG(c, row_off(ln, k, 16), OL_WARN, "lane row %u: lane number "
				     "%u is not below 32", k, lane);
				continue;
			}
			if (!code)
				continue;
			e = exc_slot(c, dev, grid_id, code);
			if (!e)
				continue;
			if (!e->lanes++) {
				int a;
				e->device = dev;
				e->grid_id = grid_id;
				e->code = code;
				e->source = "lane";
				e->sm = get32(sr);
				e->warp = get32(wr + 8);
				e->lane = lane;
				for (a = 0; a < 3; a++) {
					e->block[a] = get32(cr + 8 + 4 * a);
					e->thread[a] = get32(lr + 20 + 4 * a);
				}
				e->pc = (int64_t)get64(lr);
				e->error_pc = get32(wr + 24) ? (int64_t)get64(wr) : OL_NULL;
				e->offset = row_off(ln, k, 32);
			}
		}
	}
	/* SM rows (r555+) cover warps that already exited. */
	for (j = c->kstart[K_SM]; j < c->kstart[K_SM + 1]; j++) {
		size_t i = c->bykind[j], q;
		struct sec *sm = &c->sec[i];
		uint32_t k;

		if (!sm->valid || !present(sm, 8, 16))
			continue;
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
				e->detail = str_at(c, get64(sr + 40), row_off(sm, k, 40),
						   "SM exception string");
			e->offset = row_off(sm, k, 8);
		}
	}
	if (c->nexc)
		return;
	/* No exception anywhere: a broken warp (trap, breakpoint) is the site. */
	for (j = c->kstart[K_WP]; j < c->kstart[K_WP + 1]; j++) {
		size_t i = c->bykind[j];
		struct sec *wp = &c->sec[i], *cta, *sm;
		uint32_t k;

		if (!wp->valid)
			continue;
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
			e->sm = get32(sr);
			e->warp = get32(wr + 8);
			e->lane = OL_NULL;
			for (a = 0; a < 3; a++) {
				e->block[a] = get32(cr + 8 + 4 * a);
				e->thread[a] = OL_NULL;
			}
			e->pc = OL_NULL;
			e->error_pc = get32(wr + 24) ? (int64_t)get64(wr) : OL_NULL;
			e->offset = row_off(wp, k, 20);
		}
	}
}

/* ---- output ---- */

static void emit_exceptions(struct core *c)
{
	size_t i;

	for (i = 0; i < c->nexc; i++) {
		struct exc_rec *e = &c->exc[i];
		struct ol_gpu_grid *g = e->grid_id != OL_NULL ?
			grid_by_id(c, e->device, e->grid_id) : NULL;
		const char *dname = c->devs && e->device < c->ndev ? c->devs[e->device].name : NULL;
		char nbuf[32], summary[512];
		const char *name = e->code == OL_NULL ? "Warp trap or breakpoint" :
				   exc_name(e->code, nbuf, sizeof(nbuf));
		int64_t at = e->error_pc != OL_NULL ? e->error_pc : e->pc;
		const char *fn = at != OL_NULL ? fn_at(c, (uint64_t)at, e->device,
			g ? (uint64_t)g->module_handle : 0) : NULL;
		struct ol_event ev;
		json_t *d = json_object();

		if (!fn && g)
			fn = g->function;
		if (g && !g->exception)
			g->exception = e->code == OL_NULL ? "Warp trap or breakpoint" :
				       e->code < (int64_t)(sizeof(exc_names) / sizeof(exc_names[0]))
				       ? exc_names[e->code] : "unknown exception";
		json_object_set_new(d, "device", json_integer(e->device));
		json_object_set_new(d, "device_name", ol_json_str(dname));
		json_object_set_new(d, "exception", json_string(name));
		json_object_set_new(d, "code", ol_json_int(e->code));
		json_object_set_new(d, "source", json_string(e->source));
		json_object_set_new(d, "sm", ol_json_int(e->sm));
		json_object_set_new(d, "warp", ol_json_int(e->warp));
		json_object_set_new(d, "lane", ol_json_int(e->lane));
		json_object_set_new(d, "block", e->block[0] == OL_NULL ? json_null() :
			json_pack("[III]", (json_int_t)e->block[0], (json_int_t)e->block[1],
				  (json_int_t)e->block[2]));
		json_object_set_new(d, "thread", e->thread[0] == OL_NULL ? json_null() :
			json_pack("[III]", (json_int_t)e->thread[0], (json_int_t)e->thread[1],
				  (json_int_t)e->thread[2]));
		json_object_set_new(d, "pc", ol_json_int(e->pc));
		json_object_set_new(d, "error_pc", ol_json_int(e->error_pc));
		json_object_set_new(d, "function", ol_json_str(fn));
		json_object_set_new(d, "grid_id", ol_json_int(e->grid_id));
		json_object_set_new(d, "context_id", g ? json_integer(g->context_id) : json_null());
		json_object_set_new(d, "lanes", json_integer((json_int_t)e->lanes));
		json_object_set_new(d, "detail", ol_json_str(e->detail));
		snprintf(summary, sizeof(summary), "%s on device %lld%s%s%s in %s "
			 "(SM %lld, %llu lane%s)", name, (long long)e->device,
			 dname ? " (" : "", dname ? dname : "", dname ? ")" : "",
			 fn ? fn : "an unknown function", (long long)e->sm,
			 (unsigned long long)e->lanes, e->lanes == 1 ? "" : "s");
		memset(&ev, 0, sizeof(ev));
		ev.kind = "cuda_exception";
		ev.t = c->t;
		ev.pid = OL_NULL;
		ev.bytes = OL_NULL;
		ev.line = e->offset;
		ev.summary = summary;
		ev.data = d;
		note(c, sink_event(c->s, &ev));
		json_decref(d);
	}
	if (c->exc_dropped)
		DIAG(c, 0, OL_WARN, "%zu more exception sites beyond the first %d not "
		     "reported", c->exc_dropped, MAX_EXC);
}

struct region_ref {
	uint64_t addr;
	size_t i;
};

static int cmp_region(const void *a, const void *b)
{
	const struct region_ref *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr ? 1 : (x->i > y->i) - (x->i < y->i);
}

static void emit_regions(struct core *c)
{
	static const unsigned char kinds[] = { K_GLOBAL, K_MANAGED, K_LOCAL, K_SHARED, K_PARAM };
	size_t o, j, n = 0, m;
	struct region_ref *v;
	uint64_t maxend = 0;

	/* Overlapping global/managed ranges: keep the first (lowest section). */
	m = (c->kstart[K_GLOBAL + 1] - c->kstart[K_GLOBAL]) +
	    (c->kstart[K_MANAGED + 1] - c->kstart[K_MANAGED]);
	v = malloc((m ? m : 1) * sizeof(*v));
	if (!v) {
		c->failed = 1;
		return;
	}
	for (j = c->kstart[K_MANAGED]; j < c->kstart[K_GLOBAL + 1]; j++) {
		v[n].addr = c->sec[c->bykind[j]].addr;
		v[n++].i = c->bykind[j];
	}
	qsort(v, n, sizeof(*v), cmp_region);
	for (j = 0; j < n; j++) {
		struct sec *x = &c->sec[v[j].i];
		if (j && x->addr < maxend && x->size) {
			DIAG(c, shdr_off(c, v[j].i) + 16, OL_WARN, "section %zu: memory range "
			     "0x%llx+%llu overlaps an earlier one; not counted", v[j].i,
			     (unsigned long long)x->addr, (unsigned long long)x->size);
			x->kind = K_NONE;   /* dropped from the regions below */
			continue;
		}
		if (x->addr + x->size > maxend)
			maxend = x->addr + x->size;
	}
	free(v);
	for (o = 0; o < sizeof(kinds) && !c->failed; o++) {
		unsigned k = kinds[o];
		for (j = c->kstart[k]; j < c->kstart[k + 1] && !c->failed; j++) {
			size_t i = c->bykind[j];
			struct sec *x = &c->sec[i];
			struct ol_gpu_region r;

			if (x->kind != k || (parent_of[k] && !x->valid))
				continue;
			r.device = parent_of[k] ? device_of(c, i) : OL_NULL;
			r.kind = k == K_GLOBAL ? "global" : k == K_MANAGED ? "managed" :
				 k == K_LOCAL ? "local" : k == K_SHARED ? "shared" : "param";
			r.address = k == K_PARAM ? OL_NULL : (int64_t)x->addr;
			r.size = (int64_t)x->size;
			r.file_offset = (int64_t)x->off;
			r.complete = x->inb;
			note(c, sink_gpu_region(c->s, &r));
		}
	}
}

static void emit_all(struct core *c)
{
	size_t i;

	for (i = 0; i < c->ndev && !c->failed; i++)
		note(c, sink_gpu_device(c->s, &c->devs[i]));
	for (i = 0; i < c->nctx && !c->failed; i++)
		note(c, sink_gpu_context(c->s, &c->ctxs[i].c));
	for (i = 0; i < c->nmod && !c->failed; i++)
		note(c, sink_gpu_module(c->s, &c->mods[i].m));
	emit_exceptions(c);   /* sets grid exception names */
	for (i = 0; i < c->ngrid && !c->failed; i++)
		note(c, sink_gpu_grid(c->s, &c->grids[i]));
	if (!c->failed)
		emit_regions(c);
}

/* ---- entry points ---- */

int cuda_core_sniff(const unsigned char *head, size_t n)
{
	if (n < 20 || memcmp(head, ELFMAG, SELFMAG) != 0)
		return 0;
	if (head[EI_CLASS] != ELFCLASS64 || head[EI_DATA] != ELFDATA2LSB)
		return 0;
	if ((head[16] | head[17] << 8) != ET_CORE || (head[18] | head[19] << 8) != EM_CUDA_)
		return 0;
	return 100;
}

int cuda_core_parse(struct input *in, struct sink *s)
{
	struct core *c = calloc(1, sizeof(*c));
	unsigned char *copy = NULL;
	int tmpfd = -1, r = 0;
	size_t i;

	if (!c)
		return -1;
	c->s = s;
	elf_version(EV_CURRENT);
	if (open_core(c, in, &tmpfd, &copy) < 0 || index_sections(c) < 0)
		goto out;
	validate(c);
	read_meta(c);
	read_devices(c);
	if (c->devs) {
		read_contexts(c);
		read_modules(c);
		for (i = 0; i < c->nmod && !c->failed; i++)
			if (c->mods[i].relf)
				read_cubin(c, &c->mods[i], c->mods[i].relf);
		if (c->nfn)
			qsort(c->fns, c->nfn, sizeof(*c->fns), cmp_fn);
		read_grids(c);
		read_lanes(c);
	}
	if (!c->failed)
		emit_all(c);
out:
	r = c->failed ? -1 : c->records;
	for (i = 0; i < c->nmod; i++)
		json_decref(c->mods[i].m.functions);
	for (i = 0; i < c->nfn; i++)
		free(c->fns[i].name);
	free(c->fns);
	free(c->mods);
	free(c->ctxs);
	free(c->grids);
	free(c->devs);
	free(c->sec);
	free(c->bykind);
	if (c->elf)
		elf_end(c->elf);
	free(copy);
	if (tmpfd >= 0)
		close(tmpfd);
	free(c);
	return r;
}
