# Thin wrapper over CMake. The two set-up commands of the README:
#   make demo   install what is missing, build, analyze a bundled fixture
#   make test   install what is missing, build, run every test (plain and ASan/UBSan)
# Also: make build, make bench, make bench-check [UPDATE=1|REFERENCE=1 WHY='...'],
# make fuzz [FUZZ_SECONDS=600], make clean.

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 60
DEPS_STAMP := build/.deps-ok

.PHONY: all deps browser-deps build demo test test-plain test-asan bench bench-check fuzz clean

all: build

$(DEPS_STAMP): scripts/deps.sh
	sh scripts/deps.sh
	@mkdir -p build && touch $@

deps: $(DEPS_STAMP)

build: deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOOMLENS_WERROR=OFF >/dev/null
	cmake --build build -j$(JOBS)

# A GPU incident from the fixtures: a slow leak in a vLLM server tipped over
# by a burst of requests (nvidia-smi log + vLLM log, times written in UTC).
demo: build
	./build/oomlens analyze --tz +00:00 --year 2026 fixtures/mixed_gpu_leak_spike \
		-o demo-report.html --db demo.db
	@echo "open demo-report.html"

# the HTML report's browser test (tests/t_browser.sh) needs Chromium
browser-deps:
	sh scripts/deps.sh --browser

# The test builds are development builds: warnings are errors there.
test-plain: deps browser-deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOOMLENS_WERROR=ON >/dev/null
	cmake --build build -j$(JOBS)
	cd build && ctest --output-on-failure -j$(JOBS)
	sh bench/check.sh build/oomlens

test-asan: deps
	CC=clang cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DOOMLENS_SANITIZE=ON -DOOMLENS_WERROR=ON >/dev/null
	cmake --build build-asan -j$(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j$(JOBS)

test: test-plain test-asan

bench: build
	sh scripts/deps.sh --bench
	sh bench/run.sh

# The benches' instruction counts against bench/baseline.tsv (bench/check.sh):
# fails on a rise of more than 5 %, or of more than 10 % over the fixed
# bench/reference.tsv; UPDATE=1 WHY='...' rewrites the baseline, REFERENCE=1
# WHY='...' re-takes the reference (on purpose only).
bench-check: build
	UPDATE="$(UPDATE)" REFERENCE="$(REFERENCE)" WHY="$(WHY)" sh bench/check.sh build/oomlens

fuzz: deps
	CC=clang cmake -S . -B build-fuzz -DOOMLENS_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build-fuzz -j$(JOBS)
	sh fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

clean:
	rm -rf build build-asan build-fuzz demo.db demo-report.html
