#!/bin/sh
# t_pickle_root.sh OOMLENS SRCDIR -- a snapshot's segments come from the
# snapshot, never from another container that the pickle stream happens
# to open first (issue 32): CPython's pickle writes (frames, snapshot) as
# the frames list first, then the dict, then TUPLE2, and a pickled list
# of frames alone opens a list at the top too. Neither may give a
# segment; the snapshot alone and the old list-of-segments form give
# theirs. Pickles are written by CPython's own pickle module. Skipped (77)
# without python3 or sqlite3.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
command -v sqlite3 >/dev/null 2>&1 || { echo "sqlite3 not found: skipped"; exit 77; }
pass=0
fail=0
python3 - "$tmp" <<'PY' || exit 1
import pickle, sys
d = sys.argv[1]
frames = [{"filename": "train.py", "line": i, "name": "step"} for i in range(50)]
seg = {"device": 0, "address": 1 << 20, "total_size": 2 << 20, "allocated_size": 0,
       "active_size": 0, "requested_size": 0, "stream": 0, "segment_type": "large",
       "blocks": [{"size": 2 << 20, "requested_size": 0, "address": 1 << 20,
                   "state": "inactive", "frames": []}]}
snap = {"segments": [seg], "device_traces": [[]]}
for name, obj in (("tuple", (frames, snap)), ("frames", frames), ("snapshot", snap),
                  ("segment_list", [seg])):
    with open("%s/%s.pickle" % (d, name), "wb") as f:
        pickle.dump(obj, f, protocol=4)
PY
segments() { # segments NAME: the segments oomlens read from NAME.pickle
	rm -f "$tmp/t.db"
	"$bin" ingest --kind torch_snapshot --db "$tmp/t.db" "$tmp/$1.pickle" 2>"$tmp/$1.err"
	if [ -f "$tmp/t.db" ]; then sqlite3 "$tmp/t.db" "SELECT count(*) FROM segment"; else echo 0; fi
}
expect() { # expect NAME COUNT
	got=$(segments "$1")
	if [ "$got" = "$2" ]; then pass=$((pass + 1)); else
		echo "FAIL: $1: $got segments, expected $2"; cat "$tmp/$1.err"; fail=$((fail + 1)); fi
}
expect tuple 0
expect frames 0
expect snapshot 1
expect segment_list 1
grep -q "not a memory snapshot" "$tmp/tuple.err" && pass=$((pass + 1)) ||
	{ echo "FAIL: tuple: no word that the pickle is not a snapshot"; fail=$((fail + 1)); }
echo "pickle root: $pass passed, $fail failed"
[ "$fail" = 0 ]
