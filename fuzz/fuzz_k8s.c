/*
 * fuzz_k8s.c -- libFuzzer harness for the Kubernetes parser (parsers/k8s/k8s.c):
 * any bytes, sniffed and parsed into the null sink.
 */
#include "fuzz_line_parser.h"
#include "parsers/k8s/k8s.h"

FUZZ_TEXT_PARSER(k8s_sniff, k8s_parse)
