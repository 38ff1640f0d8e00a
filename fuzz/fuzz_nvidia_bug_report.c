/*
 * fuzz_nvidia_bug_report.c -- libFuzzer harness for the nvidia-bug-report
 * reader (parsers/bundles/nvbug.c, with the nvidia-smi -q and kernel
 * readers it feeds; see fuzz_line_parser.h). Seeds: fuzz/corpus/nvidia_bug_report/.
 */
#include "fuzz_line_parser.h"
#include "parsers/bundles/nvbug.h"

FUZZ_TEXT_PARSER(nvbug_sniff, nvbug_parse)
