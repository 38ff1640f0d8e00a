#!/bin/sh
# t_browser.sh OOMLENS SRCDIR -- the HTML report in a real browser
# (headless Chromium, Debian's package: sh scripts/deps.sh --browser).
#
# Two reports: `oomlens analyze` on fixtures/demo plus a kernel log whose
# process names carry markup (tests/data/report/hostile-kern.log), and a
# full incident (series, findings, snapshot and core tables) with hostile
# strings everywhere, built by tests/data/report/make_incident.py on the
# schema of `oomlens ingest`. Each is opened from a file URL; the test
# checks that
#   - the page made no request of its own (net log: every URL request is
#     Chromium's own, initiator "not an origin"; hosts resolve nowhere),
#   - no script from the artifacts ran (document.title unchanged) and the
#     DOM has no <script>, <img>, no on* handler attribute, no javascript: URL,
#   - the chart's SVG is there with drawn series,
#   - the first screen answers (issue 26): the verdict and the fix above
#     the fold at 1400x900, tables scrolling (not wrapped letter by
#     letter) at 420 px,
# and leaves screenshots (browser-*.png) in the working directory to look
# at. A control page with an injected script and image must fail the same
# checks, so they can fail. Exit 77 (skipped) when Chromium is missing.
set -eu
oomlens=$1
src=$2
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	echo "SKIP t_browser: chromium is not installed (run: sh scripts/deps.sh --browser)"
	exit 77
fi
command -v python3 >/dev/null || { echo "SKIP t_browser: python3 missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$(pwd)

# chrome NAME MODE FILE.html ARGS...: one headless run, fresh profile
chrome() {
	n=$1 mode=$2 f=$3
	shift 3
	prof=$(mktemp -d "$tmp/profile.XXXXXX")
	timeout 90 "$browser" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --disable-extensions --user-data-dir="$prof" \
		--host-resolver-rules="MAP * ~NOTFOUND" "$@" "file://$f" \
		>"$tmp/$n.$mode.out" 2>"$tmp/$n.$mode.err" || {
		echo "FAIL: chromium failed on $f ($mode)"; cat "$tmp/$n.$mode.err"; exit 1; }
}

# run_browser FILE.html NAME: dump the DOM with a net log, then a screenshot
run_browser() {
	chrome "$2" dom "$1" --dump-dom --log-net-log="$tmp/$2.net.json"
	chrome "$2" shot "$1" --screenshot="$out/browser-$2.png" --window-size=1200,1700 \
		--hide-scrollbars
}

# check NAME TITLE CHART: 0 when the page is clean (and, CHART=1, has a
# drawn chart), 1 with the reasons otherwise
check() {
	python3 - "$tmp/$1.dom.out" "$tmp/$1.net.json" "$2" "$3" <<'EOF'
import json, re, sys
dom = open(sys.argv[1], encoding="utf-8", errors="replace").read()
title = sys.argv[3]
bad = []
m = re.search(r"<title>([^<]*)</title>", dom)
if not m or m.group(1) != title:
    bad.append("document.title changed: %r" % (m.group(1) if m else None))
if re.search(r"<script\b", dom, re.I):
    bad.append("a <script> element is in the DOM")
if re.search(r"<img\b", dom, re.I):
    bad.append("an <img> element is in the DOM")
for tag in re.findall(r"<[a-zA-Z][^>]*>", dom):
    if re.search(r"\son[a-z]+\s*=", tag, re.I) or re.search(r"=\s*\"?\s*javascript:", tag, re.I):
        bad.append("handler or javascript: URL in tag " + tag[:120])
if sys.argv[4] == "1" and not re.search(r'<path class="s"[^>]* d="M[0-9]', dom):
    bad.append("no chart SVG with a drawn series")
try:
    net = json.load(open(sys.argv[2]))
except ValueError:   # Chromium may leave the log unterminated
    raw = open(sys.argv[2]).read().rstrip().rstrip(",")
    net = json.loads(raw + "]}")
types = {v: k for k, v in net["constants"]["logEventTypes"].items()}
for e in net.get("events", []):
    p = e.get("params") or {}
    if types.get(e["type"]) == "URL_REQUEST_START_JOB" and "url" in p:
        if p.get("initiator") != "not an origin":
            bad.append("the page requested %s (initiator %s)" % (p["url"], p.get("initiator")))
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
EOF
}

fail=0
# 1: the real pipeline on the demo and the hostile kernel log
"$oomlens" analyze -q "$src/fixtures/demo" "$src/tests/data/report/hostile-kern.log" \
	--db "$tmp/a.db" -o "$tmp/analyze.html" || { echo "FAIL: oomlens analyze"; exit 1; }
# 2: a full incident, hostile strings in every artifact-controlled field
"$oomlens" ingest -q --db "$tmp/b.db" "$src/fixtures/demo" >/dev/null
python3 "$src/tests/data/report/make_incident.py" "$tmp/b.db" --hostile
"$oomlens" report -o "$tmp/incident.html" "$tmp/b.db"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$tmp/incident.html" ||
	{ echo "FAIL: the hostile names did not reach the report"; fail=1; }

for n in analyze incident; do
	run_browser "$tmp/$n.html" "$n"
	# the demo's kernel log has no series (and no UTC time without an
	# anchor): only the incident must draw its chart
	if check $n "OOM incident report" $([ $n = incident ] && echo 1 || echo 0); then
		echo "ok: $n.html is clean in Chromium (screenshot browser-$n.png)"
	else
		echo "FAIL: $n.html"; fail=1
	fi
done

# the control: the checks must catch a page that injects
cat >"$tmp/control.html" <<'EOF'
<!DOCTYPE html><html><head><title>OOM incident report</title></head><body>
<svg><path class="s" d="M0 0L1 1"/></svg><img src="http://example.invalid/x.png" onerror="x()">
<script>document.title = "pwned"</script></body></html>
EOF
run_browser "$tmp/control.html" control
if check control "OOM incident report" 1 >"$tmp/control.why"; then
	echo "FAIL: the checks did not catch the injected control page"; fail=1
else
	grep -q "document.title changed" "$tmp/control.why" &&
	grep -q "requested http://example.invalid" "$tmp/control.why" &&
	grep -q "<script> element" "$tmp/control.why" ||
		{ echo "FAIL: the control was caught for the wrong reasons:"; cat "$tmp/control.why"; fail=1; }
	echo "ok: the injected control page fails the checks"
fi
rm -f "$out/browser-control.png"

# The first screen (issue 26): at 1400x900 the verdict and the fix (the
# answer's #fix item) start above the fold; at 420 px no table cell is
# squeezed to a few letters (tables scroll in their own box) and the page
# itself does not scroll sideways at either width. A copy of the report, its CSP removed,
# gets a probe script that writes what it measured into document.title;
# --dump-dom returns it. A control page with the fix pushed below the
# fold and a table squeezed must fail the same checks.
probe() {   # probe IN.html OUT.html [EXTRA-HTML-BEFORE-THE-ANSWER]
	python3 - "$1" "$2" "${3:-}" <<'EOF2'
import re, sys
s = open(sys.argv[1], encoding="utf-8").read()
s = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", s)
if sys.argv[3]:
    s = s.replace("<ul class=answer", sys.argv[3] + "<ul class=answer", 1)
js = """<script>(function(){var f=document.getElementById('fix'),v=document.querySelector('.verdict');
var narrow=0;document.querySelectorAll('td,th').forEach(function(c){var t=c.textContent.trim();
if(t.length>4&&c.getBoundingClientRect().width<40)narrow++;});
document.title='PROBE fix='+(f?Math.round(f.getBoundingClientRect().top):-1)+' verdict='+
(v?Math.round(v.getBoundingClientRect().top):-1)+' narrow='+narrow+' overflow='+
(document.documentElement.scrollWidth-window.innerWidth);})();</script>"""
open(sys.argv[2], "w", encoding="utf-8").write(s.replace("</body>", js + "</body>"))
EOF2
}
# measure FILE.html WIDTH: print the probe's title
measure() {
	prof=$(mktemp -d "$tmp/profile.XXXXXX")
	timeout 90 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--no-first-run --disable-background-networking --user-data-dir="$prof" \
		--host-resolver-rules="MAP * ~NOTFOUND" --window-size="$2",900 --dump-dom \
		"file://$1" 2>/dev/null | sed -n 's/.*<title>PROBE \([^<]*\)<\/title>.*/\1/p'
}
# first_screen FILE.html NAME: 0 when the answer is above the fold and
# nothing is squeezed, else 1 with the reason
first_screen() {
	wide=$(measure "$1" 1400) narrow=$(measure "$1" 420)
	echo "$2: 1400px: $wide; 420px: $narrow"
	python3 - "$wide" "$narrow" <<'EOF2'
import sys
w = dict(kv.split("=") for kv in sys.argv[1].split())
n = dict(kv.split("=") for kv in sys.argv[2].split())
bad = []
if not 0 <= int(w.get("fix", -1)) < 900:
    bad.append("the fix is not on the first screen at 1400x900 (top %s)" % w.get("fix"))
if not 0 <= int(w.get("verdict", -1)) < 900:
    bad.append("the verdict is not on the first screen at 1400x900")
if int(n.get("narrow", 1)):
    bad.append("%s table cells squeezed under 40 px at 420 px" % n.get("narrow"))
for px, m in (("1400", w), ("420", n)):
    if int(m.get("overflow", 1)) > 0:
        bad.append("the page scrolls sideways at %s px (%s px)" % (px, m.get("overflow")))
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
EOF2
}
"$oomlens" analyze -q "$src/tests/data/real/serving/vllm-0.7-workerprocess-torch-oom.log" \
	--db "$tmp/c.db" -o "$tmp/torch.html" || { echo "FAIL: oomlens analyze"; exit 1; }
for n in analyze torch; do
	probe "$tmp/$n.html" "$tmp/$n.probe.html"
	if first_screen "$tmp/$n.probe.html" $n; then
		echo "ok: $n.html answers on the first screen and scrolls its tables at 420 px"
	else
		echo "FAIL: $n.html first screen"; fail=1
	fi
done
probe "$tmp/torch.html" "$tmp/late.probe.html" \
	'<div style="height:1200px"></div><table style="width:20px;display:table"><tr><td style="min-width:0;overflow-wrap:anywhere">squeezed letter by letter</td></tr></table>'
if first_screen "$tmp/late.probe.html" control >"$tmp/late.why"; then
	echo "FAIL: the first-screen checks did not catch the control"; fail=1
else
	grep -q "the fix is not on the first screen" "$tmp/late.why" &&
	grep -q "squeezed" "$tmp/late.why" ||
		{ echo "FAIL: the control was caught for the wrong reasons:"; cat "$tmp/late.why"; fail=1; }
	echo "ok: the first-screen control fails the checks"
fi
exit $fail
