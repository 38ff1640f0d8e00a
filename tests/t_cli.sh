#!/bin/sh
# t_cli.sh OOMLENS SRCDIR -- the command line as a user meets it: help,
# version, exit codes, analyze/report/timeline round trip, and that a
# broken artifact does not stop the others.
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() { # check NAME EXPECTED_RC ACTUAL_RC
	if [ "$2" = "$3" ]; then pass=$((pass + 1)); else
		echo "FAIL: $1: exit $3, expected $2"; fail=$((fail + 1)); fi
}
hasnt() { # hasnt NAME FILE TEXT
	if grep -q -- "$3" "$2"; then echo "FAIL: $1: '$3' in $2"; fail=$((fail + 1)); else
		pass=$((pass + 1)); fi
}
has() { # has NAME FILE TEXT
	if grep -q -- "$3" "$2"; then pass=$((pass + 1)); else
		echo "FAIL: $1: '$3' not in $2"; fail=$((fail + 1)); fi
}

"$bin" --version >"$tmp/v"; check version 0 $?
has version "$tmp/v" "oomlens [0-9]"
# Help is asked for: on stdout, exit 0; a wrong command line: stderr, exit 2.
"$bin" --help >"$tmp/h" 2>/dev/null; check "--help" 0 $?
has "--help on stdout" "$tmp/h" "usage: oomlens <command>"
for c in analyze ingest report timeline classify replay convert diff; do
	"$bin" $c --help >"$tmp/h" 2>/dev/null; check "$c --help" 0 $?
	has "$c --help on stdout" "$tmp/h" "usage: oomlens $c"
done
"$bin" analyze --tz >/dev/null 2>"$tmp/e"; check "option without its value" 2 $?
has "missing value said" "$tmp/e" "--tz needs a value"
"$bin" analyze --frobnicate x >/dev/null 2>"$tmp/e"; check "unknown option" 2 $?
has "unknown option said" "$tmp/e" "unknown option '--frobnicate'"
# replay of nothing is not a pass
"$bin" replay "$tmp/no-such-case" >/dev/null 2>"$tmp/e"; check "replay of a missing path" 2 $?
has "missing case named" "$tmp/e" "no-such-case: No such file or directory"
mkdir "$tmp/empty-case"
"$bin" replay "$tmp/empty-case" >/dev/null 2>"$tmp/e"; check "replay of no case" 2 $?
has "no case said" "$tmp/e" "no case to replay"
"$bin" nosuchcommand 2>/dev/null; check "unknown command" 2 $?
"$bin" analyze 2>/dev/null; check "analyze without paths" 2 $?
"$bin" analyze --format pdf x 2>/dev/null; check "bad format" 2 $?
"$bin" ingest --db "$tmp/x.db" --kind nope x 2>/dev/null; check "bad kind" 2 $?
"$bin" analyze --db "$tmp/x.db" --kind nope x 2>/dev/null; check "analyze: bad kind" 2 $?
# one vLLM worker's line is not enough for its head to be claimed; the
# text fallback reads it whole all the same, as --kind does
printf '(Worker pid=7) INFO 05-06 20:59:57 [default_loader.py:384] started\n' >"$tmp/w.log"
"$bin" analyze -q --db "$tmp/w0.db" --json "$tmp/w.log" >"$tmp/w0.json" 2>&1
check "read by the text fallback" 0 $?
has "text fallback read" "$tmp/w0.json" '"instance": "pid 7"'
"$bin" analyze -q --db "$tmp/w.db" --json --kind server_log "$tmp/w.log" >"$tmp/w.json"
check "analyze --kind" 0 $?
has "forced kind read" "$tmp/w.json" '"instance": "pid 7"'

# Nothing usable: exit 1, and the reason is said.
printf 'just some text\n' >"$tmp/notes.txt"
"$bin" analyze --db "$tmp/n.db" --json "$tmp/notes.txt" >/dev/null 2>"$tmp/e"; check "nothing usable" 1 $?
has "nothing usable message" "$tmp/e" "nothing usable"

# A directory with a good log, a missing file and junk: exit 0, all listed.
mkdir "$tmp/inc"
cp "$src/fixtures/demo/"* "$tmp/inc/"
printf 'junk\n' >"$tmp/inc/zz-notes.txt"
printf 'junk\000\001\002\n' >"$tmp/inc/zz-blob.bin"   # binary: not read
"$bin" analyze -q --db "$tmp/a.db" --format json "$tmp/inc" "$tmp/missing.log" >"$tmp/a.json"
check "analyze dir" 0 $?
has "json events" "$tmp/a.json" '"kind": "oom_kill"'
has "json skipped artifact" "$tmp/a.json" '"status": "skipped"'
has "json text read, nothing in it" "$tmp/a.json" '"status": "no_records"'
has "json failed artifact" "$tmp/a.json" '"status": "failed"'
"$bin" report --format md "$tmp/a.db" >"$tmp/a.md"; check "report md" 0 $?
has "md verdict" "$tmp/a.md" "Verdict"
"$bin" report -o "$tmp/a.html" "$tmp/a.db"; check "report html" 0 $?
has "html doctype" "$tmp/a.html" "<!DOCTYPE html>"
has "html clocks" "$tmp/a.html" "<h3>Clocks</h3>"
# --boot-time is shown as the anchor that placed dmesg times
printf '[ 4600.100000] Out of memory: Killed process 4312 (python3) total-vm:1000kB, anon-rss:800kB, file-rss:0kB, shmem-rss:0kB\n' >"$tmp/dmesg.txt"
"$bin" analyze -q --boot-time 2026-11-29T10:00:00Z --db "$tmp/b.db" -o "$tmp/b.html" "$tmp/dmesg.txt"
check "analyze --boot-time" 0 $?
has "anchor shown" "$tmp/b.html" "<td>--boot-time</td>"
"$bin" timeline "$tmp/b.db" >"$tmp/tb"
has "dmesg placed on UTC" "$tmp/tb" "2026-11-29T11:16:40.100000Z"
"$bin" timeline "$tmp/a.db" >"$tmp/t"; check "timeline" 0 $?
has "timeline kill" "$tmp/t" "oom_kill"
"$bin" timeline --kind=oom_kill "$tmp/a.db" >"$tmp/t"; check "timeline --kind=" 0 $?
has "timeline --kind kill" "$tmp/t" "oom_kill"
"$bin" timeline --kind bogus "$tmp/a.db" >/dev/null 2>"$tmp/e"; check "timeline --kind bogus" 2 $?
has "kinds listed" "$tmp/e" "its kinds: .*oom_kill"
"$bin" report "$tmp/notes.txt" 2>/dev/null >/dev/null; check "report on a non-db" 1 $?

# gzip is read transparently.
gzip -c "$src/fixtures/demo/kern.log" >"$tmp/kern.log.gz"
"$bin" ingest -q --db "$tmp/g.db" "$tmp/kern.log.gz"; check "ingest gz" 0 $?
"$bin" timeline "$tmp/g.db" >"$tmp/tg"
has "gz events" "$tmp/tg" "oom_kill"

# A syslog holding kernel and vLLM lines is read by both line-log parsers.
{
	head -3 "$src/fixtures/demo/kern.log"
	for i in 0 1 2; do
		echo "2025-11-29T18:2$i:00.000000+0000 gpu-a100-03 vllm[4312]: INFO 11-29 18:2$i:00" \
		     "[loggers.py:116] Engine 000: Avg prompt throughput: 2040.0 tokens/s, Avg generation" \
		     "throughput: 424.8 tokens/s, Running: 2$i reqs, Waiting: 0 reqs, GPU KV cache usage:" \
		     "11.8%, Prefix cache hit rate: 0.0%"
	done
	tail -n +4 "$src/fixtures/demo/kern.log"
} >"$tmp/syslog"
"$bin" analyze -q --db "$tmp/s.db" --format json "$tmp/syslog" >"$tmp/s.json"; check "mixed syslog" 0 $?
has "mixed syslog: kernel part" "$tmp/s.json" '"kind": "oom_kill"'
has "mixed syslog: server part" "$tmp/s.json" '"name": "server.running"'
has "mixed syslog: two artifacts" "$tmp/s.json" '"kind": "server_log"'

# A PyTorch OOM kills nothing: the header names the failed allocation.
"$bin" analyze -q --tz +00:00 --year 2026 --format md --db "$tmp/g2.db" \
	"$src/fixtures/mixed_gpu_leak_spike" >"$tmp/g2.md"; check "gpu incident md" 0 $?
has "failed allocation" "$tmp/g2.md" "Failed allocation:\*\* 236 MiB"
has "gpu verdict" "$tmp/g2.md" "Verdict:\*\* leak"

# Without --tz, the sources with zone-less local times are named on stderr.
"$bin" analyze --year 2026 --format json --db "$tmp/g3.db" \
	"$src/fixtures/mixed_gpu_leak_spike" >/dev/null 2>"$tmp/g3.err"; check "local clock run" 0 $?
has "local clock named" "$tmp/g3.err" "local times without a zone.*nvidia-smi.csv"

# Artifacts a year apart are flagged as possibly two incidents, in every
# format, and the year a zone-less log got from its mtime is said.
cp "$src/fixtures/demo/kern.log" "$tmp/old-kern.log"
cp "$src/fixtures/mixed_gpu_leak_spike/nvidia-smi.csv" "$tmp/new-smi.csv"
"$bin" analyze -q --format md --db "$tmp/apart.db" "$tmp/old-kern.log" "$tmp/new-smi.csv" \
	>"$tmp/apart.md"; check "artifacts apart" 0 $?
has "apart flagged" "$tmp/apart.md" "Possibly not one incident: .*new-smi.csv begins"
"$bin" report --format json "$tmp/apart.db" >"$tmp/apart.json"
has "apart in json" "$tmp/apart.json" '"possibly_different"'
printf 'Dec 30 10:00:00 gpu-a100-03 kernel: Out of memory: Killed process 4312 (python3) total-vm:1000kB, anon-rss:800kB, file-rss:0kB, shmem-rss:0kB\n' >"$tmp/messages"
touch -d 2026-01-02T00:00:00Z "$tmp/messages"
"$bin" analyze -q --format md --db "$tmp/year.db" "$tmp/messages" >"$tmp/year.md"
has "inferred year said" "$tmp/year.md" "Year of .*messages: inferred from the file's mtime (2026-01-02)"
"$bin" timeline "$tmp/year.db" >"$tmp/year.t"
has "no date after the file" "$tmp/year.t" "^2025-12-30T10:00:00"
# diff: two snapshots by holder, from files or databases
snap=$src/tests/data/snapshot
"$bin" diff --format md "$snap/holders_frames.p4.pickle" "$snap/holders_b.p4.pickle" >"$tmp/d.md"
check "diff md" 0 $?
has "diff grown" "$tmp/d.md" "+8.00 MiB (16.0 MiB to 24.0 MiB) on cuda:0: /srv/app/kv"
has "diff gone" "$tmp/d.md" "### Gone"
has "diff new" "$tmp/d.md" "/srv/app/sampler"
has "diff by pool" "$tmp/d.md" "pool 0,1 (private): reserved"
"$bin" ingest -q --db "$tmp/h.db" "$snap/holders_b.p4.pickle"; check "ingest b" 0 $?
"$bin" diff --json -o "$tmp/d.json" "$snap/holders_frames.p4.pickle" "$tmp/h.db"
check "diff pickle against db" 0 $?
has "diff json" "$tmp/d.json" '"status": "grown"'
# diff's default (issue 26): text on standard output, HTML only into a file
"$bin" diff "$snap/holders_frames.p4.pickle" "$snap/holders_b.p4.pickle" >"$tmp/d.txt"
check "diff default" 0 $?
has "diff default is text" "$tmp/d.txt" "/srv/app/kv"
hasnt "diff default is not HTML" "$tmp/d.txt" "<html"
"$bin" diff -o "$tmp/d.html" "$snap/holders_frames.p4.pickle" "$snap/holders_b.p4.pickle"
check "diff -o" 0 $?
has "diff -o FILE is HTML" "$tmp/d.html" "<html"
if command -v script >/dev/null 2>&1; then   # a terminal on standard output
	script -qec "'$bin' diff --format html '$snap/holders_frames.p4.pickle' \
		'$snap/holders_b.p4.pickle'" /dev/null >"$tmp/tty" 2>&1
	check "diff html to a terminal" 2 $?
	has "diff html to a terminal refused" "$tmp/tty" "give -o FILE.html"
fi
"$bin" diff "$snap/holders_frames.p4.pickle" >/dev/null 2>&1; check "diff of one" 2 $?
"$bin" diff "$tmp/notes.txt" "$tmp/h.db" >/dev/null 2>"$tmp/e"; check "diff of a non-snapshot" 1 $?
has "diff nothing usable" "$tmp/e" "nothing usable"
"$bin" diff "$tmp/a.db" "$tmp/h.db" >/dev/null 2>"$tmp/e"; check "diff of a db without snapshot" 1 $?
has "diff no holders said" "$tmp/e" "no PyTorch snapshot with holders"

echo "t_cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
