/*
 * fuzz_shell_kill.c -- libFuzzer harness for parsers/host/shell_kill.c (a
 * shell's "Killed" job report; see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/host/shell_kill.h"

FUZZ_TEXT_PARSER(shell_kill_sniff, shell_kill_parse)
