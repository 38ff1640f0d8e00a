#!/bin/sh
# bench/run.sh [NAME...] -- run the benchmarks (bench/bench_NAME.sh), each
# printing its figures. Large inputs are generated under bench/out/.
set -e
here=$(cd "$(dirname "$0")" && pwd)
names="$*"
[ -n "$names" ] || names=$(cd "$here" && ls bench_*.sh | sed 's/^bench_//; s/\.sh$//')
for n in $names; do
	echo "== bench $n"
	sh "$here/bench_$n.sh" "$here/../build/oomlens" "$here/out"
done
