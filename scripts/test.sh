#!/usr/bin/env bash
# README command two: install what is needed, build, and run every test:
#   1. GCC 12, -Werror: unit tests, the layout rule and the protocol tests against the real
#      binaries;
#   2. the benchmark harness in quick mode against Darius alone, to check it still works
#      (never a timed assertion: --check fails only when the harness or a row breaks);
#   3. clang 14 with AddressSanitizer + UndefinedBehaviorSanitizer (UB aborts) and the
#      libFuzzer targets, in one build: the same suites less the disk-bound volume tests
#      (label "volume", e.g. the 10,000-message mbsync round trip), and each fuzz target run
#      for a few seconds (label "fuzz"). One clang build instead of a GCC sanitizer build plus
#      a clang fuzz build: both compilers still build everything, in half the compile time.
# Both builds are unity builds (CMAKE_UNITY_BUILD, 8 .cc files per TU): the headers (Asio
# coroutines) dominate each TU's compile time, so they are parsed once per 8 files instead of
# once per file (about 95 TUs instead of about 400). DARIUS_UNITY=OFF builds file by file.
# The GCC stage builds with -g1 and the clang one with line tables only (enough for
# backtraces and sanitizer reports): full debug info made the builds a third of CI's time.
# DARIUS_TEST_STAGES selects stages (default "gcc bench clang").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
stages=${DARIUS_TEST_STAGES:-gcc bench clang}
jobs=$(nproc)
unity=(-DCMAKE_UNITY_BUILD="${DARIUS_UNITY:-ON}" -DCMAKE_UNITY_BUILD_BATCH_SIZE=8)
start=$(date +%s)

stage() { echo; echo "=== $* ($(( $(date +%s) - start ))s)"; }

for s in $stages; do
  case "$s" in
    gcc)
      stage "build: gcc"
      cmake -S . -B build/ci -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "${unity[@]}" >/dev/null
      cmake --build build/ci -j "$jobs"
      stage "test: gcc"
      ctest --test-dir build/ci --output-on-failure -j "$jobs" --timeout 600
      ;;
    bench)
      stage "bench: quick mode against Darius (harness check)"
      bash bench/run.sh --quick --servers darius --check --darius-build build/ci \
        --results build/ci/bench-results
      ;;
    clang)
      stage "build: clang-14 asan+ubsan with fuzzers"
      CC=clang-14 CXX=clang++-14 cmake -S . -B build/clang -G Ninja -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only -DDARIUS_SANITIZE=ON -DDARIUS_FUZZ=ON \
        "${unity[@]}" >/dev/null
      cmake --build build/clang -j "$jobs"
      stage "test: clang asan+ubsan, fuzz targets (short runs)"
      ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir build/clang --output-on-failure -j "$jobs" --timeout 900 -LE volume
      ;;
    *) echo "unknown stage $s" >&2; exit 2 ;;
  esac
done
stage "all stages passed: $stages"
