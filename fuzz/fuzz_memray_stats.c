/*
 * fuzz_memray_stats.c -- libFuzzer harness for parsers/tools/memray_stats.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/tools/memray_stats.h"

FUZZ_TEXT_PARSER(memray_stats_sniff, memray_stats_parse)
