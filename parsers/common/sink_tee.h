/*
 * sink_tee.h -- one parser, two sinks: every record goes to the first
 * sink (the store) and then, with the id the first gave it, to the second
 * (a derivation that must see the records as they are written, such as
 * the holders of a snapshot, analyzer/derive/holders.h).
 *
 * The parser is handed tee->sink. Each op calls the first sink's op; when
 * that stored the record (a result >= 0), it calls the second's, if the
 * second has one, while tee->id holds the first's result (the new row's
 * id: a second sink that needs it reads it there). The first's result is
 * what the parser gets back; -1 from either sink is -1. Diagnostics go to
 * the first sink only, and are counted in both the tee and the first
 * (sink_diagf counts in the sink it is given: the tee), so the first's
 * n_errors and n_warnings read as if the parser had been given it.
 *
 * The second sink sees no diagnostic and no op the first lacks: it is an
 * observer of what is stored, not a store of its own. Nothing here
 * allocates.
 */
#ifndef OOMLENS_SINK_TEE_H
#define OOMLENS_SINK_TEE_H

#include "parsers/common/sink.h"

struct sink_tee {
	struct sink sink;       /* hand this to the parser */
	struct sink *first;     /* the store: its ids are the parser's */
	struct sink *second;    /* sees each record the first stored */
	int64_t id;             /* while a second's op runs: the first's result */
};

/* Make tee->sink forward to first, then second (both borrowed, and must
 * outlive the tee). Its opts and path are the first's. */
void sink_tee_init(struct sink_tee *tee, struct sink *first, struct sink *second);

#endif
