/*
 * fuzz_smaps.c -- libFuzzer harness for parsers/host/smaps.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/host/smaps.h"

FUZZ_TEXT_PARSER(smaps_sniff, smaps_parse)
