
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt-snapshot/tests/test_core.c" "CMakeFiles/test_core.dir/tests/test_core.c.o" "gcc" "CMakeFiles/test_core.dir/tests/test_core.c.o.d"
  "/work/wt-snapshot/tests/testutil.c" "CMakeFiles/test_core.dir/tests/testutil.c.o" "gcc" "CMakeFiles/test_core.dir/tests/testutil.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/wt-snapshot/build2/CMakeFiles/oomlens_core.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
