/*
 * fuzz_torch_trace.c -- libFuzzer harness for parsers/torch/torch_trace.c and parsers/common/pyjson.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/torch/torch_trace.h"

FUZZ_TEXT_PARSER(torch_trace_sniff, torch_trace_parse)
