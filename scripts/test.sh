#!/usr/bin/env bash
# README command two: install what is needed, build, and run every test:
#   1. GCC 12, -Werror: unit tests, the layout rule and the protocol tests against the real
#      binaries;
#   2. the benchmark harness in quick mode against Darius alone, to check it still works
#      (never a timed assertion: --check fails only when the harness or a row breaks);
#   3. the same suites under AddressSanitizer + UndefinedBehaviorSanitizer (GCC), less the
#      disk-bound volume tests (label "volume", e.g. the 10,000-message mbsync round trip);
#   4. clang 14: the whole tree but the unit tests (built twice above), with the libFuzzer
#      targets, each run for a few seconds.
# The GCC stages build with -g1 (line tables, enough for backtraces and sanitizer reports):
# full debug info made the builds a third of CI's time.
# DARIUS_TEST_STAGES selects stages (default "gcc bench asan fuzz").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
stages=${DARIUS_TEST_STAGES:-gcc bench asan fuzz}
jobs=$(nproc)
start=$(date +%s)

stage() { echo; echo "=== $* ($(( $(date +%s) - start ))s)"; }

for s in $stages; do
  case "$s" in
    gcc)
      stage "build: gcc"
      cmake -S . -B build/ci -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" >/dev/null
      cmake --build build/ci -j "$jobs"
      stage "test: gcc"
      ctest --test-dir build/ci --output-on-failure -j "$jobs" --timeout 600
      ;;
    bench)
      stage "bench: quick mode against Darius (harness check)"
      bash bench/run.sh --quick --servers darius --check --darius-build build/ci \
        --results build/ci/bench-results
      ;;
    asan)
      stage "build: gcc asan+ubsan"
      cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDARIUS_SANITIZE=ON \
        -DCMAKE_CXX_FLAGS_DEBUG=-g1 >/dev/null
      cmake --build build/asan -j "$jobs"
      stage "test: gcc asan+ubsan"
      ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir build/asan --output-on-failure -j "$jobs" --timeout 900 -LE volume
      ;;
    fuzz)
      stage "build: clang-14 with fuzzers"
      CC=clang-14 CXX=clang++-14 cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug \
        -DDARIUS_FUZZ=ON -DDARIUS_UNIT_TESTS=OFF >/dev/null
      cmake --build build/fuzz -j "$jobs"
      stage "test: fuzz targets (short runs)"
      ctest --test-dir build/fuzz -L fuzz --output-on-failure -j "$jobs"
      ;;
    *) echo "unknown stage $s" >&2; exit 2 ;;
  esac
done
stage "all stages passed: $stages"
