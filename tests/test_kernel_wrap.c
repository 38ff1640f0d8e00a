/*
 * test_kernel_wrap.c -- a kernel OOM report pasted with its long lines
 * wrapped or re-indented reads as the whole report does.
 *
 * Real pastes (tests/data/real, manifests there) are read whole and then
 * re-wrapped in memory the ways pastes arrive: folded at 80 columns
 * inside a token (a terminal, `fold -w 80`), folded at a blank (an
 * editor, `fold -s`), the tail of each long line re-indented under its
 * head, every line tab-indented, every line quoted under "> ". Every
 * figure the kill states -- pid, task name, total-vm, anon-rss,
 * file-rss, shmem-rss, pgtables, oom_score_adj, uid, memcg, constraint,
 * the invoker's gfp_mask, order and oom_score_adj, and the kernel
 * release of the CPU line -- must come out the same. Also: the real
 * cicc paste (a journal Killed line whose figures were re-indented onto
 * the next line) yields its RSS, a
 * tab-indented journal header does not keep its prefix in the task
 * name, and lines that are not a continuation are never joined.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/kernel/kernel_oom_wrap.h"

#define KIND "kernel_log"
#define WIDTH 80

enum mode { WHOLE, FOLD, FOLD_BLANK, INDENT_TAIL, TAB_ALL, QUOTE_ALL, NMODES };
static const char *const mode_name[NMODES] = { "whole", "fold", "fold-blank", "indent-tail",
					       "tab", "quote" };

/* Append [p, p + n) to the growing buffer *b (length *len, NUL kept). */
static void put(char **b, size_t *len, const char *p, size_t n)
{
	*b = realloc(*b, *len + n + 1);
	assert_non_null(*b);
	memcpy(*b + *len, p, n);
	*len += n;
	(*b)[*len] = 0;
}

/* One line [p, p + n) written in mode m into *b (with its newline). */
static void rewrap_line(enum mode m, const char *p, size_t n, char **b, size_t *len)
{
	size_t k;
	int first = 1;

	if (m == TAB_ALL && n)
		put(b, len, "\t", 1);
	if (m == QUOTE_ALL && n)
		put(b, len, "> ", 2);
	if (m == WHOLE || m == TAB_ALL || m == QUOTE_ALL || n <= WIDTH) {
		put(b, len, p, n);
		put(b, len, "\n", 1);
		return;
	}
	while (n > WIDTH) {
		if (m == FOLD) {
			k = WIDTH;
		} else {   /* at the last blank before the width */
			for (k = WIDTH; k > 0 && p[k - 1] != ' '; k--)
				;
			if (k <= 1)
				k = WIDTH;
		}
		if (m == INDENT_TAIL && !first)
			put(b, len, "    ", 4);
		/* fold -s keeps the blank at the end of the piece; a
		 * re-indented tail loses it */
		put(b, len, p, m == INDENT_TAIL && p[k - 1] == ' ' ? k - 1 : k);
		put(b, len, "\n", 1);
		p += k;
		n -= k;
		first = 0;
	}
	if (m == INDENT_TAIL)
		put(b, len, "    ", 4);
	put(b, len, p, n);
	put(b, len, "\n", 1);
}

/* The text of tests/data/real/rel rewritten in mode m (malloc'd). */
static char *rewrap(const char *rel, enum mode m, size_t *len)
{
	size_t n;
	char *text = t_slurp(rel, &n), *out = NULL, *p = text, *e = text + n, *nl;

	*len = 0;
	put(&out, len, "", 0);
	while (p < e) {
		nl = memchr(p, '\n', (size_t)(e - p));
		rewrap_line(m, p, (size_t)((nl ? nl : e) - p), &out, len);
		p = nl ? nl + 1 : e;
	}
	free(text);
	return out;
}

/* The figures of every kill (and its invoker) of a parse, one text. */
static char *figures(struct timeline *tl)
{
	const char *q = t_text(tl,
		"SELECT group_concat(f, ' | ') FROM (SELECT pid || ' ' || comm || ' ' || "
		"ifnull(bytes, '-') || ' ' || json_remove(data, '$.invoker_event') AS f "
		"FROM event WHERE kind = 'oom_kill' ORDER BY id)");
	return strdup(q);
}

/* Parse rel rewritten in mode m; its kill figures (malloc'd). */
static char *figures_of(const char *rel, enum mode m)
{
	struct timeline *tl = t_open();
	size_t n;
	char *text = rewrap(rel, m, &n), *f;

	assert_true(t_parse_mem(tl, KIND, rel, text, n) > 0);
	f = figures(tl);
	free(text);
	t_close(tl);
	return f;
}

static const char *const real_pastes[] = {
	"tests/data/real/any_stack/c-vllm-0.25-dgx-spark-laguna-nvfp4-jit-cicc-oom-killer/02-kernel-journal.txt",
	"tests/data/real/gpu_host/kernel-memcg-v1-memory-limit-hit-6.18-local.log",
	"tests/data/real/gpu_host/kernel-oom-dmesg-iso-grep.log",
	"tests/data/real/gpu_host/kernel-oom-4.16-sacrifice-child-bash-m-mail-wrapped.log",
	"tests/data/real/gpu_host/kernel-journal-quoted-rhel7-uid-node-kills.log",
	"tests/data/real/any_stack/kernel-619-dmesg-delta-stamps-two-oom-kills.log",
	"tests/data/real/any_stack/lmcache-server-gb10-dmesg-T-oom-kill-during-vllm-cold-boot.log",
};

static void rewrapped_reads_as_whole(void **state)
{
	size_t i;
	int m;

	(void)state;
	for (i = 0; i < sizeof(real_pastes) / sizeof(real_pastes[0]); i++) {
		char *whole = figures_of(real_pastes[i], WHOLE);
		/* every kill has its RSS figures: the comparison is not of nulls */
		assert_null(strstr(whole, "\"anon_rss_kb\":null"));
		for (m = FOLD; m < NMODES; m++) {
			char *got = figures_of(real_pastes[i], (enum mode)m);
			if (strcmp(whole, got))
				fail_msg("%s %s:\n  whole %s\n  got   %s", real_pastes[i],
					 mode_name[m], whole, got);
			free(got);
		}
		free(whole);
	}
}

/* The real cicc paste: "Killed process 21394 (cicc)" on a journal line,
 * its figures re-indented on the next. */
static void cicc_kill_has_its_rss(void **state)
{
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_file_as(tl, KIND, real_pastes[0]) > 0);
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind = 'oom_kill'"), 21394);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind = 'oom_kill'"), "cicc");
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.anon_rss_kb') FROM event "
			       "WHERE kind = 'oom_kill'"), 7529332);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.total_vm_kb') FROM event "
			       "WHERE kind = 'oom_kill'"), 10886376);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.uid') FROM event "
			       "WHERE kind = 'oom_kill'"), 1000);
	assert_int_equal(t_int(tl, "SELECT bytes FROM event WHERE kind = 'oom_kill'"),
			 7529332LL * 1024);
	/* the event names the line the kill started on */
	assert_int_equal(t_int(tl, "SELECT line FROM event WHERE kind = 'oom_kill'"), 2);
	t_close(tl);
}

/* A tab-indented journal paste: the header's task is "systemd", not the
 * syslog prefix before it, and the record keeps the journal's time. */
static void tab_indented_header_loses_its_prefix(void **state)
{
	struct timeline *tl = t_open();
	size_t n;
	char *text = rewrap(real_pastes[0], TAB_ALL, &n);

	(void)state;
	assert_true(t_parse_mem(tl, KIND, "tab.log", text, n) > 0);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind = 'oom_invoked'"),
			    "systemd");
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'oom_invoked' "
			       "AND time_ns IS NOT NULL"), 1);
	free(text);
	t_close(tl);
	/* the real tab-indented syslog paste of pyca/cryptography#3528 */
	tl = t_open();
	assert_true(t_parse_file_as(tl, KIND, "tests/data/real/gpu_host/"
				    "kernel-oom-invoked-cc1-syslog-tab-indented.log") > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'oom_invoked'"), 1);
	assert_string_equal(t_text(tl, "SELECT comm FROM event WHERE kind = 'oom_invoked'"), "cc1");
	assert_int_equal(t_int(tl, "SELECT pid FROM event WHERE kind = 'oom_invoked'"), 7364);
	assert_int_equal(t_int(tl, "SELECT boot_ns FROM event WHERE kind = 'oom_invoked'"),
			 6424280410198000LL);
	t_close(tl);
}

/* Lines that only follow a cut line are not joined to it: another
 * kernel message, a task row, a blank line, an indented line with no
 * field of the held line; an old kernel's whole Killed line followed by
 * the shell's "Killed", or by a bare "Task in ..." line, is read alone. */
static void not_a_continuation(void **state)
{
	static const char text[] =
		"[ 33.215349] Killed process 1056 (m) total-vm:9220kB,\n"
		"oom_reaper: reaped process 1056 (m), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB\n"
		"[ 40.000001] Killed process 1057 (m) total-vm:9220kB,\n"
		"[ 40.000002] oom_reaper: reaped process 1057 (m), now anon-rss:0kB\n"
		"[ 50.000001] Killed process 1058 (m) total-vm:9220kB,\n"
		"\n"
		"anon-rss:7564kB\n"
		"[ 60.000001] Killed process 1059 (m) total-vm:9220kB,\n"
		"    active_anon:239 inactive_anon:6756\n"
		"[ 70.000001] Killed process 1060 (m) total-vm:9220kB, anon-rss:7564kB, "
		"file-rss:4kB, shmem-rss:640kB\n"
		"Killed\n"
		"[ 80.000001] Killed process 1061 (m) total-vm:9220kB, anon-rss:7564kB, "
		"file-rss:4kB, shmem-rss:640kB\n"
		"Task in /test killed as a result of limit of /test\n";
	struct timeline *tl = t_open();

	(void)state;
	assert_true(t_parse_mem(tl, KIND, "cut.log", text, sizeof(text) - 1) > 0);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'oom_kill'"), 6);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'oom_kill' AND "
			       "json_extract(data, '$.anon_rss_kb') IS NOT NULL"), 2);
	assert_int_equal(t_int(tl, "SELECT count(*) FROM event WHERE kind = 'oom_reaper'"), 2);
	assert_int_equal(t_int(tl, "SELECT json_extract(data, '$.shmem_rss_kb') FROM event "
			       "WHERE kind = 'oom_kill' AND pid = 1060"), 640);
	t_close(tl);
}

/* Hold held (a record of the kernel), offer it piece as a bare line
 * (indented: a printk-continuation record, its blanks stripped as the
 * prefix layer strips them); the join's answer, the joined text in out. */
static int offer(const char *held, const char *piece, int indented, int bare, char *out,
		 size_t n)
{
	static struct kwrap w;
	struct krec h, r;
	int kind = kwrap_open_ended(held, held + strlen(held)), got;

	memset(&h, 0, sizeof(h));
	h.msg = held;
	h.end = held + strlen(held);
	assert_int_not_equal(kind, KW_NONE);
	assert_int_equal(kwrap_take(&w, &h, kind, 1), 0);
	memset(&r, 0, sizeof(r));
	r.msg = piece;
	r.end = piece + strlen(piece);
	r.bare = bare;
	r.continuation = indented;
	got = kwrap_joins(&w, &r);
	snprintf(out, n, "%.*s", (int)w.n, w.buf);
	return got;
}

static void join_rule(void **state)
{
	static const char old_kill[] = "Killed process 1 (m) total-vm:9220kB, anon-rss:7564kB, "
				       "file-rss:4kB, shmem-rss:640kB";
	static const char summary[] = "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),"
				      "cpuset=/,mems_allowed=0,global_oom,task_memcg=/user.slice,"
				      "task=python3,pid=25315,uid=";
	char out[512];

	(void)state;
	/* complete lines are not held; cut ones are */
	{
		static const char whole[] = "Killed process 1 (m) total-vm:1kB, anon-rss:1kB, "
					    "file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB "
					    "oom_score_adj:-998";
		assert_int_equal(kwrap_open_ended(whole, whole + sizeof(whole) - 1), KW_NONE);
		assert_int_equal(kwrap_open_ended(summary, summary + sizeof(summary) - 1),
				 KW_SUMMARY);
	}
	/* a whole line of its own, the shell's word, a prefixed line: not joined */
	assert_int_equal(offer(old_kill, "Task in /test killed as a result of limit of /test", 0,
			       1, out, sizeof(out)), 0);
	assert_int_equal(offer(old_kill, "Killed", 0, 1, out, sizeof(out)), 0);
	assert_int_equal(offer(old_kill, "oom_reaper: reaped process 1 (m), now anon-rss:0kB", 0,
			       1, out, sizeof(out)), 0);
	assert_int_equal(offer("Killed process 1 (m) total-vm:9220kB,", "anon-rss:7564kB", 0, 0,
			       out, sizeof(out)), 0);
	/* an indented piece without a field of the line: not joined */
	assert_int_equal(offer("Killed process 1 (m) total-vm:9220kB,", "active_anon:239", 1, 1,
			       out, sizeof(out)), 0);
	/* a fixed-width fold inside a number: concatenated as it is */
	assert_int_equal(offer("Killed process 21394 (cicc) total-vm:10886376kB, anon-rss:75",
			       "29332kB,", 0, 1, out, sizeof(out)), 1);
	assert_string_equal(out, "Killed process 21394 (cicc) total-vm:10886376kB, "
			    "anon-rss:7529332kB,");
	/* a re-indented tail: one blank for the ones cut off */
	assert_int_equal(offer("Killed process 21394 (cicc)", "total-vm:10886376kB, UID:1000", 1,
			       1, out, sizeof(out)), 1);
	assert_string_equal(out, "Killed process 21394 (cicc) total-vm:10886376kB, UID:1000");
	/* the summary's last number on a line of its own: joined, then whole */
	assert_int_equal(offer(summary, "0", 0, 1, out, sizeof(out)), 1);
	assert_int_equal(kwrap_open_ended(out, out + strlen(out)), KW_NONE);
}

/* The CPU line of real paste rel cut by a collector before its taint
 * word at, the piece on a bare line of its own (keep: the blank before
 * the word stays on the first line): the kernel release is still read.
 * kernel/panic.c print_tainted@v6.6 prints "Tainted: <flags>" or "Not
 * tainted". */
static void cut_before_taint(const char *rel, const char *at, int keep, const char *release)
{
	struct timeline *tl = t_open();
	size_t n, k;
	char *text = t_slurp(rel, &n), *cpu, *w, *out;

	assert_non_null(text);
	cpu = strstr(text, " Comm: ");
	assert_non_null(cpu);
	w = strstr(cpu, at);
	assert_non_null(w);
	k = (size_t)(w - text);
	out = malloc(n + 2);
	assert_non_null(out);
	memcpy(out, text, k + (size_t)keep);
	out[k + (size_t)keep] = '\n';
	memcpy(out + k + (size_t)keep + 1, w + 1, n - k - 1);
	out[n + (size_t)keep] = '\0';
	assert_true(t_parse_mem(tl, KIND, rel, out, n + (size_t)keep) > 0);
	assert_string_equal(t_text(tl, "SELECT json_extract(data, '$.kernel_release') FROM event"
				   " WHERE kind = 'oom_invoked' ORDER BY id LIMIT 1"), release);
	free(out);
	free(text);
	t_close(tl);
}

/* A collector cut the CPU line before its taint word (round 13): the
 * piece "Tainted: G  W  OE  6.8.9+ #1" holds ": " but is the line's own
 * (tempesta PR 2124's cc1 paste), and "Not tainted 5.13.0-1036-oracle
 * #43..." after a trimmed blank is its own word (the Oracle VM paste). */
static void cpu_line_cut_before_taint(void **state)
{
	(void)state;
	cut_before_taint("tests/data/real/any_stack/kernel-cc1-invoked-oom-killer-make-j4-vm.log",
			 " Tainted: ", 1, "6.8.9+");
	cut_before_taint("tests/data/real/any_stack/kernel-cc1-invoked-oom-killer-make-j4-vm.log",
			 " Tainted: ", 0, "6.8.9+");
	cut_before_taint("tests/data/real/any_stack/kernel-oom-5.13-oracle-systemd-journal-invoker.log",
			 " Not tainted", 0, "5.13.0-1036-oracle");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rewrapped_reads_as_whole),
		cmocka_unit_test(cicc_kill_has_its_rss),
		cmocka_unit_test(tab_indented_header_loses_its_prefix),
		cmocka_unit_test(not_a_continuation),
		cmocka_unit_test(join_rule),
		cmocka_unit_test(cpu_line_cut_before_taint),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
