/*
 * fuzz_nvidia_smi_table.c -- libFuzzer harness for the nvidia-smi table
 * parser (parsers/gpu/nvidia_smi_table.c): any bytes, sniffed and parsed into
 * the null sink.
 */
#include "fuzz_line_parser.h"
#include "parsers/gpu/nvidia_smi_table.h"

FUZZ_TEXT_PARSER(nvidia_smi_table_sniff, nvidia_smi_table_parse)
