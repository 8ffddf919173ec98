#!/usr/bin/env bash
# Fits one of the model's constants that is a factor on measured costs, on
# the calibration set's runs alone. For each value of its grid it builds
# cnnperf with the constant set (build-fit/, -DNAME=value, plus $FIT_CFLAGS),
# re-predicts every measured run `tools/accuracy.sh` reads and prints the
# mean absolute error over the runs the constant is fitted on; the evaluation
# set is never read into the choice. The shipped value is the grid's
# smallest error.
#   tools/fit_constant.sh eager-host   CP_EAGER_HOST_SCALE (model/eager.h): what a real network's
#                                      operator costs PyTorch's host against torch_bench.py
#                                      --eager-overhead's chains of tiny modules; the calibration set's
#                                      PyTorch runs (one GPU and DDP, either layout, H100 and H200),
#                                      1.00-1.50 by 0.05
#   tools/fit_constant.sh eager-host-one  CP_EAGER_HOST_SCALE on the one-GPU PyTorch runs alone, and
#   tools/fit_constant.sh eager-host-ddp  CP_EAGER_DDP_HOST_SCALE (model/eager.h) on the DDP runs alone: the two
#                                      halves of the split (rule 53, docs/ACCURACY.md session 68), 1.00-1.50 by 0.05
#   tools/fit_constant.sh cl-half      CP_CL_HALF_CONV_FACTOR_3X3 and _OTHER (model/calibration.h) set
#                                      alike: a 16-bit convolution pass's NCHW-fitted scale in
#                                      channels-last; the calibration set's channels-last 16-bit one-GPU
#                                      PyTorch runs that the GPU paces (not host-bound), 0.70-1.00 by 0.01
#   tools/fit_constant.sh cl-half-3x3  the 3x3 classes' factor alone (the others' from FIT_CFLAGS, e.g.
#   tools/fit_constant.sh cl-half-other  -DCP_CL_HALF_CONV_FACTOR_OTHER=0.9), and the others' alone: the
#                                      steps of a coordinate descent; same runs, 0.70-1.10 by 0.01
#   tools/fit_constant.sh cl-half-3x3-traced, cl-half-other-traced  the same two factors (rule 37, docs/ACCURACY.md
#                                      session 58) fitted on kernels instead of iterations: eager mode's kernels
#                                      for a traced step against the step's traced kernels (tools/trace_compare.py
#                                      --totals), mean absolute error over the calibration set's channels-last
#                                      16-bit kernel traces (CL_HALF_TRACES below; FIT_DEVICES=h200 reads one
#                                      device's, for its graph calibration file's cl_half_conv_factors, rule 38),
#                                      0.50-1.60 by 0.02
# FIT_GRID="0.60 0.61 ..." replaces the grid; FIT_EXCLUDE=STRING leaves the runs whose file path contains it out
# of the fit (a rule's held-out calibration runs, session 55's rule 33b).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  eager-host) names=CP_EAGER_HOST_SCALE grid=$(seq 1.00 0.05 1.50) ;;
  eager-host-one) names=CP_EAGER_HOST_SCALE grid=$(seq 1.00 0.05 1.50) ;;
  eager-host-ddp) names=CP_EAGER_DDP_HOST_SCALE grid=$(seq 1.00 0.05 1.50) ;;
  cl-half) names="CP_CL_HALF_CONV_FACTOR_3X3 CP_CL_HALF_CONV_FACTOR_OTHER" grid=$(seq 0.70 0.01 1.00) ;;
  cl-half-3x3) names=CP_CL_HALF_CONV_FACTOR_3X3 grid=$(seq 0.70 0.01 1.10) ;;
  cl-half-other) names=CP_CL_HALF_CONV_FACTOR_OTHER grid=$(seq 0.70 0.01 1.10) ;;
  cl-half-3x3-traced) names=CP_CL_HALF_CONV_FACTOR_3X3 grid=$(seq 0.50 0.02 1.60) ;;
  cl-half-other-traced) names=CP_CL_HALF_CONV_FACTOR_OTHER grid=$(seq 0.50 0.02 1.60) ;;
  *) echo "usage: $0 eager-host|eager-host-one|eager-host-ddp|cl-half|cl-half-3x3|cl-half-other|cl-half-3x3-traced|cl-half-other-traced" >&2
     exit 2 ;;
esac
grid=${FIT_GRID:-$grid}
b=build-fit
# the calibration set's channels-last 16-bit kernel traces (tools/kernel_trace.py --op network), by device
# shellcheck disable=SC2034 # read by name below (${!traces})
CL_HALF_TRACES_H200="validation/h200/torch/torchcal55/traces/kernels-torch-cl-b128-fp16-h200.json.xz
validation/h200/torch/torchcal55/traces/kernels-torch-b-cl-b128-fp16-h200.json.xz
$(printf '%s\n' validation/h200/torch/torchcal58/traces/kernels-torch-cl-*-fp16-h200.json.xz)"
# shellcheck disable=SC2034
CL_HALF_TRACES_H100="validation/h100/torch/chlast29/kernels-torch-cl-fp16-h100.json.xz
validation/h100/torch/chlast29/kernels-torch-cl2-fp16-h100.json.xz
validation/h100/torch/chlast29/kernels-torch-cl2-b128-fp16-h100.json.xz"
if [[ $1 == *-traced ]]; then
  for v in $grid; do
    defs=${FIT_CFLAGS:-}
    for n in $names; do defs+=" -D$n=$v"; done
    cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="$defs" >/dev/null
    cmake --build "$b" -j"$(nproc 2>/dev/null || echo 2)" --target cnnperf >/dev/null
    # shellcheck disable=SC2086
    for dev in ${FIT_DEVICES:-h200 h100}; do
      traces=CL_HALF_TRACES_${dev^^}
      python3 tools/trace_compare.py --totals --device "$dev" --cnnperf "$b/cnnperf" ${!traces}
    done |
      python3 -c '
import re, sys
err = [float(re.search(r"\s([-+][0-9.]+)%$", line).group(1)) for line in sys.stdin if "eager\x27s kernels" in line]
print(f"{sys.argv[1]} {sys.argv[2]}: {sum(map(abs, err)) / len(err):.3f}% over {len(err)} traced steps, "
      f"bias {sum(err) / len(err):+.2f}%")' "$names" "$v"
  done
  exit 0
fi
mapfile -t measured < <(grep -v -E '^[[:space:]]*(#|$)' validation/measured-folders.txt)
fitted=() # after the first value: the files of the runs fitted on (a run's prediction is its own)
for v in $grid; do
  defs=${FIT_CFLAGS:-}
  for n in $names; do defs+=" -D$n=$v"; done
  cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="$defs" >/dev/null
  cmake --build "$b" -j"$(nproc 2>/dev/null || echo 2)" --target cnnperf >/dev/null
  if [ ${#fitted[@]} -eq 0 ]; then
    "$b/cnnperf" validate --measured "${measured[@]}" --format json -o "$b/validate-$v.json" 2>/dev/null
  else
    "$b/cnnperf" validate --measured "${fitted[@]}" --format json -o "$b/validate-$v.json" 2>/dev/null
  fi
  python3 - "$b/validate-$v.json" "${names// /,}" "$v" "$1" "$b/fitted.txt" "${FIT_EXCLUDE:-}" <<'PY'
import json, sys
path, name, value, which, files, exclude = sys.argv[1:]
def fitted_on(r):
    if r["source"] != "pytorch" or r["set"] != "calibration" or (exclude and exclude in r["file"]):
        return False
    if which == "eager-host":
        return True
    if which in ("eager-host-one", "eager-host-ddp"):
        return (r["gpus"] == 1) == (which == "eager-host-one")
    return (r["gpus"] == 1 and r["precision"] in ("fp16", "bf16") and "channels-last" in r["label"]
            and not r.get("host_bound"))
runs = [r for r in json.load(open(path))["runs"] if fitted_on(r)]
open(files, "w").write("".join(sorted({r["file"] + "\n" for r in runs})))
err = [r["iteration"]["error_pct"] for r in runs]
print(f"{name} {value}: {sum(map(abs, err)) / len(err):.2f}% over {len(err)} calibration runs, "
      f"bias {sum(err) / len(err):+.2f}%")
PY
  mapfile -t fitted < "$b/fitted.txt"
done
