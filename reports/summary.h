/*
 * summary.h -- the incident at a glance, shared by the three report forms:
 * the verdict, when the OOM happened and whom it killed, the peak of the
 * memory that ran out against its limit, and the strongest finding with its
 * lead figure. Also the number formatting the reports share (bytes,
 * figures named with their unit in the key).
 *
 * Every string here is raw text from the database (UTF-8 cleaned): each
 * report escapes it for its own output.
 */
#ifndef OOMLENS_SUMMARY_H
#define OOMLENS_SUMMARY_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdint.h>

#include "lib/strbuf.h"

struct report_ctx;

#define KREADING 5          /* sentences of the kernel reading, at most */

struct report_summary {
	json_t *verdict;            /* the first verdict row as the JSON report gives it, or NULL */
	int has_verdict;
	struct strbuf vclass, cause, vsummary, missing;
	double confidence;          /* NAN when unknown */

	/* the OOM: row 1 of the derived table oom (kind kernel_oom, torch_oom...) */
	int has_oom;
	struct strbuf oom_kind;
	int64_t oom_ns;             /* OL_NULL when not on UTC */
	int64_t oom_boot_ns;        /* OL_NULL when unknown */
	int64_t oom_req;            /* bytes the failed allocation asked; OL_NULL unknown */
	const char *torch_said;     /* a PyTorch OOM's words as its backend prints them
				     * ("CUDA out of memory", "XPU out of memory"...),
				     * from oom.family and oom.scope; static */

	/* the process the OOM took, as its row names it (victim_kind: the
	 * event that names it, oom_kill, userspace_kill, torch_oom...) */
	int has_victim;
	int64_t victim_pid;         /* OL_NULL when unknown */
	struct strbuf victim_comm, victim_kind;
	int64_t victim_bytes;       /* RSS freed; for torch_oom the bytes requested */

	/* peak of the memory that ran out: the headline row of table peak
	 * (peaks.c) of the account closest to what runs out */
	int has_peak;
	struct strbuf peak_series;  /* its source: "gpu.used_bytes gpu0" */
	struct strbuf peak_account; /* "gpu0", "memcg:/...", "host"; empty when not from table peak */
	struct strbuf peak_measure; /* "card_used", "reserved", ...; empty likewise */
	struct strbuf peak_file;    /* the file (paste) the figure came from; empty when unknown */
	json_t *peaks;              /* every row of table peak (load_peaks' rows), or NULL */
	double peak_bytes;
	int64_t peak_ns;
	int peak_untimed;           /* the peak is a sample with no time (not on the chart) */
	double limit_bytes;         /* NAN when no limit is known */
	struct strbuf limit_what;   /* "gpu.total_bytes gpu0", "cgroup.max_bytes" */

	/* the memory profile: every row of table profile (profile.c), each
	 * with its card's top "holders" at the peak, or NULL */
	json_t *profile;

	/* the kernel's OOM report in plain words (reading.c), from the kernel
	 * rule's finding: up to KREADING sentences, raw text */
	int n_kernel;
	struct strbuf kernel[KREADING];
	double k_usage, k_limit, k_ram, k_free;   /* its figures, NAN unknown */

	/* the card at a PyTorch OOM, from the capacity rule's figures
	 * (reading.c): bytes, NAN unknown */
	int has_card;
	double card_total, card_req, card_alloc, card_cache, card_nonpt, card_others,
		card_outside, card_free;
	int card_listed;            /* the message listed the other processes */
	int card_unseen;            /* the driver said 0 bytes for this process (NVML
				     * blind to it): what is outside is unattributed */
	int card_no_reserve;        /* the message states no reserve: outside holds
				     * PyTorch's own cache as well */

	/* strongest finding */
	int n_findings;
	struct strbuf top_title;
	struct strbuf top_key, top_value;    /* "slope_mb_per_hour", "+512.0 MiB/h" */
};

/* The kernel reading and the card strip of s (reading.c), read from the
 * kernel and capacity rules' findings; the peak, when s has none yet,
 * from the kernel report (memcg usage against its limit, else RAM less
 * free against RAM), else from PyTorch's message (capacity less free). */
void summary_reading_load(struct report_ctx *c, struct report_summary *s);

struct bar_seg;
/* The slices of the card strip (ledger.h), in order: allocated, cached,
 * outside PyTorch, other processes, the rest, free; into g (8 at most).
 * Returns their number (0 when s has no card). */
int summary_card_slices(const struct report_summary *s, struct bar_seg *g);

/* peaks.c: the incident's peak in s (has_peak, peak_*, limit_*, peaks)
 * from table peak, when the database has one; s keeps no peak otherwise. */
void summary_peak_load(struct report_ctx *c, struct report_summary *s);
/* The words for a measure of table peak: "allocated", "reserved", "card",
 * "cgroup usage", "RSS" (the measure itself when unknown). */
const char *peak_measure_label(const char *measure);
/* The measures of the peak's account side by side, raw text for out:
 * "allocated 59.2 GiB · reserved 76.9 GiB · card 78.5 GiB". 1 when the
 * account has two or more, else 0 and nothing appended. */
int peaks_side_by_side(const struct report_summary *s, struct strbuf *out);
/* The same for any account of table peak. */
int peaks_account_measures(const struct report_summary *s, const char *account,
			   struct strbuf *out);

/* profile.c: the rows of table profile into s->profile, when the database
 * has one; s keeps none otherwise. */
void summary_profile_load(struct report_ctx *c, struct report_summary *s);
/* 1 when the verdict is no_oom: the report is a memory profile. */
int summary_is_profile(const struct report_summary *s);
/* The memory profile as items open..close, text escaped by esc: one per
 * account ("gpu0: peak 56.9 GiB reserved (source); allocated 51.3 GiB ·
 * reserved 56.9 GiB; headroom ... ; growing ...: the limit in about ...
 * (an estimate)"), one per card's holders at the peak, then "runs out
 * first: ...". Returns the accounts shown (0: nothing appended). */
int profile_lines(const struct report_summary *s, struct strbuf *out,
		  int (*esc)(struct strbuf *, const char *, size_t),
		  const char *open, const char *close);
/* Every other account's headline, "host 7.39 GiB (RSS, proc.rss_bytes
 * pid:4312)" joined by "; ", database text escaped by escape. Returns
 * how many (0: nothing appended). */
int peaks_other_accounts(const struct report_summary *s, struct strbuf *out,
			 int (*escape)(struct strbuf *, const char *, size_t));

/* Fill s from c's database (every field set, unknowns as documented); the
 * strongest finding and their number come from the findings model. 0, or
 * -1 when the verdict table cannot be read (c->qerr says why). Release s
 * in either case. */
int report_summary_load(struct report_ctx *c, struct report_summary *s);
void report_summary_release(struct report_summary *s);
/* 1 when a text of s is incomplete (memory ran out): a report that shows
 * it must not be written as if whole. */
int report_summary_failed(const struct report_summary *s);

/* Append s[0..n) UTF-8 cleaned (summary.h's rule for database text), then
 * escaped for its output by escape (strbuf_add_html, strbuf_add_md). */
void summary_add_escaped(struct strbuf *sb, const char *s, size_t n,
		 int (*escape)(struct strbuf *, const char *, size_t));
/* A model value (section.h) as SQLite gives it as text, escaped by escape;
 * null_text (already in the output's markup) when v is missing or null. */
void summary_add_value(struct strbuf *sb, const json_t *v,
	       int (*escape)(struct strbuf *, const char *, size_t), const char *null_text);
/* The peak's share of its limit: 1 with *percent and the limit in bytes
 * for people in limit[n] when a positive limit is known, else 0. */
int peak_share(const struct report_summary *s, double *percent, char *limit, size_t n);
/* "79.1 GiB", "512 B", "-3.00 MiB": lib/bytes.h's one rule (ol_fmt_bytes). */
void fmt_bytes(char *buf, size_t n, double bytes);
/* A finding figure for people: the unit is read from the key's suffix
 * (_bytes, _mb_per_hour, _ns, _ratio, _percent, _s, r2 ...; kv_usage* is a
 * percentage). Strings are
 * copied as they are (caller escapes). */
void fmt_figure(struct strbuf *out, const char *key, const json_t *v);
/* labels.c: the words for a finding figure's key, for people ("cut_bytes"
 * is "to free"; a key not in the table as words, its unit suffix dropped),
 * appended raw to out (the caller escapes). */
void figure_label(struct strbuf *out, const char *key);
/* labels.c: a memory series for people ("GPU 0's memory in use" for
 * gpu.used_bytes gpu0; entity may be NULL), the words the rules' titles
 * use (lib/series_words.h), into buf[n]; a series without words keeps
 * its name. Returns buf. */
const char *series_label(const char *name, const char *entity, char *buf, size_t n);
/* 1 for a figure that is machinery (advice_value, advice_knob), never shown
 * to people. */
int figure_hidden(const char *key);
/* A time: ISO 8601 UTC, or "boot+12.345s (not on UTC)", or "unknown". */
void fmt_time(char *buf, size_t n, int64_t utc_ns, int64_t boot_ns);

/* 1 when an OOM of kind (oom.kind) kills a process (the kernel's OOM
 * killer, a user-space killer, Kubernetes, Slurm, systemd); 0 when a
 * process's own allocation failed and it raised (torch_oom, mem_failure,
 * engine_oom...) or the kernel only warned (alloc_failure). */
int summary_oom_kills(const char *kind);

/* 1 when the incident's OOM is a process's own failed allocation and
 * nothing names a kill: row 1 of oom is no kill and the victim, if any,
 * is named by no kill event (oom_kill, userspace_kill...). */
int summary_own_failure(const struct report_summary *s);

/* The OOM's moment as every head prints it: fmt_time's, or "time not
 * recorded" when the artifacts give none. */
void fmt_oom_time(char *buf, size_t n, int64_t utc_ns, int64_t boot_ns);

#endif
