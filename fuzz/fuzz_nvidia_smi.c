/*
 * fuzz_nvidia_smi.c -- libFuzzer harness for parsers/gpu/nvidia_smi.c (see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/gpu/nvidia_smi.h"

FUZZ_TEXT_PARSER(nvidia_smi_sniff, nvidia_smi_parse)
