/*
 * fuzz_ps_table.c -- libFuzzer harness for parsers/host/ps_table.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/host/ps_table.h"

FUZZ_TEXT_PARSER(ps_table_sniff, ps_table_parse)
