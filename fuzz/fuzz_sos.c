/*
 * fuzz_sos.c -- libFuzzer harness for parsers/bundles/sos.c (version.txt,
 * sos.log, package lists): every reader of the file runs over each input,
 * sniffed first, with the null sink (fuzz_line_parser.h).
 */
#include "fuzz_line_parser.h"
#include "parsers/bundles/sos.h"

FUZZ_TEXT_READERS("sosreport/version.txt",
		  { sos_version_sniff, sos_version_parse }, { sos_log_sniff, sos_log_parse },
		  { pkg_list_sniff, pkg_list_parse })
