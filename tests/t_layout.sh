#!/bin/sh
# t_layout.sh OOMLENS SRCDIR -- the layout of issue 25, checked on the tree:
#  1. no source file (.c .h .py .sh) of the project is over 800 lines; data
#     is not source: tests/data/ and the fixture case folders (fixtures/*/)
#     are skipped, as are .git, hidden folders and build folders (build*);
#  2. the pipeline shows in the folders: cli/ and analyzer/derive/ exist,
#     and parsers/ holds family folders only, no .c or .h directly in it;
#  3. includes run one way between jobs: a job is a folder (lib,
#     parsers/<family>, analyzer/ingest, analyzer/store, analyzer/derive,
#     analyzer/rules, reports, cli); an #include "x/y.h" is an edge from
#     the including file's job to x's, an include without a folder stays in
#     the job; the graph of jobs must have no circle (tsort finds one).
#     A circle inside one folder is fine;
#  4. every global name liboomlens_core.a defines (nm -g) carries a module
#     prefix: the rule is that it has the form prefix_rest (a lone word such
#     as `add`, `find`, `emit` or `rules` names no module), and its first
#     word is not a generic verb from DENY below (`add_value`, `put_sample`
#     read as a verb, not as a module). Static names are free.
# OOMLENS_CORE_LIB overrides the library checked (default: the one built
# beside OOMLENS). Exit 0 when all hold, 1 naming each that does not.
set -u
bin=$1
src=$2
lib=${OOMLENS_CORE_LIB:-$(dirname "$bin")/liboomlens_core.a}
DENY="add find balance emit put step get set push pop"
. "$src/tests/testlib.sh"

# the project's source files, relative to src
(cd "$src" && find . \( -name '.?*' -o -path './build*' -o -path './tests/data' \
	-o \( -path './fixtures/*' -type d \) \) -prune -o -type f \
	\( -name '*.c' -o -name '*.h' -o -name '*.py' -o -name '*.sh' \) -print) |
	sed 's|^\./||' | sort > "$tmp/files"
[ -s "$tmp/files" ] && ok || no "no source files found under $src"

# 1. no file over 800 lines
while read -r f; do
	n=$(wc -l < "$src/$f")
	if [ "$n" -gt 800 ]; then no "$f has $n lines (at most 800)"; fi
done < "$tmp/files"
ok

# 2. the folders of the pipeline
for d in cli analyzer/derive; do
	if [ -d "$src/$d" ]; then ok; else no "$d/ is missing"; fi
done
loose=$(cd "$src" && ls parsers/*.c parsers/*.h 2>/dev/null)
if [ -z "$loose" ]; then ok; else no "parsers/ holds files outside a family folder: $loose"; fi

# 3. no circle of includes between jobs
job() { # job PATH_DIR -> the job a folder belongs to, or nothing
	case $1 in
	lib | analyzer/ingest | analyzer/store | analyzer/derive | analyzer/rules | analyzer/plan | reports | cli | watch)
		echo "$1" ;;
	parsers/*/*) echo "$1" | cut -d/ -f1-2 ;;
	parsers/*) echo "$1" ;;
	esac
}
grep -E '^(lib|parsers|analyzer|reports|cli|watch)/.*\.[ch]$' "$tmp/files" | while read -r f; do
	from=$(job "$(dirname "$f")")
	[ -n "$from" ] || continue
	sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$src/$f" | while read -r inc; do
		case $inc in
		*/*) to=$(job "$(dirname "$inc")") ;;
		*) to=$from ;;
		esac
		[ -n "$to" ] && [ "$to" != "$from" ] && echo "$from $to  $f -> $inc"
	done
done > "$tmp/edges"
cut -d' ' -f1,2 "$tmp/edges" | sort -u > "$tmp/jobedges"
if tsort "$tmp/jobedges" > /dev/null 2> "$tmp/loop"; then
	ok
else
	no "a circle of includes between jobs (tsort):"
	sed -e 's/^tsort: //' -e "s|^$tmp/jobedges: ||" "$tmp/loop"
	# one include for each edge between two jobs of the circle
	sed -n 's/^tsort: \([a-z/_]*\)$/\1/p' "$tmp/loop" | sort -u > "$tmp/injobs"
	sort -u -k1,2 "$tmp/edges" | while read -r a b rest; do
		if grep -qx "$a" "$tmp/injobs" && grep -qx "$b" "$tmp/injobs"; then
			echo "    $a -> $b: $rest"
		fi
	done
fi

# 4. exported names carry a module prefix
if ! command -v nm > /dev/null; then
	echo "SKIP: nm is missing"; exit 77
fi
if [ ! -f "$lib" ]; then
	no "no library to check at $lib"
else
	nm -g --defined-only "$lib" 2> /dev/null |
		awk '$2 ~ /^[TDRBCGSV]$/ { print $3 }' | sort -u > "$tmp/names"
	[ -s "$tmp/names" ] && ok || no "no global names in $lib"
	bad=$(awk -v deny="$DENY" '
		BEGIN { n = split(deny, d, " "); for (i = 1; i <= n; i++) verb[d[i]] = 1 }
		index($0, "_") < 2 { print "  " $0 " (no module prefix)"; next }
		{ split($0, w, "_"); if (w[1] in verb) print "  " $0 " (starts with the verb " w[1] ")" }
	' "$tmp/names")
	if [ -z "$bad" ]; then ok; else no "global names without a module prefix:"; echo "$bad"; fi
fi

finish t_layout
