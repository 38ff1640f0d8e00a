#!/bin/sh
# deps.sh -- install the Debian packages oomlens needs to build and test,
# skipping those already present. Run as root on Debian 12 (bookworm) or later.
#   scripts/deps.sh            build + test dependencies (clang and its
#                              sanitizer/libFuzzer runtime for the ASan/UBSan
#                              test build and the fuzzers; valgrind for
#                              bench/check.sh's instruction counts)
#   scripts/deps.sh --browser  also Chromium, for the HTML report browser test
#   scripts/deps.sh --bench    also the tools the benchmarks use
set -e
pkgs="build-essential cmake pkg-config libsqlite3-dev libelf-dev libdw-dev zlib1g-dev liblz4-dev libarchive-dev libjansson-dev libcmocka-dev python3 sqlite3 gdb clang libclang-rt-dev valgrind"
[ "$1" = "--browser" ] && pkgs="$pkgs chromium"
[ "$1" = "--bench" ] && pkgs="$pkgs time bc"

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing packages:$missing (run as root, or install them)" >&2
	exit 1
fi
echo "deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
