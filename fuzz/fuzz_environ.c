/*
 * fuzz_environ.c -- libFuzzer harness for parsers/environ.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/environ.h"

FUZZ_TEXT_PARSER(environ_sniff, environ_parse)
