/*
 * fuzz_environ.c -- libFuzzer harness for parsers/host/environ.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/host/environ.h"

FUZZ_TEXT_PARSER(environ_sniff, environ_parse)
