/*
 * samples.c -- leak from memory samples pasted in file order (untimed).
 *
 * A reporter often shows a leak as a column of figures: the process's
 * VmRSS after each request, the resident size every ten requests, the
 * memory a training log prints each iteration (parsers/host/memsamples.c,
 * meta samples.series.N). Those samples carry no time: their order is the
 * paste's, so the growth is stated per sample -- per request or per
 * iteration when the lines number them -- and never as a rate in time.
 * The same holds for nvidia-smi tables pasted one after another with no
 * date above them (before and after requests, after hours): each is one
 * sample a card, and the folder's files in name order, each paste's
 * tables in order, are the card's series (untimed_series); so are a
 * process's resident sizes in pasted ps or top tables, and the host's
 * memory in use in pasted free outputs, three snapshots at least.
 *
 * Leak when a series of at least MEMSAMPLES_MIN samples rises nearly
 * monotonically (no fall larger than SAMPLES_DIP of the level, and at
 * most one fall in SAMPLES_FALLS_PER samples) by a material amount (at
 * least SAMPLES_MIN_BYTES and SAMPLES_MIN_FRAC of its first level). A
 * series whose unit is not stated ("current: 0.18" each iteration) is
 * still an ordered series: it is a leak when it rises so by the ratio
 * SAMPLES_MIN_RATIO at least, said as a ratio and in its own figures with
 * "unit not stated", never in bytes. A flat, falling or sawtooth series
 * (a fall over SAMPLES_DIP) is no finding, nor one whose growth stopped:
 * its last samples, half of it at least, hold flat (ends_flat). The finding has no OOM to judge;
 * the verdict names a leak without one only from this rule (verdict.c).
 *
 * A paste's own lines may give a short series: three readings whose
 * x-axis counts the work done ("Memory usage after N prediction(s)",
 * "epoch N ... memory X", memsamples_counted), in bytes, rising at every
 * step to the last (short_rises: not a warm-up plateau) by the same
 * material amount. It is a weaker sign than a long series: scored
 * SAMPLES_SHORT_SCORE and said so in the title; alone, with no OOM after
 * it, it stays a reading ("leak in progress"), never the verdict.
 */
#include "analyzer/rules/rulelib.h"
#include "analyzer/rules/samples_climb.h"
#include "parsers/host/memsamples.h"
#include "analyzer/store/samples.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES_MAX MEMSAMPLES_MAX
#define SAMPLES_DIP 0.05          /* a fall under 5 % of the level is noise */
#define SAMPLES_FALLS_PER 5       /* at most one fall in five samples */
#define SAMPLES_MIN_FRAC 0.10     /* growth over the first level */
#define SAMPLES_MIN_BYTES (32.0 * 1048576.0)
#define SAMPLES_MIN_RATIO 1.5     /* unit not stated: growth by half at least */
#define SAMPLES_SCORE 0.7
#define SAMPLES_PLATEAU 3         /* samples that hold flat at the end ... */
#define SAMPLES_FLAT 0.01         /* ... within 1 % of their level */
#define SAMPLES_SHORT_SCORE 0.5   /* a short series: a weaker sign, no verdict alone */
#define SAMPLES_SHORT_TAIL 0.25   /* its last rise, of its first at least */

/* Whether v[0..n) rises nearly monotonically: at least MEMSAMPLES_MIN
 * samples, no fall larger than SAMPLES_DIP of the level, few falls. */
static int rises_steadily(const double *v, int n, int min)
{
	int i, falls = 0;

	if (n < min || v[0] < 0)
		return 0;
	for (i = 1; i < n; i++)
		if (v[i] < v[i - 1]) {
			if (v[i - 1] - v[i] > SAMPLES_DIP * v[i - 1])
				return 0;
			falls++;
		}
	return falls * SAMPLES_FALLS_PER <= n;
}

/* Whether v[0..n) ends on a plateau: its last SAMPLES_PLATEAU samples
 * or more, half the series at least, within SAMPLES_FLAT of their level.
 * A leak keeps growing to the last sample; memory that rose once (the
 * first epoch's optimizer state and allocator caches) and then holds
 * the same figure epoch after epoch has stopped growing ("Epoch 2,
 * Memory Usage: 1.89 GB" three times over, IPEX issue 615 after its
 * fix). */
static int ends_flat(const double *v, int n)
{
	double lo, hi;
	int k = 1;

	lo = hi = v[n - 1];
	while (k < n) {
		double x = v[n - 1 - k];
		double l2 = x < lo ? x : lo, h2 = x > hi ? x : hi;
		if (h2 - l2 > SAMPLES_FLAT * h2)
			break;
		lo = l2;
		hi = h2;
		k++;
	}
	return k >= SAMPLES_PLATEAU && 2 * k >= n;
}

/* Whether a short series (fewer than MEMSAMPLES_MIN samples, its x-axis
 * counting the work done: memsamples_counted) rises at every step and
 * keeps rising to its last: a warm-up plateau -- the first reading
 * before the model or the first batch loaded, then flat ("idle 3.6 GB,
 * after round 1 11.1 GB, after round 5 11.2 GB") -- is none: the last
 * rise must be SAMPLES_SHORT_TAIL of the first at least and over
 * SAMPLES_FLAT of the level. */
static int short_rises(const struct memsamples_series *m)
{
	const double *v = m->v;
	int i, n = m->n;

	if (!m->stepped || m->unitless || !memsamples_counted(m->st, n))
		return 0;
	for (i = 1; i < n; i++)
		if (v[i] <= v[i - 1])
			return 0;
	return v[n - 1] - v[n - 2] >= SAMPLES_SHORT_TAIL * (v[1] - v[0]) &&
	       v[n - 1] - v[n - 2] > SAMPLES_FLAT * v[n - 1];
}

/* Whether a series rises by a material amount: in bytes, SAMPLES_MIN_BYTES
 * and SAMPLES_MIN_FRAC of its first level; with its unit not stated, by
 * the ratio SAMPLES_MIN_RATIO at least (no amount can be judged). A
 * series whose growth stopped (ends_flat) is none. Fewer than min
 * samples only when counted (a paste's own lines may make a short
 * series) and short_rises. */
static int rises(const struct memsamples_series *m, int min, int counted)
{
	const double *v = m->v;
	int n = m->n;

	if (n < min && (!counted || !short_rises(m)))
		return 0;
	if (!rises_steadily(v, n, n < min ? n : min) || ends_flat(v, n))
		return 0;
	if (m->unitless)
		return v[0] > 0 && v[n - 1] >= SAMPLES_MIN_RATIO * v[0];
	return v[n - 1] - v[0] >= SAMPLES_MIN_BYTES && v[n - 1] - v[0] >= SAMPLES_MIN_FRAC * v[0];
}

/* The title and figures of a series whose unit is not stated: the
 * growth as a ratio and in the series' own figures, never bytes. */
static void unitless_finding(struct rl_finding *f, const struct memsamples_series *m,
			     int by_step, const char *file, const char *order)
{
	const double *v = m->v;
	int n = m->n;

	rl_fig(f, "samples", n);
	rl_fig(f, "first_figure_unit_not_stated", v[0]);
	rl_fig(f, "last_figure_unit_not_stated", v[n - 1]);
	rl_fig(f, "growth_times", v[n - 1] / v[0]);
	snprintf(f->title, sizeof(f->title), "Memory (%s) rose over %d pasted samples, %g to %g:"
		 " x%.1f, unit not stated (order inferred from %s, untimed)",
		 m->label, n, v[0], v[n - 1], v[n - 1] / v[0], order);
	rl_advice(f, "The samples in %s carry no time and no unit: their order is the file's,"
		  " so the growth is a ratio per %s, not a size or a rate in time. Memory that"
		  " keeps rising at the same work is held and not returned: a leak. Print it"
		  " with its unit and a time (bytes, or MiB by 2^20) beside the step count to"
		  " see how much is held and when it would run out.", file,
		  by_step ? m->per : "sample");
}

/* The phase a series' step word places it in: per request or
 * prediction a server serving, per iteration, step, epoch or batch a
 * training loop; NULL when its samples are not numbered. */
static const char *phase_of(const struct memsamples_series *m)
{
	if (!m->stepped || m->st[m->n - 1] <= m->st[0])
		return NULL;
	return !strcmp(m->per, "request") || !strcmp(m->per, "prediction") ? "serving"
									    : "training_step";
}

/* A sawtooth series whose last stretch climbs past every earlier tooth
 * (samples_climb.c): a reading of a leak in progress, scored
 * SAMPLES_SHORT_SCORE so that it is never the verdict alone. 1 written,
 * 0 none, -1 failed. */
static int climb_reading(struct rule_ctx *c, const struct memsamples_series *m,
			 const char *file, const char *order)
{
	struct samples_climb k;
	struct rl_finding f;
	const double *v = m->v;
	int n = m->n;
	const char *per = phase_of(m) ? m->per : "sample";

	if (!samples_trailing_climb(m, SAMPLES_DIP, SAMPLES_MIN_BYTES, SAMPLES_MIN_FRAC, &k))
		return 0;
	rl_finding_init(&f, "samples", "leak", "untimed_growth");
	f.score = SAMPLES_SHORT_SCORE;
	f.phase = phase_of(m);
	rl_fig(&f, "samples", n);
	rl_fig(&f, "climb_samples", n - k.from);
	rl_fig(&f, "climb_first_bytes", v[k.from]);
	rl_fig(&f, "last_bytes", v[n - 1]);
	rl_fig(&f, "climb_bytes", k.climb);
	rl_fig(&f, "earlier_high_bytes", k.high);
	rl_fig(&f, "earlier_largest_tooth_bytes", k.amplitude);
	snprintf(f.title, sizeof(f.title), "Memory (%s) fell back and rose in teeth, then climbed"
		 " over its last %d samples without a dip, %.0f MiB to %.0f MiB, above every"
		 " earlier figure (%.0f MiB): a leak in progress, a reading only (order"
		 " inferred from %s, untimed)", m->label, n - k.from, v[k.from] / 1048576.0,
		 v[n - 1] / 1048576.0, k.high / 1048576.0, order);
	rl_advice(&f, "The samples in %s fell back several times (a collector or a cache"
		  " trimming), then stopped falling: the last %d rose per %s to a new high,"
		  " past every earlier tooth. That is how a leak shows once the trims no longer"
		  " return memory, but a sawtooth can also end on a tall tooth: keep sampling"
		  " (ps -o rss= -p PID with a time, every minute) beside the %s count; memory"
		  " that goes on climbing at the same work is a leak.", file, n - k.from, per,
		  per);
	return rl_finding_write(c, &f) < 0 ? -1 : 1;
}

/* One series "label|per|steps|figures[|unit-not-stated]" of artifact
 * file (what the advice calls it), its order inferred from order (what
 * the title says), of min samples at least: a finding when it rises. 1
 * written, 0 none, -1 failed. */
static int judge(struct rule_ctx *c, const char *val, const char *file, const char *order,
		 int min, const char *unit, int counted)
{
	static struct memsamples_series m;   /* large: not on the stack */
	double per_step, span;
	const double *v;
	struct rl_finding f;
	char few[80];
	int n, by_step;

	if (memsamples_decode(val, &m) < 0)
		return 0;
	if (!rises(&m, min, counted))
		return climb_reading(c, &m, file, order);
	v = m.v;
	n = m.n;
	/* a short series (fewer than the kind's own minimum, which a
	 * counted x-axis allows): said as such, scored lower */
	few[0] = 0;
	if (n < min)
		snprintf(few, sizeof(few), "only %d readings, a weaker sign than a long"
			 " series; ", n);
	by_step = m.stepped && m.st[n - 1] > m.st[0];
	span = by_step ? m.st[n - 1] - m.st[0] : n - 1;
	per_step = (v[n - 1] - v[0]) / span;
	rl_finding_init(&f, "samples", "leak", "untimed_growth");
	f.score = n < min ? SAMPLES_SHORT_SCORE : SAMPLES_SCORE;
	f.phase = phase_of(&m);
	if (m.unitless) {
		unitless_finding(&f, &m, by_step, file, order);
		return rl_finding_write(c, &f) < 0 ? -1 : 1;
	}
	rl_fig(&f, "samples", n);
	rl_fig(&f, "first_bytes", v[0]);
	rl_fig(&f, "last_bytes", v[n - 1]);
	rl_fig(&f, "growth_bytes", v[n - 1] - v[0]);
	rl_fig(&f, by_step ? "growth_per_step_bytes" : "growth_per_sample_bytes", per_step);
	snprintf(f.title, sizeof(f.title), "Memory (%s) rose over %d pasted samples, %.0f MiB to"
		 " %.0f MiB%s: %.1f MiB per %s (%sorder inferred from %s, untimed)",
		 m.label, n, v[0] / 1048576.0, v[n - 1] / 1048576.0, unit ? unit : "",
		 per_step / 1048576.0, by_step ? m.per : "sample", few, order);
	rl_advice(&f, "The samples in %s carry no time: their order is the file's, so the"
		  " growth is per %s, not a rate in time. Memory that keeps rising %s after"
		  " %s at the same work is held and not returned: a leak. Log it with a time"
		  " (ps -o rss= -p PID every minute, or nvidia-smi --query-gpu=memory.used"
		  " --format=csv -l 60) beside the request count to see when it would run"
		  " out.", file, by_step ? m.per : "sample", by_step ? m.per : "sample",
		  by_step ? m.per : "sample");
	return rl_finding_write(c, &f) < 0 ? -1 : 1;
}

/* Series that a tool's table gives one sample a paste, untimed: what the
 * samples are (the title's label before the entity), what the advice
 * calls the pastes, and the fewest samples a leak needs. A pasted
 * nvidia-smi table is often one of several a minute; a ps, top or free
 * table is a snapshot the reporter took apart from the others (at start,
 * hours later), so three of them rising are a trend. */
static const struct {
	enum vocab_series name;
	const char *label, *file;
	int min;
	const char *ent;   /* the entities (a LIKE pattern) the row judges */
} untimed[] = {
	{ VS_GPU_USED_BYTES, "nvidia-smi", "these nvidia-smi tables", MEMSAMPLES_MIN, "gpu%" },
	{ VS_PROC_RSS_BYTES, "RSS", "these ps/top tables", 3, "%" },
	{ VS_HOST_MEM_USED_BYTES, "free Mem used", "these free outputs", 3, "%" },
	{ VS_CGROUP_CURRENT_BYTES, "in use", "these docker stats / kubectl top tables", 3, "%" },
	/* an AMD card as rocm-smi --showmeminfo vram prints it
	 * (parsers/host/stats_table.c), entity amdgpuN */
	{ VS_GPU_USED_BYTES, "rocm-smi", "these rocm-smi outputs", MEMSAMPLES_MIN, "amdgpu%" },
};

/* The base name of the file that wrote sample rowid of series sid (its
 * block's sample_block.artifact_id: a series is one row across pastes)
 * into buf, "" when no block names one. Returns buf. */
static const char *sample_file(struct rule_ctx *c, int64_t sid, int64_t rowid, char *buf,
			       size_t n)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT a.path FROM sample_block b JOIN artifact a"
				      " ON a.id = b.artifact_id WHERE b.parent = ?1"
				      " AND ?2 >= b.first_rowid AND ?2 < b.first_rowid + b.rows LIMIT 1");
	const char *p, *slash;

	buf[0] = 0;
	if (!st)
		return buf;
	sqlite3_bind_int64(st, 1, sid);
	sqlite3_bind_int64(st, 2, rowid);
	if (sqlite3_step(st) == SQLITE_ROW && (p = (const char *)sqlite3_column_text(st, 0))) {
		slash = strrchr(p, '/');
		snprintf(buf, n, "%s", slash && slash[1] ? slash + 1 : p);
	}
	sqlite3_finalize(st);
	return buf;
}

/* What gave the unit of the free pastes that wrote series sid (meta
 * host.free_unit_by and host.free_unit_from of the artifacts of its
 * blocks, parsers/host/procmem.c and analyzer/derive/freeunit.c), into
 * buf: " (unit guessed)" when any paste's is still a guess, " (unit from
 * FILE)" when another artifact's RAM total gave it, "" when the pastes
 * state it. Returns buf. */
static const char *free_unit_note(struct rule_ctx *c, int64_t sid, char *buf, size_t n)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT max(b.value = 'guess'),"
				      " group_concat(DISTINCT f.value) FROM meta b"
				      " LEFT JOIN meta f ON f.artifact_id = b.artifact_id"
				      " AND f.key = 'host.free_unit_from'"
				      " WHERE b.key = 'host.free_unit_by' AND b.artifact_id IN"
				      " (SELECT artifact_id FROM sample_block WHERE parent = ?1)");

	buf[0] = 0;
	if (!st)
		return buf;
	sqlite3_bind_int64(st, 1, sid);
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_int(st, 0))
			snprintf(buf, n, " (unit guessed)");
		else if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			snprintf(buf, n, " (unit from %s)", q_text(st, 1));
	}
	sqlite3_finalize(st);
	return buf;
}

/* The memory in use that pasted tables state, when no table printed a
 * time: a card's as nvidia-smi tables state it (gpu.used_bytes,
 * parsers/gpu/nvidia_smi_table.c), a process's resident size as ps or
 * top print it (proc.rss_bytes, parsers/host/ps_table.c), the host's as
 * free prints it (host.mem_used_bytes, parsers/host/procmem.c), a
 * container's, pod's or node's as docker stats or kubectl top print it
 * (cgroup.current_bytes, parsers/host/stats_table.c). One
 * table a paste is one sample an entity, and several pastes (a folder's
 * files, read in name order) or several tables in one paste are the
 * entity's series in that order, untimed. One series an entity (a card,
 * a pid, the host), never two mixed; a series with any timed sample is
 * the timed rules'. The findings written, or -1 failed. */
static int untimed_series(struct rule_ctx *c, size_t u)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT id, entity FROM series WHERE name = ?1"
				      " AND entity LIKE ?2 ORDER BY entity LIMIT 16");
	int n = 0, r = 0;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, vocab_series_name(untimed[u].name), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, untimed[u].ent, -1, SQLITE_STATIC);
	while (r >= 0 && sqlite3_step(st) == SQLITE_ROW) {
		struct samples_iter it;
		const struct sample_rec *s;
		char val[SAMPLES_MAX * 24 + 64], label[32], f0[120], f1[120], files[300];
		char unit[160];
		int64_t sid = sqlite3_column_int64(st, 0), row0 = 0, row1 = 0;
		size_t o;
		int k = 0, timed = 0;

		if (samples_iter_open(&it, c->db, sqlite3_column_int64(st, 0), SI_VALUED, 0, 0) < 0) {
			r = rl_fail(c, it.err ? it.err : "samples");
			break;
		}
		snprintf(label, sizeof(label), "%s %.16s", untimed[u].label, q_text(st, 1));
		o = (size_t)snprintf(val, sizeof(val), "%s|sample||", label);
		while ((s = samples_iter_next(&it)) && k < SAMPLES_MAX && o + 24 < sizeof(val)) {
			if (s->has_time || s->has_boot) {
				timed = 1;
				break;
			}
			o += (size_t)snprintf(val + o, sizeof(val) - o, "%s%.0f", k ? "," : "",
					      s->value);
			if (!k)
				row0 = s->rowid;
			row1 = s->rowid;
			k++;
		}
		samples_iter_close(&it);
		if (timed || k < untimed[u].min)
			continue;
		/* the pastes by name: the first sample's and the last's files */
		sample_file(c, sid, row0, f0, sizeof(f0));
		sample_file(c, sid, row1, f1, sizeof(f1));
		if (f0[0] && f1[0] && strcmp(f0, f1))
			snprintf(files, sizeof(files), "%s (%s to %s)", untimed[u].file, f0, f1);
		else if (f0[0])
			snprintf(files, sizeof(files), "%s (%s)", untimed[u].file, f0);
		else
			snprintf(files, sizeof(files), "%s", untimed[u].file);
		r = judge(c, val, files, "the file names and each paste's order",
			  untimed[u].min, untimed[u].name == VS_HOST_MEM_USED_BYTES
			  ? free_unit_note(c, sid, unit, sizeof(unit)) : "", 0);
		n += r > 0 ? r : 0;
	}
	sqlite3_finalize(st);
	return r < 0 ? -1 : n;
}

int rule_samples(struct rule_ctx *c)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT m.value, coalesce(a.path, '') FROM meta m"
				      " LEFT JOIN artifact a ON a.id = m.artifact_id"
				      " WHERE m.key LIKE 'samples.series.%' ORDER BY m.rowid LIMIT 16");
	int n = 0, r;
	size_t u;

	if (!st)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *path = q_text(st, 1), *file = strrchr(path, '/');
		char val[SAMPLES_MAX * 32 + 128];
		snprintf(val, sizeof(val), "%s", q_text(st, 0));
		r = judge(c, val, file ? file + 1 : path, "the paste's lines", MEMSAMPLES_MIN,
			  NULL, 1);
		if (r < 0) {
			sqlite3_finalize(st);
			return -1;
		}
		n += r;
	}
	sqlite3_finalize(st);
	for (u = 0; u < sizeof(untimed) / sizeof(untimed[0]); u++) {
		if ((r = untimed_series(c, u)) < 0)
			return -1;
		n += r;
	}
	return n;
}
