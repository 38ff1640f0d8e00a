/*
 * fuzz_memray_json.c -- libFuzzer harness for parsers/memray_json.c and parsers/pyjson.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/memray_stats.h"

FUZZ_TEXT_PARSER(memray_json_sniff, memray_json_parse)
