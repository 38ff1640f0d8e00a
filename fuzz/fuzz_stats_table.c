/*
 * fuzz_stats_table.c -- libFuzzer harness for parsers/host/stats_table.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/host/stats_table.h"

FUZZ_TEXT_PARSER(stats_table_sniff, stats_table_parse)
