/*
 * fuzz_memray_json.c -- libFuzzer harness for parsers/tools/memray_json.c and parsers/common/pyjson.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/tools/memray_stats.h"

FUZZ_TEXT_PARSER(memray_json_sniff, memray_json_parse)
