# CMake generated Testfile for 
# Source directory: /work/wt-snapshot
# Build directory: /work/wt-snapshot/build2
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test(test_core "/work/wt-snapshot/build2/test_core")
set_tests_properties(test_core PROPERTIES  WORKING_DIRECTORY "/work/wt-snapshot/build2" _BACKTRACE_TRIPLES "/work/wt-snapshot/CMakeLists.txt;64;add_test;/work/wt-snapshot/CMakeLists.txt;0;")
add_test(test_snapshot "/work/wt-snapshot/build2/test_snapshot")
set_tests_properties(test_snapshot PROPERTIES  WORKING_DIRECTORY "/work/wt-snapshot/build2" _BACKTRACE_TRIPLES "/work/wt-snapshot/CMakeLists.txt;64;add_test;/work/wt-snapshot/CMakeLists.txt;0;")
