# Empty dependencies file for oomlens_core.
# This may be replaced when dependencies are built.
