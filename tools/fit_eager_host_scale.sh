#!/usr/bin/env bash
# Fits CP_EAGER_HOST_SCALE (model/eager.h): what a real network's operator
# costs PyTorch's host against tools/torch_bench.py --eager-overhead's chains
# of tiny modules. For each scale on a 0.05 grid from 1.00 to 1.50 it builds
# cnnperf with that scale (build-hostscale/, -DCP_EAGER_HOST_SCALE=...),
# re-predicts every measured run `tools/accuracy.sh` reads and prints the
# mean absolute error over the calibration set's PyTorch runs alone (one GPU
# and DDP, either memory format, H100 and H200); the evaluation set is never
# read into the choice. The shipped value is the grid's smallest error.
#   tools/fit_eager_host_scale.sh
set -euo pipefail
cd "$(dirname "$0")/.."
b=build-hostscale
mapfile -t measured < <(grep -v -E '^[[:space:]]*(#|$)' validation/measured-folders.txt)
for m in 1.00 1.05 1.10 1.15 1.20 1.25 1.30 1.35 1.40 1.45 1.50; do
  cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="-DCP_EAGER_HOST_SCALE=$m" >/dev/null
  cmake --build "$b" -j"$(nproc 2>/dev/null || echo 2)" --target cnnperf >/dev/null
  "$b/cnnperf" validate --measured "${measured[@]}" --format json -o "$b/validate-$m.json" 2>/dev/null
  python3 - "$b/validate-$m.json" "$m" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
err = [r["iteration"]["error_pct"] for r in runs if r["source"] == "pytorch" and r["set"] == "calibration"]
print(f"scale {sys.argv[2]}: calibration set's PyTorch runs {sum(map(abs, err)) / len(err):.2f}% over {len(err)}, "
      f"bias {sum(err) / len(err):+.2f}%")
PY
done
