/*
 * lsf_job.c -- IBM Spectrum LSF's job report, read for TERM_MEMLIMIT: one
 * lsf_memlimit event with the job, its peak and what it asked for; see
 * lsf_job.h for the format and its source.
 *
 * The report is short and read whole: its header names the job, the
 * job script it quotes holds the #BSUB memory options, the reason line
 * says the limit killed it, and the resource summary gives the peak and
 * the request. The event is sent at the end of the file, once.
 */
#include "parsers/host/lsf_job.h"
#include "parsers/common/seriesutil.h"
#include "parsers/common/textclean.h"
#include "lib/timeutil.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LSF_LINE 512
#define MEMLIMIT_LINE "TERM_MEMLIMIT: job killed after reaching LSF memory usage limit"

struct lsf_job {
	char id[32], name[128], queue[64], host[128];
	int64_t max_bytes, request_bytes, limit_bytes, rusage_bytes, exit_code;
	struct ol_time t;
	uint64_t line;          /* the TERM_MEMLIMIT line, 0 when none */
};

int lsf_job_sniff(const unsigned char *head, size_t n)
{
	return mem_find((const char *)head, n, MEMLIMIT_LINE) ? 80 : 0;
}

/* The text between the first '<' after key in l and its '>', into out. */
static void angle_after(const char *l, const char *key, char *out, size_t on)
{
	const char *k = strstr(l, key), *b, *e;

	if (!k || !(b = strchr(k + strlen(key), '<')) || !(e = strchr(b, '>')) || (size_t)(e - b) >= on)
		return;
	memcpy(out, b + 1, (size_t)(e - b - 1));
	out[e - b - 1] = 0;
}

/* A size as LSF prints it, "1024 MB", "1024.00 MB", "4G", "512" (the
 * unit given, else dflt: KB for bsub -M, MB for rusage[mem=] and the
 * summary): bytes, or OL_NULL. Units are powers of 1024. */
static int64_t lsf_size(const char *p, char dflt)
{
	static const char units[] = "KMGTP";
	const char *u;
	char *end;
	double v = strtod(p, &end), m;
	int k;

	if (end == p || !(v >= 0))
		return OL_NULL;
	while (*end == ' ')
		end++;
	u = *end && strchr(units, *end) ? end : strchr(units, dflt);
	for (m = 1024.0, k = 0; units[k] != *u; k++)
		m *= 1024.0;
	/* strtod takes "nan", "inf" and 1e400 too: no size past int64's range */
	if (!(v * m < 9.0e18))
		return OL_NULL;
	return (int64_t)(v * m + 0.5);
}

/* "Terminated at Mon Nov  2 17:41:43 2020" (ctime's form, the cluster's
 * wall clock): the time, placed as the user's --tz says. */
static void terminated_at(struct sink *s, const char *p, struct ol_time *t)
{
	char mon[4];
	int day, h, mi, sec, y;
	int64_t ns;

	if (sscanf(p, "%*3s %3s %d %d:%d:%d %d", mon, &day, &h, &mi, &sec, &y) != 6 ||
	    !month_from_name(mon, 3) ||
	    (ns = utc_ns(y, month_from_name(mon, 3), day, h, mi, sec, 0)) < 0)
		return;
	*t = wall_time(s, ns);
}

/* One line of the report (blanks at its ends removed). */
static void lsf_line(struct sink *s, struct lsf_job *j, const char *l, uint64_t no)
{
	const char *c;

	if (!strncmp(l, "Subject: Job ", 13)) {
		snprintf(j->id, sizeof(j->id), "%.*s", (int)strcspn(l + 13, ": "), l + 13);
		angle_after(l, ": ", j->name, sizeof(j->name));
	} else if (!strncmp(l, "Job was executed on host(s) ", 28)) {
		angle_after(l, "host(s) ", j->host, sizeof(j->host));
		angle_after(l, "in queue ", j->queue, sizeof(j->queue));
	} else if (!strncmp(l, "Terminated at ", 14)) {
		terminated_at(s, l + 14, &j->t);
	} else if (!strncmp(l, MEMLIMIT_LINE, strlen(MEMLIMIT_LINE))) {
		j->line = no;
	} else if (!strncmp(l, "Exited with exit code ", 22)) {
		j->exit_code = strtoll(l + 22, NULL, 10);
	} else if (!strncmp(l, "Max Memory", 10) && (c = strchr(l, ':'))) {
		j->max_bytes = lsf_size(c + 1, 'M');
	} else if (!strncmp(l, "Total Requested Memory", 22) && (c = strchr(l, ':'))) {
		j->request_bytes = lsf_size(c + 1, 'M');
	} else if (!strncmp(l, "#BSUB", 5)) {
		/* the job script quoted in the report: -M limit, rusage[mem=] */
		if ((c = strstr(l, " -M ")) && j->limit_bytes == OL_NULL)
			j->limit_bytes = lsf_size(c + 4, 'K');
		if ((c = strstr(l, "rusage[mem=")) && j->rusage_bytes == OL_NULL)
			j->rusage_bytes = lsf_size(c + 11, 'M');
	}
}

/* The lsf_memlimit event of a job read whole. -1 when the sink failed. */
static int lsf_send(struct sink *s, const struct lsf_job *j)
{
	json_t *d = json_object();
	char summary[320], b[32] = "";
	struct ol_event e;
	int64_t id, req = j->request_bytes != OL_NULL ? j->request_bytes : j->rusage_bytes;

	json_object_set_new(d, "job_id", ol_json_str(j->id[0] ? j->id : NULL));
	json_object_set_new(d, "job_name", ol_json_str(j->name[0] ? j->name : NULL));
	json_object_set_new(d, "queue", ol_json_str(j->queue[0] ? j->queue : NULL));
	json_object_set_new(d, "node", ol_json_str(j->host[0] ? j->host : NULL));
	json_object_set_new(d, "exit_code", ol_json_int(j->exit_code));
	json_object_set_new(d, "max_bytes", ol_json_int(j->max_bytes));
	json_object_set_new(d, "request_bytes", ol_json_int(req));
	json_object_set_new(d, "limit_bytes", ol_json_int(j->limit_bytes));
	if (j->max_bytes != OL_NULL)
		snprintf(b, sizeof(b), " at %.0f MiB", (double)j->max_bytes / (1024.0 * 1024.0));
	snprintf(summary, sizeof(summary), "LSF: job %s%s%s%s killed at its memory limit"
		 " (TERM_MEMLIMIT)%s", j->id[0] ? j->id : "?", j->name[0] ? " <" : "", j->name,
		 j->name[0] ? ">" : "", b);
	memset(&e, 0, sizeof(e));
	e.kind = vocab_event_kind(VE_LSF_MEMLIMIT);
	e.t = j->t;
	e.pid = OL_NULL;
	e.comm = j->name[0] ? j->name : NULL;   /* the job, as LSF names it */
	e.bytes = j->max_bytes;
	e.line = j->line;
	e.summary = summary;
	e.data = d;
	id = sink_event(s, &e);
	json_decref(d);
	return id < 0 ? -1 : 1;
}

int lsf_job_parse(struct input *in, struct sink *s)
{
	struct lsf_job j;
	char clean[LSF_LINE];
	const char *l;
	size_t len;
	int rc;

	memset(&j, 0, sizeof(j));
	j.max_bytes = j.request_bytes = j.limit_bytes = j.rusage_bytes = j.exit_code = OL_NULL;
	j.t = ol_time_none();
	while ((rc = input_getline(in, &l, &len)) == 1) {
		const char *p;
		len = text_clean(l, len, clean, sizeof(clean), TC_ANSI);
		for (p = clean; *p == ' ' || *p == '\t'; p++)
			;
		while (len && (clean[len - 1] == ' ' || clean[len - 1] == '\r'))
			clean[--len] = 0;
		lsf_line(s, &j, p, in->lineno);
	}
	if (rc < 0)
		return -1;
	return j.line ? lsf_send(s, &j) : 0;
}
