/*
 * fuzz_server_log.c -- libFuzzer harness for the server-log parser (parsers/server_*.c,
 * parsers/engine_lines.c, parsers/engine_readers.c,
 * parsers/torch_oom_text.c; see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/server_log.h"

FUZZ_TEXT_PARSER(server_log_sniff, server_log_parse)
