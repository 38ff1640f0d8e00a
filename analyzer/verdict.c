/*
 * verdict.c -- run the rules and combine their findings into one verdict:
 * the class with the strongest evidence, its contributing causes, and a
 * confidence; "inconclusive" with the missing evidence named otherwise.
 */
#include "rules.h"

#include <stdio.h>

const struct rule rules[] = {
	{ NULL, NULL, NULL }
};

int analyze_timeline(struct timeline *tl)
{
	const struct rule *r;

	if (timeline_exec(tl, "DELETE FROM evidence; DELETE FROM finding; DELETE FROM verdict") < 0)
		return -1;
	for (r = rules; r->name; r++)
		if (r->run(tl) < 0) {
			fprintf(stderr, "oomlens: rule %s failed\n", r->name);
			return -1;
		}
	return timeline_exec(tl,
		"INSERT INTO verdict(class, cause, confidence, summary, missing)"
		" SELECT 'inconclusive', NULL, 0.0, 'no rule found enough evidence to classify"
		" the incident', 'memory series before the OOM, an allocator snapshot'"
		" WHERE NOT EXISTS (SELECT 1 FROM finding)");
}
