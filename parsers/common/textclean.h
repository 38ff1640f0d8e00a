/*
 * textclean.h -- the damage a log line carries once a person has pasted
 * it somewhere, taken off before a parser reads it.
 *
 * Logs reach oomlens copied out of issue threads, chat and terminals:
 * inside markdown quotes ("> ", "> > ") and diff blocks ("+> "), glued to
 * a code fence ("```[  12.3] ..."), coloured with ANSI escapes written raw
 * (ESC [ 0;36m), in caret notation ("^[[0;36m") or as rsyslog escapes
 * them ("#033[0;36m"), and wrapped by a terminal into one line with a run
 * of padding blanks where the wrap was. text_clean() takes off what the
 * flags ask for and writes what is left; it keeps no state. Used by the
 * nvidia-smi table, Kubernetes and kernel log parsers. text_words() splits
 * a pasted table's row (ps, top, free, docker stats, kubectl top) into its
 * blank-separated words.
 */
#ifndef OOMLENS_TEXTCLEAN_H
#define OOMLENS_TEXTCLEAN_H

#include <stddef.h>

enum {
	TC_ANSI = 1,        /* colour escapes: raw, ^[[...m, #033[...m */
	TC_QUOTE = 2,       /* leading "> " quotes, a diff "+" before them, a code fence */
	TC_WRAP = 4,        /* a run of TC_WRAP_RUN blanks inside the line: a terminal
			     * wrap's padding, removed (the two halves joined) */
};

#define TC_WRAP_RUN 40

/* Would text_clean with flags change l[0..n)? A fast test (one pass, no
 * copy) so that clean lines cost nothing. */
int text_dirty(const char *l, size_t n, unsigned flags);

/* Write l[0..n) less the damage flags names into out (cap bytes, cap > 0),
 * NUL-terminated; a line longer than cap - 1 is cut there. Returns the
 * length written. out must not overlap l. */
size_t text_clean(const char *l, size_t n, char *out, size_t cap, unsigned flags);

/* The start of l[0..n) past leading "> " quotes, one diff "+" before
 * them, and a glued code fence ("```" or "`"), with *n reduced to match. */
const char *text_unquote(const char *l, size_t *n);

/* The words of l[0..n), separated by blanks (space, tab, CR), into
 * w[0..max), each NUL-terminated in buf (size bn; words that do not fit
 * are cut or dropped). Returns the count. A word may be empty only when
 * the line holds a NUL byte. */
int text_words(const char *l, size_t n, char *buf, size_t bn, char **w, int max);

/* The whole non-negative decimal number that is all of w (a table's PID,
 * a count); -1 when w is not one. */
long long text_whole(const char *w);

#endif
