/*
 * fuzz_server_log.c -- libFuzzer harness for parsers/server_log.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/server_log.h"

FUZZ_TEXT_PARSER(server_log_sniff, server_log_parse)
