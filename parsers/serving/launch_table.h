/*
 * launch_table.h -- the spellings of the engines' entry points, flags and
 * configuration keys that launch_conf.c reads, each to the knob it sets
 * (launch_table.c says which source taught each row).
 */
#ifndef OOMLENS_LAUNCH_TABLE_H
#define OOMLENS_LAUNCH_TABLE_H

#include <stddef.h>

struct launch_entry {
	const char *text;     /* as a command or an image name spells it */
	const char *engine;   /* "vllm", "sglang", "tgi", ..., "trainer" */
	const char *phase;    /* the phase the program's whole run is in, when
			       * it runs one only (an inference-only CLI:
			       * "eval"); NULL for the servers and trainers,
			       * whose logs say their stages */
};

enum launch_kind {
	LK_NUM,        /* a number follows */
	LK_ON,         /* a switch: present means 1 (a following true/false is read) */
	LK_ZERO_EAGER, /* TGI's --cuda-graphs: 0 means no graphs (enforce_eager 1) */
	LK_TEXT        /* text, kept under env.<key> */
};

struct launch_flag {
	const char *spelling;
	const char *engine;   /* NULL: any */
	const char *key;      /* launch.<key>, or env.<key> for LK_TEXT */
	enum launch_kind kind;
	const char *hint;     /* the engine a key names when no entry point did
			       * (Ollama's and TGI's own names); NULL none */
};

extern const struct launch_entry launch_entries[];
extern const struct launch_flag launch_flags[];   /* command-line flags */
extern const struct launch_flag launch_keys[];    /* configuration keys */

/* The row of table t spelled w[0..n) that applies to engine (NULL: the
 * engine is not known, only the rows for any engine apply); NULL none. */
const struct launch_flag *launch_find(const struct launch_flag *t, const char *w, size_t n,
				      const char *engine);

#endif
