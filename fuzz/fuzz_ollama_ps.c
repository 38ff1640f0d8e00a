/*
 * fuzz_ollama_ps.c -- libFuzzer harness for parsers/tools/ollama_ps.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/tools/ollama_ps.h"

FUZZ_TEXT_PARSER(ollama_ps_sniff, ollama_ps_parse)
