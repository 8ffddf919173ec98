#!/usr/bin/env bash
# Installs what cnnperf needs from Debian, builds it, and optionally runs the tests
# (gnuplot-nox only draws the plots of `cnnperf validate --plot`).
#   ./setup.sh          install + build (build/cnnperf)
#   ./setup.sh test     install + build + the whole test suite, then again under ASan/UBSan, then
#                       100000 fixed inputs through every loader of user input (tools/fuzz.sh, clang's libFuzzer)
set -euo pipefail
cd "$(dirname "$0")"

need=()
pkgs=(cmake gcc make pkg-config libcjson-dev libcmocka-dev gnuplot-nox zlib1g-dev)
[ "${1:-}" = "test" ] && pkgs+=(clang)
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
if [ ${#need[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ "${1:-}" = "test" ] && command -v clang >/dev/null; then # libFuzzer: clang's runtime package, only recommended
  rt=libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev
  dpkg -s "$rt" >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$rt" >/dev/null 2>&1 || true
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs" >/dev/null

if [ "${1:-}" = "test" ]; then
  (cd build && ctest --output-on-failure -j"$jobs")
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCNNPERF_SANITIZE=ON >/dev/null
  cmake --build build-asan -j"$jobs" >/dev/null
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j"$jobs")
  rc=0
  tools/fuzz.sh --runs 100000 || rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || exit "$rc" # 77: no libFuzzer here, said so above
fi
