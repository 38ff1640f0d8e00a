file(REMOVE_RECURSE
  "liboomlens_core.a"
)
