# Empty compiler generated dependencies file for oomlens.
# This may be replaced when dependencies are built.
