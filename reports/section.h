/*
 * section.h -- the report's sections, and the one table of them
 * (sections.c) that every format follows: the HTML navigation and the
 * order of the HTML body, the Markdown's sections and the JSON report's
 * keys.
 *
 * A section reads its rows once per report, through the store's query
 * layer, into a model (a json_t); each format draws the section from that
 * model. Models are loaded on first use (report_model) and kept until the
 * report is written, so a section may draw from another's model (the chart
 * takes its annotations from the findings) without reading them again.
 *
 * Two ways to load, chosen once per report:
 *  - capped (HTML, Markdown): a loader reads at most the rows people are
 *    shown (the caps at the top of each section's file) and counts the
 *    rest. A capped list is {"rows": [...], "total": N}; rows may carry,
 *    besides the keys of the JSON report, what only people are shown (a
 *    joined event's kind, a boot time, "<child>_total" counts past a cap),
 *    named in each loader's comment.
 *  - full (JSON): the model is the section's JSON value (docs/json.md),
 *    every row. A section with a stream function writes its JSON value row
 *    by row instead (the events: bounded memory whatever their number).
 *
 * Every string in a model is UTF-8 cleaned text from the database (q_json);
 * each format escapes it for its output.
 */
#ifndef OOMLENS_SECTION_H
#define OOMLENS_SECTION_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/strbuf.h"
#include "reports/summary.h"

#define REPORT_MODELS 32   /* rows in the sections table, at most */

struct report_ctx {
	sqlite3 *db;
	int capped;                       /* 1: HTML/Markdown, 0: JSON (every row) */
	int has_summary;                  /* sum was loaded */
	struct report_summary sum;        /* the header's figures (summary.h) */
	json_t *model[REPORT_MODELS];     /* by row of the table, once loaded */
	unsigned char loaded[REPORT_MODELS];
	struct strbuf qerr;               /* SQLite's message for the first failed query */
	int chart_on_boot;                /* the chart was drawn on the boot clock (chart_svg.c) */
	uint64_t cut[REPORT_MODELS];      /* rows each model left out: the memory budget */
};

/* Reads the section's model (NULL: JSON null / nothing to show). */
typedef json_t *section_load_fn(struct report_ctx *c);
/* Draws the section from its model (m may be NULL). */
typedef void section_draw_fn(struct strbuf *sb, struct report_ctx *c, const json_t *m);
/* Writes the section's JSON value to out row by row. 0 or -1. */
typedef int section_stream_fn(struct report_ctx *c, FILE *out);

struct section {
	const char *id;          /* JSON key and HTML anchor */
	const char *anchor;      /* the HTML anchor when it is not id, else NULL */
	const char *nav;         /* HTML: the navigation's label */
	const char *heading;     /* HTML: the section's <h2> */
	int json;                /* a key of the JSON report */
	section_load_fn *load;   /* NULL: the section has no model (the chart draws its own) */
	section_draw_fn *html;   /* NULL: not in the HTML report */
	section_draw_fn *md;     /* NULL: not in the Markdown */
	section_stream_fn *stream;  /* JSON: unbounded sections, else NULL */
};

/* The table, in the order of every format; ends with a NULL id. Rows with
 * no key and no renderer are models other sections share. */
extern const struct section report_sections[];

/* Start a report of db: capped (HTML/Markdown) or full (JSON). Loads the
 * summary; in capped mode a summary that cannot be read fails the report
 * (-1, err says why), in full mode it is JSON null. Close in every case. */
int report_ctx_open(struct report_ctx *c, sqlite3 *db, int capped, struct strbuf *err);
void report_ctx_close(struct report_ctx *c);
/* The model of section id, read on first use (borrowed; NULL when the
 * loader found nothing). id must be in the table. */
const json_t *report_model(struct report_ctx *c, const char *id);
/* Forget a model that no later section needs (the JSON report writes one
 * section at a time, and frees each as it goes). */
void report_model_drop(struct report_ctx *c, const char *id);
/* partial.c: what the run's memory budget left out of this report. The
 * rows each section's loader could not keep (q_rows_cut), in all; 0 when
 * the report is whole. */
uint64_t report_cut_total(const struct report_ctx *c);
/* The JSON key "partial": null when whole, else {note, budget_bytes,
 * rows_left_out, sections: {id: rows}}. */
section_load_fn load_partial;
/* The note people read, for HTML (html != 0) or Markdown, appended to sb
 * when the report is partial: which sections lack how many rows, and the
 * option that raises the budget. Nothing when whole. */
void report_cut_note(struct strbuf *sb, const struct report_ctx *c, int html);
/* The same in one line for stderr, appended to sb; nothing when whole. */
void report_cut_say(struct strbuf *sb, const struct report_ctx *c);
/* The HTML anchor of section s. */
const char *section_anchor(const struct section *s);

/* answer.c: the first screen's answer (what happened, evidence, the fix,
 * how sure, what would settle it, other failures, damaged artifacts) as
 * a model, and rendered for Markdown and HTML from it. */
json_t *load_answer(struct report_ctx *c);
void md_answer(struct strbuf *sb, const json_t *answer);
void html_answer(struct strbuf *sb, const json_t *answer);
/* answer_runs.c: the folder's earlier runs and their failures, a sentence
 * appended to out after what happened (nothing with one run). */
void answer_earlier_runs(struct report_ctx *c, struct strbuf *out);

/* The forms, written from an open context (report.c picks one): 0 or -1. */
int report_html_write(struct report_ctx *c, FILE *out);   /* html.c */
int report_md_write(struct report_ctx *c, FILE *out);     /* markdown.c */
/* The Markdown summary into sb (markdown.c); 0, or -1 out of memory. */
int report_md_build(struct report_ctx *c, struct strbuf *sb);
int report_text_write(struct report_ctx *c, FILE *out);   /* text.c */
int report_json_write(struct report_ctx *c, FILE *out);   /* json.c */

/* --- reading, for loaders: failures go to c->qerr, nothing is printed --- */

sqlite3_stmt *r_prepare(struct report_ctx *c, const char *sql);
/* Every row of sql written to out as a JSON array of objects, row by row
 * (q_jw: nothing held), indented for a top-level key (base 0: the array's
 * own line, 1: after "key": ). 0, or -1 (a write or the query failed). */
int r_stream_rows(struct report_ctx *c, FILE *out, int base, const char *sql);
int64_t r_int(struct report_ctx *c, const char *sql, int64_t dflt);
double r_real(struct report_ctx *c, const char *sql, double dflt);
/* At most max rows (max < 0: all) of sql as q_row builds them; an empty
 * array when the query fails. */
json_t *r_rows(struct report_ctx *c, const char *sql, int64_t max);
/* 1 when the database has that table (one read of the schema per report). */
int r_has_table(struct report_ctx *c, const char *name);
/* The rows of the snapshot table, 0 when it is absent (read once). */
int64_t r_snapshots(struct report_ctx *c);
/* The limit a capped report puts on a list (cap), or -1 (all) in full mode. */
int64_t r_cap(const struct report_ctx *c, int64_t cap);
/* For each row of rows (each with an "id"): store under key the rows of
 * child_sql (?1 = that id; "LIMIT ?2" takes r_cap(c, cap)); in capped mode,
 * when the cap was reached, "<key>_total" from count_sql (?1 = the id).
 * Then drop "id" from the row. */
void r_attach(struct report_ctx *c, json_t *rows, const char *key, const char *child_sql,
	      int64_t cap, const char *count_sql);
/* A list as the mode wants it: the rows themselves (full), or
 * {"rows": rows, "total": total} (capped). Takes rows' reference. */
json_t *r_list(struct report_ctx *c, json_t *rows, int64_t total);
/* A generic table for people: {"columns": [names], "rows": [[values]],
 * "total": N} of at most cap rows of sql, total given (the caller counted
 * them anyway) or, when < 0, the rows read. NULL when sql does not
 * compile (a domain table with other columns): nothing is said then. */
json_t *r_table(struct report_ctx *c, const char *sql, int64_t total, int64_t cap);

/* --- the models' values --- */

/* The rows of a list model, either form (NULL when m is not a list). */
const json_t *model_rows(const json_t *m);
/* The rows a list stands for in the database (its size when full). */
int64_t model_total(const json_t *m);
/* A value as SQLite's column_int64/column_double would read it: null is
 * 0, a real is clamped to int64, text gives its leading number. */
int64_t jv_int(const json_t *v);
double jv_real(const json_t *v);
/* A value as SQLite gives it as text: *s at a string's bytes, or at a
 * number's digits written in buf[n]; returns the length, or -1 when v is
 * missing or null. */
long jv_text(const json_t *v, char *buf, size_t n, const char **s);
/* The value of key in o as an int64, or OL_NULL when missing or null. */
int64_t jv_int_or_null(const json_t *o, const char *key);
/* 1 when key is missing from o or null. */
int jv_null(const json_t *o, const char *key);

/* --- the sections, one file each, named for the section (declared by
 * their types above) --- */

section_load_fn load_peaks;                            /* peaks.c */
section_load_fn load_profile;                          /* profile.c */
section_load_fn load_ledger;                           /* ledger.c */
section_draw_fn html_ledger, md_ledger;
section_load_fn load_findings;                         /* findings.c */
section_draw_fn html_findings, md_findings;
section_load_fn load_events, load_event_counts;       /* events.c */
section_stream_fn stream_events;
section_draw_fn html_events, md_events;
section_load_fn load_oom_tasks;                        /* oom_tasks.c */
section_stream_fn stream_oom_tasks;
section_stream_fn stream_gpu_cores;                     /* json.c */
section_stream_fn stream_series;                        /* series.c */
section_stream_fn stream_artifacts;                     /* artifacts.c */
section_stream_fn stream_meta;                          /* json.c */
section_stream_fn stream_anchors;                       /* clocks.c */
section_stream_fn stream_unknowns;                      /* unknowns.c */
section_draw_fn html_oom_tasks;
section_load_fn load_engines;                          /* engines.c */
section_draw_fn html_engines, md_engines;
section_load_fn load_live_memory;                      /* live_memory.c */
section_draw_fn html_live_memory;
section_load_fn load_holders;                          /* holders.c */
section_draw_fn html_holders, md_holders;
section_load_fn load_servwhatif;                       /* servwhatif.c */
section_load_fn load_oom_load;                         /* servwhatif.c */
section_draw_fn html_servwhatif, md_servwhatif;
section_load_fn load_whatif;                           /* whatif.c */
section_draw_fn html_whatif, md_whatif;
/* Each snapshot's what-if rows under "whatif" (every row carries its id
 * as "snapshot_id"); an empty array without a whatif table. */
void whatif_attach(struct report_ctx *c, json_t *snaps);
section_load_fn load_segments;                         /* segments.c */
section_draw_fn html_segments;
section_load_fn load_gpu_core;                         /* gpu_core.c */
section_draw_fn html_gpu_core;
section_load_fn load_artifacts;                        /* artifacts.c */
section_draw_fn html_artifacts, md_artifacts;
section_load_fn load_anchors;                          /* clocks.c */
section_draw_fn html_clocks;
section_load_fn load_unknowns;                         /* unknowns.c */
section_draw_fn html_unknowns, md_unknowns;
section_draw_fn html_timeline;                         /* chart_svg.c */
section_load_fn load_tables;                           /* sections.c */
/* json.c: the sections only the JSON report has */
section_load_fn load_version, load_schema, load_verdict, load_summary, load_meta,
	load_gpu_cores, load_host_cores, load_series, load_snapshots;

/* The events whose time is a wall-clock time of unknown zone (events.c
 * counts them for the HTML, unknowns.c for the JSON). */
#define EVENTS_LOCAL_TIME "SELECT count(*) FROM event WHERE clock = 'local'"

#endif
