/*
 * kernel_xid.c -- the NVIDIA driver's lines in a kernel log: Xid errors
 * and a GPU fallen off the bus, as gpu_xid events (see
 * kernel_oom_report.h for the files around it).
 *
 * The forms read (drivers from 2012 to 595, after whatever wrapper
 * kernel_prefix.c took off):
 *
 *   NVRM: Xid (PCI:0000:0a:00): 31, pid=13332, name=cuda_plot_k32_v, Ch 00000010, ...
 *   NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM ...
 *   NVRM: Xid (PCI:0000:c1:00): 31, pid=12890, Ch 0000003b, ...        (no name)
 *   NVRM: Xid (PCI:0000:01:00): 32, Channel ID 00000000 intr 00004000  (no pid)
 *   NVRM: Xid (0000:01:00): 3, C 00000005 ...                           (no "PCI:")
 *   NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149
 *   NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)
 *   NVRM: GPU at PCI:0000:0a:00: GPU-760d0170-...     (the GPU's uuid, kept for its Xids)
 *   NVRM: GPU 0000:2b:00.0: GPU has fallen off the bus.
 *   NVRM: GPU at 0000:01:00.0 has fallen off the bus.
 *   NVRM: The NVIDIA GPU 0000:b3:00.0 / NVRM: (PCI ID: ...) installed in this system has /
 *   NVRM: fallen off the bus and is not responding to commands.   (three lines)
 *
 * A line that says the GPU fell off the bus is an event of its own only
 * when the Xid 79 line of the same GPU did not just say it.
 */
#include "parsers/kernel/kernel_oom_report.h"

#include <stdio.h>
#include <string.h>

#include "parsers/kernel/kernel_scan.h"
#include "lib/vocab.h"
#include "lib/xid.h"

#define OFF_BUS_LINES 8   /* lines within which two off-the-bus lines are one event */

const char *xid_name(int64_t x)
{
	const struct xid_info *xi = xid_info(x);

	return xi ? xi->name : NULL;
}

/* The uuid an earlier "GPU at PCI:<pci>: GPU-..." line gave pci, or NULL. */
static const char *uuid_of(const struct nvrm_state *nv, const char *pci)
{
	unsigned i;

	for (i = 0; i < nv->nuuid && i < NVRM_UUIDS; i++)
		if (!strcmp(nv->pci[i], pci))
			return nv->uuid[i];
	return NULL;
}

/* "GPU at PCI:0000:0a:00: GPU-760d..." (the text after "NVRM: "): keep
 * the pair. 1 when it is that line. */
static int gpu_uuid_line(struct nvrm_state *nv, const char *p, const char *e)
{
	const char *c, *u;
	unsigned k;

	if (!starts(p, e, "GPU at PCI:") || !(u = find(p, e, ": GPU-")))
		return 0;
	c = p + 11;
	k = nv->nuuid++ % NVRM_UUIDS;
	copy_str(nv->pci[k], sizeof(nv->pci[k]), c, u);
	copy_str(nv->uuid[k], sizeof(nv->uuid[k]), u + 2, e);
	return 1;
}

/* The bus address "0000:b3:00.0" at p into dst (hex digits, ':' and '.');
 * returns its end. */
static const char *pci_at(const char *p, const char *e, char *dst, size_t n)
{
	const char *q = p;

	const char *end;

	while (q < e && (is_digit((unsigned char)*q) || (*q >= 'a' && *q <= 'f') ||
			 (*q >= 'A' && *q <= 'F') || *q == ':' || *q == '.'))
		q++;
	end = q;
	while (end > p && (end[-1] == ':' || end[-1] == '.'))
		end--;
	copy_str(dst, n, p, end);
	return q;
}

/* Is pci the same GPU as the last off-the-bus event's, just before? */
static int same_off_bus(const struct kparse *kp, const char *pci)
{
	const struct nvrm_state *nv = &kp->nvrm;
	size_t n = strlen(nv->off_pci), m = strlen(pci);

	if (!nv->off_line || kp->in->lineno - nv->off_line > OFF_BUS_LINES)
		return 0;
	if (!n || !m)
		return 1;
	/* "0000:2b:00" (Xid form) and "0000:2b:00.0" (bus form) are one GPU */
	return !strncmp(nv->off_pci, pci, n < m ? n : m);
}

/* Send one gpu_xid event. xid OL_NULL: a fallen-off-the-bus message
 * without an Xid. The pid/comm strings may be empty. -1 when the sink failed. */
static int emit_xid(struct kparse *kp, const struct krec *r, int64_t xid, const char *pci,
		    int64_t pid, const char *comm, const char *msg, int64_t caused_by,
		    const char *recovery, int off_bus)
{
	const char *name = xid == OL_NULL ? (off_bus ? "GPU has fallen off the bus" : NULL)
					  : xid_name(xid);
	char summary[300];
	json_t *d = json_object();

	jset_int(d, "xid", xid);
	jset_str(d, "name", name);
	jset_str(d, "pci", pci);
	jset_str(d, "gpu_uuid", pci[0] ? uuid_of(&kp->nvrm, pci) : NULL);
	jset_str(d, "message", msg);
	jset_int(d, "caused_by", caused_by);
	jset_str(d, "recovery_action", recovery);
	json_object_set_new(d, "off_bus", json_boolean(off_bus));
	if (xid == OL_NULL)
		snprintf(summary, sizeof(summary), "GPU %s has fallen off the bus", pci[0] ? pci : "?");
	else
		snprintf(summary, sizeof(summary), "Xid %lld%s%s%s on %s%s%s", (long long)xid,
			 name ? " (" : "", name ? name : "", name ? ")" : "", pci[0] ? pci : "?",
			 comm[0] ? " by " : "", comm);
	if (off_bus) {
		snprintf(kp->nvrm.off_pci, sizeof(kp->nvrm.off_pci), "%s", pci);
		kp->nvrm.off_line = kp->in->lineno;
	}
	return kp_record_event(kp, r, vocab_event_kind(VE_GPU_XID), pid, comm, OL_NULL, summary,
			d) < 0 ? -1 : 1;
}

/* The value of "key=" at p up to the next ',' into dst, quotes removed;
 * returns the byte after the value or p when key is not at p. */
static const char *field(const char *p, const char *e, const char *key, char *dst, size_t n)
{
	const char *v, *ve;

	p = skip_ws(p, e);
	if (!starts(p, e, key))
		return p;
	v = p + strlen(key);
	for (ve = v; ve < e && *ve != ','; ve++)
		;
	copy_str(dst, n, v, ve);
	if (dst[0] == '\'') {                 /* pid='<unknown>' */
		size_t l = strlen(dst);
		memmove(dst, dst + 1, l);
		if (l > 1 && dst[l - 2] == '\'')
			dst[l - 2] = 0;
	}
	return ve < e ? ve + 1 : ve;
}

/* "Xid (PCI:0000:0a:00): 31, pid=N, name=c, message" (after "NVRM: "). */
static int xid_line(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	char pci[24], spid[32] = "", comm[64] = "", msg[512], recovery[64] = "";
	const char *c, *cl, *q;
	int64_t xid, pid = OL_NULL, cause = OL_NULL, v;

	c = p + 5;                                   /* after "Xid (" */
	if (starts(c, e, "PCI:"))
		c += 4;
	if (!(cl = memchr(c, ')', (size_t)(e - c))) || cl - c > 20)
		return 0;
	copy_str(pci, sizeof(pci), c, cl);
	q = cl + 1;
	if (q < e && *q == ':')
		q++;
	if (!(q = parse_int(skip_ws(q, e), e, &xid)) || xid < 0)
		return 0;
	if (q < e && *q == ',')
		q++;
	q = field(q, e, "pid=", spid, sizeof(spid));
	q = field(q, e, "name=", comm, sizeof(comm));
	if (spid[0] && parse_int(spid, spid + strlen(spid), &v) == spid + strlen(spid))
		pid = v;
	if (comm[0] == '<')                          /* name=<unknown> */
		comm[0] = 0;
	copy_str(msg, sizeof(msg), skip_ws(q, e), e);
	if ((c = find(q, e, "caused by previous Xid ")))
		parse_int(c + 23, e, &cause);
	if ((c = find(q, e, "recovery action changed")) && (c = rfind(c, e, "(")) &&
	    (cl = memchr(c, ')', (size_t)(e - c))))
		copy_str(recovery, sizeof(recovery), c + 1, cl);
	return emit_xid(kp, r, xid, pci, pid, comm, msg, cause, recovery,
			xid == 79 || find(q, e, "fallen off the bus") != NULL);
}

/* The fallen-off-the-bus messages without an Xid (see the top). */
static int off_bus_line(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	struct nvrm_state *nv = &kp->nvrm;
	char pci[24] = "";
	const char *c;

	if (starts(p, e, "The NVIDIA GPU ")) {        /* a three-line message starts */
		pci_at(p + 15, e, nv->bus_pci, sizeof(nv->bus_pci));
		nv->bus_line = kp->in->lineno;
		if (!find(p, e, "fallen off the bus"))
			return 1;
	}
	if (!find(p, e, "fallen off the bus"))
		return 0;
	if ((c = find(p, e, "GPU at ")))
		pci_at(c + 7, e, pci, sizeof(pci));
	else if ((c = find(p, e, "GPU ")))
		pci_at(c + 4, e, pci, sizeof(pci));
	if (!pci[0] && nv->bus_line && kp->in->lineno - nv->bus_line <= 3)
		snprintf(pci, sizeof(pci), "%s", nv->bus_pci);
	nv->bus_line = 0;
	if (same_off_bus(kp, pci))
		return 1;
	return emit_xid(kp, r, OL_NULL, pci, OL_NULL, "", "GPU has fallen off the bus",
			OL_NULL, "", 1);
}

int m_nvrm(struct kparse *kp, const struct krec *r, const char *p, const char *e)
{
	const char *c = find(p, e, "NVRM: ");

	if (!c)
		return 0;
	c += 6;
	if (starts(c, e, "Xid ("))
		return xid_line(kp, r, c, e);
	if (gpu_uuid_line(&kp->nvrm, c, e))
		return 1;
	return off_bus_line(kp, r, c, e);
}
