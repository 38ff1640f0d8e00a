/*
 * fuzz_prom_text.c -- libFuzzer harness for parsers/tools/prom_text.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/tools/prom_text.h"

FUZZ_TEXT_PARSER(prom_text_sniff, prom_text_parse)
