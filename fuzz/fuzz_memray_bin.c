/*
 * fuzz_memray_bin.c -- libFuzzer harness for parsers/tools/memray_bin.c, memray capture files (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/tools/memray_bin.h"

FUZZ_TEXT_PARSER(memray_bin_sniff, memray_bin_parse)
