/*
 * sos.c -- a sosreport's version.txt, sos_logs/sos.log and package lists;
 * see sos.h.
 */
#include "parsers/bundles/sos.h"
#include "lib/vocab.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static int read_error(struct input *in, struct sink *s, int rc)
{
	if (rc < 0 && sink_diagf(s, in->lineno, 0, OL_ERROR, "read error after line %llu",
				 (unsigned long long)in->lineno) < 0)
		return -1;
	return 0;
}

/* meta prefix+var = [v, v + vn). Returns 0, or -1 (sink). */
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

/* ---- version.txt ---- */

int sos_version_sniff(const unsigned char *head, size_t n)
{
	return n > 11 && (!memcmp(head, "sosreport: ", 11) || !memcmp(head, "sos report: ", 12))
		? 100 : 0;
}

int sos_version_parse(struct input *in, struct sink *s)
{
	char plugins[600] = "";
	size_t po = 0;
	const char *l;
	size_t len;
	int rc, n = 0;

	while ((rc = input_getline(in, &l, &len)) == 1) {
		const char *c = memchr(l, ':', len);
		size_t kl;
		if (!c)
			continue;
		kl = (size_t)(c - l);
		c++;
		while (c < l + len && *c == ' ')
			c++;
		if (in->lineno == 1) {
			if (put(s, VM_SOS_VERSION, NULL, c, (size_t)(l + len - c), &n) < 0)
				return -1;
		} else if (po + kl + 3 < sizeof(plugins)) {
			po += (size_t)snprintf(plugins + po, sizeof(plugins) - po, "%s%.*s",
					       po ? ", " : "", (int)kl, l);
		}
	}
	if (read_error(in, s, rc) < 0)
		return -1;
	if (po && sink_diagf(s, 0, 0, OL_INFO, "a sosreport bundle; plugins run: %s%s", plugins,
			     po + 40 >= sizeof(plugins) ? "..." : "") < 0)
		return -1;
	return n;
}

/* ---- sos_logs/sos.log ---- */

/* "2026-12-06 03:49:56,197 INFO: [" at l: the level's offset, else 0. */
static size_t sos_log_prefix(const char *l, size_t n)
{
	static const char shape[] = "dddd-dd-dd dd:dd:dd,ddd ";
	size_t i;

	if (n < sizeof(shape) + 6)
		return 0;
	for (i = 0; i < sizeof(shape) - 1; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)l[i]) : l[i] != shape[i])
			return 0;
	return i;
}

int sos_log_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;
	size_t o = sos_log_prefix(h, n);

	if (!o)
		return 0;
	return memmem(h, n < 4096 ? n : 4096, "[sos.report", 11) ||
	       memmem(h, n < 4096 ? n : 4096, "[archive:", 9) ? 90 : 0;
}

int sos_log_parse(struct input *in, struct sink *s)
{
	char seen[32][40];
	int nseen = 0;
	const char *l;
	size_t len;
	int rc, n = 0;

	while ((rc = input_getline(in, &l, &len)) == 1) {
		size_t o = sos_log_prefix(l, len), pl;
		const char *lvl = l + o, *p, *e, *msg;
		char plugin[40];
		int bad, i, dup = 0;
		if (!o)
			continue;
		bad = (len - o > 6 && !memcmp(lvl, "ERROR:", 6)) ||
		      (len - o > 8 && !memcmp(lvl, "WARNING:", 8)) ||
		      memmem(lvl, len - o, "timed out", 9) || memmem(lvl, len - o, "skipped command", 15) ||
		      memmem(lvl, len - o, "skipping command", 16) ||
		      memmem(lvl, len - o, "Traceback", 9);
		if (!bad || !(p = memmem(lvl, len - o, "[plugin:", 8)))
			continue;
		p += 8;
		e = memchr(p, ']', (size_t)(l + len - p));
		if (!e || (pl = (size_t)(e - p)) == 0 || pl >= sizeof(plugin))
			continue;
		memcpy(plugin, p, pl);
		plugin[pl] = 0;
		msg = e + 1;
		while (msg < l + len && *msg == ' ')
			msg++;
		if (sink_diagf(s, in->lineno, 0, OL_INFO, "evidence absent: sos plugin %s: %.*s",
			       plugin, (int)(l + len - msg > 300 ? 300 : l + len - msg), msg) < 0)
			return -1;
		for (i = 0; i < nseen; i++)
			dup |= !strcmp(seen[i], plugin);
		if (dup)
			continue;
		if (nseen < 32)
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", plugin);
		if (put(s, VM_BUNDLE_EVIDENCE_ABSENT, plugin, msg, (size_t)(l + len - msg), &n) < 0)
			return -1;
	}
	return read_error(in, s, rc) < 0 ? -1 : n;
}

/* ---- package lists: dpkg -l, installed-rpms ---- */

/* "nvidia-driver-535.104.05-1.el8.x86_64   Tue 01 Aug ..." at l: 1 when
 * the first word ends in a known rpm arch. */
static int rpm_line(const char *l, size_t n)
{
	static const char *const arch[] = { ".x86_64", ".noarch", ".aarch64", ".ppc64le", ".i686" };
	size_t w = 0, i;

	while (w < n && l[w] != ' ' && l[w] != '\t')
		w++;
	for (i = 0; i < sizeof(arch) / sizeof(arch[0]); i++) {
		size_t al = strlen(arch[i]);
		if (w > al && !memcmp(l + w - al, arch[i], al))
			return 1;
	}
	return 0;
}

int pkg_list_sniff(const unsigned char *head, size_t n)
{
	const char *h = (const char *)head;
	size_t o = 0;
	int lines = 0, rpm = 0;

	if (n > 40 && !memcmp(h, "Desired=Unknown/Install/Remove/Purge/Hold", 41))
		return 95;
	while (o < n && lines < 5) {
		const char *nl = memchr(h + o, '\n', n - o);
		size_t ll = nl ? (size_t)(nl - (h + o)) : n - o;
		rpm += rpm_line(h + o, ll);
		lines++;
		if (!nl)
			break;
		o += ll + 1;
	}
	return lines >= 3 && rpm == lines ? 85 : 0;
}

/* 1 when the package name is one oomlens keeps. */
static int wanted(const char *p, size_t n)
{
	return memmem(p, n, "nvidia", 6) || memmem(p, n, "cuda", 4) || memmem(p, n, "NVIDIA", 6);
}

/* One package named [name, +nl) at version [ver, +vl). */
static int package(struct sink *s, const char *name, size_t nl, const char *ver, size_t vl,
		   int *n, int *driver)
{
	char var[128];

	snprintf(var, sizeof(var), "%.*s", (int)(nl < 120 ? nl : 120), name);
	if (put(s, VM_HOST_PACKAGE, var, ver, vl, n) < 0)
		return -1;
	/* the kernel driver's package names the driver version */
	if (!*driver && (memmem(name, nl, "nvidia-driver", 13) || memmem(name, nl, "nvidia-kernel", 13) ||
			 memmem(name, nl, "kmod-nvidia", 11))) {
		*driver = 1;
		if (put(s, VM_CUDA_DRIVER_VERSION, NULL, ver, vl, n) < 0)
			return -1;
	}
	return 0;
}

int pkg_list_parse(struct input *in, struct sink *s)
{
	const char *l;
	size_t len;
	int rc, n = 0, driver = 0;

	while ((rc = input_getline(in, &l, &len)) == 1) {
		const char *p = l, *e = l + len, *name, *ver;
		size_t nl, vl;
		if (len > 3 && (l[0] == 'i' || l[0] == 'h' || l[0] == 'r') && l[2] == ' ' &&
		    l[1] != '=' && l[1] != ' ') {
			/* dpkg -l: "ii  name:arch  version  arch  description" */
			p += 3;
			while (p < e && *p == ' ')
				p++;
			name = p;
			while (p < e && *p != ' ')
				p++;
			nl = (size_t)(p - name);
			while (p < e && *p == ' ')
				p++;
			ver = p;
			while (p < e && *p != ' ')
				p++;
			vl = (size_t)(p - ver);
			if (nl && vl && wanted(name, nl) &&
			    package(s, name, nl, ver, vl, &n, &driver) < 0)
				return -1;
		} else if (rpm_line(l, len)) {
			/* "name-version-release.arch": the version starts at the
			 * first "-<digit>" */
			const char *w = l, *we = memchr(l, ' ', len), *d;
			if (!we)
				we = memchr(l, '\t', len);
			if (!we)
				we = e;
			for (d = w; d + 1 < we && !(d[0] == '-' && isdigit((unsigned char)d[1])); d++)
				;
			if (d + 1 >= we || !wanted(w, (size_t)(d - w)))
				continue;
			if (package(s, w, (size_t)(d - w), d + 1, (size_t)(we - d - 1), &n, &driver) < 0)
				return -1;
		}
	}
	return read_error(in, s, rc) < 0 ? -1 : n;
}
