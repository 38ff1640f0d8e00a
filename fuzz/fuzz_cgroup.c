/*
 * fuzz_cgroup.c -- libFuzzer harness for parsers/host/cgroup.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/host/cgroup.h"

FUZZ_TEXT_PARSER(cgroup_sniff, cgroup_parse)
