/*
 * fuzz_memsamples.c -- libFuzzer harness for parsers/host/memsamples.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/host/memsamples.h"

FUZZ_TEXT_PARSER(memsamples_sniff, memsamples_parse)
