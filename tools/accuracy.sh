#!/usr/bin/env bash
# Regenerates docs/ACCURACY.md and its plots from every measurement that validation/measured-folders.txt
# names (issue 5; superseded/ and isolated-h100/ are left out; a run of fewer than 5 timed iterations counts
# for its memory only). Builds cnnperf first if needed; needs gnuplot for
# the plots (setup.sh installs gnuplot-nox). Text after the line
#   <!-- hand-written below: kept by the generator -->
# in docs/ACCURACY.md is kept.
#   tools/accuracy.sh                 regenerate the document
#   tools/accuracy.sh --baseline      also rewrite validation/accuracy-baseline.json (the CI guard's
#                                     reference: only when a model change is meant to move the numbers)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x build/cnnperf ] || [ -n "$(find src model layers comm networks devices clusters calibration util -newer build/cnnperf -print -quit)" ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target cnnperf >/dev/null
fi

extra=()
if [ "${1:-}" = "--baseline" ]; then
  extra=(--write-baseline validation/accuracy-baseline.json)
fi
rm -f docs/accuracy-*.svg # plots of runs no longer measured go too
mapfile -t measured < <(grep -v -E '^[[:space:]]*(#|$)' validation/measured-folders.txt)
build/cnnperf validate --measured "${measured[@]}" --format markdown -o docs/ACCURACY.md --plot docs/accuracy "${extra[@]}"
echo "tools/accuracy.sh: wrote docs/ACCURACY.md and docs/accuracy-*.svg" >&2
