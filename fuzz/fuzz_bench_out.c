/*
 * fuzz_bench_out.c -- libFuzzer harness for parsers/tools/bench_out.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/tools/bench_out.h"

FUZZ_TEXT_PARSER(bench_out_sniff, bench_out_parse)
