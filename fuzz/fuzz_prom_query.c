/*
 * fuzz_prom_query.c -- libFuzzer harness for parsers/prom_query.c and parsers/pyjson.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/prom_text.h"

FUZZ_TEXT_PARSER(prom_query_sniff, prom_query_parse)
