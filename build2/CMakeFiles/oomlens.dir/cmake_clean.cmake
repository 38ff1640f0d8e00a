file(REMOVE_RECURSE
  "CMakeFiles/oomlens.dir/analyzer/main.c.o"
  "CMakeFiles/oomlens.dir/analyzer/main.c.o.d"
  "oomlens"
  "oomlens.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/oomlens.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
