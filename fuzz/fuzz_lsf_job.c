/*
 * fuzz_lsf_job.c -- libFuzzer harness for parsers/host/lsf_job.c (IBM LSF's
 * job report, TERM_MEMLIMIT; see fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/host/lsf_job.h"

FUZZ_TEXT_PARSER(lsf_job_sniff, lsf_job_parse)
