/*
 * fuzz_torch_summary.c -- libFuzzer harness for parsers/torch/torch_summary.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/torch/torch_summary.h"

FUZZ_TEXT_PARSER(torch_summary_sniff, torch_summary_parse)
