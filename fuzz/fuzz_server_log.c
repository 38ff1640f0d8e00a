/*
 * fuzz_server_log.c -- libFuzzer harness for the server-log parser (parsers/server_*.c,
 * parsers/serving/engine_lines.c, parsers/serving/engine_readers.c, engine_readers_trt.c,
 * parsers/torch/torch_oom_text.c; see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/serving/server_log.h"

FUZZ_TEXT_PARSER(server_log_sniff, server_log_parse)
