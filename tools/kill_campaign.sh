#!/bin/sh
# kill_campaign.sh OOMLENS [ROUNDS] -- the kill -9 campaign of issue 32, by
# hand (not in `make test`; tests/t_crash.sh is its small, routine form).
# Each round kills oomlens at a random moment, one of:
#   analyze   a fresh `analyze` over no database: afterwards there is no
#             database, or a complete one; no hidden temporary (.NAME.*)
#             is left in its folder once the next run has started;
#   replace   a fresh `analyze` over an existing database: the old one is
#             left byte-identical, or the new one is complete;
#   append    `ingest --append` of a second set: integrity_check is ok and
#             the earlier content (every evidence table's rows of the
#             earlier artifacts) is byte-identical to what it was, with the
#             appended set either wholly there or not at all.
# The evidence is real: the fixtures' kernel logs, serving logs, snapshots
# and metrics, copied many times over so a run lasts long enough to be cut
# at many points. Prints one line per failure and a closing count; exit 1
# on any failure.
set -u
bin=$1
rounds=${2:-20}
src=$(cd "$(dirname "$0")/.." && pwd)
command -v sqlite3 >/dev/null || { echo "sqlite3 not found"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
no() { echo "FAIL: $*"; fail=$((fail + 1)); }
delay() { awk -v seed="$(od -An -N4 -tu4 /dev/urandom)" -v span="$1" \
	'BEGIN { srand(seed); printf "%.3f", 0.02 + rand() * span }'; }
intact() { sqlite3 "$1" "PRAGMA integrity_check" 2>&1; }
# the evidence tables' rows of artifacts 1..N, in a stable text form
earlier() {
	sqlite3 "$1" "SELECT * FROM artifact WHERE id <= $2 ORDER BY id;
		SELECT * FROM diagnostic WHERE artifact_id <= $2 ORDER BY id;
		SELECT * FROM event WHERE artifact_id <= $2 ORDER BY id;
		SELECT t.* FROM task t JOIN event e ON e.id = t.event_id
		 WHERE e.artifact_id <= $2 ORDER BY t.id;
		SELECT * FROM series WHERE artifact_id <= $2 ORDER BY id;
		SELECT p.* FROM sample p JOIN series s ON s.id = p.series_id
		 WHERE s.artifact_id <= $2 ORDER BY p.rowid;
		SELECT * FROM meta WHERE artifact_id <= $2 ORDER BY rowid;" 2>&1 | cksum
}
mkdir "$tmp/a" "$tmp/b" "$tmp/out"
i=0
for f in "$src"/fixtures/*/*.log "$src"/fixtures/*/*.csv "$src"/fixtures/*/*.pickle; do
	[ -f "$f" ] || continue
	i=$((i + 1))
	case $((i % 2)) in
	0) cp "$f" "$tmp/a/$i-$(basename "$f")" ;;
	1) cp "$f" "$tmp/b/$i-$(basename "$f")" ;;
	esac
done
for k in 1 2 3; do
	cp -r "$tmp/a" "$tmp/a$k" && mv "$tmp/a$k" "$tmp/a/copy$k"
	cp -r "$tmp/b" "$tmp/b$k" && mv "$tmp/b$k" "$tmp/b/copy$k"
done
start=$(date +%s.%N)
"$bin" analyze -q --db "$tmp/base.db" -o "$tmp/base.json" "$tmp/a" 2>/dev/null
took=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
nbase=$(sqlite3 "$tmp/base.db" "SELECT count(*) FROM artifact")
cp "$tmp/base.db" "$tmp/base.orig"
base_sum=$(earlier "$tmp/base.db" "$nbase")
cp "$tmp/base.db" "$tmp/full.db"
"$bin" ingest -q --append --db "$tmp/full.db" "$tmp/b" 2>/dev/null
nfull=$(sqlite3 "$tmp/full.db" "SELECT count(*) FROM artifact")
echo "base: $nbase artifacts in ${took}s; with the append: $nfull"
r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	for mode in analyze replace append; do
		db="$tmp/out/r.db"
		rm -f "$tmp/out/"* "$tmp/out/".r.* 2>/dev/null
		case $mode in
		analyze) "$bin" analyze -q --db "$db" -o "$tmp/r.json" "$tmp/a" 2>/dev/null & ;;
		replace) cp "$tmp/base.orig" "$db"
			"$bin" analyze -q --db "$db" -o "$tmp/r.json" "$tmp/b" 2>/dev/null & ;;
		append) cp "$tmp/base.orig" "$db"
			"$bin" ingest -q --append --db "$db" "$tmp/b" 2>/dev/null & ;;
		esac
		pid=$!
		sleep "$(delay "$took")"
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		if [ ! -e "$db" ]; then
			[ $mode = analyze ] && pass=$((pass + 1)) || no "$mode $r: the database is gone"
			continue
		fi
		[ "$(intact "$db")" = ok ] || { no "$mode $r: integrity_check: $(intact "$db")"; continue; }
		n=$(sqlite3 "$db" "SELECT count(*) FROM artifact")
		case $mode in
		analyze) [ "$n" = "$nbase" ] && pass=$((pass + 1)) ||
				no "$mode $r: $n artifacts, expected none or $nbase" ;;
		replace) if cmp -s "$db" "$tmp/base.orig"; then pass=$((pass + 1))
			elif [ "$n" -gt 0 ] && [ "$(sqlite3 "$db" "SELECT count(*) FROM verdict")" -ge 1 ]
			then pass=$((pass + 1))
			else no "$mode $r: neither the old database nor a complete new one ($n)"; fi ;;
		append) if [ "$(earlier "$db" "$nbase")" != "$base_sum" ]; then
				no "$mode $r: the earlier content changed"
			elif [ "$n" != "$nbase" ] && [ "$n" != "$nfull" ]; then
				no "$mode $r: $n artifacts: neither $nbase nor $nfull"
			else pass=$((pass + 1)); fi ;;
		esac
	done
done
# a temporary left by a kill is removed by the next run into the folder
"$bin" analyze -q --db "$tmp/out/r.db" -o "$tmp/r.json" "$tmp/a" 2>/dev/null
left=$(ls -A "$tmp/out" | grep -v '^r\.db$' | tr '\n' ' ')
[ -z "$left" ] && pass=$((pass + 1)) || no "temporaries left in the output folder: $left"
echo "kill -9 campaign: $((rounds * 3)) kills; $pass passed, $fail failed"
[ $fail -eq 0 ]
