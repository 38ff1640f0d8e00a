/*
 * fuzz_procmem.c -- libFuzzer harness for parsers/host/procmem.c (meminfo,
 * free, buddyinfo, slabinfo): every reader of the file runs over each
 * input, sniffed first, with the null sink (fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/host/procmem.h"

FUZZ_TEXT_READERS("sosreport/proc/meminfo",
		  { meminfo_sniff, meminfo_parse }, { free_out_sniff, free_out_parse },
		  { buddyinfo_sniff, buddyinfo_parse }, { slabinfo_sniff, slabinfo_parse })
