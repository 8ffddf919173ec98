#!/usr/bin/env bash
# Fuzzes every loader of user input (tests/fuzz/fuzz_loaders.c) with
# libFuzzer under ASan/UBSan, seeded with the project's own files: device
# profiles, networks, clusters, calibrations, eager-overhead files, measured
# sweeps, and measurement files as `cnnperf validate` reads them.
#   tools/fuzz.sh [SECONDS]     random exploration for SECONDS (default 60)
#   tools/fuzz.sh --runs N      N inputs from a fixed seed (./setup.sh test runs 100000)
# Needs clang with libFuzzer (Debian: clang, with its recommended libclang-rt-*-dev; ./setup.sh test installs it).
# A crash, leak or hang leaves its input as build-fuzz/crash-*, leak-* or
# timeout-* and exits non-zero; add it to tests/data/bad/ with the refusal
# it should get.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--runs" ]; then
  budget=(-seed=1 -runs="${2:?--runs needs a count}")
  what="${2} runs from seed 1"
else
  budget=(-max_total_time="${1:-60}")
  what="${1:-60} s"
fi
# exit 77: skipped, this machine cannot build a libFuzzer target
command -v clang >/dev/null || { echo "tools/fuzz.sh: skipped: no clang (apt-get install clang)" >&2; exit 77; }
probe=$(mktemp -d)
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$probe/p.c"
if ! clang -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" 2>/dev/null; then
  rm -rf "$probe"
  echo "tools/fuzz.sh: skipped: clang here links no libFuzzer (Debian: libclang-rt-<version>-dev)" >&2
  exit 77
fi
rm -rf "$probe"
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DCNNPERF_FUZZ=ON -DCNNPERF_TESTS=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc 2>/dev/null || echo 2)" --target fuzz_loaders >/dev/null

corpus=build-fuzz/corpus
rm -rf "$corpus" && mkdir -p "$corpus"
seed() { # LOADER-BYTE FILE...: each file, prefixed with the byte that picks its loader
    local b=$1 f i=0
    shift
    for f in "$@"; do
        [ -f "$f" ] && [ "$(stat -c %s "$f")" -lt 200000 ] || continue
        { printf "\\$(printf '%03o' "$b")"; cat "$f"; } >"$corpus/$b-$i-$(basename "$f")"
        i=$((i + 1))
    done
}
seed 0 devices/*.json tests/data/bad/dev-*.json
seed 1 networks/*.json tests/data/bad/net-*.json
seed 2 clusters/*.json tests/data/bad/cluster-*.json
seed 3 calibration/*.json tests/data/calibration-*.json tests/data/bad/calibration-*.json
seed 4 tests/data/eager-overhead-sample.json tests/data/validate/eager/eager-overhead-h100.json
seed 5 tests/data/host-mpi-5gbs.json tests/data/net-emulated-4gbs.json tests/data/psbench-sample.json \
    tests/data/bad/hostmpi-*.json tests/data/bad/netlink-*.json tests/data/bad/psbench-*.json
seed 6 tests/data/validate/good/*.json tests/data/validate/good/h200x2/*.json tests/data/validate/bad/*.json \
    validation/h100x2/nccl-holdout-x1.5/calibrated-nccl-2gpu-raw.json
seed 7 examples/kernels/*.json tests/data/bad/kernel-*.json
echo "tools/fuzz.sh: $(ls "$corpus" | wc -l) seeds, $what" >&2
cd build-fuzz
rc=0
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ./fuzz_loaders "${budget[@]}" -max_len=262144 -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
    corpus >fuzz.log 2>&1 || rc=$?
grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|INITED)' fuzz.log | tail -25 >&2
[ "$rc" -eq 0 ] && echo "tools/fuzz.sh: no crash, leak or hang in $what" >&2
exit "$rc"
