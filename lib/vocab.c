/*
 * vocab.c -- the tables of lib/vocab.h made from its X-macro lists, and
 * the lookups the store and the tests check names with.
 */
#include <string.h>

#include "lib/vocab.h"

#define VOCAB_ROW(id, name, var, unit, meaning) { name, var, unit, meaning },
const struct vocab_entry vocab_events[VE__COUNT] = { VOCAB_EVENT_KINDS(VOCAB_ROW) };
const struct vocab_entry vocab_series_names[VS__COUNT] = { VOCAB_SERIES(VOCAB_ROW) };
const struct vocab_entry vocab_meta_keys[VM__COUNT] = { VOCAB_META_KEYS(VOCAB_ROW) };
const struct vocab_entry vocab_causes[VC__COUNT] = { VOCAB_CAUSES(VOCAB_ROW) };
const struct vocab_entry vocab_classes[VK__COUNT] = { VOCAB_CLASSES(VOCAB_ROW) };
const struct vocab_entry vocab_phases[OOM_PHASE__COUNT] = { VOCAB_PHASES(VOCAB_ROW) };
const struct vocab_entry vocab_stacks[VST__COUNT] = { VOCAB_STACKS(VOCAB_ROW) };
const struct vocab_entry vocab_measures[VMS__COUNT] = { VOCAB_MEASURES(VOCAB_ROW) };
const struct vocab_entry vocab_oom_kinds[VO__COUNT] = { VOCAB_OOM_KINDS(VOCAB_ROW) };
const struct vocab_entry vocab_scopes[VSC__COUNT] = { VOCAB_SCOPES(VOCAB_ROW) };
#undef VOCAB_ROW

static const struct {
	const struct vocab_entry *entries;
	size_t n;
	const char *title;
} sets[VOCAB__SETS] = {
	[VOCAB_EVENT] = { vocab_events, VE__COUNT, "Event kinds" },
	[VOCAB_SERIES_NAME] = { vocab_series_names, VS__COUNT, "Series" },
	[VOCAB_META] = { vocab_meta_keys, VM__COUNT, "Meta keys" },
	[VOCAB_CAUSE] = { vocab_causes, VC__COUNT, "Causes" },
	[VOCAB_CLASS] = { vocab_classes, VK__COUNT, "Classes" },
	[VOCAB_PHASE] = { vocab_phases, OOM_PHASE__COUNT, "Phases" },
	[VOCAB_STACK] = { vocab_stacks, VST__COUNT, "Stacks" },
	[VOCAB_MEASURE] = { vocab_measures, VMS__COUNT, "Measures" },
	[VOCAB_OOM_KIND] = { vocab_oom_kinds, VO__COUNT, "OOM kinds" },
	[VOCAB_SCOPE] = { vocab_scopes, VSC__COUNT, "OOM scopes" },
};

const struct vocab_entry *vocab_set_entries(enum vocab_set set, size_t *n)
{
	if ((unsigned)set >= VOCAB__SETS) {
		*n = 0;
		return NULL;
	}
	*n = sets[set].n;
	return sets[set].entries;
}

const char *vocab_set_title(enum vocab_set set)
{
	return (unsigned)set < VOCAB__SETS ? sets[set].title : "unknown";
}

/* A linear scan: the sets are a few dozen names, looked up once per event,
 * series or meta row written (never per sample). */
const struct vocab_entry *vocab_lookup(enum vocab_set set, const char *name)
{
	const struct vocab_entry *e;
	size_t n, i, len;

	if (!name || !(e = vocab_set_entries(set, &n)))
		return NULL;
	for (i = 0; i < n; i++) {
		if (!e[i].var) {
			if (!strcmp(e[i].name, name))
				return &e[i];
			continue;
		}
		len = strlen(e[i].name);
		if (!strncmp(e[i].name, name, len) && name[len])
			return &e[i];
	}
	return NULL;
}

int vocab_series_input_driven(const char *name)
{
	return name && name[0] && !strchr(name, '.');
}

int vocab_writable(enum vocab_set set, const char *name)
{
	if (vocab_lookup(set, name))
		return 1;
	return set == VOCAB_SERIES_NAME && vocab_series_input_driven(name);
}
