/*
 * fuzz_torch_stats.c -- libFuzzer harness for parsers/torch/torch_stats.c and parsers/common/pyjson.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/torch/torch_stats.h"

FUZZ_TEXT_PARSER(torch_stats_sniff, torch_stats_parse)
