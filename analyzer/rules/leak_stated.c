/*
 * leak_stated.c -- leak: the program says so itself (meta leak.stated.N,
 * parsers/host/leakstmt.c). PyTorch's test-suite leak checks compare the
 * caching allocator's and the driver's allocated bytes before and after
 * a test and raise when both grew ("driver API confirmed a leak"); a
 * script's own "Detected N bytes ... leak" states the bytes it measured.
 * Either is a leak the files state, not one inferred from a trend: the
 * finding quotes the figures as printed (before, after, the difference)
 * and names the test or the figures' label.
 *
 * Scores: a driver-confirmed check STATED_CONFIRMED; a script's own
 * statement STATED_SAID (its measurement is the script's, not a check
 * oomlens knows); the allocator-only warning (the driver did not confirm
 * it: cached blocks, not memory lost) STATED_UNCONFIRMED, a reading
 * below a verdict's bar. A script's statement of less than STATED_SMALL
 * (a sanitizer's "24 byte(s) leaked" at exit) is a reading too: true,
 * but no account of memory an OOM ran out of. No OOM is needed: without one, the verdict says
 * "no OOM recorded, but a leak" from this rule (verdict.c).
 */
#include "analyzer/rules/rulelib.h"
#include "parsers/host/leakstmt.h"
#include "lib/bytes.h"
#include "lib/vocab.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define STATED_CONFIRMED 0.75
#define STATED_SAID 0.65
#define STATED_UNCONFIRMED 0.35
#define STATED_SMALL (1024.0 * 1024.0)  /* a script's statement under this: a reading */

/* " on device D" into buf, "" when the check names none. */
static const char *where(const struct leak_stated *s, char *buf, size_t n)
{
	if (s->device >= 0)
		snprintf(buf, n, " on device %d", s->device);
	else
		buf[0] = 0;
	return buf;
}

static int judge(struct rule_ctx *c, const struct leak_stated *s)
{
	struct rl_finding f;
	char a[32], b[32], d[32], dev[32];
	int check = strcmp(s->said_by, "stated") != 0;
	int pair = !isnan(s->driver_before) && !isnan(s->driver_after);

	if (!check && (isnan(s->leaked) || s->leaked <= 0))
		return 0;
	if (check && pair && s->driver_after <= s->driver_before && !isnan(s->alloc_after) &&
	    !isnan(s->alloc_before) && s->alloc_after <= s->alloc_before)
		return 0;   /* nothing grew: not a leak, whatever the words */
	rl_finding_init(&f, "leak_stated", s->confirmed && (check || s->leaked >= STATED_SMALL) ?
			"leak" : "reading", vocab_cause(VC_STATED_LEAK));
	f.score = !s->confirmed ? STATED_UNCONFIRMED : check ? STATED_CONFIRMED : STATED_SAID;
	where(s, dev, sizeof(dev));
	if (check && pair)
		snprintf(f.title, sizeof(f.title), "%s's own leak check %s a leak%s%s%s: driver"
			 " memory %s before, %s after (+%s)",
			 !strcmp(s->said_by, "mps_check") ? "PyTorch MPS" : "PyTorch CUDA",
			 s->confirmed ? "confirmed" : "reports (the driver did not confirm)",
			 s->name[0] ? " in " : "", s->name, dev,
			 ol_fmt_bytes(a, sizeof(a), s->driver_before),
			 ol_fmt_bytes(b, sizeof(b), s->driver_after),
			 ol_fmt_bytes(d, sizeof(d), s->driver_after - s->driver_before));
	else if (check)
		snprintf(f.title, sizeof(f.title), "PyTorch %s's own leak check %s a leak%s%s%s%s%s",
			 !strcmp(s->said_by, "mps_check") ? "MPS" : "CUDA",
			 s->confirmed ? "confirmed" : "reports", s->name[0] ? " in " : "", s->name,
			 dev, isnan(s->leaked) ? "" : ": ", isnan(s->leaked) ? "" :
			 ol_fmt_bytes(d, sizeof(d), s->leaked));
	else if (pair)
		snprintf(f.title, sizeof(f.title), "The program states it leaked %s: %sbefore %s,"
			 " %safter %s (as printed just above)", ol_fmt_bytes(d, sizeof(d), s->leaked),
			 s->name, ol_fmt_bytes(a, sizeof(a), s->driver_before), s->name,
			 ol_fmt_bytes(b, sizeof(b), s->driver_after));
	else
		snprintf(f.title, sizeof(f.title), "The program states it leaked %s (its own"
			 " measurement, as printed)%s", ol_fmt_bytes(d, sizeof(d), s->leaked),
			 s->leaked < STATED_SMALL ? ": too little to account for an OOM" : "");
	rl_advice(&f, "The leak is stated by the program, not inferred: repeat the work that"
		  " leaked (the test, the call between the two figures) a few times and check the"
		  " growth is the same each time; then look for tensors, graphs or caches kept"
		  " alive across calls (torch.%s.empty_cache() does not return memory still"
		  " referenced).", !strcmp(s->said_by, "mps_check") ? "mps" : "cuda");
	if (!isnan(s->leaked))
		rl_fig(&f, "leaked_bytes", s->leaked);
	if (pair) {
		rl_fig(&f, "driver_before_bytes", s->driver_before);
		rl_fig(&f, "driver_after_bytes", s->driver_after);
	}
	if (!isnan(s->alloc_before) && !isnan(s->alloc_after)) {
		rl_fig(&f, "allocator_before_bytes", s->alloc_before);
		rl_fig(&f, "allocator_after_bytes", s->alloc_after);
	}
	if (s->device >= 0)
		rl_fig(&f, "device", s->device);
	return rl_finding_write(c, &f) < 0 ? -1 : 1;
}

int rule_leak_stated(struct rule_ctx *c)
{
	sqlite3_stmt *st = rl_prepare(c, "SELECT value FROM meta WHERE key LIKE 'leak.stated.%'"
				      " ORDER BY rowid LIMIT 8");
	struct leak_stated s;
	int n = 0, r;

	if (!st)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (leakstmt_decode(q_text(st, 0), &s) < 0)
			continue;
		if ((r = judge(c, &s)) < 0) {
			sqlite3_finalize(st);
			return -1;
		}
		n += r;
	}
	return rl_finalize(c, st) < 0 ? -1 : n;
}
