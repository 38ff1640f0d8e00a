/*
 * mustgather.c -- a GPU operator must-gather's version file and its own
 * log (must-gather.log): what the tree is and what it could not collect;
 * see mustgather.h.
 */
#include "parsers/k8s/mustgather.h"
#include "lib/vocab.h"

#include <stdio.h>
#include <string.h>

#define MG_LEAD "NVIDIA GPU Operator"

/* meta prefix+var = [v, v + vn), counted in *n. 0, or -1 (sink). */
static int put(struct sink *s, enum vocab_meta m, const char *var, const char *v, size_t vn,
	       int *n)
{
	char key[200], val[300];

	snprintf(key, sizeof(key), "%s%s", vocab_meta_key(m), var ? var : "");
	snprintf(val, sizeof(val), "%.*s", (int)(vn < 299 ? vn : 299), v);
	if (sink_meta(s, key, val) < 0)
		return -1;
	(*n)++;
	return 0;
}

static int read_error(struct input *in, struct sink *s, int rc)
{
	if (rc < 0 && sink_diagf(s, in->lineno, 0, OL_ERROR, "read error after line %llu",
				 (unsigned long long)in->lineno) < 0)
		return -1;
	return 0;
}

/* ---- version ---- */

int mg_version_sniff(const unsigned char *head, size_t n)
{
	size_t k = sizeof(MG_LEAD) - 1;

	/* the whole file is two short lines: never a log that starts so */
	return n > k && n < 256 && !memcmp(head, MG_LEAD, k) &&
	       (head[k] == '\n' || (head[k] == '\r' && k + 1 < n && head[k + 1] == '\n'))
		? 100 : 0;
}

int mg_version_parse(struct input *in, struct sink *s)
{
	static const char kind[] = "gpu-operator must-gather";
	const char *l;
	size_t len;
	int rc, n = 0;

	if (put(s, VM_BUNDLE_KIND, NULL, kind, sizeof(kind) - 1, &n) < 0)
		return -1;
	while ((rc = input_getline(in, &l, &len)) == 1) {
		while (len && (l[len - 1] == '\r' || l[len - 1] == ' '))
			len--;
		if (in->lineno != 2 || !len)
			continue;
		if (len == 3 && !memcmp(l, "N/A", 3)) {
			if (sink_diagf(s, in->lineno, 0, OL_INFO, "must-gather: the GPU operator's"
				       " version is not recorded (N/A)") < 0)
				return -1;
			continue;
		}
		if (put(s, VM_MUSTGATHER_OPERATOR_VERSION, NULL, l, len, &n) < 0)
			return -1;
	}
	return read_error(in, s, rc) < 0 ? -1 : n;
}

/* ---- must-gather.log ---- */

int mg_log_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;
	size_t k = n < 8192 ? n : 8192;

	/* lines only the GPU operator's must-gather.sh prints */
	return memmem(h, k, "' as operator namespace", 23) ||
	       memmem(h, k, "# ClusterPolicy\n", 16) ||
	       memmem(h, k, "Get the GPU Operator Pod (status)", 33) ? 90 : 0;
}

/* What a line of the script says it could not collect: *what (the
 * meta key's tail) and the text after the lead; NULL when nothing. */
static const char *absent(const char *l, size_t len, char *what, size_t wn)
{
	static const struct { const char *lead, *what; int node; } leads[] = {
		{ "Failed to collect nvidia-bug-report from ", "nvidia-bug-report/", 1 },
		{ "Failed to save nvidia-bug-report from ", "nvidia-bug-report/", 1 },
		{ "FATAL: could not find the GPU Operator Pod", "gpu-operator-pod", 0 },
		{ "FATAL: could not find nodes with NVIDIA PCI labels", "gpu-nodes", 0 },
		{ "Mark the ClusterPolicy as missing", "cluster-policy", 0 },
		{ NULL, NULL, 0 },
	};
	int i;

	for (i = 0; leads[i].lead; i++) {
		size_t ll = strlen(leads[i].lead), nl = 0;
		if (len < ll || memcmp(l, leads[i].lead, ll))
			continue;
		if (leads[i].node)   /* the node's name, to the next blank */
			while (ll + nl < len && l[ll + nl] != ' ' && nl < 100)
				nl++;
		snprintf(what, wn, "%s%.*s", leads[i].what, (int)nl, l + ll);
		return l;
	}
	return NULL;
}

int mg_log_parse(struct input *in, struct sink *s)
{
	char seen[16][128], what[128];
	const char *l;
	size_t len;
	int rc, n = 0, nseen = 0, i, dup;

	while ((rc = input_getline(in, &l, &len)) == 1) {
		while (len && l[len - 1] == '\r')
			len--;
		if (!absent(l, len, what, sizeof(what)))
			continue;
		if (sink_diagf(s, in->lineno, 0, OL_INFO, "evidence absent: must-gather %s: %.*s",
			       what, (int)(len > 300 ? 300 : len), l) < 0)
			return -1;
		for (i = 0, dup = 0; i < nseen; i++)
			dup |= !strcmp(seen[i], what);
		if (dup)
			continue;
		if (nseen < 16)
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", what);
		if (put(s, VM_BUNDLE_EVIDENCE_ABSENT, what, l, len, &n) < 0)
			return -1;
	}
	return read_error(in, s, rc) < 0 ? -1 : n;
}
