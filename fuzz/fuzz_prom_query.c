/*
 * fuzz_prom_query.c -- libFuzzer harness for parsers/tools/prom_query.c and parsers/common/pyjson.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/tools/prom_text.h"

FUZZ_TEXT_PARSER(prom_query_sniff, prom_query_parse)
