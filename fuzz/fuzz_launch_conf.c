/*
 * fuzz_launch_conf.c -- libFuzzer harness for parsers/serving/launch_conf.c
 * (launch commands and configurations pasted beside a failure; see
 * fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/serving/launch_conf.h"

FUZZ_TEXT_PARSER(launch_conf_sniff, launch_conf_parse)
