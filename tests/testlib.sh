# testlib.sh -- what the shell tests share, sourced after they set bin and
# src (". "$src/tests/testlib.sh""): a temporary folder $tmp removed on
# exit, the pass and fail counts, the checks, and the closing line
# "NAME: N passed, N failed" whose exit status is the test's.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
no() { echo "FAIL: $*"; fail=$((fail + 1)); }
check() { # check NAME EXPECTED_RC ACTUAL_RC
	if [ "$2" = "$3" ]; then ok; else no "$1: exit $3, expected $2"; fi
}
has() { # has NAME FILE TEXT
	if grep -q -- "$3" "$2"; then ok; else no "$1: '$3' not in $2"; cat "$2"; fi
}
hasnt() { # hasnt NAME FILE TEXT
	if grep -q -- "$3" "$2"; then no "$1: '$3' in $2"; else ok; fi
}
same() { # same NAME FILE1 FILE2
	if cmp -s "$2" "$3"; then ok; else no "$1: $2 changed"; fi
}
finish() { # finish NAME: the closing line; returns 1 on any failure
	echo "$1: $pass passed, $fail failed"
	[ "$fail" = 0 ]
}
