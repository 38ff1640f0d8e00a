/*
 * fuzz_mustgather.c -- libFuzzer harness for parsers/k8s/mustgather.c (a
 * must-gather tree's version file and must-gather.log): every reader of
 * the file runs over each input, sniffed first, with the null sink
 * (fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/k8s/mustgather.h"

FUZZ_TEXT_READERS("must-gather/must-gather.log",
		  { mg_version_sniff, mg_version_parse }, { mg_log_sniff, mg_log_parse })
