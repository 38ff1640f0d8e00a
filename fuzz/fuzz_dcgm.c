/*
 * fuzz_dcgm.c -- libFuzzer harness for parsers/gpu/dcgm.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/gpu/dcgm.h"

FUZZ_TEXT_PARSER(dcgm_sniff, dcgm_parse)
