/*
 * cuda_core.c -- CUDA GPU core dumps (.nvcudmp): devices, contexts,
 * modules (with kernel names from their relocated cubins), grids,
 * exceptions and recorded device memory regions, read with libelf.
 *
 * The format (docs/formats.md, "CUDA core dumps") is an ELF64 ET_CORE,
 * EM_CUDA file whose sections form a tree wired by sh_link (parent section)
 * and sh_info (parent row). We index every section header once, check each
 * section's bytes lie inside the file, validate tables kind by kind from the
 * device table down (a child is used only if its parent has the expected
 * type, is usable itself and has the row sh_info names; this also rules out
 * sh_link cycles), then decode rows from exactly sh_entsize bytes: fields
 * past sh_entsize are absent (NULL), bytes past what we know are skipped.
 * Memory leaves (global, managed, local, shared, param) are recorded from
 * their headers only; their contents are never touched, so an 8 GiB core
 * costs what its headers cost. A gzip-compressed core is inflated into
 * memory as far as its headers reach, within the run's budget (no
 * temporary file), and read like an in-memory one (core_file.c).
 *
 * This file opens the core, runs the steps and emits the records; the
 * steps live in cuda_core_{sections,tables,cubin,exceptions}.c, which
 * share the state in cuda_core_internal.h.
 *
 * A plain file is mapped (core_file.c, libelf opening it under a guard)
 * and the steps index the mapping; a file that shrinks while read (a core
 * still being written or rotated) would raise SIGBUS there, so the steps
 * run under a guard (core_guard.h): the fault jumps back here, the error
 * names the byte that is gone, what was stored before stays (the artifact
 * is partial) and the run goes on. The guard covers only this reader's own
 * code: the strings the records carry are copied out of the mapping as
 * they are read, and the records are handed to the store after the guard
 * is disarmed, so a fault never lands inside SQLite.
 */
#include "parsers/cores/cuda_core_internal.h"
#include "parsers/cores/core_guard.h"
#include "lib/budget.h"

#include <stdlib.h>
#include <unistd.h>

#define EM_CUDA_ 190

#define DIAG(c, ...) core_diag(&(c)->out, __VA_ARGS__)

/* ---- opening ---- */

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
		cc_say_cut_headers(c, shoff, shnum, size);
	else
		DIAG(c, 0, OL_ERROR, "libelf cannot read the ELF structure: %s",
		     elf_errmsg(-1));
}

/* Open the core for libelf and map its bytes (c->img, c->len). 0, or -1
 * when nothing can be read (said, or the sink failed). */
static int open_core(struct core *c, struct input *in)
{
	unsigned char h[64];
	size_t hn = 0, len;

	switch (core_elf_open(&c->file, in, c->out.s, 1)) {
	case CORE_OPEN_OK:
		break;
	case CORE_OPEN_SINK:
		c->out.failed = 1;
		return -1;
	default:
		return -1;
	}
	if (c->file.copy || in->mem) {
		hn = c->file.len < 64 ? c->file.len : 64;
		if (hn)
			memcpy(h, c->file.copy, hn);
	} else {
		ssize_t r = pread(c->file.fd, h, 64, 0);
		hn = r > 0 ? (size_t)r : 0;
	}
	if (!c->file.elf || elf_kind(c->file.elf) != ELF_K_ELF) {
		uint64_t size = c->file.fd < 0 ? c->file.len : (uint64_t)lseek(c->file.fd, 0, SEEK_END);
		explain_bad_elf(c, h, hn, size);
		return -1;
	}
	c->img = (const unsigned char *)elf_rawfile(c->file.elf, &len);
	c->len = len;
	if (!in->mem && !in->compressed)
		in->offset = len;
	return c->img ? 0 : -1;
}

/* ---- output ---- */

static void emit_all(struct core *c)
{
	struct core_out *o = &c->out;
	size_t i;

	for (i = 0; i < c->ndev && !o->failed; i++)
		core_note(o, sink_gpu_device(o->s, &c->devs[i]));
	for (i = 0; i < c->nctx && !o->failed; i++)
		core_note(o, sink_gpu_context(o->s, &c->ctxs[i].c));
	for (i = 0; i < c->nmod && !o->failed; i++)
		core_note(o, sink_gpu_module(o->s, &c->mods[i].m));
	cc_emit_exceptions(c);   /* sets grid exception names */
	for (i = 0; i < c->ngrid && !o->failed; i++)
		core_note(o, sink_gpu_grid(o->s, &c->grids[i]));
	if (!o->failed)
		cc_emit_regions(c);
}

static void free_core(struct core *c)
{
	size_t i;

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
	free(c->scratch);
	free(c->strs);
	ol_budget_give(c->strs_drawn);
	json_decref(c->pending);
	core_elf_close(&c->file);
	free(c);
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

/* Read the opened core (c->img) into c: every string the records hold is
 * copied out of the image (cc_str_at), so that emit_all, run after the
 * guard is disarmed, hands the store nothing that lies in the mapping. */
static void read_core(struct core *c)
{
	if (cc_index_sections(c) < 0)
		return;
	cc_validate(c);
	cc_read_meta(c);
	cc_read_devices(c);
	if (c->devs) {
		cc_read_contexts(c);
		cc_read_modules(c);
		cc_read_cubins(c);
		cc_read_grids(c);
		cc_read_exceptions(c);
	}
}

int cuda_core_parse(struct input *in, struct sink *s)
{
	struct core *c = calloc(1, sizeof(*c));
	struct core_guard g;
	int r;

	if (!c)
		return -1;
	c->out.s = s;
	if (open_core(c, in) < 0)
		goto out;
	if (c->file.copy) {
		read_core(c);   /* an image in memory cannot shrink */
	} else if (CORE_GUARD_TRY(&g, c->img, (size_t)c->len)) {
		core_guard_disarm(&g);
		DIAG(c, g.fault_off, OL_ERROR, "the core shrank while read: byte %llu of %llu "
		     "is gone (%s was cut or rotated while oomlens read it); what was read "
		     "before is kept", (unsigned long long)g.fault_off,
		     (unsigned long long)c->len, in->path ? in->path : "the file");
		goto out;
	} else {
		read_core(c);
		core_guard_disarm(&g);
	}
	/* nothing below reads the mapping: the records hold copies */
	if (!c->out.failed)
		emit_all(c);
out:
	r = c->out.failed ? -1 : c->out.records;
	free_core(c);
	return r;
}
