/*
 * fuzz_torch_profiler.c -- libFuzzer harness for parsers/torch/torch_profiler.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/torch/torch_profiler.h"

FUZZ_TEXT_PARSER(torch_profiler_sniff, torch_profiler_parse)
