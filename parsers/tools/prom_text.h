/*
 * prom_text.h -- Prometheus metrics: the text exposition format (a
 * /metrics scrape: cAdvisor, vLLM, SGLang, any exporter; one scrape or
 * several after "### <iso>" separators), the HTTP API's query and
 * query_range answers (JSON, Grafana's query-inspector wrapping, or the
 * dict a Python client printed) and Grafana panel CSV exports.
 * DCGM_FI_* families are left to parsers/gpu/dcgm.c.
 */
#ifndef OOMLENS_PROM_TEXT_H
#define OOMLENS_PROM_TEXT_H

#include <stddef.h>
#include "parsers/common/sink.h"
#include "lib/input.h"

int prom_text_sniff(const unsigned char *head, size_t n);
int prom_text_parse(struct input *in, struct sink *s);
int prom_query_sniff(const unsigned char *head, size_t n);
int prom_query_parse(struct input *in, struct sink *s);
int grafana_csv_sniff(const unsigned char *head, size_t n);
int grafana_csv_parse(struct input *in, struct sink *s);

/* Shared by the three readers (prom_text.c). */

/* Add label k="v" to an entity being built: labels are kept sorted by
 * name, empty values dropped (Prometheus treats them as absent), the
 * result `k="v",k2="v2"` cut at cap. */
void prom_entity_add(char *ent, size_t cap, const char *k, const char *v);
/* Store one sample of metric name with the entity, plus the oomlens series
 * the metric is known to mean (vllm:num_requests_running -> server.running,
 * ...). Returns 0 or -1. */
int prom_sample(struct sink *s, const char *name, const char *entity,
		const struct ol_time *t, double v);

#endif
