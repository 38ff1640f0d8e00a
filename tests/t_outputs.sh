#!/bin/sh
# t_outputs.sh OOMLENS SRCDIR -- an output path that is not a regular file
# is never replaced by one (issue 32): a character device or a FIFO is
# written in place as a stream, /dev/stdout and '-' print to standard
# output, a symbolic link or a directory is refused and left as it was,
# and a device that refuses the bytes (a copy of /dev/full) makes the
# command fail; a reader of standard output that stops early leaves the
# database whole. Every device used is made in a temporary folder (mknod,
# as root; skipped otherwise), never the machine's own /dev.
set -u
bin=$1
src=$2
. "$src/tests/testlib.sh"
is() { # is NAME TEST-FLAG PATH: the path is still what it was
	if [ "$2" "$3" ]; then ok; else no "$1: $3 is no longer $2"; ls -la "$3"; fi
}
run() { # run OUT-PATH [FORMAT]: analyze the demo fixture into OUT-PATH
	rm -f "$tmp/i.db"
	"$bin" analyze -q --format "${2:-md}" --db "$tmp/i.db" -o "$1" "$src/fixtures/demo" \
		>"$tmp/out" 2>"$tmp/err"
}

# a FIFO: read by another process, left a FIFO
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fifo.read" &
reader=$!
run "$tmp/fifo"
check "fifo" 0 $?
wait $reader
is "fifo" -p "$tmp/fifo"
has "fifo's reader got the report" "$tmp/fifo.read" "Verdict"

# standard output, by name
run /dev/stdout
check "/dev/stdout" 0 $?
has "/dev/stdout printed" "$tmp/out" "Verdict"
is "/dev/stdout" -h /dev/stdout
run -
check "-" 0 $?
has "- printed" "$tmp/out" "Verdict"

# standard output read by a reader that is gone (`| true`, a pager quit: the
# rest of the report meets SIGPIPE): the database is whole and in place,
# as a report to stdout cannot be taken back
rm -f "$tmp/i.db"
"$bin" analyze -q --format md --db "$tmp/i.db" -o - "$src/fixtures/demo" 2>"$tmp/err" | true
[ -s "$tmp/i.db" ] && "$bin" report --format text -o "$tmp/again.txt" "$tmp/i.db" 2>>"$tmp/err" &&
	grep -q "misconfig\|leak\|spike" "$tmp/again.txt" && ok ||
	no "stdout closed early: the database is not whole ($(cat "$tmp/err"))"

# a symbolic link to a file: refused, the link and its target untouched
echo "keep" >"$tmp/target"
ln -s "$tmp/target" "$tmp/link"
run "$tmp/link"
check "symlink" 1 $?
is "symlink" -h "$tmp/link"
has "symlink's target untouched" "$tmp/target" "^keep$"
has "symlink refusal said" "$tmp/err" "symbolic link"
# a dangling one too: never created as a file
ln -s "$tmp/nowhere" "$tmp/dangling"
run "$tmp/dangling"
check "dangling symlink" 1 $?
is "dangling symlink" -h "$tmp/dangling"
[ -e "$tmp/nowhere" ] && no "dangling symlink: its target was created" || ok

# a directory: refused
mkdir "$tmp/dir"
run "$tmp/dir"
check "directory" 1 $?
is "directory" -d "$tmp/dir"

# character devices (root only): a null device takes the report, a full
# one refuses it and the command fails; both stay devices
if [ "$(id -u)" = 0 ] && mknod "$tmp/null" c 1 3 2>/dev/null && mknod "$tmp/full" c 1 7; then
	run "$tmp/null"
	check "null device" 0 $?
	is "null device" -c "$tmp/null"
	run "$tmp/full" text
	check "full device" 1 $?
	is "full device" -c "$tmp/full"
	has "full device said" "$tmp/err" "No space left"
else
	echo "not root or no mknod: the device cases are skipped"
fi

# a regular file is replaced whole, as before
echo "old" >"$tmp/report.md"
run "$tmp/report.md"
check "regular file" 0 $?
has "regular file replaced" "$tmp/report.md" "Verdict"

finish t_outputs
