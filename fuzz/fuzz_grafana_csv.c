/*
 * fuzz_grafana_csv.c -- libFuzzer harness for parsers/tools/grafana_csv.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/tools/prom_text.h"

FUZZ_TEXT_PARSER(grafana_csv_sniff, grafana_csv_parse)
