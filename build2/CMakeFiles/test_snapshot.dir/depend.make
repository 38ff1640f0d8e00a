# Empty dependencies file for test_snapshot.
# This may be replaced when dependencies are built.
