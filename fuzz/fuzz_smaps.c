/*
 * fuzz_smaps.c -- libFuzzer harness for parsers/smaps.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/smaps.h"

FUZZ_TEXT_PARSER(smaps_sniff, smaps_parse)
