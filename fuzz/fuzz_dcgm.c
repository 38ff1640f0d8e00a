/*
 * fuzz_dcgm.c -- libFuzzer harness for parsers/dcgm.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/dcgm.h"

FUZZ_TEXT_PARSER(dcgm_sniff, dcgm_parse)
