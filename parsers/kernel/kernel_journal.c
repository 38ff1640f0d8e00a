/*
 * kernel_journal.c -- the journalctl -o json side of the kernel prefix
 * layer: one JSON record decoded into a struct krec (MESSAGE as a string
 * or a byte array, the realtime and monotonic stamps, boot id,
 * identifier, transport), and the cheap check a keyword search needs for
 * records whose MESSAGE it cannot see. Declared in kernel_prefix.h; the
 * line wrappers of every other source are in kernel_prefix.c.
 */
#include "parsers/kernel/kernel_prefix.h"

#include <stdio.h>
#include <string.h>

#include "parsers/kernel/kernel_scan.h"

/* The decimal string field k of o (journal JSON writes numbers as
 * strings) into *v; 0 when absent or not wholly a number. */
static int json_u64(json_t *o, const char *k, int64_t *v)
{
	json_t *j = json_object_get(o, k);
	const char *s;
	const char *end;

	if (!json_is_string(j))
		return 0;
	s = json_string_value(j);
	end = s + strlen(s);
	return parse_int(s, end, v) == end;
}

/* A journal MESSAGE m (a string, or an array of byte values; anything
 * else is no message) into px->msg. Returns -1 when memory ran out: the
 * text is then incomplete, so px->msg is emptied (and its sticky failure
 * cleared) instead of being used. */
static int journal_message(struct kprefix *px, json_t *m)
{
	json_t *j;
	size_t i;

	strbuf_reset(&px->msg);
	if (json_is_string(m)) {
		strbuf_add(&px->msg, json_string_value(m), json_string_length(m));
	} else if (json_is_array(m)) {
		json_array_foreach(m, i, j) {
			json_int_t b = json_integer_value(j);
			if (!json_is_integer(j) || b < 0 || b > 255) {
				sink_diagf(px->s, px->in->lineno, 0, OL_WARN,
					   "MESSAGE byte array holds a non-byte at index %zu", i);
				break;
			}
			strbuf_addch(&px->msg, (int)b);
		}
	}
	if (!strbuf_failed(&px->msg))
		return 0;
	strbuf_release(&px->msg);
	return -1;
}

int kprefix_journal_json(struct kprefix *px, const char *l, size_t n, struct krec *r)
{
	json_error_t err;
	json_t *o = json_loadb(l, n, 0, &err), *j;
	int64_t rt, mono;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	r->t = ol_time_none();
	r->ident_pid = OL_NULL;
	r->from_json = 1;
	if (!o || !json_is_object(o)) {
		sink_diagf(px->s, px->in->lineno, 0, OL_WARN,
			   "expected a journal JSON object: %s", err.text);
		goto out;
	}
	if (json_u64(o, "__REALTIME_TIMESTAMP", &rt) && rt >= 0 && rt < 9000000000000000LL) {
		r->t.clock = OL_CLOCK_UTC;
		r->t.utc_ns = rt * 1000;
	}
	if (json_u64(o, "_SOURCE_MONOTONIC_TIMESTAMP", &mono) && mono >= 0 &&
	    mono < 9000000000000000LL)
		r->t.boot_ns = mono * 1000;
	if (r->t.clock == OL_CLOCK_NONE && r->t.boot_ns != OL_NULL)
		r->t.clock = OL_CLOCK_BOOT;
	j = json_object_get(o, "_BOOT_ID");
	if (json_is_string(j)) {
		snprintf(r->boot_id, sizeof(r->boot_id), "%s", json_string_value(j));
		r->has_boot_id = 1;
	}
	j = json_object_get(o, "SYSLOG_IDENTIFIER");
	if (json_is_string(j)) {
		snprintf(r->ident, sizeof(r->ident), "%s", json_string_value(j));
		r->has_ident = 1;
	}
	j = json_object_get(o, "_TRANSPORT");
	if (json_is_string(j) && !strcmp(json_string_value(j), "kernel")) {
		snprintf(r->ident, sizeof(r->ident), "kernel");
		r->has_ident = 1;
	}
	if (journal_message(px, json_object_get(o, "MESSAGE")) < 0) {
		sink_diagf(px->s, px->in->lineno, 0, OL_WARN,
			   "out of memory decoding the journal MESSAGE: record skipped");
		goto out;
	}
	if (strbuf_failed(&px->msg)) {   /* out of memory: not a cut message */
		strbuf_release(&px->msg);
		sink_diagf(px->s, px->in->lineno, 0, OL_ERROR, "out of memory: record not read");
	} else if (px->msg.len) {
		r->msg = px->msg.buf;
		r->end = px->msg.buf + px->msg.len;
		if (r->t.clock != OL_CLOCK_NONE)
			px->last_t = r->t;
		rc = 1;
	}
out:
	json_decref(o);
	return rc;
}

int kprefix_json_message_is_array(const char *p, const char *e)
{
	const char *m = find(p, e, "\"MESSAGE\"");

	if (!m)
		return 0;
	m = skip_ws(m + 9, e);
	if (m < e && *m == ':')
		m = skip_ws(m + 1, e);
	return m < e && *m == '[';
}
