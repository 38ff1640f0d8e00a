
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt-snapshot/analyzer/cmd_analyze.c" "CMakeFiles/oomlens_core.dir/analyzer/cmd_analyze.c.o" "gcc" "CMakeFiles/oomlens_core.dir/analyzer/cmd_analyze.c.o.d"
  "/work/wt-snapshot/analyzer/cmd_convert.c" "CMakeFiles/oomlens_core.dir/analyzer/cmd_convert.c.o" "gcc" "CMakeFiles/oomlens_core.dir/analyzer/cmd_convert.c.o.d"
  "/work/wt-snapshot/analyzer/cmd_ingest.c" "CMakeFiles/oomlens_core.dir/analyzer/cmd_ingest.c.o" "gcc" "CMakeFiles/oomlens_core.dir/analyzer/cmd_ingest.c.o.d"
  "/work/wt-snapshot/analyzer/cmd_report.c" "CMakeFiles/oomlens_core.dir/analyzer/cmd_report.c.o" "gcc" "CMakeFiles/oomlens_core.dir/analyzer/cmd_report.c.o.d"
  "/work/wt-snapshot/analyzer/cmd_timeline.c" "CMakeFiles/oomlens_core.dir/analyzer/cmd_timeline.c.o" "gcc" "CMakeFiles/oomlens_core.dir/analyzer/cmd_timeline.c.o.d"
  "/work/wt-snapshot/analyzer/formats.c" "CMakeFiles/oomlens_core.dir/analyzer/formats.c.o" "gcc" "CMakeFiles/oomlens_core.dir/analyzer/formats.c.o.d"
  "/work/wt-snapshot/analyzer/ingest.c" "CMakeFiles/oomlens_core.dir/analyzer/ingest.c.o" "gcc" "CMakeFiles/oomlens_core.dir/analyzer/ingest.c.o.d"
  "/work/wt-snapshot/analyzer/timeline.c" "CMakeFiles/oomlens_core.dir/analyzer/timeline.c.o" "gcc" "CMakeFiles/oomlens_core.dir/analyzer/timeline.c.o.d"
  "/work/wt-snapshot/analyzer/timeline_snapshot.c" "CMakeFiles/oomlens_core.dir/analyzer/timeline_snapshot.c.o" "gcc" "CMakeFiles/oomlens_core.dir/analyzer/timeline_snapshot.c.o.d"
  "/work/wt-snapshot/analyzer/verdict.c" "CMakeFiles/oomlens_core.dir/analyzer/verdict.c.o" "gcc" "CMakeFiles/oomlens_core.dir/analyzer/verdict.c.o.d"
  "/work/wt-snapshot/lib/input.c" "CMakeFiles/oomlens_core.dir/lib/input.c.o" "gcc" "CMakeFiles/oomlens_core.dir/lib/input.c.o.d"
  "/work/wt-snapshot/lib/strbuf.c" "CMakeFiles/oomlens_core.dir/lib/strbuf.c.o" "gcc" "CMakeFiles/oomlens_core.dir/lib/strbuf.c.o.d"
  "/work/wt-snapshot/lib/timeutil.c" "CMakeFiles/oomlens_core.dir/lib/timeutil.c.o" "gcc" "CMakeFiles/oomlens_core.dir/lib/timeutil.c.o.d"
  "/work/wt-snapshot/parsers/kernel_oom.c" "CMakeFiles/oomlens_core.dir/parsers/kernel_oom.c.o" "gcc" "CMakeFiles/oomlens_core.dir/parsers/kernel_oom.c.o.d"
  "/work/wt-snapshot/parsers/pickle.c" "CMakeFiles/oomlens_core.dir/parsers/pickle.c.o" "gcc" "CMakeFiles/oomlens_core.dir/parsers/pickle.c.o.d"
  "/work/wt-snapshot/parsers/sink.c" "CMakeFiles/oomlens_core.dir/parsers/sink.c.o" "gcc" "CMakeFiles/oomlens_core.dir/parsers/sink.c.o.d"
  "/work/wt-snapshot/parsers/torch_flat.c" "CMakeFiles/oomlens_core.dir/parsers/torch_flat.c.o" "gcc" "CMakeFiles/oomlens_core.dir/parsers/torch_flat.c.o.d"
  "/work/wt-snapshot/parsers/torch_model.c" "CMakeFiles/oomlens_core.dir/parsers/torch_model.c.o" "gcc" "CMakeFiles/oomlens_core.dir/parsers/torch_model.c.o.d"
  "/work/wt-snapshot/parsers/torch_snapshot.c" "CMakeFiles/oomlens_core.dir/parsers/torch_snapshot.c.o" "gcc" "CMakeFiles/oomlens_core.dir/parsers/torch_snapshot.c.o.d"
  "/work/wt-snapshot/reports/html.c" "CMakeFiles/oomlens_core.dir/reports/html.c.o" "gcc" "CMakeFiles/oomlens_core.dir/reports/html.c.o.d"
  "/work/wt-snapshot/reports/json.c" "CMakeFiles/oomlens_core.dir/reports/json.c.o" "gcc" "CMakeFiles/oomlens_core.dir/reports/json.c.o.d"
  "/work/wt-snapshot/reports/markdown.c" "CMakeFiles/oomlens_core.dir/reports/markdown.c.o" "gcc" "CMakeFiles/oomlens_core.dir/reports/markdown.c.o.d"
  "/work/wt-snapshot/reports/query.c" "CMakeFiles/oomlens_core.dir/reports/query.c.o" "gcc" "CMakeFiles/oomlens_core.dir/reports/query.c.o.d"
  "/work/wt-snapshot/reports/report.c" "CMakeFiles/oomlens_core.dir/reports/report.c.o" "gcc" "CMakeFiles/oomlens_core.dir/reports/report.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
