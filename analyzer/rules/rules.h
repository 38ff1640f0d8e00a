/*
 * rules.h -- the rule modules and the verdict.
 *
 * Each rule (analyzer/rules/<name>.c) reads the timeline with SQL and
 * writes findings (finding + evidence rows). verdict.c then combines the
 * findings into the incident's one verdict row. Rules never parse files.
 */
#ifndef OOMLENS_RULES_H
#define OOMLENS_RULES_H

#include "analyzer/store/timeline.h"

struct rule {
	const char *name;
	const char *what;
	int (*run)(struct timeline *tl);   /* findings written, or -1 */
};

extern const struct rule rules[];

/* The rule modules (analyzer/rules/<name>.c), listed in verdict.c. */
int rule_leak(struct timeline *tl);
int rule_spike(struct timeline *tl);
int rule_headroom(struct timeline *tl);
int rule_limits(struct timeline *tl);
int rule_fragmentation(struct timeline *tl);
int rule_contexts(struct timeline *tl);
int rule_victim(struct timeline *tl);

/* A finding counts toward the verdict from this score on. */
#define VERDICT_MIN_SCORE 0.3

/* Clear old findings, run every rule, write the verdict. 0 or -1. */
int analyze_timeline(struct timeline *tl);

#endif
