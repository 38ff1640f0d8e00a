/*
 * nvsmi_q.h -- `nvidia-smi -q` (--query) text: per GPU its framebuffer
 * (total, reserved, used, free), BAR1, processes and their memory,
 * retired pages, remapped rows and ECC error counts, as GPU facts.
 *
 * The reader is fed line by line (nvsmi_q_line), so that it reads a
 * standalone `nvidia-smi -q` file (nvsmi_q_parse) and the same section
 * inside an nvidia-bug-report.log (parsers/bundles/nvbug.c) alike.
 * Records: series gpu.total_bytes, gpu.reserved_bytes, gpu.used_bytes,
 * gpu.free_bytes, gpu.bar1_used_bytes (entity gpuN, N the card's order
 * in the output, which is nvidia-smi's index order) and
 * gpu.proc_used_bytes (gpuN/pid:P) at the log's Timestamp (wall clock of
 * unknown zone unless --tz); meta gpu.name, gpu.pci_bus_id,
 * gpu.total_bytes, gpu.proc_name, gpu.retired_pages, gpu.remapped_rows,
 * gpu.ecc_errors, cuda.driver_version, cuda.version.
 */
#ifndef OOMLENS_NVSMI_Q_H
#define OOMLENS_NVSMI_Q_H

#include <stddef.h>
#include <stdint.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

#define NVSMI_Q_DEPTH 8

/* The reader's state; zero it with nvsmi_q_init. */
struct nvsmi_q {
	struct sink *s;
	struct ol_time t;          /* the current log's Timestamp */
	int gpu;                   /* the current card (-1 before any) */
	int ngpu_log;              /* cards seen in the current NVSMI LOG */
	int gpu_base;              /* index of the current log's first card */
	char keys[NVSMI_Q_DEPTH][48]; /* the open key at each indent level */
	int64_t pid;               /* the current process, OL_NULL if none */
	char pname[256];
	int64_t ecc_corr[2], ecc_uncorr[2]; /* volatile, aggregate; OL_NULL */
	int64_t retired_sbe, retired_dbe;
	char retired_pending[16];
	int64_t remap_corr, remap_uncorr;
	char remap_pending[16], remap_failed[16];
	uint64_t total_seen;
	int noted_local;
	int n;                     /* records so far */
	uint64_t line;             /* the caller's line number, for messages */
};

void nvsmi_q_init(struct nvsmi_q *q, struct sink *s);
/* One line [l, l + n) (without its newline). Returns 0, or -1 when the
 * sink failed. */
int nvsmi_q_line(struct nvsmi_q *q, const char *l, size_t n);
/* The end of the text: what the last card left open is stored. Returns
 * the records stored (>= 0), or -1 when the sink failed. */
int nvsmi_q_end(struct nvsmi_q *q);

/* How sure (0..100) that head is nvidia-smi -q output. */
int nvsmi_q_sniff(const unsigned char *head, size_t n);
/* Read a standalone nvidia-smi -q file. Records (>= 0) or -1. */
int nvsmi_q_parse(struct input *in, struct sink *s);

#endif
