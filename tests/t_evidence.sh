#!/bin/sh
# t_evidence.sh OOMLENS SRCDIR -- the evidence is left as it was found and
# the command line says what it did: no input is replaced or written into,
# only oomlens databases are replaced, outputs never land in an input
# folder (analyze . goes to the state directory), oomlens's own outputs are
# not ingested, FIFOs and link cycles do not hang or multiply the walk,
# failures name the file and the reason, counts add up, an append skips
# what the database holds, and bytes from inputs cannot drive the terminal.
set -u
bin=$1
src=$2
. "$src/tests/testlib.sh"
# every "N artifacts: a read, b with errors, c failed, d skipped" adds up
adds_up() { # adds_up NAME FILE
	line=$(grep -o '[0-9]* artifacts: [0-9]* read, [0-9]* with errors, [0-9]* failed, [0-9]* skipped' "$2")
	set -- "$1" $(echo "$line" | tr -cs '0-9' ' ')
	if [ $# = 6 ] && [ "$2" = $(($3 + $4 + $5 + $6)) ]; then ok; else no "$1: counts '$line'"; fi
}
# a folder's listing and contents, to show it was not touched
snap() { (cd "$1" && ls -lA --time-style=+%s . && find . -type f -exec cksum {} +) 2>/dev/null; }

ev="$tmp/evidence"
mkdir "$ev"
cp "$src/fixtures/demo/kern.log" "$ev/kern.log"
cp "$ev/kern.log" "$tmp/kern.orig"
printf 'notes of the on-call engineer\n' >"$tmp/notes.txt"
cp "$tmp/notes.txt" "$tmp/notes.orig"

# --db naming an input, a text file or another program's SQLite file: refused, untouched.
"$bin" analyze --db "$ev/kern.log" "$ev/kern.log" >/dev/null 2>"$tmp/e"; check "db over an input" 1 $?
has "db over an input said" "$tmp/e" "would replace the input"
same "db over an input" "$ev/kern.log" "$tmp/kern.orig"
"$bin" ingest --db "$tmp/notes.txt" "$ev/kern.log" 2>"$tmp/e"; check "db over notes" 1 $?
has "db over notes said" "$tmp/e" "notes.txt: not an oomlens database"
same "db over notes" "$tmp/notes.txt" "$tmp/notes.orig"
if command -v sqlite3 >/dev/null; then
	sqlite3 "$tmp/other.db" "CREATE TABLE t(x); INSERT INTO t VALUES(1)"
	cp "$tmp/other.db" "$tmp/other.orig"
	"$bin" ingest --db "$tmp/other.db" "$ev/kern.log" 2>"$tmp/e"; check "db over a SQLite file" 1 $?
	has "db over a SQLite file said" "$tmp/e" "a SQLite file of another program"
	same "db over a SQLite file" "$tmp/other.db" "$tmp/other.orig"
fi
# ... but an oomlens database is replaced (and an empty file is fine).
"$bin" ingest -q --db "$tmp/a.db" "$ev/kern.log"; check "new db" 0 $?
"$bin" ingest -q --db "$tmp/a.db" "$ev/kern.log"; check "db replaced" 0 $?
: >"$tmp/empty.db"
"$bin" ingest -q --db "$tmp/empty.db" "$ev/kern.log"; check "empty file replaced" 0 $?
# -o / --db inside an input folder: refused.
"$bin" analyze --db "$tmp/b.db" -o "$ev/r.html" "$ev" 2>"$tmp/e"; check "report in the input folder" 1 $?
has "report in the input folder said" "$tmp/e" "inside the input folder"
"$bin" ingest --db "$ev/x.db" "$ev" 2>"$tmp/e"; check "db in the input folder" 1 $?
has "db in the input folder said" "$tmp/e" "x.db: the database would be written inside the input folder"
mkdir "$ev/sub"
"$bin" ingest --db "$ev/sub/x.db" "$ev/kern.log" "$tmp/notes.txt" "$ev/sub" 2>"$tmp/e"
check "db in a sub-folder of an input folder" 1 $?
rmdir "$ev/sub"
[ -z "$(ls -A "$ev" | grep -v '^kern.log$')" ] && ok || no "something was written in the input folder: $(ls -A "$ev")"
"$bin" report -o "$tmp/a.db" "$tmp/a.db" 2>"$tmp/e"; check "report over its database" 1 $?
"$bin" convert "$ev/kern.log" -o "$ev/kern.log" 2>"$tmp/e"; check "convert over its input" 1 $?
same "convert over its input" "$ev/kern.log" "$tmp/kern.orig"

# analyze . inside the evidence folder, twice: the outputs go to the state
# directory, the folder is untouched, the second run reads the same and
# writes beside the first's outputs, never over them (issue 26).
before=$(snap "$ev")
(cd "$ev" && XDG_STATE_HOME="$tmp/state" "$bin" analyze . >/dev/null 2>"$tmp/e1"); check "analyze . (1)" 0 $?
(cd "$ev" && XDG_STATE_HOME="$tmp/state" "$bin" analyze . >/dev/null 2>"$tmp/e2"); check "analyze . (2)" 0 $?
has "where the outputs went" "$tmp/e1" "go to $tmp/state/oomlens"
has "verdict line" "$tmp/e1" "verdict: .*report in $tmp/state/oomlens/incident.html"
has "second run's outputs said" "$tmp/e2" "incident.db is an earlier run's: this one writes $tmp/state/oomlens/incident-2.db"
has "second verdict line" "$tmp/e2" "verdict: .*report in $tmp/state/oomlens/incident-2.html"
[ -f "$tmp/state/oomlens/incident-2.db" ] && ok || no "no second database in the state directory"
[ "$before" = "$(snap "$ev")" ] && ok || no "analyze . changed the evidence folder"
[ -f "$tmp/state/oomlens/incident.db" ] && ok || no "no database in the state directory"
grep -o '[0-9]* artifacts.* records' "$tmp/e1" >"$tmp/c1"
grep -o '[0-9]* artifacts.* records' "$tmp/e2" >"$tmp/c2"
same "second run reads the same" "$tmp/c1" "$tmp/c2"

# Its own outputs among the artifacts are skipped as such.
mkdir "$tmp/mixed"
cp "$ev/kern.log" "$tmp/mixed/"
cp "$tmp/state/oomlens/incident.db" "$tmp/state/oomlens/incident.html" "$tmp/mixed/"
"$bin" report --json "$tmp/a.db" >"$tmp/mixed/r.json"
"$bin" report --format md "$tmp/a.db" >"$tmp/mixed/r.md"
"$bin" analyze --db "$tmp/m.db" --format json "$tmp/mixed" >"$tmp/m.json" 2>"$tmp/e"
check "own outputs among the artifacts" 0 $?
for f in incident.db incident.html r.json r.md; do
	has "$f skipped" "$tmp/e" "$f: skipped: an oomlens output"
done
[ "$(sqlite3 "$tmp/m.db" "SELECT count(*) FROM artifact WHERE status = 'skipped'")" = 4 ] && ok ||
	no "own outputs not skipped in the database"
[ "$(sqlite3 "$tmp/m.db" "SELECT count(*) FROM event")" = \
  "$(sqlite3 "$tmp/a.db" "SELECT count(*) FROM event")" ] && ok || no "own outputs added events"

# A FIFO and link cycles in a folder: no hang, each file once.
mkdir "$tmp/hostile"
cp "$ev/kern.log" "$tmp/hostile/"
mkfifo "$tmp/hostile/fifo"
ln -s . "$tmp/hostile/loop1"
ln -s . "$tmp/hostile/loop2"
ln -s ../hostile "$tmp/hostile/loop3"
ln -s kern.log "$tmp/hostile/link.log"
timeout 60 "$bin" ingest --db "$tmp/h.db" "$tmp/hostile" 2>"$tmp/e"; check "fifo and cycles" 0 $?
has "fifo skipped" "$tmp/e" "fifo: skipped: a FIFO"
has "cycle said" "$tmp/e" "loop1: skipped: the directory"
has "link read once" "$tmp/e" "link.log: skipped: the same file as"
adds_up "hostile counts" "$tmp/e"
[ "$(sqlite3 "$tmp/h.db" "SELECT count(*) FROM artifact")" = 3 ] && ok ||
	no "hostile folder: $(sqlite3 "$tmp/h.db" "SELECT count(*) FROM artifact") artifacts, expected 3"
timeout 10 "$bin" ingest --db "$tmp/f.db" "$tmp/hostile/fifo" 2>"$tmp/e"; check "a FIFO named" 1 $?

# Failures name the file and the system's reason; nothing is left behind.
"$bin" analyze --db "$tmp/n.db" -o "$tmp/nope/x.html" "$ev/kern.log" 2>"$tmp/e"; check "report dir missing" 1 $?
has "report dir missing said" "$tmp/e" "nope/x.html: cannot write: No such file or directory"
"$bin" ingest --db "$tmp/nope/x.db" "$ev/kern.log" 2>"$tmp/e"; check "db dir missing" 1 $?
has "db dir missing said" "$tmp/e" "nope/x.db: cannot be written: No such file or directory"
mkdir "$tmp/out"
printf 'just some text\n' >"$tmp/junk.txt"
"$bin" analyze --db "$tmp/out/j.db" -o "$tmp/out/j.html" "$tmp/junk.txt" 2>"$tmp/e"; check "nothing usable" 1 $?
[ -z "$(ls -A "$tmp/out")" ] && ok || no "a failed run left $(ls -A "$tmp/out")"
hasnt "no report announced" "$tmp/e" "report in"
# ... and when nothing usable comes out, each artifact's diagnostic (file,
# offset, reason) is on stderr, not left in a report that is not written
# (issue 32: a snapshot whose first opcode imports a class).
if command -v python3 >/dev/null; then
	python3 -c 'import pickle, collections, sys
open(sys.argv[1], "wb").write(pickle.dumps(collections.OrderedDict(segments=[]), protocol=2))' \
		"$tmp/global.pickle"
	"$bin" analyze --db "$tmp/out/g.db" -o "$tmp/out/g.html" "$tmp/global.pickle" 2>"$tmp/e"
	check "refused pickle" 1 $?
	has "refused pickle: file, offset, reason" "$tmp/e" \
		"global.pickle: .*pickle offset 2: opcode GLOBAL (0x63) refused"
	hasnt "refused pickle: no report named" "$tmp/e" "see the report\|report in"
	[ -z "$(ls -A "$tmp/out")" ] && ok || no "a refused pickle left $(ls -A "$tmp/out")"
fi

# Counts add up and name every status; a file of no record is not 'empty'.
sed 's/^\[ *\([0-9.]*\)\] /Nov 29 18:22:40 gpu-a100-03 kernel: [\1] /' >"$tmp/panic.log" <<'EOF'
[ 1234.567890] Kernel panic - not syncing: Fatal exception in interrupt
[ 1234.567891] CPU: 3 PID: 0 Comm: swapper/3 Tainted: G      D           5.15.0-91-generic #101-Ubuntu
[ 1234.567898] ---[ end Kernel panic - not syncing: Fatal exception in interrupt ]---
EOF
"$bin" ingest --db "$tmp/p.db" "$ev/kern.log" "$tmp/panic.log" "$tmp/junk.txt" "$tmp/missing.log" 2>"$tmp/e"
check "mixed statuses" 0 $?
adds_up "mixed counts" "$tmp/e"
has "no record said" "$tmp/e" "panic.log: kernel_log: read, but nothing in it is a record"
[ "$(sqlite3 "$tmp/p.db" "SELECT status FROM artifact WHERE path LIKE '%panic.log'")" = no_records ] &&
	ok || no "panic-only artifact status"
hasnt "no status empty" "$tmp/e" "empty"

# ingest --append of the same files skips them and says so; new ones are read.
"$bin" ingest --db "$tmp/p.db" --append "$ev/kern.log" "$tmp/junk.txt" 2>"$tmp/e"; check "append same" 0 $?
has "append skip said" "$tmp/e" "kern.log: kernel_log: skipped: already in the database"
has "nothing new said" "$tmp/e" "nothing new"
[ "$(sqlite3 "$tmp/p.db" "SELECT count(*) FROM artifact")" = 4 ] && ok || no "append duplicated rows"
gzip -c "$ev/kern.log" >"$tmp/kern.log.gz"
"$bin" ingest -q --db "$tmp/p.db" --append "$tmp/kern.log.gz"; check "append new" 0 $?
[ "$(sqlite3 "$tmp/p.db" "SELECT count(*) FROM artifact")" = 5 ] && ok || no "append of a new file"
[ "$(sqlite3 "$tmp/p.db" "SELECT count(DISTINCT hash) FROM artifact WHERE kind = 'kernel_log'
	AND path LIKE '%kern.log%'")" = 1 ] && ok || no "hash of .gz is of its content"

# ingest then report: the report classifies (no verdict stored yet).
"$bin" ingest -q --db "$tmp/r.db" "$ev/kern.log"
"$bin" report --format md "$tmp/r.db" >"$tmp/r.md"; check "report after ingest" 0 $?
has "report after ingest classified" "$tmp/r.md" "Verdict:\*\* [a-z]"
[ "$(sqlite3 "$tmp/r.db" "SELECT count(*) FROM verdict")" = 1 ] && ok || no "verdict not stored"

# Escape sequences in a file name reach the terminal escaped.
esc=$(printf 'evil\033]0;owned\007\033[31m.log')
printf 'junk\n' >"$tmp/$esc"
"$bin" ingest --db "$tmp/x.db" "$ev/kern.log" "$tmp/$esc" 2>"$tmp/e"
if grep -q "$(printf '\033')" "$tmp/e"; then no "raw escape on the terminal"; else ok; fi
has "escape shown as text" "$tmp/e" 'evil\\x1b]0;owned\\x07\\x1b\[31m.log'

# Links that leave the folder given are listed, not followed (issue 32):
# a bundle's environ -> /proc/self/environ would be the analyst's own
# environment; a link to a kernel log elsewhere is read only with
# --follow-outside. /proc/kmsg given directly is refused, never read.
lk="$tmp/linked"
mkdir "$lk" "$tmp/elsewhere"
cp "$src/fixtures/demo/kern.log" "$tmp/elsewhere/kern.log"
ln -s /proc/self/environ "$lk/environ"
ln -s "$tmp/elsewhere/kern.log" "$lk/kern.log"
"$bin" ingest --db "$tmp/l.db" "$lk" 2>"$tmp/e"; check "links out: nothing read" 1 $?
has "link into /proc said" "$tmp/e" "environ: skipped: a symbolic link to /proc/"
has "link out said" "$tmp/e" "kern.log: skipped: a symbolic link out of the folder given"
"$bin" ingest --follow-outside --db "$tmp/l2.db" "$lk" 2>"$tmp/e"; check "--follow-outside" 0 $?
has "--follow-outside still not into /proc" "$tmp/e" "environ: skipped: a symbolic link to /proc/"
[ "$(sqlite3 "$tmp/l2.db" "SELECT count(*) FROM event WHERE kind = 'oom_kill'")" -ge 1 ] && ok ||
	no "--follow-outside: the linked kernel log was not read"
if [ -e /proc/kmsg ]; then
	timeout 20 "$bin" ingest --db "$tmp/k.db" /proc/kmsg 2>"$tmp/e"; check "/proc/kmsg" 1 $?
	has "/proc/kmsg refused" "$tmp/e" "procfs"
fi

finish t_evidence
