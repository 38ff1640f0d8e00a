#!/bin/sh
# t_crash.sh OOMLENS SRCDIR -- databases survive kill -9 and are written
# by one process at a time: ingest and ingest --append killed at random
# points leave the previous database (or none) or the complete new one,
# never a damaged or half one (sqlite3's integrity_check and the artifact
# count say which); a second writer to a database in use is refused; and
# a run longer than a second shows its progress on a terminal.
set -u
bin=$1
src=$2
command -v sqlite3 >/dev/null || { echo "sqlite3 not found: skipped"; exit 77; }
. "$src/tests/testlib.sh"
count() { sqlite3 "$1" "SELECT count(*) FROM artifact" 2>&1; }
intact() { sqlite3 "$1" "PRAGMA integrity_check" 2>&1; }
# a random delay in seconds, 0.05 .. 0.05 + $1
delay() { awk -v seed="$(od -An -N4 -tu4 /dev/urandom)" -v span="$1" \
	'BEGIN { srand(seed); printf "%.3f", 0.05 + rand() * span }'; }

# Two sets of many small artifacts: each is one transaction, so an ingest
# of a set takes long enough to be killed at many different points.
n=600
mkdir "$tmp/a" "$tmp/b"
i=0
while [ $i -lt $n ]; do
	cp "$src/fixtures/demo/kern.log" "$tmp/a/k$i.log"
	cp "$src/fixtures/demo/kern.log" "$tmp/b/k$i.log"
	i=$((i + 1))
done
start=$(date +%s.%N)
"$bin" ingest -q --db "$tmp/base.db" "$tmp/a" || no "base ingest"
took=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
[ "$(count "$tmp/base.db")" = $n ] && ok || no "base count $(count "$tmp/base.db")"

# kill -9 during a fresh ingest over no database, then over a complete one.
for round in 1 2 3 4 5 6 7 8; do
	db="$tmp/fresh.db"
	[ $round -gt 4 ] && cp "$tmp/base.db" "$db"
	"$bin" ingest -q --db "$db" "$tmp/b" &
	pid=$!
	sleep "$(delay "$took")"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	if [ ! -e "$db" ]; then
		[ $round -le 4 ] && ok || no "ingest round $round: the previous database is gone"
	else
		[ "$(intact "$db")" = ok ] && ok || no "ingest round $round: $(intact "$db")"
		[ "$(count "$db")" = $n ] && ok || no "ingest round $round: $(count "$db") artifacts"
	fi
	ls -A "$tmp" | grep -q '^fresh\.db-journal$' && no "ingest round $round: a journal beside it"
	rm -f "$db" "$tmp"/.fresh.db.*
done

# kill -9 during ingest --append: the database before the append, or after it.
for round in 1 2 3 4 5 6 7 8; do
	db="$tmp/app.db"
	cp "$tmp/base.db" "$db"
	"$bin" ingest -q --append --db "$db" "$tmp/b" &
	pid=$!
	sleep "$(delay "$took")"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	[ "$(intact "$db")" = ok ] && ok || no "append round $round: $(intact "$db")"
	c=$(count "$db")
	[ "$c" = $n ] || [ "$c" = $((2 * n)) ] && ok || no "append round $round: $c artifacts"
	# and the next writer carries on from it
	"$bin" ingest -q --append --db "$db" "$tmp/b" >/dev/null 2>&1
	[ "$(count "$db")" = $((2 * n)) ] && ok || no "append round $round: resumed to $(count "$db")"
	rm -f "$db" "$tmp"/.app.db.*
done

# Two writers at once: the second is refused, the first's work is kept.
cp "$tmp/base.db" "$tmp/c.db"
"$bin" analyze -q --db "$tmp/c.db" --format json "$tmp/b" >/dev/null 2>"$tmp/first.err" &
pid=$!
i=0
while [ ! -e "$tmp/.c.db.lock" ] && [ $i -lt 200 ]; do sleep 0.02; i=$((i + 1)); done
"$bin" analyze -q --db "$tmp/c.db" --format json "$src/fixtures/demo" >/dev/null 2>"$tmp/second.err"
rc=$?
"$bin" ingest -q --append --db "$tmp/c.db" "$src/fixtures/demo" 2>"$tmp/third.err"
rc3=$?
wait $pid
rc1=$?
[ $rc = 1 ] && ok || no "second analyze: exit $rc, expected 1"
grep -q "another oomlens (pid $pid) is writing this database" "$tmp/second.err" && ok ||
	no "second analyze: $(cat "$tmp/second.err")"
[ $rc3 = 1 ] && grep -q "another oomlens" "$tmp/third.err" && ok || no "concurrent append: exit $rc3"
[ $rc1 = 0 ] && ok || no "first analyze: exit $rc1: $(cat "$tmp/first.err")"
[ "$(count "$tmp/c.db")" = $n ] && ok || no "first analyze's database: $(count "$tmp/c.db") artifacts"
[ ! -e "$tmp/.c.db.lock" ] && ok || no "lock file left behind"

# A database replaced while a killed write's journal is beside it (found
# by tools/kill_campaign.sh): `ingest --append` killed after its journal
# was synced leaves it hot, and SQLite played it into the database renamed
# over it ("database disk image is malformed"). Made here for certain: a
# transaction that spills pages into the file, then the process gone.
if command -v python3 >/dev/null; then
	cp "$tmp/base.db" "$tmp/hot.db"
	python3 - "$tmp/hot.db" <<'PY'
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=DELETE")
db.execute("PRAGMA cache_size=2")
db.execute("BEGIN")
db.execute("UPDATE event SET summary = summary || 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'")
os._exit(0)
PY
	[ "$(od -An -N4 -tx1 "$tmp/hot.db-journal" 2>/dev/null | tr -d ' ')" = d9d505f9 ] && ok ||
		no "no hot journal made"
	"$bin" ingest -q --db "$tmp/hot.db" "$src/fixtures/leak_gpu_vllm" 2>/dev/null
	[ "$(intact "$tmp/hot.db")" = ok ] && [ "$(count "$tmp/hot.db")" = 3 ] && ok ||
		no "the database put over a hot journal: $(intact "$tmp/hot.db" | head -1)"
	[ ! -e "$tmp/hot.db-journal" ] && ok || no "the old database's journal is left beside the new"
fi

# Progress on a terminal for a run over a second (many small files):
# enough copies of the set to take some seconds.
if command -v script >/dev/null; then
	sets=$(awk -v t="$took" 'BEGIN { n = int(4 / (t + 0.01)) + 1; print (n < 4 ? 4 : n > 20 ? 20 : n) }')
	dirs=""
	i=0
	while [ $i -lt "$sets" ]; do
		cp -r "$tmp/a" "$tmp/p$i"
		dirs="$dirs '$tmp/p$i'"
		i=$((i + 1))
	done
	script -qec "'$bin' ingest -q --db '$tmp/p.db' $dirs" "$tmp/tty.log" >/dev/null 2>&1
	grep -q "artifacts, [0-9]* MB read in" "$tmp/tty.log" && ok ||
		no "no progress line on a terminal ($sets x $n files)"
	"$bin" ingest -q --db "$tmp/p2.db" "$tmp/a" 2>"$tmp/notty.err"
	grep -q "MB read in" "$tmp/notty.err" && no "progress when stderr is not a terminal" || ok
fi

echo "t_crash: an ingest of $n files took $took s"
finish t_crash
