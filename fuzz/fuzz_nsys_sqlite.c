/*
 * fuzz_nsys_sqlite.c -- libFuzzer harness for parsers/tools/nsys_sqlite.c: any
 * bytes as an Nsight Systems export, opened from memory (see
 * fuzz_line_parser.h). The seed is an export written from NVIDIA's schema.
 */
#include "fuzz_line_parser.h"
#include "parsers/tools/nsys_sqlite.h"

FUZZ_TEXT_PARSER(nsys_sqlite_sniff, nsys_sqlite_parse)
