/*
 * fuzz_nsys_stats.c -- libFuzzer harness for parsers/tools/nsys_stats.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/tools/nsys_stats.h"

FUZZ_TEXT_PARSER(nsys_stats_sniff, nsys_stats_parse)
