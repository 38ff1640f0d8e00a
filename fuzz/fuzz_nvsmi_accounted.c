/*
 * fuzz_nvsmi_accounted.c -- libFuzzer harness for
 * parsers/gpu/nvsmi_accounted.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/gpu/nvsmi_accounted.h"

FUZZ_TEXT_PARSER(nvsmi_accounted_sniff, nvsmi_accounted_parse)
