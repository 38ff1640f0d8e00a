file(REMOVE_RECURSE
  "CMakeFiles/test_snapshot.dir/tests/test_snapshot.c.o"
  "CMakeFiles/test_snapshot.dir/tests/test_snapshot.c.o.d"
  "CMakeFiles/test_snapshot.dir/tests/testutil.c.o"
  "CMakeFiles/test_snapshot.dir/tests/testutil.c.o.d"
  "test_snapshot"
  "test_snapshot.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_snapshot.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
