#!/usr/bin/env bash
# measure/run_device.sh: on a GPU machine, from the repository root: build
# cnnperf and cnnperf-measure in build-gpu/, run the test suite, measure the
# validation configurations of issue 4 and predict the same ones.
#
#   CNNPERF_GIT_COMMIT=<the commit, written out here> bash measure/run_device.sh
#
# Write the commit out on the development machine: the GPU machine's copy of
# .git may still point at an older commit (on 2026-11-25 it named the
# session's first), and $(git rev-parse HEAD) there records that one.
#
# The machine has CUDA, cuDNN, NCCL, MPI and CMake but no cJSON or cmocka
# and no network: both come unpacked from Debian packages in .carry/
# (.carry/cjson, .carry/testdeps, with pkgconf in case pkg-config is
# missing), copied to build-gpu/deps and pointed at their new place.
#
# Writes into $OUT (default ./measure-out): run.log, everything printed,
# and measurements.tgz, the result JSONs (measure-*.json from
# cnnperf-measure, predict-*.json from cnnperf predict) and the summary.
# Exit status: 0 when everything ran, 1 when any step failed (the others
# still run). SKIP_CTEST=1 leaves out the test suite (~190 s of the call);
# DEADLINE (seconds) is when no new measurement starts; CALL_LIMIT (600) is the device call's own limit, which a
# PyTorch job is cut to end 45 s before (pass the run's timeout_s when it is shorter).
#
# MODE=multi (a machine with 2 GPUs, e.g. 2 x H200): instead of the
# single-GPU configurations, one MPI rank per GPU (mpirun -np 2):
# ResNet-50 b64 fp32 with NCCL, overlap on and off; VGG-16 b32 fp32 with
# NCCL; ResNet-50 through a parameter server (2 GPU workers + 1 CPU server
# rank, -np 3); ResNet-50 with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 (NCCL's
# network transport between the two GPUs: two nodes emulated on one host);
# quick --check-loss runs with NCCL and PS; a rank made to hang and one
# made to exit, each of which must end the whole job non-zero within 30 s;
# and `cnnperf predict --gpus 2` for each measured configuration.
# NCCL_NVLS_ENABLE=0 throughout.
#
#   MODE=multi CNNPERF_GIT_COMMIT=$(git rev-parse HEAD) bash measure/run_device.sh
#
# MODE=a,b runs mode a, then mode b, in one call (one build). A MODE that neither a case of run_mode nor a drawn
# holdout's lists (NAME_MEASURE, NAME_TORCH) name is refused before the build; `MODE=... bash
# measure/run_device.sh --check-mode` says how each would run without building anything (no GPU needed).
set -u
MODE=${MODE:-single}
# MODE=legacyprocs: calibration-set networks through the legacy API on 1, 4 and 2 GPUs of one host
LEGACYPROCS_CONFIGS="
resnet18 64 fp32
resnet18 32 fp16
densenet121 32 fp16
inception_v3 32 fp32
squeezenet1_1 64 fp16"
ROOT=$PWD
OUT=${OUT:-$ROOT/measure-out}
BUILD=$ROOT/build-gpu
RES=$BUILD/results
mkdir -p "$OUT"
START=$(date +%s)

DEADLINE=${DEADLINE:-480} # seconds after which no new measurement starts (the device call stops at 600)
# the device call's own limit (run's timeout_s): a PyTorch job is cut to end CALL_MARGIN seconds before it, so that
# a job stuck in cudnn.benchmark still leaves the call the time to predict and bundle what ran (mholdout63 lost its
# in-call DDP predictions to one)
CALL_LIMIT=${CALL_LIMIT:-600}
CALL_MARGIN=45

say() { printf '[run_device %4ds] %s\n' "$(($(date +%s) - START))" "$*"; }
fail() { say "FAILED: $*"; } # the log is grepped for these at the end
bundle() { tar czf "$OUT/measurements.tgz" -C "$BUILD" results 2>/dev/null; }

# Networks, batch sizes and precisions of issue 4's first runs; the last two
# lines only check that tf32 and bf16 run at all.
# MODE=campaign: the validation campaign of issue 5 (see campaign() below).
CAMPAIGN_EVAL="
resnet50 32 fp32
resnet50 32 fp16
resnet50 64 fp32
resnet50 64 fp16
vgg16 32 fp32
vgg16 32 fp16
resnet50 128 fp32
resnet50 128 fp16
resnet50 256 fp32
resnet50 256 fp16
vgg16 64 fp32
vgg16 64 fp16
vgg16 128 fp32
vgg16 128 fp16
alexnet 64 fp32
alexnet 64 fp16
alexnet 256 fp32
alexnet 256 fp16
googlenet 32 fp32
googlenet 32 fp16
googlenet 128 fp32
googlenet 128 fp16
lenet5 64 fp32
lenet5 256 fp16
resnet50 64 tf32
resnet50 64 bf16
"
# Networks that may be used to calibrate the model (validation/calibration-set.json);
# never part of the accuracy targets.
CAMPAIGN_CALIB="
resnet18 32 fp32
resnet18 32 fp16
resnet18 128 fp32
resnet18 128 fp16
vgg11 32 fp32
vgg11 32 fp16
vgg11 128 fp32
vgg11 128 fp16
mobilenet_v2 64 fp32
mobilenet_v2 64 fp16
densenet121 64 fp32
densenet121 64 fp16
squeezenet1_1 64 fp32
squeezenet1_1 64 fp16
inception_v3 32 fp32
inception_v3 32 fp16
"
# ...and its tf32 runs (batch 64), measured with it by several modes.
CAMPAIGN_CALIB_TF32="
resnet18 64 tf32
vgg11 64 tf32
mobilenet_v2 64 tf32
densenet121 64 tf32"

# MODE=multi, after the 2-GPU runs: one GPU of the pair alone.
MULTI_SINGLE="
resnet50 64 fp32
resnet50 64 fp16
vgg16 64 fp32
vgg16 64 fp16
resnet50 128 fp16
googlenet 64 fp32
"

CONFIGS="
lenet5 64 fp32
lenet5 64 fp16
alexnet 128 fp32
alexnet 128 fp16
vgg16 32 fp32
vgg16 32 fp16
resnet50 32 fp32
resnet50 32 fp16
resnet50 64 fp32
resnet50 64 fp16
googlenet 64 fp32
resnet50 32 tf32 smoke
resnet50 32 bf16 smoke
"

# MODE=graph (and oldharness): each configuration launched as usual, then captured into a CUDA graph.
GRAPH_PAIRS="
lenet5 64 fp32
lenet5 64 fp32 graph
resnet50 32 fp16
resnet50 32 fp16 graph
resnet50 64 fp16
resnet50 64 fp16 graph
resnet50 32 fp32
resnet50 32 fp32 graph
resnet50 64 fp32
resnet50 64 fp32 graph
alexnet 256 fp16
alexnet 256 fp16 graph
googlenet 32 fp16
googlenet 32 fp16 graph
vgg16 64 fp16
vgg16 64 fp16 graph
squeezenet1_1 64 fp16
squeezenet1_1 64 fp16 graph
densenet121 64 fp16
densenet121 64 fp16 graph"
# parity() and MODE=oldharness: issue 4's side-by-side configurations.
PARITY_CONFIGS="
resnet50 32 fp32
resnet50 64 fp32
vgg16 32 fp32
vgg16 64 fp32
resnet50 32 fp16
resnet50 64 fp16
vgg16 32 fp16
vgg16 64 fp16"

# cnnperf-measure (and cnnperf predict) default to cuDNN's graph API since
# 2026-11-25. The modes here reproduce campaigns measured through the legacy
# API, so MEASURE is a wrapper that passes --conv-api ${CONV_API:-legacy}
# first (a later --conv-api, as the graphapi configurations give, wins):
# CONV_API=graph runs a mode through the graph API.
with_api() {
    printf '#!/bin/sh\nexec "%s" --conv-api "${CONV_API:-legacy}" "$@"\n' "$1" >"$1-api" && chmod +x "$1-api"
    MEASURE=$1-api
}

# commit_here: the commit to record when CNNPERF_GIT_COMMIT is not given: this copy's HEAD, marked where the tracked
# files differ from it (a device machine's .git may name an older commit than the tree it holds); `cnnperf validate
# --check` takes it, as the hash comes first, and the mark says what it is
commit_here() {
    local c
    c=$(git rev-parse HEAD 2>/dev/null) || { echo unknown; return; }
    if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
        echo "$c+working-tree (CNNPERF_GIT_COMMIT not given; the tracked files differ from this commit)"
    else
        echo "$c"
    fi
}

setup() {
    say "machine (MODE=$MODE)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || fail "nvidia-smi"
    nvcc --version 2>/dev/null | tail -2
    cmake --version | head -1
    cc --version | head -1
    ls /usr/include/cudnn*.h /usr/include/x86_64-linux-gnu/cudnn*.h 2>/dev/null | head -4
    export CNNPERF_GIT_COMMIT=${CNNPERF_GIT_COMMIT:-$(commit_here)}
    say "git commit: $CNNPERF_GIT_COMMIT"

    # Carried cJSON, cmocka and pkgconf, their paths rewritten from /usr. The results folder starts empty: a warm
    # machine keeps build-gpu/ between calls, and an earlier call's files would come back in this call's bundle.
    DEPS=$BUILD/deps
    rm -rf "$DEPS" "$RES" && mkdir -p "$DEPS" "$RES" || { fail "mkdir $DEPS"; return; }
    if [ ! -d .carry/cjson/usr ]; then
        fail ".carry/cjson is missing: name .carry in the device call's carry list"
        return
    fi
    cp -a .carry/cjson/. "$DEPS"/
    [ -d .carry/testdeps ] && cp -a .carry/testdeps/. "$DEPS"/
    P=$DEPS/usr
    find "$P/lib" \( -name '*.pc' -o -name '*.cmake' \) -print0 |
        xargs -0 sed -i -e "s#=/usr#=$P#g" -e "s#-L/usr#-L$P#g" -e "s#-I/usr#-I$P#g" -e "s#\"/usr#\"$P#g"
    LIBDIR=$P/lib/x86_64-linux-gnu
    export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export PKG_CONFIG_PATH=$LIBDIR/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
    PKG_ARG=()
    if ! command -v pkg-config >/dev/null; then
        say "no pkg-config here: using the carried pkgconf"
        PKG_ARG=(-DPKG_CONFIG_EXECUTABLE="$P/bin/pkgconf")
    fi

    say "configure (cJSON from $P)"
    CONF=(-S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$P" "${PKG_ARG[@]}")
    if ! cmake "${CONF[@]}"; then
        fail "configure with tests; trying without the test suite"
        cmake "${CONF[@]}" -DCNNPERF_TESTS=OFF || { fail "configure"; return; }
    fi
    grep -E '^(cJSON_DIR|CMOCKA_LIBDIR|CNNPERF_CUDNN_INCLUDE_DIR|CNNPERF_CUDNN_LIBRARY|CNNPERF_NCCL_LIBRARY):' \
        "$BUILD/CMakeCache.txt"
    say "build"
    if ! cmake --build "$BUILD" -j "$(nproc)"; then
        # A newer compiler may warn where the development machine's did not:
        # a launcher puts -Wno-error after the project's -Werror.
        fail "build with -Werror; retrying with warnings not fatal"
        printf '#!/bin/sh\nexec "$@" -Wno-error\n' >"$DEPS/no-werror" && chmod +x "$DEPS/no-werror"
        cmake "${CONF[@]}" -DCMAKE_C_COMPILER_LAUNCHER="$DEPS/no-werror" >/dev/null &&
            cmake --build "$BUILD" -j "$(nproc)" || { fail "build"; return; }
    fi
    [ -x "$BUILD/measure/cnnperf-measure" ] || { fail "cnnperf-measure was not built (see the configure lines above)"; return; }
    with_api "$BUILD/measure/cnnperf-measure"
    PREDICT=$BUILD/cnnperf

    # SKIP_CTEST=1: no test suite here (it takes ~190 s of a 600 s device call; CI runs it anyway)
    if [ "${SKIP_CTEST:-0}" = 1 ]; then
        say "ctest skipped (SKIP_CTEST=1)"
        return 0
    fi
    say "ctest"
    if [ -f "$BUILD/CTestTestfile.cmake" ]; then
        # The whole output goes into the bundle; here its end, the failures and the loss curve.
        if (cd "$BUILD" && ctest -j 8 --timeout 300 --output-on-failure >"$RES/ctest.log" 2>&1); then
            tail -6 "$RES/ctest.log"
        else
            fail "ctest"
            grep -E -B2 -A25 '\*\*\*(Failed|Timeout|Exception)' "$RES/ctest.log" | head -150
            tail -20 "$RES/ctest.log"
        fi
        (cd "$BUILD" && ctest -R measure_loss_falls -V --timeout 300 2>&1 | grep -E 'cnnperf-measure|Test #') || true
        (cd "$BUILD" && ctest -R ps_mpi -V --timeout 120 2>&1 | grep -E '^[0-9]+: test_ps_mpi: [0-9]+ workers') || true
    fi
    return 0
}

single() {
    local configs=${1:-$CONFIGS} iters_default=${2:---warmup 5 --iters 20}
    case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z')" in
    *h200*) DEV=h200 ;;
    *) DEV=h100 ;;
    esac
    echo "$configs" | while read -r net batch prec extra; do
        [ -n "$net" ] || continue
        tag=$net-b$batch-$prec
        ws=() pargs=(--conv-api "${CONV_API:-legacy}")
        case "${extra:-}" in
        ws=*) ws=(--workspace-mb "${extra#ws=}") tag=$tag-ws${extra#ws=} ;;
        isolated) ws=(--layers isolated) tag=$tag-isolated ;;
        behind) ws=(--layers behind) tag=$tag-behind ;;
        graphapi-behind) ws=(--conv-api graph --layers behind) pargs=(--conv-api graph) tag=$tag-graphapi-behind ;;
        graph) ws=(--launch graph) tag=$tag-graph ;;
        graphapi) ws=(--conv-api graph) pargs=(--conv-api graph) tag=$tag-graphapi ;;
        r[0-9]) ws=() tag=$tag-$extra ;;
        esac
        if [ $(($(date +%s) - START)) -gt "$DEADLINE" ]; then
            fail "measure $tag skipped: past the ${DEADLINE} s budget"
            continue
        fi
        # shellcheck disable=SC2206
        iters=($iters_default)
        [ "${extra:-}" = smoke ] && iters=(--warmup 2 --iters 5)
        say "measure $tag"
        if ! timeout 240 "$MEASURE" --network "$net" --batch "$batch" --precision "$prec" "${iters[@]}" "${ws[@]}" \
            -o "$RES/measure-$tag.json" </dev/null; then
            fail "measure $tag; once more, synchronising after every pass, with cuDNN's error log"
            CNNPERF_MEASURE_SYNC=1 CUDNN_LOGLEVEL_DBG=1 CUDNN_LOGDEST_DBG=stderr timeout 120 "$MEASURE" \
                --network "$net" --batch "$batch" --precision "$prec" --warmup 0 --iters 1 \
                -o "$RES/debug-$tag.json" </dev/null 2>&1 | tail -40
        fi
        "$PREDICT" predict --network "$net" --device "$DEV" --batch "$batch" --precision "$prec" "${pargs[@]}" \
            --format json -o "$RES/predict-$tag.json" </dev/null || fail "predict $tag"
        bundle # after every configuration: a run cut off at the device's limit still returns its results
    done

    say "summary (measured vs predicted, $DEV)"
    python3 - "$RES" <<'EOF' | tee "$RES/summary.txt" || fail "summary"
import json, os, sys
res = sys.argv[1]
print(f"{'configuration':28} {'measured ms':>12} {'p10':>9} {'p90':>9} {'predicted ms':>13} {'pred/meas':>9}  "
      f"fwd/bwd/upd measured | predicted")
for f in sorted(os.listdir(res)):
    if not f.startswith("measure-") or f.startswith("measure-multi-") or not f.endswith(".json"):
        continue  # multi-rank runs have their own table (summary-multi.txt)
    m = json.load(open(os.path.join(res, f)))
    p_path = os.path.join(res, "predict-" + f[len("measure-"):])
    p = json.load(open(p_path)) if os.path.exists(p_path) else None
    tag = f[len("measure-"):-len(".json")]
    pm = p["iteration_ms"] if p else float("nan")
    ph = lambda r: "/".join(f"{r['phases'][k]:.2f}" for k in ("forward_ms", "backward_ms", "update_ms"))
    print(f"{tag:28} {m['iteration_ms']:12.3f} {m['iteration_p10_ms']:9.3f} {m['iteration_p90_ms']:9.3f} "
          f"{pm:13.3f} {pm / m['iteration_ms']:9.2f}  {ph(m)} | {ph(p) if p else '-'}")
EOF
}

# group NAME CONFIGS ITERS: single() with its results (measure-*, predict-*,
# summary.txt) in results/NAME/, for modes whose lists overlap.
group() {
    local RES=$BUILD/results/$1
    mkdir -p "$RES"
    say "group $1"
    single "$2" "$3"
}

# --- MODE=multi -------------------------------------------------------------

# mpi_setup: MPIRUN for the multi-rank modes (Open MPI: as root, and unbound,
# since the PS server's threads need more than one core), NCCL without
# NVLink multicast and with its set-up lines in each run's log.
mpi_setup() {
    MPIRUN=(mpirun)
    mpirun --version 2>&1 | grep -q 'Open MPI' && MPIRUN+=(--allow-run-as-root --bind-to none)
    export NCCL_NVLS_ENABLE=0 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT
}

# mpirun_measure TAG NP "PREDICT ARGS" -- MEASURE ARGS...: one multi-rank
# measurement (its stderr, with NCCL's INFO lines, kept in the bundle) and
# the prediction of the same configuration.
mpirun_measure() {
    local tag=$1 np=$2 pargs=$3
    shift 4
    if [ $(($(date +%s) - START)) -gt "$DEADLINE" ]; then
        fail "measure $tag skipped: past the ${DEADLINE} s budget"
        return
    fi
    say "measure $tag: mpirun -np $np cnnperf-measure $*"
    if timeout 200 "${MPIRUN[@]}" -np "$np" "$MEASURE" "$@" --warmup 5 --iters 20 \
        -o "$RES/measure-$tag.json" </dev/null 2>"$RES/measure-$tag.log"; then
        grep -E '^cnnperf-measure: (set up|[0-9]+ warm-up|nccl|ps) ' "$RES/measure-$tag.log"
    else
        fail "measure $tag"
        grep -v -E 'NCCL INFO' "$RES/measure-$tag.log" | tail -30
    fi
    # which NCCL transport carried the all-reduce (P2P, SHM, NET/Socket, NET/IB)
    grep -E 'NCCL INFO Channel 00/.* via ' "$RES/measure-$tag.log" | head -2
    # shellcheck disable=SC2086
    "$PREDICT" predict $pargs --format json -o "$RES/predict-$tag.json" </dev/null || fail "predict $tag"
    bundle
}

# fault KIND: a rank made to hang or exit in iteration 3 (CNNPERF_MEASURE_FAULT)
# must end every rank, non-zero, within 30 s (of --timeout-s 10 for a hang).
fault() {
    local kind=$1 t0 rc took
    say "a rank that ${kind}s in iteration 3 (CNNPERF_MEASURE_FAULT=$kind:1:3, --timeout-s 10)"
    t0=$(date +%s)
    CNNPERF_MEASURE_FAULT=$kind:1:3 timeout 90 "${MPIRUN[@]}" -np 2 "$MEASURE" --network resnet50 --batch 32 \
        --comm nccl --warmup 0 --iters 10 --timeout-s 10 -o "$RES/fault-$kind.json" </dev/null \
        >"$RES/fault-$kind.log" 2>&1
    rc=$?
    took=$(($(date +%s) - t0))
    grep -E 'as asked|no progress|aborting|NCCL error|ncclComm' "$RES/fault-$kind.log" | grep -v 'NCCL INFO' | head -5
    say "$kind: exit status $rc after $took s"
    if [ "$rc" = 0 ] || [ "$rc" = 124 ] || [ "$took" -gt 40 ]; then
        fail "a rank that ${kind}s did not end the job non-zero within 30 s (status $rc after $took s)"
    fi
    [ -e "$RES/fault-$kind.json" ] && fail "fault-$kind.json was written by a failed run"
}

# The 2-GPU configurations (one rank per GPU), as NET BATCH PREC EXCHANGE
# [VARIANT]: EXCHANGE nccl, ps1 (one CPU server rank) or ps2 (two sharded);
# VARIANT nooverlap (exchange after backward), netemu (NCCL_P2P_DISABLE=1
# NCCL_SHM_DISABLE=1: NCCL's network transport between the two GPUs, two
# nodes emulated on one host; the prediction is for one node), netemu-nooverlap
# (both), or none.
# MODE=multi's first list, then MODE=multi2's.
MULTI_CONFIGS="
resnet50 64 fp32 nccl overlap
resnet50 64 fp32 nccl nooverlap
vgg16 32 fp32 nccl overlap
resnet50 64 fp32 ps1
resnet50 64 fp32 nccl netemu
vgg16 32 fp32 ps1
resnet50 64 fp16 nccl overlap"
MULTI2_CONFIGS="
alexnet 128 fp32 nccl
alexnet 128 fp16 nccl
googlenet 64 fp32 nccl
googlenet 64 fp16 nccl
lenet5 64 fp32 nccl
resnet50 32 fp32 nccl
resnet50 128 fp16 nccl
vgg16 64 fp16 nccl
alexnet 128 fp32 ps1
googlenet 64 fp32 ps1
resnet50 64 fp16 ps1
vgg16 32 fp32 ps2
resnet50 64 fp32 ps2"

# MODE=netemu (session 21): ten NCCL configurations with two nodes emulated,
# chosen before the call, predicted with the emulated network's sweep.
NETEMU_CONFIGS="
resnet50 64 fp32 nccl netemu
resnet50 64 fp32 nccl netemu-nooverlap
vgg16 32 fp32 nccl netemu
alexnet 128 fp32 nccl netemu
googlenet 64 fp32 nccl netemu
resnet50 128 fp16 nccl netemu
resnet101 32 fp32 nccl netemu
vgg16 64 fp16 nccl netemu
resnet34 64 fp32 nccl netemu
vgg19 32 fp32 nccl netemu"

# MODE=overlap (session 21): the calibration-set networks on 2 GPUs with NCCL.
CALIBMULTI_CONFIGS="
resnet18 64 fp32 nccl
resnet18 128 fp16 nccl
resnet18 64 fp32 nccl nooverlap
vgg11 64 fp32 nccl
vgg11 64 fp16 nccl
densenet121 32 fp32 nccl
inception_v3 32 fp32 nccl
mobilenet_v2 64 fp32 nccl
squeezenet1_1 64 fp16 nccl"

# MODE=nccloverlap (session 21): ten NCCL jobs of evaluation networks no call
# had measured on 2 GPUs, chosen before the call, after the co-execution model.
NCCLHOLDOUT_CONFIGS="
vgg19 64 fp16 nccl
resnet152 32 fp32 nccl
resnet101 64 fp16 nccl
alexnet 256 fp32 nccl
googlenet 128 fp32 nccl
resnet34 128 fp32 nccl
vgg16 64 fp32 nccl
resnet50 256 fp16 nccl
resnet152 64 fp16 nccl nooverlap
vgg19 32 fp32 nccl nooverlap"

# overlap CONFIGS: how all-reduces and compute slow each other (cnnperf-calibrate
# --only overlap), the NCCL and MPI sweeps, then CONFIGS on 2 GPUs, predicted
# in the call by cnnperf validate.
overlap() {
    need_gpus 2 || return
    mpi_setup
    case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z')" in
    *h200*) DEV=h200 ;;
    *) DEV=h100 ;;
    esac
    say "calibrate --only overlap,nccl,mpi"
    timeout 300 "${MPIRUN[@]}" -np 2 "$BUILD/measure/cnnperf-calibrate" --only overlap,nccl,mpi \
        --raw "$RES/calibrated-overlap-raw.json" </dev/null 2>&1 | grep -v 'NCCL INFO' |
        grep -E 'co-execution|busbw' || fail "calibrate overlap"
    bundle
    multi_runs "$1"
    predict_in_call "$RES"/measure-multi-*.json
}

# print_in_call FILE: each run of a cnnperf validate JSON, measured and predicted
print_in_call() {
    python3 - "$1" <<'EOF' || true
import json, sys
for r in json.load(open(sys.argv[1]))["runs"]:
    i = r["iteration"]
    print("%-60s meas %8.2f pred %8.2f %+6.1f%%  %s" % (r["label"], i["measured_ms"], i["predicted_ms"],
                                                   i["error_pct"], r["note"][:90]))
EOF
}

# need_gpus N: this machine has N GPUs or more; otherwise a FAILED line for the mode, and false
need_gpus() {
    [ "$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)" -ge "$1" ] || { fail "MODE=$MODE needs $1 GPUs"; return 1; }
}

# holdout_runs NAME CONFIGS [ITERS] [API]: CONFIGS (single) into results/NAME, emptied first, then predicted in
# the call; through cuDNN's graph API, or API's (legacy: a line's own graphapi still takes the graph API)
holdout_runs() {
    local RES=$BUILD/results/$1
    rm -rf "$RES"
    mkdir -p "$RES"
    CONV_API=${4:-graph} single "$2" "${3:-}"
    predict_in_call
}

# drawn_holdout NAME (holdout33 on): a holdout drawn by holdout33's rule, NAME's configurations in upper case
# (HOLDOUT37_MEASURE: cnnperf-measure jobs through the legacy API unless a line says graphapi; HOLDOUT37_TORCH:
# PyTorch's) into results/NAME and results/torchNAME, each predicted in the call. `tools/draw_holdout.py SEED`
# draws a list by the rule, `--check NAME` compares NAME's lists with it (every drawn mode since holdout33 matches
# its seed but holdout52b, holdout52's remainder)
drawn_holdout() {
    local measure=${1^^}_MEASURE torch=${1^^}_TORCH gpus=${1^^}_GPUS
    # mode_route's answer, so that what --check-mode says and what runs are one test of NAME_GPUS (1-8)
    case $(mode_route "$1") in
        "lists on "*) drawn_multi "$1" "${!gpus}"; return ;;
    esac
    [ -z "${!measure:-}" ] || holdout_runs "$1" "${!measure}" "" legacy
    [ -z "${!torch:-}" ] || torch_one "${!torch}" "torch$1"
}

# mode_route NAME: how run_mode runs MODE=NAME, on stdout: "case" where one of its cases names NAME, "lists" where
# none does but NAME has a drawn holdout's lists (NAME_MEASURE or NAME_TORCH, in upper case), "lists on N GPUs"
# where it has a several-GPU draw's (NAME_GPUS=N beside NAME_GRAPH, _LEGACY or _DDP): drawn_holdout runs them, so a
# new drawn mode needs its lists only; 1 for a name that is neither, so that a mistyped MODE is refused before the
# build instead of running another campaign
mode_route() {
    local var gpus
    if declare -f run_mode | sed -n 's/^        \([^ (][^()]*\))$/\1/p' | tr -d ' ' | tr '|' '\n' | grep -qxF -- "$1"; then
        echo case
        return 0
    fi
    [[ $1 =~ ^[a-z0-9_]+$ ]] || return 1
    gpus=${1^^}_GPUS
    if [[ ${!gpus:-} =~ ^[1-8]$ ]]; then
        for var in "${1^^}_GRAPH" "${1^^}_LEGACY" "${1^^}_DDP"; do
            [ -z "${!var:-}" ] || { echo "lists on ${!gpus} GPUs"; return 0; }
        done
        return 1
    fi
    for var in "${1^^}_MEASURE" "${1^^}_TORCH"; do
        [ -z "${!var:-}" ] || { echo lists; return 0; }
    done
    return 1
}

# drawn_multi NAME N (mholdout35 on): N-GPU jobs drawn by mholdout35's rule, NAME's lists in upper case
# (MHOLDOUT40_GRAPH and _LEGACY: "network batch precision exchange" through that convolution API; _DDP: PyTorch
# DDP's torch_bench arguments, N processes), in results/NAME after the host's N-rank sweeps and PS exchange
# (gpus_host); the cnnperf-measure jobs are predicted in the call before the DDP jobs start (ddp predicts those),
# and the PS exchange is timed again after them (ps_after, since session 48); `tools/draw_holdout.py SEED --multi`
# draws a list by the rule, `--check NAME` compares NAME's lists with it
drawn_multi() {
    local RES graph=${1^^}_GRAPH legacy=${1^^}_LEGACY ddp=${1^^}_DDP
    gpus_host "$1" "$2" || return
    GPUS=$2 CONV_API=graph multi_runs "${!graph:-}"
    GPUS=$2 CONV_API=legacy multi_runs "${!legacy:-}"
    ps_after "$2"
    predict_in_call "$RES"/measure-*.json "$RES/calibrated-nccl-$2gpu-raw.json"
    NPROC=$2 ddp "${!ddp:-}"
}

# torch_in_call DIR: DIR's PyTorch runs predicted in the call (its eager-overhead file gives the host costs)
torch_in_call() {
    "$PREDICT" validate --measured "$1"/torch-*.json --format json -o "$1/predicted-in-call.json" </dev/null ||
        fail "validate in the call"
    print_in_call "$1/predicted-in-call.json"
    bundle
}

# predict_in_call FILE...: validate FILE... (default: the call's measure-*.json) with the model as it is in this
# call into predicted-in-call.json, print each run's error, bundle the results
predict_in_call() {
    [ $# -gt 0 ] || set -- "$RES"/measure-*.json
    "$PREDICT" validate --measured "$@" --format json -o "$RES/predicted-in-call.json" </dev/null ||
        fail "validate in the call"
    print_in_call "$RES/predicted-in-call.json"
    bundle
}


# MODE=ddp (session 21): PyTorch DDP jobs on 2 GPUs, chosen before the call
# (torch_bench.py arguments, one torchrun each); MODE=ddpcalib: the
# calibration-set networks, on which a DDP model may be judged.
DDP_CONFIGS="
--network resnet50 --batch 64 --precision fp32,fp16
--network vgg16 --batch 32 --precision fp32,fp16
--network googlenet --batch 64 --precision fp32,fp16
--network alexnet --batch 128 --precision fp32
--network resnet101 --batch 32 --precision fp32"
# MODE=ddpcl (session 29): DDP on 2 GPUs in channels-last FP16 with the session's final eager model: five
# evaluation networks drawn by Python's random.Random(2026112933).sample over the networks but LeNet-5 in name
# order, each at a batch from the multiples of 8 in 32..128; rule and list fixed before the call, predicted in it
DDPCL_CONFIGS="
--network vgg16 --batch 88 --precision fp16 --channels-last
--network resnet34 --batch 56 --precision fp16 --channels-last
--network resnet101 --batch 72 --precision fp16 --channels-last
--network googlenet --batch 96 --precision fp16 --channels-last
--network resnext50_32x4d --batch 80 --precision fp16 --channels-last"
DDP_CALIB_CONFIGS="
--network resnet18 --batch 64 --precision fp32,fp16
--network vgg11 --batch 64 --precision fp32,fp16
--network densenet121 --batch 32 --precision fp32
--network inception_v3 --batch 32 --precision fp32
--network mobilenet_v2 --batch 64 --precision fp32"

# ddp CONFIGS [DIR]: PyTorch DistributedDataParallel on NPROC (2) GPUs (tools/torch_bench.py
# --ddp), one torchrun per line of CONFIGS, the folder's eager costs measured
# first, predicted in the call in eager mode by cnnperf validate; into $RES/DIR (ddp).
ddp() {
    need_gpus 2 || return
    export NCCL_NVLS_ENABLE=0
    NCCL_DEBUG=WARN torch_one "$(sed '/./s/^/--ddp /' <<<"$1")" "${2:-ddp}" \
        torchrun --standalone --nproc-per-node "${NPROC:-2}"
}

# MODE=ddphost (session 31): why PyTorch DDP's host on 2 x H100 is about twice the host of the same network
# alone (ResNet-101 b72 FP16 channels-last: 66.6 against 36.1 ms in session 29): the operators' costs
# measured alone and by both ranks at once under torchrun; DDP's own costs with conv + BN + ReLU blocks;
# calibration-set networks alone on one GPU of this host, under DDP, and as two independent processes at
# once (no DDP). Nothing from the evaluation set.
DDPHOST_NETS="resnet18,densenet121,mobilenet_v2,inception_v3"
ddphost() {
    need_gpus 2 || return
    python3 -c 'import torch, torchvision' 2>/dev/null || { fail "no torch/torchvision here"; return; }
    export NCCL_NVLS_ENABLE=0
    local dir="$RES/ddphost" fmt cl
    mkdir -p "$dir/alone" "$dir/concurrent" "$dir/pair/gpu0" "$dir/pair/gpu1"
    lscpu | grep -E '^(Model name|Socket|Core|Thread|NUMA|CPU\(s\))' || true
    nvidia-smi topo -m || true
    say "torch_bench --eager-overhead (alone)"
    timeout 150 python3 tools/torch_bench.py --eager-overhead -o "$dir/eager-overhead-$DEV.json" </dev/null ||
        fail "eager overhead"
    cp "$dir/eager-overhead-$DEV.json" "$dir/alone/" 2>/dev/null
    say "torchrun --nproc-per-node 2 torch_bench.py --eager-overhead (both ranks at once)"
    NCCL_DEBUG=WARN timeout 170 torchrun --standalone --nproc-per-node 2 tools/torch_bench.py --eager-overhead \
        -o "$dir/concurrent/eager-overhead-$DEV.json" </dev/null 2>&1 | grep -E '^torch_bench' || fail "concurrent eager overhead"
    bundle
    for fmt in "--channels-last" ""; do
        cl=${fmt:+ channels-last}
        [ $(($(date +%s) - START)) -lt "$DEADLINE" ] || { fail "ddphost$cl skipped: past the deadline"; continue; }
        say "torchrun torch_bench.py --ddp --network $DDPHOST_NETS$cl"
        # shellcheck disable=SC2086
        NCCL_DEBUG=WARN timeout 200 torchrun --standalone --nproc-per-node 2 tools/torch_bench.py --ddp \
            --network "$DDPHOST_NETS" --batch 64 --precision fp16 $fmt --out-dir "$dir" </dev/null 2>&1 |
            grep -E '^torch_bench' || fail "ddp$cl"
        bundle
        [ $(($(date +%s) - START)) -lt "$DEADLINE" ] || { fail "alone$cl skipped: past the deadline"; continue; }
        say "torch_bench.py --network $DDPHOST_NETS$cl (alone, GPU 0)"
        # shellcheck disable=SC2086
        CUDA_VISIBLE_DEVICES=0 timeout 200 python3 tools/torch_bench.py --network "$DDPHOST_NETS" --batch 64 \
            --precision fp16 $fmt --out-dir "$dir/alone" </dev/null 2>&1 | grep -E '^torch_bench' || fail "alone$cl"
        bundle
    done
    if [ $(($(date +%s) - START)) -lt "$DEADLINE" ]; then
        say "torch_bench.py --network resnet18,densenet121 channels-last: two processes at once, no DDP"
        for g in 0 1; do
            CUDA_VISIBLE_DEVICES=$g timeout 200 python3 tools/torch_bench.py --network resnet18,densenet121 \
                --batch 64 --precision fp16 --channels-last --out-dir "$dir/pair/gpu$g" </dev/null \
                >"$dir/pair/gpu$g.log" 2>&1 &
        done
        wait
        grep -hE '^torch_bench' "$dir"/pair/gpu*.log || fail "pair"
    fi
    if [ $(($(date +%s) - START)) -lt "$DEADLINE" ]; then
        say "torchrun torch_bench.py --ddp-overhead (with conv + BN + ReLU blocks)"
        NCCL_DEBUG=WARN timeout 200 torchrun --standalone --nproc-per-node 2 tools/torch_bench.py --ddp-overhead \
            -o "$dir/ddp-overhead-$DEV.json" </dev/null 2>&1 | grep -E '^torch_bench' || fail "ddp overhead"
    fi
    "$PREDICT" validate --measured "$dir"/torch-*.json "$dir"/alone/torch-*.json --format json \
        -o "$dir/predicted-in-call.json" </dev/null || fail "validate in the call"
    print_in_call "$dir/predicted-in-call.json"
    bundle
}

# MODE=ddphold32 (session 32): eight DDP jobs on 2 x H100 drawn before the call by Python's random.Random(32), as
# in session 31 (a network of the 13 evaluation networks but LeNet-5 in name order, a batch of the multiples of 8 in
# 32..160, fp16 or fp32, NCHW or channels-last, drawn in that order per job), predicted in the call with the model
# of commit 442b0df (the slowest-rank factor, host scale 1.25)
DDPHOLD32_CONFIGS="
--network densenet169 --batch 80 --precision fp16 --channels-last
--network vgg19 --batch 88 --precision fp32
--network vgg19 --batch 40 --precision fp16 --channels-last
--network resnext50_32x4d --batch 112 --precision fp16 --channels-last
--network resnet152 --batch 32 --precision fp16
--network resnet50 --batch 80 --precision fp32
--network resnet50 --batch 48 --precision fp32
--network alexnet --batch 160 --precision fp16"
# MODE=holdout32 (session 32): ten one-GPU evaluation configurations drawn before the call by random.Random(3232):
# per job a network of the 14 evaluation networks in name order, a batch of the multiples of 8 in 32..256, fp16 or
# fp32, and the harness: cnnperf-measure's graph API, PyTorch NCHW or PyTorch channels-last; the three graph-API
# jobs first (quick), then the seven PyTorch ones in drawn order; predicted in the call with commit 442b0df's model
HOLDOUT32_GRAPH="
alexnet 96 fp16 graphapi
vgg16 192 fp16 graphapi
vgg19 168 fp32 graphapi"
HOLDOUT32_TORCH="
--network densenet169 --batch 40 --precision fp16 --channels-last
--network resnet50 --batch 208 --precision fp32 --channels-last
--network googlenet --batch 248 --precision fp16
--network resnext50_32x4d --batch 72 --precision fp16 --channels-last
--network mnasnet1_0 --batch 56 --precision fp16
--network resnext50_32x4d --batch 120 --precision fp16 --channels-last
--network vgg19 --batch 160 --precision fp32 --channels-last"

# MODE=holdout32b (session 32): ten more drawn the same way by random.Random(3233), the four graph-API jobs first,
# then the six PyTorch ones in drawn order, predicted in the call with commit 9270725's model (the H100 profile of
# 22 calls, the ranks' spread pooled)
HOLDOUT32B_GRAPH="
alexnet 64 fp32 graphapi
resnet152 64 fp32 graphapi
resnext50_32x4d 152 fp16 graphapi
mnasnet1_0 32 fp32 graphapi"
HOLDOUT32B_TORCH="
--network wide_resnet50_2 --batch 128 --precision fp32 --channels-last
--network mnasnet1_0 --batch 144 --precision fp16 --channels-last
--network resnext50_32x4d --batch 32 --precision fp32 --channels-last
--network resnet101 --batch 216 --precision fp32 --channels-last
--network resnet34 --batch 56 --precision fp32
--network wide_resnet50_2 --batch 112 --precision fp16"

# MODE=probe33 (session 33): does a probe of the host's speed taken in the run's own process, just before and just
# after its timed iterations (measure/host_probe.h; torch_bench.py's host_probe), follow the run's host time? Host-
# paced configurations, each in several processes one after another, rounds interleaved: calibration-set ones
# through the legacy API (the probe's relation to the host time may be fitted on them), then four evaluation ones
# fixed before the call (legacy ResNet-50 b32 FP16 and GoogLeNet b32 FP16, twice each; scored as any run,
# predicted in the call with this commit's model), then calibration-set PyTorch ones with the call's eager costs.
PROBE33_LEGACY_CALIB="
resnet18 32 fp16 r1
densenet121 32 fp16 r1
squeezenet1_1 32 fp32 r1
inception_v3 32 fp16 r1
resnet18 32 fp16 r2
densenet121 32 fp16 r2
squeezenet1_1 32 fp32 r2
inception_v3 32 fp16 r2
resnet18 32 fp16 r3
densenet121 32 fp16 r3
squeezenet1_1 32 fp32 r3
inception_v3 32 fp16 r3"
PROBE33_LEGACY_EVAL="
resnet50 32 fp16 r1
googlenet 32 fp16 r1
resnet50 32 fp16 r2
googlenet 32 fp16 r2"
PROBE33_TORCH_CALIB="
resnet18 32 fp16 r1
densenet121 32 fp16 r1
resnet18 32 fp16 r2
densenet121 32 fp16 r2
resnet18 32 fp16 r3"
probe33() {
    lscpu | grep -E 'Model name|^CPU\(s\)|MHz|NUMA' || true
    CONV_API=legacy group probe33 "$PROBE33_LEGACY_CALIB" ""
    CONV_API=legacy group probe33-eval "$PROBE33_LEGACY_EVAL" ""
    (RES=$BUILD/results/probe33-eval && predict_in_call)
    python3 -c 'import torch, torchvision' 2>/dev/null || { fail "no torch/torchvision here"; return; }
    local dir=$RES/probe33-torch net batch prec rep
    mkdir -p "$dir"
    say "torch_bench --eager-overhead"
    timeout 150 python3 tools/torch_bench.py --eager-overhead -o "$dir/eager-overhead-$DEV.json" </dev/null ||
        fail "eager overhead"
    while read -r net batch prec rep; do
        [ -n "$net" ] || continue
        [ $(($(date +%s) - START)) -lt "$DEADLINE" ] || { fail "torch $net $rep skipped: past the deadline"; continue; }
        say "torch_bench.py $net b$batch $prec $rep"
        timeout 150 python3 tools/torch_bench.py --network "$net" --batch "$batch" --precision "$prec" \
            -o "$dir/torch-$net-b$batch-$prec-$rep.json" </dev/null 2>&1 | grep -E '^torch_bench' || fail "torch $net $rep"
        bundle
    done <<<"$PROBE33_TORCH_CALIB"
    torch_in_call "$dir"
}

# MODE=pscalib33 (session 33, 2 GPUs): the parameter server on calibration-set networks, which no PS run had
# used (every PS run so far is evaluation data, so no PS model change could be judged on the calibration set):
# the host's MPI link, the servers' pass and the PS exchange measured first (ps_host), then one- and two-server
# jobs through the graph API, predicted in the call
PSCALIB33_CONFIGS="
resnet18 64 fp32 ps1
vgg11 64 fp16 ps1
densenet121 32 fp32 ps1
inception_v3 32 fp16 ps1
squeezenet1_1 64 fp16 ps1
mobilenet_v2 64 fp32 ps1
resnet18 64 fp16 ps2
vgg11 64 fp32 ps2"

# MODE=pswake34 (session 34, 2 GPUs): does the parameter server's pass cost more after the backward's idle?
# In the jobs a small network's server pass took far longer than psbench's rate says (SqueezeNet b64 FP16 in
# pscalib33: 2.44 ms for 1.2 M parameters, psbench 0.24). The host measured as ps_host does, then the PS exchange
# of 1-16 MB with each round pushed after a 30 ms wait (cnnperf-psexchange --idle-ms), then five small-exchange
# calibration-set jobs through the graph API, predicted in the call.
PSWAKE34_CONFIGS="
squeezenet1_1 64 fp16 ps1
squeezenet1_1 64 fp32 ps1
mobilenet_v2 32 fp16 ps1
resnet18 32 fp32 ps1
densenet121 32 fp16 ps1"
pswake34() {
    need_gpus 2 || return
    local RES=$BUILD/results/pswake34
    rm -rf "$RES"
    ps_host 2
    say "PS exchange of 2 workers, each round after a 30 ms idle wait, 1-16 MB"
    timeout 120 "${MPIRUN[@]}" -np 3 "$BUILD/measure/cnnperf-psexchange" --min-mb 1 --max-mb 16 --rounds 5 \
        --idle-ms 30 -o "$RES/psexchange-idle30.json" </dev/null || fail "psexchange --idle-ms"
    GPUS=2 CONV_API=graph multi_runs "$PSWAKE34_CONFIGS"
    predict_in_call
}

# MODE=pswake42 (written in session 42 for a later call, 4 GPUs of one host; calibration data, microbenchmarks
# only; not run: the session's device time was spent): what a server round costs
# after the backward's idle with four workers, whose servers' teams are 60 threads (one server) and 30 each (two),
# against the same rounds back to back: the measurement rule 13's fitted constant stands in for. 1-16 MB per worker.
pswake42() {
    need_gpus 4 || return
    local RES=$BUILD/results/pswake42 k idle
    rm -rf "$RES"
    mkdir -p "$RES"
    mpi_setup
    for k in 1 2; do
        for idle in 0 30; do # back to back, then each round after a 30 ms idle wait
            say "PS exchange of 4 workers, $k server(s), 1-16 MB, ${idle} ms idle before each round"
            timeout 60 "${MPIRUN[@]}" -np $((4 + k)) "$BUILD/measure/cnnperf-psexchange" --servers $k --min-mb 1 \
                --max-mb 16 --rounds 5 --idle-ms $idle -o "$RES/psexchange-k$k-idle$idle.json" </dev/null ||
                fail "psexchange k$k idle $idle"
        done
    done
}

# MODE=psidle54 (session 44, 4 GPUs of one host; calibration data: microbenchmarks and calibration-set jobs only):
# does a server's pass grow with the idle time before its round? In the calibration set's 4-worker PS jobs the
# server's measured sum and SGD, over the model's, rises with the batch (DenseNet-121 FP16 b32 ~1.0, b96 2.97;
# ResNet-18 FP32 b64 1.02, b128 1.30): a larger batch is a longer backward between the buckets. The PS exchange of
# 4 workers and one server with each round after 0, 10, 30, 100 and 300 ms in which the workers keep a core busy,
# then the servers' pass beside four workers and two calibration-set networks with one server at two batches each.
PSIDLE54_CONFIGS="
densenet121 32 fp16
densenet121 96 fp16
resnet18 64 fp32
resnet18 192 fp32"
psidle54() {
    need_gpus 4 || return
    local RES=$BUILD/results/psidle54 idle net batch prec
    rm -rf "$RES"
    mkdir -p "$RES"
    mpi_setup
    lscpu | grep -E '^(Model name|Socket|Core|Thread|NUMA|CPU\(s\))' || true
    for idle in 0 10 30 100 300; do
        say "PS exchange of 4 workers spinning ${idle} ms before each round, one server"
        timeout 90 "${MPIRUN[@]}" -np 5 "$BUILD/measure/cnnperf-psexchange" --min-mb 1 --max-mb 64 --rounds 5 \
            --idle-ms "$idle" --idle-spin 1 -o "$RES/psexchange-idle$idle.json" </dev/null || fail "psexchange idle $idle"
    done
    timeout 60 "$BUILD/measure/cnnperf-psbench" --beside 4 -o "$RES/psbench.json" </dev/null || fail "psbench"
    while read -r net batch prec; do
        [ -n "$net" ] || continue
        mpirun_measure "multi-$net-b$batch-$prec-ps1-4gpu" 5 "--network $net --batch $batch --precision $prec --device $DEV --gpus 4 --comm ps --ps-servers 1 --conv-api graph --ps-bench $RES/psbench.json" -- \
            --network "$net" --batch "$batch" --precision "$prec" --comm ps --ps-servers 1 --conv-api graph
    done <<<"$PSIDLE54_CONFIGS"
    bundle
}

# MODE=psteam52 (session 43, 2 GPUs of one host; calibration data: microbenchmarks and calibration-set jobs only):
# does a server round's fixed cost grow with its thread team, as rule 13 (CP_PS_ROUND_MS_PER_THREAD) has it? On
# one host, the team varied at fixed workers: the PS exchange of 2 workers, each round after 30 ms in which the
# workers keep a core busy as a job's do (--idle-spin 1), one server on 4, 8, 15 and 30 threads (30: a job's
# default here), then 30 asleep and two servers spinning; then three calibration-set PS jobs (graph API) on 8, 15
# and 30 server threads, the servers' pass timed at psbench's rate on the same teams.
PSTEAM52_CONFIGS="
resnet18 64 fp16
squeezenet1_1 64 fp16
mobilenet_v2 32 fp32"
psteam52() {
    need_gpus 2 || return
    local RES=$BUILD/results/psteam52 t net batch prec
    rm -rf "$RES"
    mkdir -p "$RES"
    mpi_setup
    lscpu | grep -E '^(Model name|Socket|Core|Thread|NUMA|CPU\(s\))' || true
    for t in 4 8 15 30; do
        say "PS exchange of 2 workers spinning 30 ms before each round, one server on $t threads"
        timeout 60 "${MPIRUN[@]}" -np 3 "$BUILD/measure/cnnperf-psexchange" --min-mb 1 --max-mb 16 --rounds 7 \
            --idle-ms 30 --idle-spin 1 --threads "$t" -o "$RES/psexchange-spin-t$t.json" </dev/null || fail "psexchange t$t"
    done
    timeout 60 "${MPIRUN[@]}" -np 3 "$BUILD/measure/cnnperf-psexchange" --min-mb 1 --max-mb 16 --rounds 7 \
        --idle-ms 30 -o "$RES/psexchange-sleep-t30.json" </dev/null || fail "psexchange asleep"
    timeout 60 "${MPIRUN[@]}" -np 4 "$BUILD/measure/cnnperf-psexchange" --servers 2 --min-mb 1 --max-mb 16 \
        --rounds 7 --idle-ms 30 --idle-spin 1 -o "$RES/psexchange-k2-spin.json" </dev/null || fail "psexchange k2"
    for t in 8 15 30; do
        timeout 60 "$BUILD/measure/cnnperf-psbench" --threads "$t" --beside 2 -o "$RES/psbench-t$t.json" </dev/null ||
            fail "psbench --threads $t"
    done
    while read -r net batch prec; do
        [ -n "$net" ] || continue
        for t in 8 15 30; do
            mpirun_measure "multi-$net-b$batch-$prec-ps1-t$t" 3 "--network $net --batch $batch --precision $prec --device $DEV --gpus 2 --comm ps --ps-servers 1 --conv-api graph --ps-bench $RES/psbench-t$t.json" -- \
                --network "$net" --batch "$batch" --precision "$prec" --comm ps --ps-servers 1 --ps-threads "$t" --conv-api graph
        done
    done <<<"$PSTEAM52_CONFIGS"
    bundle
}

# MODE=pswake35 (session 35, 2 GPUs): is mholdout35's LeNet-5 b144 FP16 with two parameter servers (0.95 ms measured,
# 0.49 predicted) the servers' OpenMP threads asleep between rounds? That job, the same with one server, and the
# calibration set's SqueezeNet 1.1 b64 FP16 with one (-26.8% in pscalib33), each under libgomp's default wait policy
# and under OMP_WAIT_POLICY=active (the threads spin, never sleep), twice over in that order; the host's exchange
# first. A diagnostic of a server setting the model does not describe: results in pswake35/<policy>-r<n>/, kept out
# of the targets (validation/pswake-h100x2/).
PSWAKE35_CONFIGS="
lenet5 144 fp16 ps2
lenet5 144 fp16 ps1
squeezenet1_1 64 fp16 ps1"
pswake35() {
    need_gpus 2 || return
    local base=$BUILD/results/pswake35 RES pol r
    rm -rf "$base"
    RES=$base ps_host 2
    for r in 1 2; do
        for pol in default active; do
            RES=$base/$pol-r$r
            mkdir -p "$RES"
            cp "$base"/host-mpi-raw.json "$base"/psbench.json "$base"/psexchange*.json "$RES"/ 2>/dev/null
            say "OMP_WAIT_POLICY=$pol, round $r"
            (
                if [ "$pol" = active ]; then export OMP_WAIT_POLICY=active; else unset OMP_WAIT_POLICY; fi
                GPUS=2 CONV_API=graph multi_runs "$PSWAKE35_CONFIGS"
            )
            predict_in_call
        done
    done
}

# MODE=ddphold33 (session 33): six DDP jobs on 2 x H100 drawn before the call by Python's random.Random(33), as in
# session 32 (a network of the 13 evaluation networks but LeNet-5 in name order, a batch of the multiples of 8 in
# 32..160, fp16 or fp32, NCHW or channels-last, drawn in that order per job), in drawn order, predicted in the call
# with this commit's model
DDPHOLD33_CONFIGS="
--network vgg13 --batch 72 --precision fp16 --channels-last
--network resnet50 --batch 160 --precision fp16 --channels-last
--network vgg16 --batch 160 --precision fp32 --channels-last
--network resnet101 --batch 48 --precision fp32 --channels-last
--network resnet101 --batch 160 --precision fp32
--network vgg19 --batch 136 --precision fp32 --channels-last"

# MODE=holdout33 (session 33): ten one-GPU evaluation configurations drawn before the call by random.Random(3333):
# per job a network of the 14 evaluation networks in name order, a batch of the multiples of 8 in 32..256, fp16 or
# fp32, and the harness: cnnperf-measure's graph API or legacy API, PyTorch NCHW or PyTorch channels-last, drawn in
# that order per job; the seven cnnperf-measure jobs first in drawn order, then the three PyTorch ones; predicted in
# the call with this commit's model
HOLDOUT33_MEASURE="
googlenet 160 fp16
wide_resnet50_2 168 fp32 graphapi
vgg16 120 fp16 graphapi
mnasnet1_0 112 fp16 graphapi
resnext50_32x4d 232 fp32 graphapi
lenet5 32 fp32
vgg16 184 fp32"
HOLDOUT33_TORCH="
--network resnext50_32x4d --batch 32 --precision fp16 --channels-last
--network resnext50_32x4d --batch 224 --precision fp32
--network vgg19 --batch 48 --precision fp32"

# MODE=holdout34 (session 34, one H200): ten one-GPU evaluation configurations drawn before the call by
# random.Random(34), as holdout33 (per job a network of the 14 evaluation networks in name order, a batch of the
# multiples of 8 in 32..256, fp16 or fp32, and the harness: graph API, legacy API, PyTorch NCHW or channels-last,
# drawn in that order per job); the six cnnperf-measure jobs first in drawn order, then the four PyTorch ones;
# predicted in the call with this commit's model. Every cnnperf-measure run records its host probe: the H200's
# hosts had not been probed.
HOLDOUT34_MEASURE="
resnet50 120 fp16
densenet169 176 fp16 graphapi
mnasnet1_0 120 fp16
vgg19 160 fp16 graphapi
resnet152 112 fp16
resnet34 168 fp16"
HOLDOUT34_TORCH="
--network alexnet --batch 256 --precision fp32
--network densenet169 --batch 136 --precision fp32
--network resnet101 --batch 96 --precision fp16 --channels-last
--network googlenet --batch 176 --precision fp32"

# MODE=holdout35 (session 35, asked of an H200): ten one-GPU evaluation configurations drawn before the call by
# random.Random(35) by holdout33's rule (per job a network of the 14 evaluation networks in name order, a batch of
# the multiples of 8 in 32..256, fp16 or fp32, and the harness: graph API, legacy API, PyTorch NCHW or
# channels-last, drawn in that order per job); the six cnnperf-measure jobs first in drawn order, then the four
# PyTorch ones; predicted in the call with this commit's model.
HOLDOUT35_MEASURE="
alexnet 160 fp16 graphapi
vgg16 152 fp32 graphapi
resnet101 200 fp32 graphapi
alexnet 88 fp32 graphapi
googlenet 112 fp16 graphapi
resnet34 248 fp32 graphapi"
HOLDOUT35_TORCH="
--network resnet50 --batch 112 --precision fp16
--network wide_resnet50_2 --batch 64 --precision fp32 --channels-last
--network mnasnet1_0 --batch 176 --precision fp16
--network vgg13 --batch 120 --precision fp16"

# MODE=holdout36 (session 35, asked of an H200): ten more one-GPU evaluation configurations by random.Random(36),
# holdout35's rule, drawn after its model changes (the workspace the memory leaves, the legacy host's GPU tail);
# the three cnnperf-measure jobs first in drawn order, then the seven PyTorch ones; predicted in the call.
HOLDOUT36_MEASURE="
densenet169 32 fp16
vgg19 232 fp32
googlenet 152 fp32"
HOLDOUT36_TORCH="
--network resnet101 --batch 40 --precision fp16
--network mnasnet1_0 --batch 216 --precision fp32
--network resnet50 --batch 96 --precision fp16 --channels-last
--network wide_resnet50_2 --batch 152 --precision fp32
--network resnet152 --batch 72 --precision fp16 --channels-last
--network vgg16 --batch 224 --precision fp16
--network alexnet --batch 184 --precision fp32 --channels-last"

# MODE=holdout37 (session 36): ten one-GPU evaluation configurations by random.Random(37), holdout33's rule (per
# job a network of the 14 evaluation networks in name order, a batch of the multiples of 8 in 32..256, fp16 or fp32,
# and the harness: graph API, legacy API, PyTorch NCHW or channels-last, drawn in that order per job), drawn after
# the one-thread server pass; the seven cnnperf-measure jobs first in drawn order, then the three PyTorch ones;
# predicted in the call with this commit's model.
HOLDOUT37_MEASURE="
vgg13 184 fp16 graphapi
vgg13 120 fp32 graphapi
vgg16 136 fp32
vgg19 256 fp16 graphapi
vgg13 208 fp16
resnet50 136 fp16 graphapi
alexnet 192 fp32 graphapi"
HOLDOUT37_TORCH="
--network vgg13 --batch 144 --precision fp32 --channels-last
--network resnet152 --batch 48 --precision fp32
--network vgg13 --batch 208 --precision fp32"

# MODE=holdout38 (session 36): ten more one-GPU evaluation configurations by random.Random(38), holdout37's rule,
# drawn with the session's final model; the seven cnnperf-measure jobs first in drawn order, then the three PyTorch
# ones; predicted in the call.
HOLDOUT38_MEASURE="
vgg13 136 fp32 graphapi
resnet34 224 fp32
resnext50_32x4d 48 fp32
resnet152 160 fp16 graphapi
resnet152 120 fp16
resnet34 56 fp32 graphapi
vgg16 64 fp32 graphapi"
HOLDOUT38_TORCH="
--network densenet169 --batch 120 --precision fp32
--network alexnet --batch 184 --precision fp16
--network resnet101 --batch 96 --precision fp32"

# MODE=holdout39 (session 36): ten more one-GPU evaluation configurations by random.Random(39), holdout37's rule,
# with the session's final model; the three cnnperf-measure jobs first, then the seven PyTorch ones in drawn order
# (a job past the deadline is skipped and said so); predicted in the call.
HOLDOUT39_MEASURE="
lenet5 96 fp32 graphapi
lenet5 88 fp32 graphapi
mnasnet1_0 176 fp32 graphapi"
HOLDOUT39_TORCH="
--network vgg13 --batch 232 --precision fp32
--network vgg16 --batch 72 --precision fp16
--network vgg13 --batch 256 --precision fp16
--network alexnet --batch 56 --precision fp32
--network resnet152 --batch 232 --precision fp16 --channels-last
--network resnet50 --batch 176 --precision fp32
--network vgg16 --batch 48 --precision fp32 --channels-last"

# MODE=holdout40 (session 37): ten one-GPU evaluation configurations by random.Random(40), holdout33's rule,
# drawn before the call with the session's starting model (f948531); the cnnperf-measure jobs first in drawn
# order, then the PyTorch ones; predicted in the call.
HOLDOUT40_MEASURE="
resnet34 176 fp16
mnasnet1_0 200 fp16
wide_resnet50_2 32 fp16 graphapi
vgg13 80 fp32 graphapi
googlenet 232 fp32 graphapi
mnasnet1_0 112 fp16 graphapi
vgg16 224 fp32
vgg16 64 fp32"
HOLDOUT40_TORCH="
--network resnet152 --batch 256 --precision fp16
--network vgg19 --batch 120 --precision fp32 --channels-last"

# MODE=holdout41 (session 37): ten more one-GPU evaluation configurations by random.Random(41), holdout33's rule,
# drawn before the call with the model of holdout40 (unchanged); measure jobs first, then PyTorch; predicted in it.
HOLDOUT41_MEASURE="
resnet152 112 fp16
resnet152 248 fp16
googlenet 64 fp32
mnasnet1_0 192 fp16 graphapi
wide_resnet50_2 104 fp16 graphapi
vgg16 120 fp32
resnet50 200 fp16 graphapi"
HOLDOUT41_TORCH="
--network resnet152 --batch 176 --precision fp32
--network vgg13 --batch 240 --precision fp16 --channels-last
--network vgg19 --batch 176 --precision fp16 --channels-last"

# MODE=holdout42 (session 38): ten one-GPU evaluation configurations by random.Random(42), holdout33's rule, drawn
# before the session's first call; measure jobs first, then PyTorch; predicted in the call.
HOLDOUT42_MEASURE="
lenet5 88 fp16 graphapi
alexnet 32 fp16
lenet5 160 fp16
vgg16 192 fp32
resnet34 176 fp32 graphapi
resnet101 96 fp16
vgg19 112 fp16 graphapi"
HOLDOUT42_TORCH="
--network vgg13 --batch 56 --precision fp16
--network vgg13 --batch 216 --precision fp16 --channels-last
--network vgg19 --batch 232 --precision fp16 --channels-last"

# MODE=holdout43 (session 38): ten one-GPU evaluation configurations by random.Random(43), holdout33's rule, drawn
# before the call, for the session's final model; measure jobs first, then PyTorch; predicted in the call.
HOLDOUT43_MEASURE="
googlenet 40 fp16 graphapi
resnet152 64 fp16
resnet50 240 fp32
vgg19 128 fp32
resnet152 48 fp16 graphapi"
HOLDOUT43_TORCH="
--network alexnet --batch 104 --precision fp16 --channels-last
--network resnet101 --batch 200 --precision fp16 --channels-last
--network resnext50_32x4d --batch 152 --precision fp16 --channels-last
--network resnext50_32x4d --batch 120 --precision fp32 --channels-last
--network googlenet --batch 40 --precision fp16"

# MODE=holdout44 (session 38): ten more one-GPU evaluation configurations by random.Random(44), holdout33's rule,
# drawn before the call for the session's final model; measure jobs first, then PyTorch; predicted in the call.
HOLDOUT44_MEASURE="
resnet152 160 fp16
resnet152 88 fp32 graphapi
lenet5 56 fp16 graphapi
densenet169 112 fp32
densenet169 160 fp16 graphapi
alexnet 120 fp32 graphapi
resnet34 152 fp16"
HOLDOUT44_TORCH="
--network googlenet --batch 224 --precision fp32 --channels-last
--network resnext50_32x4d --batch 128 --precision fp32
--network mnasnet1_0 --batch 112 --precision fp16"

# MODE=holdout45 (session 39): ten one-GPU evaluation configurations by random.Random(45), holdout33's rule, drawn
# before the call for the session's final model (the strided data gradient's factor); measure jobs first, then
# PyTorch; predicted in the call. ResNet-101 b224 FP32 is predicted not to fit (87.6 GiB): run as drawn.
HOLDOUT45_MEASURE="
densenet169 104 fp32 graphapi
densenet169 152 fp16 graphapi
wide_resnet50_2 216 fp16 graphapi
googlenet 96 fp16
wide_resnet50_2 224 fp32 graphapi
resnext50_32x4d 136 fp16 graphapi
resnet101 224 fp32 graphapi"
HOLDOUT45_TORCH="
--network mnasnet1_0 --batch 136 --precision fp32
--network mnasnet1_0 --batch 232 --precision fp16
--network alexnet --batch 72 --precision fp32"

# MODE=holdout47 (session 40): ten more one-GPU evaluation configurations by random.Random(47), holdout33's rule,
# drawn before the call for the session's final model (the H100's co-execution in); measure jobs first, then
# PyTorch in drawn order; predicted in the call.
HOLDOUT47_MEASURE="
vgg13 32 fp16 graphapi
mnasnet1_0 232 fp32 graphapi
resnext50_32x4d 112 fp16
vgg19 240 fp16"
HOLDOUT47_TORCH="
--network resnet101 --batch 48 --precision fp32 --channels-last
--network resnext50_32x4d --batch 112 --precision fp32 --channels-last
--network resnet152 --batch 184 --precision fp16 --channels-last
--network wide_resnet50_2 --batch 256 --precision fp32 --channels-last
--network lenet5 --batch 88 --precision fp32 --channels-last
--network lenet5 --batch 40 --precision fp32"

# MODE=holdout47b: the two of HOLDOUT47_TORCH holdout47's call did not reach (its 600 s ran out in the FP32
# channels-last Wide ResNet-50-2 b256's cudnn.benchmark, which is left out: it needs more than a call's time).
HOLDOUT47B_TORCH="
--network lenet5 --batch 88 --precision fp32 --channels-last
--network lenet5 --batch 40 --precision fp32"

# MODE=mholdout47 (session 40, 2 GPUs): ten 2-GPU evaluation jobs drawn before the call by random.Random(4747),
# mholdout35's rule, for the session's final model (the H100's co-execution in); the host's 2-rank sweeps first,
# then the graph-API jobs in drawn order, the legacy ones and the DDP one (torchrun, 2 processes); predicted in the
# call.
MHOLDOUT47_GRAPH="
wide_resnet50_2 224 fp16 ps2
vgg13 96 fp16 ps1
lenet5 88 fp32 nccl
densenet169 112 fp16 ps2
lenet5 160 fp32 nccl
resnet152 112 fp32 ps2
resnet152 112 fp32 nccl"
MHOLDOUT47_LEGACY="
vgg13 80 fp16 nccl
densenet169 56 fp16 nccl"
MHOLDOUT47_DDP="
--network resnet50 --batch 128 --precision fp32"
MHOLDOUT47_GPUS=2

# MODE=calfresh42 (written in session 41 for a later call): calibration-set runs no model change has been judged
# on, for judging session 41's rule 12 (a GEMM wave's output at DRAM speed, docs/ACCURACY.md) again, or any other
# change fitted on the calibration set: each calibration network at one batch drawn by random.Random(4142) from
# 32..256 step 8 (the networks in name order), FP32 and FP16, through the legacy API first and then the graph API
# (MobileNet-v2 FP32 through the graph API spends about two minutes in its engine search: last); predicted in the
# call. Nothing from the evaluation set.
CALFRESH42_LEGACY="
densenet121 48 fp32
densenet121 48 fp16
inception_v3 192 fp32
inception_v3 192 fp16
mobilenet_v2 208 fp32
mobilenet_v2 208 fp16
resnet18 64 fp32
resnet18 64 fp16
squeezenet1_1 176 fp32
squeezenet1_1 176 fp16
vgg11 112 fp32
vgg11 112 fp16"
CALFRESH42_GRAPH="
densenet121 48 fp32 graphapi
densenet121 48 fp16 graphapi
inception_v3 192 fp32 graphapi
inception_v3 192 fp16 graphapi
mobilenet_v2 208 fp16 graphapi
resnet18 64 fp32 graphapi
resnet18 64 fp16 graphapi
squeezenet1_1 176 fp32 graphapi
squeezenet1_1 176 fp16 graphapi
vgg11 112 fp32 graphapi
vgg11 112 fp16 graphapi
mobilenet_v2 208 fp32 graphapi"

# MODE=psov42 (session 42, 4 GPUs; calibration data): does a 4-worker PS exchange run slower beside the backward
# than alone? Every 4-GPU PS job of a deep evaluation network came out short, its exchange 15-30% longer than the
# model's, while the VGGs' (little backward to overlap) did not. Calibration-set networks through the graph API,
# one server (two for ResNet-18 FP16), each with the exchange overlapped and not (exchange after the backward),
# after the host's 4-rank MPI sweep, the servers' pass and the PS exchange microbenchmark; predicted in the call.
PSOV42_CONFIGS="
densenet121 32 fp32 ps1
densenet121 32 fp32 ps1 nooverlap
resnet18 128 fp32 ps1
resnet18 128 fp32 ps1 nooverlap
inception_v3 64 fp32 ps1
inception_v3 64 fp32 ps1 nooverlap
densenet121 96 fp16 ps1
densenet121 96 fp16 ps1 nooverlap
resnet18 64 fp16 ps2
resnet18 64 fp16 ps2 nooverlap"

# MODE=pscalib71 (session 71, 2 GPUs; calibration data): two-server PS jobs on H200s read long in the evaluation set
# (35 at +6.2% bias; the H100s' 74 at +0.6%), and the calibration set holds only two H200 two-server jobs (4 GPUs):
# nothing to judge a change on. Calibration-set networks through the graph API, mostly two servers, the big-gradient
# VGG-11 and ResNet-18 each also with the exchange after the backward (nooverlap: the exchange alone in a job), and
# VGG-11 with one server for contrast; the host measured first (ps_host) and the exchange again after (ps_after).
PSCALIB71_CONFIGS="
vgg11 64 fp32 ps2
vgg11 64 fp32 ps2 nooverlap
vgg11 128 fp16 ps2
vgg11 128 fp16 ps2 nooverlap
vgg11 192 fp32 ps2
resnet18 128 fp32 ps2
resnet18 128 fp32 ps2 nooverlap
densenet121 96 fp32 ps2
inception_v3 64 fp16 ps2
mobilenet_v2 128 fp32 ps2
vgg11 64 fp32 ps1
vgg11 64 fp32 ps1 nooverlap"

# MODE=holdout51 and MODE=mholdout51 (drawn in session 42 for a later call, for the model session 42 left: rules
# 12c and 13 in): ten one-GPU evaluation configurations by random.Random(51), holdout33's rule, and ten 2-GPU jobs by
# random.Random(5151), mholdout35's rule (two GPUs: where rule 13's round is suspected too long); predicted in the call.
HOLDOUT51_MEASURE="
lenet5 240 fp16
resnet152 96 fp32 graphapi
vgg19 232 fp16 graphapi
alexnet 40 fp16 graphapi"
HOLDOUT51_TORCH="
--network wide_resnet50_2 --batch 88 --precision fp32 --channels-last
--network resnet50 --batch 144 --precision fp32
--network wide_resnet50_2 --batch 56 --precision fp16
--network alexnet --batch 152 --precision fp16
--network resnext50_32x4d --batch 104 --precision fp32 --channels-last
--network resnet34 --batch 240 --precision fp16 --channels-last"
MHOLDOUT51_GRAPH="
resnet101 136 fp16 nccl
vgg19 56 fp32 nccl
lenet5 112 fp32 nccl
resnext50_32x4d 152 fp16 ps1"
MHOLDOUT51_LEGACY="
mnasnet1_0 208 fp16 nccl
resnet34 64 fp16 nccl
densenet169 136 fp32 nccl
resnet34 112 fp16 nccl"
MHOLDOUT51_DDP="
--network alexnet --batch 232 --precision fp32 --channels-last
--network alexnet --batch 224 --precision fp32 --channels-last"
MHOLDOUT51_GPUS=2

# MODE=holdout50 (session 42): ten more one-GPU evaluation configurations by random.Random(50), holdout33's rule,
# drawn before the call for the session's final model (rule 12c in); measure jobs first, then PyTorch in drawn
# order; predicted in the call.
HOLDOUT50_MEASURE="
lenet5 200 fp16
resnet101 88 fp16 graphapi
wide_resnet50_2 112 fp32 graphapi
vgg19 136 fp16"
HOLDOUT50_TORCH="
--network resnet34 --batch 248 --precision fp32
--network vgg13 --batch 256 --precision fp16 --channels-last
--network vgg19 --batch 112 --precision fp16
--network resnet101 --batch 240 --precision fp16
--network densenet169 --batch 208 --precision fp32 --channels-last
--network alexnet --batch 88 --precision fp32"

# MODE=holdout49 (session 41): ten more one-GPU evaluation configurations by random.Random(49), holdout33's rule,
# drawn before the call for the session's final model (no model file changed); measure jobs first, then PyTorch in
# drawn order (VGG-19 b120 FP32 channels-last's cudnn.benchmark may take what is left of the call); predicted in
# the call.
HOLDOUT49_MEASURE="
densenet169 120 fp32 graphapi
resnet101 224 fp16 graphapi
vgg19 216 fp32
resnet34 216 fp16
resnet152 32 fp16
vgg16 168 fp16 graphapi"
HOLDOUT49_TORCH="
--network wide_resnet50_2 --batch 256 --precision fp32
--network densenet169 --batch 136 --precision fp32
--network vgg19 --batch 120 --precision fp32 --channels-last
--network resnext50_32x4d --batch 184 --precision fp16 --channels-last"

# MODE=mholdout49 (session 41, 4 GPUs of one host): ten 4-GPU evaluation jobs drawn before the call by
# random.Random(4949), mholdout35's rule, for the session's final model; the host's 4-rank sweeps first, then the
# graph-API jobs in drawn order and the DDP ones (torchrun, 4 processes) in drawn order; predicted in the call.
MHOLDOUT49_GRAPH="
resnext50_32x4d 120 fp32 nccl
wide_resnet50_2 48 fp16 nccl
densenet169 64 fp16 ps1
lenet5 184 fp32 ps1
resnet101 152 fp32 ps1"
MHOLDOUT49_DDP="
--network resnet101 --batch 88 --precision fp16 --channels-last
--network vgg16 --batch 64 --precision fp16 --channels-last
--network resnet34 --batch 40 --precision fp32
--network vgg16 --batch 248 --precision fp32
--network resnet152 --batch 216 --precision fp16"
MHOLDOUT49_GPUS=4

# MODE=mholdout52 and MODE=holdout52 (drawn in session 43 for the model as it stands, session 42's: no model file
# changed in session 43): ten 4-GPU jobs by random.Random(5252), mholdout35's rule (4-GPU jobs are the fewest), and
# ten one-GPU configurations by random.Random(52), holdout33's rule; predicted in the call.
MHOLDOUT52_GRAPH="
wide_resnet50_2 32 fp16 nccl
vgg19 88 fp32 ps2
resnet50 224 fp32 ps2
vgg19 64 fp32 ps2"
MHOLDOUT52_DDP="
--network resnet152 --batch 32 --precision fp16 --channels-last
--network mnasnet1_0 --batch 256 --precision fp32
--network resnet152 --batch 136 --precision fp32
--network resnet101 --batch 240 --precision fp32
--network vgg16 --batch 232 --precision fp16 --channels-last
--network mnasnet1_0 --batch 120 --precision fp32 --channels-last"
MHOLDOUT52_GPUS=4
HOLDOUT52_MEASURE="
resnet152 40 fp16
resnet34 192 fp16 graphapi
resnet50 128 fp32 graphapi
lenet5 48 fp16
vgg19 152 fp32 graphapi
wide_resnet50_2 40 fp32 graphapi
resnext50_32x4d 128 fp32"
HOLDOUT52_TORCH="
--network mnasnet1_0 --batch 40 --precision fp32
--network vgg19 --batch 136 --precision fp16
--network resnet34 --batch 88 --precision fp32 --channels-last"

# MODE=torchgroup (session 44's idea, written as traces in session 45; calibration data: layer microbenchmarks of
# our choosing): groupbench's grouped and depthwise layers (session 27, validation/layerbench-h100/groupbench/nets/,
# each network a batch norm, the one convolution, a pooling and a small classifier) trained by PyTorch, every kernel
# of a step traced (tools/kernel_trace.py --op network), FP16 and FP32, NCHW and channels-last, at groupbench's
# batches and at 256: how PyTorch's cuDNN runs the grouped layers the model times from cnnperf-measure's (PyTorch's
# ResNeXt-50 FP16 is over-predicted by 10-16% in every large-batch run, docs/ACCURACY.md session 44); results for
# validation/layerbench-h100/torchgroup/.
TORCHGROUP_NETS="
grouped_c192_g32_k3s1_192x40 64
grouped_c384_g32_k3s1_384x20 64
grouped_c768_g32_k3s1_768x10 64
grouped_c96_g32_k3s1_96x80 32
grouped_c192_g8_k3s1_192x40 64
grouped_c384_g16_k3s2_384x40 64
grouped_c576_g64_k3s1_576x14 128
grouped_c240_g240_k5s1_240x28 64
grouped_c480_g480_k5s2_480x28 64"
# One PyTorch step of each network file traced kernel by kernel (tools/kernel_trace.py --op network, FP16 and
# FP32): kernel_trace_nets TAG NETS (comma-separated) BATCH nchw|cl OUT
kernel_trace_nets() {
    local tag=$1 nets=$2 b=$3 fmt=$4 out=$5 cl=()
    [ $(($(date +%s) - START)) -lt "$DEADLINE" ] || { fail "kernel_trace $tag $fmt b$b skipped: past the deadline"; return; }
    [ "$fmt" = cl ] && cl=(--channels-last)
    say "kernel_trace $tag $fmt b$b"
    timeout 240 python3 tools/kernel_trace.py --op network --network "$nets" --batch "$b" --precision fp16,fp32 \
        "${cl[@]}" -o "$out" </dev/null || fail "kernel_trace $tag $fmt b$b"
    bundle
}
torchgroup() {
    python3 -c 'import torch, torchvision' 2>/dev/null || { fail "no torch/torchvision here"; return; }
    local dir="$RES/torchgroup" nets b fmt
    mkdir -p "$dir"
    for fmt in nchw cl; do
        for b in 32 64 128 256; do
            # groupbench's batches, and 256 for all
            nets=$(awk -v b="$b" 'NF == 2 && (b == 256 || $2 == b) {
                print "validation/layerbench-h100/groupbench/nets/" $1 ".json" }' <<<"$TORCHGROUP_NETS" | paste -sd,)
            [ -z "$nets" ] || kernel_trace_nets groupbench "$nets" "$b" "$fmt" "$dir/kernels-torch-groupbench-$fmt-b$b.json"
        done
    done
}

# MODE=groupblock46 (written in session 45 for a later call; calibration data: layer microbenchmarks of our choosing):
# torchgroup's channels-last and FP32 traces contradict the PyTorch ResNeXt-50 runs (docs/ACCURACY.md session 45),
# and its networks feed the grouped convolution from a batch norm of an FP32 input. These four
# (validation/layerbench-h100/groupblock/nets/: groupbench's 3x3 widths, groups and planes) feed it as a bottleneck
# block does: 1x1 convolution, batch norm, ReLU, the grouped 3x3, batch norm, ReLU, 1x1 convolution. Each pass
# timed alone by cnnperf-measure through the graph API (--layers isolated) and every kernel of a PyTorch step
# traced, FP16 and FP32, NCHW and channels-last, at b64 and b256; results for validation/layerbench-h100/groupblock/.
groupblock46() { groupblock_set groupblock; }
# groupblock_set NAME: validation/layerbench-h100/NAME/nets/*.json measured and traced as groupblock46 says, into
# results/NAME
groupblock_set() {
    local dir=$RES/$1 f b p
    mkdir -p "$dir"
    for f in validation/layerbench-h100/$1/nets/*.json; do
        for b in 64 256; do
            for p in fp16 fp32; do
                isolated_passes graph "$f" "$b" "$p" "$dir/layerbench-$(basename "$f" .json)-b$b-$p.json"
            done
        done
        bundle
    done
    trace_set "$1" "$dir" "64 256"
}

# isolated_passes API NET BATCH PRECISION OUT: each layer pass of network file NET timed alone by cnnperf-measure
# through convolution API API (--layers isolated) into OUT, unless the deadline has passed
isolated_passes() {
    local name
    name=$(basename "$2" .json)
    if [ $(($(date +%s) - START)) -ge "$DEADLINE" ]; then
        fail "measure $name b$3 $4 ($1 API) skipped: past the deadline"
        return
    fi
    say "measure $name b$3 $4 ($1 API, layers isolated)"
    # ISOLATED_BEHIND=US: each pass behind a US-microsecond spin (cnnperf-measure --isolated-behind), so a legacy
    # call's host latency is not timed with its pass
    # shellcheck disable=SC2046
    timeout 240 "$MEASURE" --conv-api "$1" --network "$2" --batch "$3" --precision "$4" --warmup 2 --iters 5 \
        --layers isolated $([ -n "${ISOLATED_BEHIND:-}" ] && echo --isolated-behind "$ISOLATED_BEHIND") \
        -o "$5" </dev/null || fail "measure $name b$3 $4 ($1 API)"
}

# trace_set SET DIR "BATCHES": one PyTorch step of every network of validation/layerbench-h100/SET/nets traced kernel
# by kernel (kernel_trace_nets), NCHW and channels-last, at each batch, into DIR/kernels-torch-SET-<layout>-b<batch>.json
trace_set() {
    python3 -c 'import torch, torchvision' 2>/dev/null || { fail "no torch/torchvision here"; return; }
    local nets fmt b
    nets=$(ls validation/layerbench-h100/"$1"/nets/*.json | paste -sd,)
    for fmt in nchw cl; do
        for b in $3; do
            kernel_trace_nets "$1" "$nets" "$b" "$fmt" "$2/kernels-torch-$1-$fmt-b$b.json"
        done
    done
}

# MODE=groupblock57 (session 46; calibration data: layer microbenchmarks of our choosing): groupblock46's traces showed
# cuDNN 9.19 wrapping PyTorch's channels-last 16-bit grouped convolutions in tensorTransformGeneric inside a block too
# (2.4x the convolution's own time at 6 channels a group), yet its ResNeXt-50 runs are over-predicted. Its widths
# had 3-24 channels a group; these four (validation/layerbench-h100/groupblock2/nets/) have 4, 8, 16 and 32, at
# spatial sizes no shipped network uses (48, 24, 12, 6): do the transforms follow the group's width?
groupblock57() { groupblock_set groupblock2; }

# MODE=groupbench57 (session 46; calibration data): single grouped 3x3 layers at 4, 8, 16 and 32 channels a group
# (and 8 with a stride), groupbench's form at groupblock2's widths, so that every convolution kernel of a trace is
# the grouped layer's: cnnperf-measure through both APIs (layers isolated, FP16, b64 and b256) and PyTorch's kernels
# traced (NCHW and channels-last, b64 and b256), into results/groupbench2.
groupbench57() { single_grouped_set groupbench2 "64 256"; }
# MODE=groupbench58 (session 46; calibration data, measured after rule 20b was stated and its constants fixed):
# rule 20b's held-out set, single grouped layers at power-of-two widths (4 to 32 channels a group) with 16 and 64
# groups, spatial sizes and batches that neither groupbench2 nor a shipped network uses, the same way
groupbench58() { single_grouped_set groupbench3 "96 160"; }
# single_grouped_set SET "BATCHES": validation/layerbench-h100/SET/nets/*.json (one grouped layer each) through both
# APIs in FP16 (layers isolated) and PyTorch's kernels traced, NCHW and channels-last, into results/SET
single_grouped_set() {
    local dir=$RES/$1 f b api
    mkdir -p "$dir"
    for f in validation/layerbench-h100/$1/nets/*.json; do
        for b in $2; do
            for api in graph legacy; do
                isolated_passes "$api" "$f" "$b" fp16 "$dir/layerbench-$(basename "$f" .json)-b$b-fp16-$api.json"
            done
        done
        bundle
    done
    trace_set "$1" "$dir" "$2"
}

# MODE=wgrad60 (session 47; calibration data): the graph API's 16-bit 1x1 passes at large batch x plane (the weight
# gradient's K): ResNet-family 28x28 1x1 weight gradients came out 25-40% under the model at b80-b240 while the
# calibration set, mostly b64 and below, has none like them. Single 1x1 layers (validation/layerbench-h100/wgrad16/nets/,
# planes 12, 24 and 40 that no shipped network uses) timed pass by pass through the graph API (layers isolated, FP16,
# b64, b128 and b256), into results/wgrad16. MODE=wgrad60b: the held-out set (wgrad16b/nets/, other channels and
# planes, b96 and b192), measured only after a rule fitted on wgrad16 is stated and committed.
wgrad60() { single_1x1_set wgrad16 "64 128 256"; }
wgrad60b() { single_1x1_set wgrad16b "96 192"; }
# MODE=plane53 (session 53; calibration data of our choosing): 16-bit 1x1 convolutions on planes that are whole
# 8-byte vectors but not 16-byte ones in 16 bits (10x10, 18x18, 22x22) and on 2-byte ones (15x15), each shape as an
# expansion and a reduction (plane8/nets/: planes and widths no shipped network has), each pass timed alone with
# every candidate engine the search timed (provenance.conv_candidates): which of cuDNN's NCHW engines (58, 63: no
# transposes) and NHWC ones (62, 67: between transposes) wins where, and at what rate each moves its reads and
# writes, apart from any evaluation network (rule 29, docs/ACCURACY.md, session 53, took one rate from
# session 35's traces and was not kept)
plane53() { single_1x1_set plane8 "64 192"; }
# MODE=plane54 (session 54; calibration data held out from rule 31d's fit, measured after the rule's commit): 16-bit
# 1x1 layers on 14x14, 6x6 and 26x26 planes (whole 8-byte vectors, not 16-byte ones), each shape as an expansion and
# a reduction, at b96 and b160, every candidate engine recorded (docs/ACCURACY.md, session 54)
plane54() { single_1x1_set plane8b "96 160"; }
# single_1x1_set SET "BATCHES" [PRECISION ["APIS" [OUT]]]: validation/layerbench-h100/SET/nets/*.json (SET with
# a slash: SET/nets/*.json) at each batch through each API (layers isolated), by default in FP16 through the graph
# API into results/SET (its last part), else into results/OUT; each file named
# layerbench-<net>-b<batch>-<precision>-<api>.json
single_1x1_set() {
    local src=validation/layerbench-h100/$1
    [[ $1 == */* ]] && src=$1
    local dir=$RES/${5:-$(basename "$1")} prec=${3:-fp16} f b api
    mkdir -p "$dir"
    for f in "$src"/nets/*.json; do
        for b in $2; do
            for api in ${4:-graph}; do
                isolated_passes "$api" "$f" "$b" "$prec" "$dir/layerbench-$(basename "$f" .json)-b$b-$prec-$api.json"
            done
        done
    done
    bundle
}

# MODE=tf32wide61 (session 61; calibration microbenchmarks of our own shapes, in no fit): rule 42 times both TF32
# gradients of a 1x1 layer past 131,072 channel pairs between layout transposes; on its judging runs the weight
# gradients came out near their measured times and the data gradients over. The six single 1x1 layers of wgrad16
# (validation/layerbench-h100/wgrad16/nets/: 12x12, 24x24 and 40x40 planes, aligned in TF32, below, at and past
# the bound) in TF32 at b128, layers isolated, through each API, with the engines each pass chose, into
# results/tf32wide61: which gradients take the transposing engines, and where.
tf32wide61() { single_1x1_set wgrad16 128 tf32 "graph legacy" tf32wide61; }
# MODE=tf32mid63 (session 62, for a later session; calibration microbenchmarks of our own shapes, in no fit): what
# sets the rate of cuDNN's NCHW 1x1 engines (58/63/62) in TF32. Between rule 43's bounds (131,072 and 524,288
# channel pairs) the graph API runs them for every pass, and on ResNet-152's 14x14 planes they take 1.4-1.5x the
# model's NCHW GEMM where on 28x28 ones they are within 5% (docs/ACCURACY.md, session 62). Eight single 1x1 layers
# (validation/layerbench-h200/tf32mid63/nets/: 1024 <-> 256 and 1024 <-> 512 at 14x14, 512 <-> 128, 512 -> 512 and
# 1024 -> 256 at 28x28) in TF32 at b128: each pass timed alone through both APIs, with the engines each chose, into
# results/tf32mid63; then one iteration of each through the graph API under Nsight Compute (names, grids, GPU
# times, DRAM and L2 bytes, the engines beside each CSV), into results/ncutf32mid63.
tf32mid63() {
    local f configs=""
    single_1x1_set validation/layerbench-h200/tf32mid63 128 tf32 "graph legacy"
    for f in validation/layerbench-h200/tf32mid63/nets/*.json; do configs+="$f 128 tf32"$'\n'; done
    local RES=$BUILD/results/ncutf32mid63
    mkdir -p "$RES"
    CONV_API=graph NCU_KEEP_ENGINES=1 NCU_TIMEOUT=60 NCU_CONFIGS=$configs ncu_profile
}
# MODE=behind64 (session 63, for a later session; calibration-set networks, in no fit yet): are the calibration
# set's legacy-API FP16 layer passes of 100 us or more (a median 40-49% longer than the model, against the graph
# API's -2..+1%: docs/ACCURACY.md, session 63) host waits inside the passes' events? Five calibration-set networks
# through the legacy API in FP16, each timed as before and again with --layers behind (every pass run back to back
# behind a spin, the host's calls all enqueued first), and two through the graph API likewise, into
# results/behind64, predicted in the call. Ran in session 64 (validation/behind64-h200/, `python3
# tools/behind_check.py` on it): the passes differ only where the host paced the run (DenseNet-121, 0.91 of the
# iteration), and the spin overran wherever an iteration's launches fill CUDA's queue (docs/ACCURACY.md, session 64).
BEHIND64_MEASURE="
inception_v3 64 fp16
inception_v3 64 fp16 behind
resnet18 64 fp16
resnet18 64 fp16 behind
squeezenet1_1 128 fp16
squeezenet1_1 128 fp16 behind
mobilenet_v2 64 fp16
mobilenet_v2 64 fp16 behind
densenet121 64 fp16
densenet121 64 fp16 behind
inception_v3 64 fp16 graphapi
inception_v3 64 fp16 graphapi-behind
resnet18 64 fp16 graphapi
resnet18 64 fp16 graphapi-behind"
behind64() { holdout_runs behind64 "$BEHIND64_MEASURE" "" legacy; }
# MODE=groupbehind63 (session 62, for a later session; calibration microbenchmarks, in no fit): is the legacy API's
# "0.06-0.1 ms more a pass" on single grouped layers the legacy call's host latency inside `--layers isolated`'s
# timing (docs/ACCURACY.md, session 62, rule 44)? groupbench2's and groupbench3's 16-bit grouped layers at their
# batches through both APIs, each pass timed alone as before and again behind a 10 ms spin (--isolated-behind), into
# results/groupbehind63-<set>-{plain,behind}: with the spin the legacy passes should fall to the graph API's plus a
# share, and isolated_behind_overruns should be 0.
groupbehind63() {
    local set b
    for set in groupbench2:"64 256" groupbench3:"96 160"; do
        b=${set#*:}
        set=${set%%:*}
        single_1x1_set "validation/layerbench-h100/$set" "$b" fp16 "graph legacy" "groupbehind63-$set-plain"
        ISOLATED_BEHIND=10000 single_1x1_set "validation/layerbench-h100/$set" "$b" fp16 "graph legacy" \
            "groupbehind63-$set-behind"
    done
}
# MODE=tf32wide61b: the same for wgrad16b's layers (other channels and planes) at b128, and wgrad16's at b64 and b256
tf32wide61b() {
    single_1x1_set wgrad16b 128 tf32 "graph legacy" tf32wide61b
    single_1x1_set wgrad16 "64 256" tf32 "graph legacy" tf32wide61b
}

# MODE=groupblock57b (session 46; calibration data): the same blocks' passes through cuDNN's legacy API
# (cnnperf-measure --conv-api legacy --layers isolated, FP16 and FP32, b64 and b256), for groupblock and
# groupblock2, into results/<set>-legacy: the legacy harness's grouped layers had no microbenchmark (its 16-bit
# ResNeXt-50 runs came in 8-12% under the model).
groupblock57b() {
    local set f b p dir
    for set in groupblock2 groupblock; do
        dir=$RES/$set-legacy
        mkdir -p "$dir"
        for f in validation/layerbench-h100/$set/nets/*.json; do
            for b in 64 256; do
                for p in fp16 fp32; do
                    isolated_passes legacy "$f" "$b" "$p" "$dir/layerbench-$(basename "$f" .json)-b$b-$p.json"
                done
            done
            bundle
        done
    done
}

# MODE=cutcheck55 (session 45): the graph-API engine search with its early cut (measure/gpu_layers.c RETIME_CUT) on
# a calibration-set configuration whose set-up took 55-56 s in two earlier calls (graph-api-repeat,
# parity-graph-api): the set-up time and the engines chosen, beside those runs'.
CUTCHECK55_MEASURE="
vgg11 128 fp32 graphapi"

# MODE=cand52 (session 52): provenance.conv_candidates on a GPU for the first time, on the calibration network whose
# narrow 3x3 weight gradients rule 26 could not fit (DenseNet-121 b64 FP32, FFT in both APIs): what each pass's
# rivals took, engine by engine (graph API) and algorithm by algorithm (legacy API)
CAND52_MEASURE="
densenet121 64 fp32 graphapi
densenet121 64 fp32"
# MODE=cand52b: the same record on the other calibration networks' FP32 and FP16 layers (both APIs where cheap), the
# candidates' own times a per-algorithm calibration would be fitted on (docs/ACCURACY.md, session 52, rule 27b)
CAND52B_MEASURE="
resnet18 64 fp32 graphapi
squeezenet1_1 64 fp32 graphapi
squeezenet1_1 64 fp16 graphapi
densenet121 64 fp16 graphapi
inception_v3 32 fp32 graphapi
resnet18 64 fp32
squeezenet1_1 64 fp32
inception_v3 32 fp32"

# MODE=holdout68, holdout69, mholdout68 (2 GPUs), mholdout69 (4 GPUs) (session 50, the model as session 49 left
# it): ten one-GPU configurations each by random.Random(68) and (69), holdout33's rule, and ten multi-GPU jobs each
# by random.Random(6868) and (6969), mholdout35's rule; predicted in the call. holdout68 drew legacy ResNet-34 b168
# FP32 twice: measured once (a run's file is named by its configuration). Channels-last FP32 PyTorch jobs last, the
# DDP ones too; the multi-GPU calls time the PS exchange after their jobs again (ps_after).
HOLDOUT68_MEASURE="
vgg16 144 fp16
resnet34 168 fp32
resnet50 192 fp16 graphapi
resnet50 216 fp32 graphapi
wide_resnet50_2 112 fp16 graphapi
vgg19 184 fp16
vgg16 200 fp16"
HOLDOUT68_TORCH="
--network resnet152 --batch 152 --precision fp32
--network vgg19 --batch 80 --precision fp16 --channels-last"
HOLDOUT69_MEASURE="
vgg13 40 fp16
resnet50 168 fp32
mnasnet1_0 64 fp16
mnasnet1_0 80 fp16 graphapi
wide_resnet50_2 232 fp32 graphapi"
HOLDOUT69_TORCH="
--network densenet169 --batch 184 --precision fp32
--network wide_resnet50_2 --batch 136 --precision fp32
--network densenet169 --batch 128 --precision fp16
--network resnet152 --batch 128 --precision fp16 --channels-last
--network wide_resnet50_2 --batch 232 --precision fp32 --channels-last"
MHOLDOUT68_GRAPH="
alexnet 184 fp16 ps2
resnet50 64 fp16 ps2
mnasnet1_0 32 fp32 ps2
mnasnet1_0 96 fp16 nccl"
MHOLDOUT68_LEGACY="
googlenet 184 fp32 nccl"
MHOLDOUT68_DDP="
--network densenet169 --batch 56 --precision fp32
--network vgg13 --batch 232 --precision fp32 --channels-last
--network resnet152 --batch 152 --precision fp32 --channels-last
--network resnet50 --batch 144 --precision fp32 --channels-last
--network alexnet --batch 208 --precision fp32 --channels-last"
MHOLDOUT68_GPUS=2
MHOLDOUT69_GRAPH="
densenet169 256 fp32 ps1
densenet169 160 fp32 ps2
densenet169 56 fp32 ps1
resnext50_32x4d 240 fp32 ps2
densenet169 232 fp32 nccl
mnasnet1_0 40 fp16 ps1
resnet50 192 fp16 nccl"
MHOLDOUT69_LEGACY="
resnet50 160 fp32 nccl"
MHOLDOUT69_DDP="
--network resnext50_32x4d --batch 48 --precision fp16
--network resnet152 --batch 136 --precision fp16 --channels-last"
MHOLDOUT69_GPUS=4

# MODE=holdout70, holdout71, mholdout70 (2 GPUs), mholdout71 (4 GPUs) (session 51, the model as session 50 left
# it): ten one-GPU configurations each by random.Random(70) and (71), holdout33's rule, and ten multi-GPU jobs each
# by random.Random(7070) and (7171), mholdout35's rule; predicted in the call. Channels-last FP32 PyTorch jobs
# last; the multi-GPU calls time the PS exchange after their jobs again (ps_after).
HOLDOUT70_MEASURE="
googlenet 112 fp16
resnet152 224 fp32 graphapi
vgg19 240 fp16"
HOLDOUT70_TORCH="
--network wide_resnet50_2 --batch 200 --precision fp16 --channels-last
--network vgg19 --batch 128 --precision fp16 --channels-last
--network vgg13 --batch 48 --precision fp32
--network densenet169 --batch 40 --precision fp32
--network mnasnet1_0 --batch 64 --precision fp16
--network resnet34 --batch 224 --precision fp16 --channels-last
--network densenet169 --batch 104 --precision fp32 --channels-last"
HOLDOUT71_MEASURE="
densenet169 80 fp16
vgg19 64 fp32
vgg13 176 fp16
densenet169 200 fp16
resnext50_32x4d 64 fp16"
HOLDOUT71_TORCH="
--network resnet101 --batch 160 --precision fp16
--network googlenet --batch 240 --precision fp16
--network alexnet --batch 120 --precision fp16 --channels-last
--network resnet50 --batch 32 --precision fp32 --channels-last
--network resnet101 --batch 256 --precision fp32 --channels-last"
MHOLDOUT70_GRAPH="
alexnet 128 fp16 ps1
mnasnet1_0 120 fp16 nccl
resnext50_32x4d 152 fp32 ps1
resnet152 216 fp16 nccl"
MHOLDOUT70_LEGACY="
vgg13 120 fp16 nccl
resnet101 56 fp16 nccl
mnasnet1_0 184 fp16 nccl"
MHOLDOUT70_DDP="
--network densenet169 --batch 128 --precision fp32
--network alexnet --batch 136 --precision fp32
--network resnet101 --batch 32 --precision fp16"
MHOLDOUT70_GPUS=2
MHOLDOUT71_GRAPH="
lenet5 248 fp32 ps1
vgg19 136 fp16 ps1
mnasnet1_0 200 fp32 ps1
resnet34 144 fp32 ps2
lenet5 96 fp32 ps1"
MHOLDOUT71_LEGACY="
resnext50_32x4d 136 fp32 nccl
resnet152 72 fp32 nccl
wide_resnet50_2 224 fp16 nccl"
MHOLDOUT71_DDP="
--network lenet5 --batch 256 --precision fp16
--network resnet152 --batch 256 --precision fp32"
MHOLDOUT71_GPUS=4

# MODE=holdout72, holdout73, mholdout72 (2 GPUs), mholdout73 (4 GPUs) (session 52, the model as session 51 left
# it): ten one-GPU configurations each by random.Random(72) and (73), holdout33's rule, and ten multi-GPU jobs each
# by random.Random(7272) and (7373), mholdout35's rule; predicted in the call. Channels-last FP32 PyTorch jobs
# last; the multi-GPU calls time the PS exchange after their jobs again (ps_after).
HOLDOUT72_MEASURE="
lenet5 128 fp16 graphapi
vgg19 32 fp32 graphapi
mnasnet1_0 120 fp32
resnet101 248 fp32"
HOLDOUT72_TORCH="
--network densenet169 --batch 232 --precision fp16
--network vgg16 --batch 168 --precision fp32
--network vgg16 --batch 208 --precision fp16
--network vgg16 --batch 232 --precision fp16 --channels-last
--network vgg19 --batch 104 --precision fp16
--network vgg16 --batch 32 --precision fp32"
HOLDOUT73_MEASURE="
mnasnet1_0 56 fp32
resnet50 136 fp16 graphapi
mnasnet1_0 176 fp16 graphapi
googlenet 88 fp16"
HOLDOUT73_TORCH="
--network resnet34 --batch 104 --precision fp16 --channels-last
--network resnet152 --batch 160 --precision fp16 --channels-last
--network vgg19 --batch 248 --precision fp16 --channels-last
--network resnet34 --batch 208 --precision fp32
--network densenet169 --batch 32 --precision fp32 --channels-last
--network resnet101 --batch 168 --precision fp32 --channels-last"
MHOLDOUT72_GRAPH="
lenet5 88 fp32 ps2
googlenet 96 fp16 ps2
resnet34 152 fp16 ps2
resnet101 152 fp16 ps1
resnet152 200 fp32 ps1"
MHOLDOUT72_LEGACY="
googlenet 120 fp32 nccl"
MHOLDOUT72_DDP="
--network resnet152 --batch 48 --precision fp16
--network resnet101 --batch 104 --precision fp16
--network resnet101 --batch 112 --precision fp16 --channels-last
--network vgg13 --batch 48 --precision fp32 --channels-last"
MHOLDOUT72_GPUS=2
MHOLDOUT73_GRAPH="
resnet101 232 fp32 nccl
resnet34 208 fp16 nccl
resnext50_32x4d 168 fp16 ps1
wide_resnet50_2 184 fp16 ps2
alexnet 176 fp16 nccl
resnet34 256 fp16 nccl
vgg19 32 fp32 ps1
googlenet 248 fp32 ps1"
MHOLDOUT73_DDP="
--network resnet50 --batch 192 --precision fp16
--network mnasnet1_0 --batch 48 --precision fp32"
MHOLDOUT73_GPUS=4

# MODE=holdout74, holdout75, mholdout74 (2 GPUs), mholdout75 (4 GPUs) (session 53, the model as session 52 left
# it): ten one-GPU configurations each by random.Random(74) and (75), holdout33's rule, and ten multi-GPU jobs each
# by random.Random(7474) and (7575), mholdout35's rule; predicted in the call. Channels-last FP32 PyTorch jobs
# last; the multi-GPU calls time the PS exchange after their jobs again (ps_after).
HOLDOUT74_MEASURE="
densenet169 232 fp32
wide_resnet50_2 80 fp32 graphapi
resnet50 184 fp16 graphapi
googlenet 184 fp32
mnasnet1_0 96 fp32 graphapi
resnet50 80 fp16 graphapi"
HOLDOUT74_TORCH="
--network wide_resnet50_2 --batch 184 --precision fp16
--network resnet34 --batch 232 --precision fp32
--network resnet34 --batch 72 --precision fp32
--network googlenet --batch 240 --precision fp16 --channels-last"
HOLDOUT75_MEASURE="
densenet169 256 fp32 graphapi
resnet50 176 fp32
alexnet 104 fp16 graphapi"
HOLDOUT75_TORCH="
--network alexnet --batch 216 --precision fp32
--network mnasnet1_0 --batch 136 --precision fp16 --channels-last
--network googlenet --batch 80 --precision fp16
--network resnet34 --batch 184 --precision fp16 --channels-last
--network resnet34 --batch 176 --precision fp32 --channels-last
--network vgg19 --batch 96 --precision fp32 --channels-last
--network vgg16 --batch 248 --precision fp32 --channels-last"
MHOLDOUT74_GRAPH="
resnext50_32x4d 152 fp32 ps1
vgg19 248 fp16 ps1
mnasnet1_0 176 fp32 nccl
densenet169 192 fp32 nccl
wide_resnet50_2 168 fp16 nccl
resnet101 88 fp32 ps1
resnet34 160 fp16 nccl
vgg19 112 fp16 ps1"
MHOLDOUT74_DDP="
--network vgg19 --batch 48 --precision fp32
--network resnet50 --batch 72 --precision fp32 --channels-last"
MHOLDOUT74_GPUS=2
MHOLDOUT75_GRAPH="
vgg19 192 fp16 nccl
resnet34 96 fp32 ps2
vgg16 160 fp32 ps1
resnext50_32x4d 56 fp16 ps1"
MHOLDOUT75_LEGACY="
googlenet 104 fp16 nccl
resnet101 88 fp16 nccl
mnasnet1_0 160 fp32 nccl"
MHOLDOUT75_DDP="
--network densenet169 --batch 32 --precision fp16 --channels-last
--network vgg19 --batch 96 --precision fp16 --channels-last
--network vgg19 --batch 160 --precision fp32 --channels-last"
MHOLDOUT75_GPUS=4

# MODE=tf32hold64 (session 62): ten fresh TF32 jobs drawn as tf32hold63's were, by random.Random(64), listed before
# the call, for the shipped model with rules 42 and 43 (a check of both on runs neither was judged on; no rule waits
# on them) (tools/draw_holdout.py 64 --precision tf32 --harnesses legacy,graph,torch --networks
# densenet169,googlenet,resnet50,resnet101,resnet152,resnext50_32x4d,wide_resnet50_2 --check tf32hold64).
TF32HOLD64_MEASURE="
resnext50_32x4d 32 tf32
wide_resnet50_2 224 tf32
googlenet 48 tf32 graphapi
densenet169 48 tf32 graphapi"
TF32HOLD64_TORCH="
--network resnet152 --batch 56 --precision tf32
--network resnet50 --batch 128 --precision tf32
--network resnet101 --batch 208 --precision tf32
--network resnext50_32x4d --batch 240 --precision tf32
--network resnet152 --batch 80 --precision tf32"
# MODE=tf32hold63 (session 61, for the next session; run in session 62, validation/h200/tf32hold63/): rule 43's judging data (docs/ACCURACY.md), listed with the rule's
# statement before any of it is measured: ten TF32 jobs on the evaluation networks the rule changes (tf32hold62's
# seven, sorted by name), network, batch (multiples of 8 in 32..256) and harness (legacy API, graph API, PyTorch NCHW)
# each by random.Random(63).choice in that order, job after job (tools/draw_holdout.py 63 --precision tf32 --harnesses
# legacy,graph,torch --networks densenet169,googlenet,resnet50,resnet101,resnet152,resnext50_32x4d,wide_resnet50_2
# --check tf32hold63).
TF32HOLD63_MEASURE="
resnet152 144 tf32 graphapi
googlenet 104 tf32
wide_resnet50_2 192 tf32 graphapi
wide_resnet50_2 248 tf32
resnet101 88 tf32 graphapi"
TF32HOLD63_TORCH="
--network resnet101 --batch 152 --precision tf32
--network densenet169 --batch 128 --precision tf32
--network densenet169 --batch 48 --precision tf32
--network wide_resnet50_2 --batch 216 --precision tf32
--network densenet169 --batch 88 --precision tf32"

# MODE=tf32hold62 (session 60, for the next session; run in session 61, validation/h200/tf32hold62/): rule 42's judging data (docs/ACCURACY.md), listed with the rule's
# statement before any of it is measured: ten TF32 jobs on the evaluation networks the rule changes (those with a 1x1
# stride-1 layer of more than 131,072 channel pairs on a plane of whole 16-byte vectors: DenseNet-169, GoogLeNet,
# ResNet-50/101/152, ResNeXt-50, Wide ResNet-50-2), network, batch (multiples of 8 in 32..256) and harness (legacy
# API, graph API, PyTorch NCHW) each by random.Random(62).choice in that order, job after job.
TF32HOLD62_MEASURE="
resnet50 72 tf32
wide_resnet50_2 88 tf32 graphapi
googlenet 72 tf32
resnet101 192 tf32
wide_resnet50_2 56 tf32
densenet169 224 tf32 graphapi
resnet50 192 tf32"
TF32HOLD62_TORCH="
--network resnet101 --batch 256 --precision tf32
--network resnet101 --batch 72 --precision tf32
--network resnet152 --batch 152 --precision tf32"

# MODE=tf32cal60 (session 60): rule 41's data (docs/ACCURACY.md), committed with the rule before the call. First the
# H200's TF32 training runs gain Inception-v3 b32 through both APIs (results/tf32cal60: conv_kxk, conv_large and 3x3
# average pools have no TF32 term, no such layer being in the TF32 calibration runs); then the judging runs, which no
# fit reads (results/tf32judge60): TF32 AlexNet and Inception-v3 through each API and three evaluation networks with
# the API drawn, batches by random.Random(61) (multiples of 8 in 32..256; Inception-v3's not one run has used).
TF32CAL60_TRAIN="
inception_v3 32 tf32
inception_v3 32 tf32 graphapi"
TF32JUDGE60="
alexnet 152 tf32
alexnet 72 tf32 graphapi
inception_v3 232 tf32
inception_v3 136 tf32 graphapi
resnet34 232 tf32
resnet152 152 tf32 graphapi
wide_resnet50_2 120 tf32"

# MODE=tf32fresh60 (session 60): rule 40's judging data (docs/ACCURACY.md), committed with the rule before the call:
# TF32 runs of the two networks rule 40 changes (SqueezeNet 1.1 and Inception-v3, the only shipped networks with
# 1x1 layers on planes of 4-byte rows of 64 pixels or more; calibration networks, so in no evaluation figure),
# through each harness, at batches no run or fit has used: per network and harness two multiples of 8 in 32..256
# but 64 and 128, random.Random(60).sample, networks and harnesses in the order below. Results in
# results/tf32fresh60 and results/torchtf32fresh60, which no calibration fit reads.
TF32FRESH60_MEASURE="
inception_v3 112 tf32
inception_v3 192 tf32
inception_v3 72 tf32 graphapi
inception_v3 104 tf32 graphapi
squeezenet1_1 168 tf32
squeezenet1_1 160 tf32
squeezenet1_1 120 tf32 graphapi
squeezenet1_1 40 tf32 graphapi"
TF32FRESH60_TORCH="
--network inception_v3 --batch 96 --precision tf32
--network inception_v3 --batch 248 --precision tf32
--network squeezenet1_1 --batch 248 --precision tf32
--network squeezenet1_1 --batch 48 --precision tf32"

# MODE=pholdout88 (session 59): rule 39's judging data (docs/ACCURACY.md), committed with the rule before the call:
# ten PyTorch NCHW TF32 jobs on the evaluation networks, random.Random(872), holdout33's rule with tf32 for the
# precision and PyTorch NCHW for the harness (tools/draw_holdout.py 872 --precisions tf32 --harnesses torch --emit
# pholdout88), predicted in the call. EAGER_FROM may name an eager-overhead file measured earlier that session
# (the call's device time is short).
PHOLDOUT88_TORCH="
--network resnet50 --batch 232 --precision tf32
--network resnet152 --batch 136 --precision tf32
--network alexnet --batch 240 --precision tf32
--network lenet5 --batch 56 --precision tf32
--network resnet152 --batch 200 --precision tf32
--network googlenet --batch 256 --precision tf32
--network wide_resnet50_2 --batch 232 --precision tf32
--network vgg13 --batch 152 --precision tf32
--network googlenet --batch 248 --precision tf32
--network resnext50_32x4d --batch 168 --precision tf32"

# MODE=pholdout87b (session 59): pholdout87's two legacy-API bf16 jobs its call could not run (cuDNN's dropout takes
# no bf16, CUDNN_STATUS_NOT_SUPPORTED; cnnperf-measure now runs its own dropout kernel there), after the networks with
# dropout have trained in bf16 with --check-loss (their loss must fall)
PHOLDOUT87B_MEASURE="
vgg19 216 bf16
googlenet 152 bf16"
pholdout87b() {
    local net
    for net in alexnet vgg16 googlenet; do
        say "check-loss $net b32 bf16"
        timeout 120 "$MEASURE" --network "$net" --batch 32 --precision bf16 --check-loss 20 </dev/null ||
            fail "check-loss $net bf16"
    done
    holdout_runs pholdout87b "$PHOLDOUT87B_MEASURE" "" legacy
}

# MODE=pholdout87 (session 59, the shipped model): ten one-GPU configurations in the precisions Hopper is mostly
# trained in, bfloat16 autocast and TF32, which the issue's targets (fp32, fp16) leave out and this project had
# hardly measured through PyTorch (one TF32 run): random.Random(871), holdout33's rule with bf16/tf32 for
# fp16/fp32 and PyTorch's channels-last left out (tools/draw_holdout.py 871 --precisions bf16,tf32 --harnesses
# graph,legacy,torch --emit pholdout87), predicted in the call; reported apart from the targets.
PHOLDOUT87_MEASURE="
resnet101 168 bf16
vgg16 56 tf32
vgg19 216 bf16
googlenet 152 bf16"
PHOLDOUT87_TORCH="
--network vgg16 --batch 96 --precision tf32
--network googlenet --batch 128 --precision tf32
--network resnet34 --batch 240 --precision tf32
--network alexnet --batch 160 --precision tf32
--network resnet101 --batch 64 --precision bf16
--network alexnet --batch 104 --precision tf32"

# MODE=holdout100 (session 64, the shipped model of session 63: rule 50 was not kept): ten one-GPU configurations by
# random.Random(100), holdout33's rule (tools/draw_holdout.py --emit), committed before the call; predicted in it.
HOLDOUT100_MEASURE="
googlenet 144 fp32
resnet50 232 fp16 graphapi
lenet5 104 fp16
googlenet 248 fp16"
HOLDOUT100_TORCH="
--network densenet169 --batch 216 --precision fp32
--network alexnet --batch 200 --precision fp16
--network googlenet --batch 80 --precision fp32
--network vgg13 --batch 136 --precision fp16 --channels-last
--network vgg16 --batch 128 --precision fp32 --channels-last
--network resnet34 --batch 168 --precision fp32 --channels-last"
# MODE=holdout101 and mholdout101 (4 GPUs of one host) (drawn in session 64 for a later call, whatever model it
# ships then): ten one-GPU configurations by random.Random(101), holdout33's rule, and ten 4-GPU jobs by
# random.Random(101101), mholdout35's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT101_MEASURE="
resnet34 40 fp16
resnet34 48 fp32
lenet5 152 fp32"
HOLDOUT101_TORCH="
--network resnext50_32x4d --batch 248 --precision fp16
--network mnasnet1_0 --batch 152 --precision fp16
--network googlenet --batch 48 --precision fp32
--network mnasnet1_0 --batch 80 --precision fp16
--network vgg13 --batch 232 --precision fp32 --channels-last
--network lenet5 --batch 48 --precision fp32 --channels-last
--network vgg13 --batch 248 --precision fp32 --channels-last"
MHOLDOUT101_GRAPH="
vgg19 184 fp16 ps1
alexnet 232 fp16 ps2"
MHOLDOUT101_LEGACY="
resnet50 224 fp16 nccl
densenet169 88 fp16 nccl
alexnet 256 fp16 nccl
wide_resnet50_2 256 fp16 nccl
vgg13 72 fp32 nccl"
MHOLDOUT101_DDP="
--network resnet101 --batch 64 --precision fp16
--network wide_resnet50_2 --batch 240 --precision fp32
--network vgg13 --batch 56 --precision fp32 --channels-last"
MHOLDOUT101_GPUS=4
# MODE=holdout107 (drawn in session 66 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(107), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT107_MEASURE="
wide_resnet50_2 112 fp16
resnext50_32x4d 80 fp16
lenet5 120 fp16 graphapi
googlenet 48 fp32
googlenet 144 fp32 graphapi"
HOLDOUT107_TORCH="
--network vgg19 --batch 104 --precision fp16 --channels-last
--network resnet50 --batch 224 --precision fp16
--network mnasnet1_0 --batch 184 --precision fp16
--network lenet5 --batch 184 --precision fp32 --channels-last
--network lenet5 --batch 96 --precision fp32 --channels-last"
# MODE=holdout109 (drawn in session 67, the shipped model of session 63): ten one-GPU configurations by
# random.Random(109), holdout33's rule (tools/draw_holdout.py --emit), committed before the call; predicted in the call.
HOLDOUT109_MEASURE="
resnet50 40 fp16
resnet50 152 fp32 graphapi
vgg16 168 fp32 graphapi
resnext50_32x4d 80 fp16
resnet152 248 fp32
resnet152 120 fp16"
HOLDOUT109_TORCH="
--network vgg19 --batch 88 --precision fp32
--network resnet152 --batch 240 --precision fp16
--network resnet50 --batch 72 --precision fp16
--network mnasnet1_0 --batch 88 --precision fp32 --channels-last"
# MODE=holdout109b: holdout109's four PyTorch jobs, which its call (the session's last 300 s of device time) did not
# reach; the list as drawn.
HOLDOUT109B_TORCH="
--network vgg19 --batch 88 --precision fp32
--network resnet152 --batch 240 --precision fp16
--network resnet50 --batch 72 --precision fp16
--network mnasnet1_0 --batch 88 --precision fp32 --channels-last"
# MODE=holdout129 (drawn in session 74 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(129), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT129_MEASURE="
resnext50_32x4d 248 fp32 graphapi
wide_resnet50_2 240 fp16 graphapi
vgg16 168 fp16
vgg13 232 fp32
googlenet 56 fp32 graphapi
alexnet 88 fp16 graphapi"
HOLDOUT129_TORCH="
--network vgg16 --batch 128 --precision fp16
--network vgg19 --batch 96 --precision fp16 --channels-last
--network lenet5 --batch 152 --precision fp16
--network vgg19 --batch 64 --precision fp32 --channels-last"
# MODE=holdout128 (drawn in session 74 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(128), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT128_MEASURE="
googlenet 152 fp16
densenet169 224 fp16 graphapi
mnasnet1_0 224 fp32 graphapi
wide_resnet50_2 208 fp32
lenet5 176 fp16"
HOLDOUT128_TORCH="
--network wide_resnet50_2 --batch 88 --precision fp32
--network resnet101 --batch 192 --precision fp32
--network resnet101 --batch 152 --precision fp32
--network resnet152 --batch 200 --precision fp32
--network resnet152 --batch 160 --precision fp32 --channels-last"
# MODE=holdout127 (drawn in session 73 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(127), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT127_MEASURE="
alexnet 184 fp16 graphapi
alexnet 112 fp32 graphapi
resnet101 32 fp32
vgg16 104 fp16 graphapi"
HOLDOUT127_TORCH="
--network alexnet --batch 96 --precision fp16 --channels-last
--network resnet152 --batch 56 --precision fp16
--network mnasnet1_0 --batch 184 --precision fp16
--network resnet101 --batch 160 --precision fp16
--network lenet5 --batch 104 --precision fp32 --channels-last
--network vgg16 --batch 184 --precision fp32 --channels-last"
# MODE=holdout126 (drawn in session 73 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(126), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT126_MEASURE="
resnext50_32x4d 40 fp32
densenet169 216 fp32
resnet34 152 fp16 graphapi
mnasnet1_0 72 fp16
alexnet 88 fp32"
HOLDOUT126_TORCH="
--network lenet5 --batch 72 --precision fp16 --channels-last
--network alexnet --batch 136 --precision fp32
--network resnet152 --batch 128 --precision fp16 --channels-last
--network vgg13 --batch 72 --precision fp32 --channels-last
--network resnet101 --batch 80 --precision fp32 --channels-last"
# MODE=holdout125 (drawn in session 73 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(125), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT125_MEASURE="
lenet5 88 fp32
resnet101 64 fp32 graphapi
resnet50 200 fp32 graphapi
vgg19 96 fp32
vgg16 184 fp32 graphapi
resnext50_32x4d 192 fp16
densenet169 40 fp32 graphapi"
HOLDOUT125_TORCH="
--network densenet169 --batch 208 --precision fp16 --channels-last
--network resnet34 --batch 256 --precision fp16 --channels-last
--network googlenet --batch 256 --precision fp16"
# MODE=holdout124 (drawn in session 72 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(124), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT124_MEASURE="
mnasnet1_0 168 fp16
mnasnet1_0 240 fp32 graphapi
resnet50 152 fp32 graphapi
vgg19 128 fp16 graphapi"
HOLDOUT124_TORCH="
--network alexnet --batch 136 --precision fp32
--network alexnet --batch 112 --precision fp16 --channels-last
--network lenet5 --batch 80 --precision fp16 --channels-last
--network resnet101 --batch 80 --precision fp16 --channels-last
--network lenet5 --batch 224 --precision fp32
--network resnet34 --batch 256 --precision fp16 --channels-last"
# MODE=holdout123 (drawn in session 72 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(123), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT123_MEASURE="
wide_resnet50_2 40 fp16
resnet101 168 fp32
googlenet 32 fp32 graphapi
resnext50_32x4d 128 fp16 graphapi
resnet101 216 fp32 graphapi
alexnet 48 fp16"
HOLDOUT123_TORCH="
--network alexnet --batch 96 --precision fp16 --channels-last
--network mnasnet1_0 --batch 56 --precision fp16 --channels-last
--network resnet50 --batch 168 --precision fp32
--network vgg19 --batch 32 --precision fp32 --channels-last"
# MODE=holdout122 (drawn in session 72 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(122), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT122_MEASURE="
resnet50 80 fp32 graphapi
wide_resnet50_2 200 fp16 graphapi
mnasnet1_0 224 fp32 graphapi"
HOLDOUT122_TORCH="
--network vgg16 --batch 120 --precision fp16 --channels-last
--network mnasnet1_0 --batch 144 --precision fp16 --channels-last
--network resnet152 --batch 216 --precision fp16
--network resnet152 --batch 232 --precision fp16 --channels-last
--network resnext50_32x4d --batch 48 --precision fp32
--network resnet101 --batch 184 --precision fp16
--network resnet152 --batch 136 --precision fp16"
# MODE=holdout121 (drawn in session 72 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(121), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT121_MEASURE="
densenet169 80 fp32
mnasnet1_0 72 fp32 graphapi
vgg13 216 fp32
resnet34 176 fp16
resnet101 72 fp32 graphapi
googlenet 192 fp32 graphapi"
HOLDOUT121_TORCH="
--network resnext50_32x4d --batch 232 --precision fp16
--network alexnet --batch 152 --precision fp32
--network resnet152 --batch 32 --precision fp16
--network resnet101 --batch 88 --precision fp32 --channels-last"
# MODE=holdout120 (drawn in session 72 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(120), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT120_MEASURE="
densenet169 112 fp16
mnasnet1_0 80 fp16 graphapi
resnet152 80 fp16 graphapi
wide_resnet50_2 168 fp32 graphapi"
HOLDOUT120_TORCH="
--network resnet50 --batch 88 --precision fp16 --channels-last
--network wide_resnet50_2 --batch 96 --precision fp32
--network vgg16 --batch 72 --precision fp16
--network mnasnet1_0 --batch 64 --precision fp32
--network densenet169 --batch 32 --precision fp32 --channels-last
--network resnet152 --batch 232 --precision fp32 --channels-last"
# MODE=holdout119 (drawn in session 71 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(119), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT119_MEASURE="
mnasnet1_0 72 fp32 graphapi
densenet169 256 fp32
googlenet 96 fp32
vgg16 96 fp32 graphapi
vgg13 200 fp32
resnet152 256 fp16 graphapi
resnet34 168 fp16 graphapi"
HOLDOUT119_TORCH="
--network resnet34 --batch 176 --precision fp16 --channels-last
--network googlenet --batch 144 --precision fp16 --channels-last
--network lenet5 --batch 80 --precision fp32 --channels-last"
# MODE=holdout118 (drawn in session 71 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(118), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT118_MEASURE="
resnext50_32x4d 232 fp16 graphapi
mnasnet1_0 224 fp16 graphapi"
HOLDOUT118_TORCH="
--network vgg16 --batch 192 --precision fp16
--network densenet169 --batch 208 --precision fp32
--network vgg19 --batch 32 --precision fp32
--network alexnet --batch 184 --precision fp32
--network lenet5 --batch 176 --precision fp16 --channels-last
--network resnet50 --batch 240 --precision fp32
--network densenet169 --batch 144 --precision fp16
--network vgg19 --batch 176 --precision fp32 --channels-last"
# MODE=holdout117 (drawn in session 70 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(117), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT117_MEASURE="
lenet5 72 fp16
resnet34 232 fp16
resnet101 136 fp16
alexnet 72 fp32
lenet5 72 fp32 graphapi"
HOLDOUT117_TORCH="
--network resnet152 --batch 240 --precision fp16 --channels-last
--network vgg16 --batch 56 --precision fp32
--network resnext50_32x4d --batch 216 --precision fp16 --channels-last
--network resnet152 --batch 128 --precision fp32 --channels-last
--network vgg16 --batch 168 --precision fp32 --channels-last"
# MODE=holdout116 (drawn in session 70 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(116), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT116_MEASURE="
wide_resnet50_2 216 fp32 graphapi
vgg19 192 fp16
resnet152 256 fp32 graphapi
resnet34 72 fp32"
HOLDOUT116_TORCH="
--network resnet34 --batch 152 --precision fp16
--network resnet34 --batch 48 --precision fp32
--network resnet34 --batch 40 --precision fp16 --channels-last
--network resnet34 --batch 168 --precision fp16 --channels-last
--network resnext50_32x4d --batch 80 --precision fp32
--network vgg16 --batch 240 --precision fp32 --channels-last"
# MODE=holdout115 (drawn in session 69 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(115), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT115_MEASURE="
mnasnet1_0 80 fp16 graphapi
vgg13 112 fp32 graphapi
resnet50 168 fp16
vgg16 176 fp16
googlenet 248 fp16
resnext50_32x4d 88 fp32"
HOLDOUT115_TORCH="
--network resnet101 --batch 224 --precision fp32
--network alexnet --batch 104 --precision fp16 --channels-last
--network wide_resnet50_2 --batch 224 --precision fp16 --channels-last
--network alexnet --batch 208 --precision fp16"
# MODE=holdout114 (drawn in session 69 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(114), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT114_MEASURE="
vgg13 88 fp16
resnet50 160 fp32 graphapi
resnext50_32x4d 104 fp16 graphapi"
HOLDOUT114_TORCH="
--network lenet5 --batch 176 --precision fp16
--network resnet50 --batch 240 --precision fp32
--network vgg16 --batch 56 --precision fp16 --channels-last
--network resnet152 --batch 56 --precision fp32
--network lenet5 --batch 152 --precision fp16
--network wide_resnet50_2 --batch 64 --precision fp32
--network resnet50 --batch 248 --precision fp32 --channels-last"
# MODE=holdout113 (drawn in session 68 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(113), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT113_MEASURE="
alexnet 192 fp32 graphapi
resnet34 168 fp32
resnet152 256 fp16 graphapi
vgg13 152 fp32
mnasnet1_0 136 fp32"
HOLDOUT113_TORCH="
--network mnasnet1_0 --batch 104 --precision fp32
--network mnasnet1_0 --batch 216 --precision fp16
--network googlenet --batch 184 --precision fp16
--network mnasnet1_0 --batch 64 --precision fp32 --channels-last
--network resnet152 --batch 80 --precision fp32 --channels-last"
# MODE=holdout112 (drawn in session 68, for the same session's last 480 s of device time): ten one-GPU
# configurations by random.Random(112), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT112_MEASURE="
lenet5 160 fp32 graphapi
resnet34 96 fp32
mnasnet1_0 32 fp16 graphapi
vgg13 232 fp16 graphapi"
HOLDOUT112_TORCH="
--network resnet152 --batch 224 --precision fp16
--network resnet152 --batch 184 --precision fp16 --channels-last
--network lenet5 --batch 216 --precision fp16 --channels-last
--network resnet34 --batch 240 --precision fp32 --channels-last
--network resnet50 --batch 120 --precision fp32 --channels-last
--network vgg13 --batch 88 --precision fp32 --channels-last"
# MODE=holdout111 (drawn in session 68 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(111), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT111_MEASURE="
lenet5 128 fp32
vgg13 80 fp32
vgg19 40 fp32
resnext50_32x4d 144 fp32 graphapi
densenet169 112 fp32"
HOLDOUT111_TORCH="
--network wide_resnet50_2 --batch 136 --precision fp16
--network wide_resnet50_2 --batch 80 --precision fp32 --channels-last
--network googlenet --batch 200 --precision fp32 --channels-last
--network wide_resnet50_2 --batch 128 --precision fp32 --channels-last
--network lenet5 --batch 232 --precision fp32 --channels-last"
# MODE=holdout110 (drawn in session 67 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(110), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT110_MEASURE="
resnet34 208 fp32 graphapi
resnet50 136 fp32 graphapi
densenet169 240 fp16
mnasnet1_0 120 fp32 graphapi
vgg13 256 fp16
mnasnet1_0 136 fp32"
HOLDOUT110_TORCH="
--network resnet152 --batch 232 --precision fp16 --channels-last
--network resnet34 --batch 192 --precision fp16 --channels-last
--network resnext50_32x4d --batch 232 --precision fp16
--network resnet152 --batch 168 --precision fp32"
# MODE=fixcal67 (session 67, rule 52: eager mode's fixed per-iteration host cost): the call's --eager-overhead
# measures iteration_fixed_us for the first time (torch_bench.py's iteration_fixed), and these eight PyTorch runs
# of calibration-set networks on one GPU, chosen before the call (small batches, where the host paces PyTorch;
# VGG-11 one the GPU paces), are the calibration data measured beside it. Not drawn; not evaluation data.
FIXCAL67_TORCH="
--network resnet18 --batch 32 --precision fp16
--network resnet18 --batch 64 --precision fp32
--network squeezenet1_1 --batch 32 --precision fp16
--network squeezenet1_1 --batch 64 --precision fp32 --channels-last
--network mobilenet_v2 --batch 32 --precision fp16
--network densenet121 --batch 32 --precision fp16
--network inception_v3 --batch 32 --precision fp16
--network vgg11 --batch 32 --precision fp16"
# MODE=holdout108 (drawn in session 66 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(108), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT108_MEASURE="
vgg16 96 fp32
densenet169 104 fp16
lenet5 208 fp32
alexnet 120 fp32
lenet5 160 fp32
alexnet 48 fp32 graphapi"
HOLDOUT108_TORCH="
--network googlenet --batch 208 --precision fp16 --channels-last
--network densenet169 --batch 80 --precision fp16 --channels-last
--network lenet5 --batch 192 --precision fp16 --channels-last
--network densenet169 --batch 168 --precision fp32 --channels-last"
# MODE=holdout106b: holdout106's four jobs its call did not reach (the session's last 220 s of device time measured the
# first six), for a later call; the lists as drawn, the channels-last FP32 jobs last.
HOLDOUT106B_MEASURE="
googlenet 136 fp16 graphapi"
HOLDOUT106B_TORCH="
--network vgg13 --batch 64 --precision fp16
--network vgg19 --batch 152 --precision fp32 --channels-last
--network vgg16 --batch 144 --precision fp32 --channels-last"
# MODE=holdout106 (drawn in session 66, the shipped model of session 63): ten one-GPU configurations by
# random.Random(106), holdout33's rule (tools/draw_holdout.py --emit), committed before the call; predicted in the call.
HOLDOUT106_MEASURE="
vgg16 256 fp32 graphapi
resnet50 160 fp32 graphapi
vgg19 96 fp16
resnet34 216 fp32
resnet101 152 fp32 graphapi
mnasnet1_0 120 fp32
googlenet 136 fp16 graphapi"
HOLDOUT106_TORCH="
--network vgg13 --batch 64 --precision fp16
--network vgg19 --batch 152 --precision fp32 --channels-last
--network vgg16 --batch 144 --precision fp32 --channels-last"
# MODE=holdout105 (drawn in session 66, the shipped model of session 63): ten one-GPU configurations by
# random.Random(105), holdout33's rule (tools/draw_holdout.py --emit), committed before the call; predicted in the call.
HOLDOUT105_MEASURE="
resnext50_32x4d 120 fp16 graphapi
googlenet 248 fp32
vgg19 256 fp16 graphapi
vgg13 128 fp32
resnet34 256 fp16
resnext50_32x4d 104 fp32 graphapi"
HOLDOUT105_TORCH="
--network mnasnet1_0 --batch 160 --precision fp32
--network resnet101 --batch 240 --precision fp16
--network wide_resnet50_2 --batch 216 --precision fp16 --channels-last
--network wide_resnet50_2 --batch 136 --precision fp32 --channels-last"
# MODE=holdout104 (drawn in session 66, the shipped model of session 63): ten one-GPU configurations by
# random.Random(104), holdout33's rule (tools/draw_holdout.py --emit), committed before the call; predicted in the call.
HOLDOUT104_MEASURE="
alexnet 248 fp16
resnet152 112 fp16
vgg19 240 fp16
densenet169 256 fp16 graphapi
resnet50 88 fp32
wide_resnet50_2 176 fp16 graphapi"
HOLDOUT104_TORCH="
--network densenet169 --batch 192 --precision fp32
--network vgg13 --batch 40 --precision fp16
--network resnet152 --batch 112 --precision fp16
--network resnet152 --batch 40 --precision fp32 --channels-last"
# MODE=holdout103 (drawn in session 65 for a later call, whatever model it ships then): ten one-GPU configurations
# by random.Random(103), holdout33's rule (tools/draw_holdout.py --emit); predicted in the call. Its lists alone make
# it a mode (mode_route).
HOLDOUT103_MEASURE="
vgg16 144 fp16 graphapi
resnet34 256 fp32 graphapi
resnet34 48 fp16
resnext50_32x4d 240 fp16 graphapi
lenet5 232 fp16 graphapi
wide_resnet50_2 96 fp32"
HOLDOUT103_TORCH="
--network resnext50_32x4d --batch 216 --precision fp16 --channels-last
--network lenet5 --batch 56 --precision fp16
--network resnet101 --batch 80 --precision fp16 --channels-last
--network googlenet --batch 216 --precision fp32 --channels-last"
# MODE=mholdout113 (2 GPUs of one host) (drawn in session 74 for a later call, whatever model it ships then): ten
# 2-GPU jobs by random.Random(113113), mholdout35's rule (tools/draw_holdout.py --multi --emit); predicted in the call.
MHOLDOUT113_GRAPH="
resnext50_32x4d 88 fp32 nccl
googlenet 168 fp32 nccl
alexnet 184 fp32 nccl
mnasnet1_0 96 fp16 nccl
resnet50 160 fp16 ps2"
MHOLDOUT113_LEGACY="
googlenet 112 fp32 nccl
resnet152 128 fp16 nccl
resnet152 144 fp16 nccl"
MHOLDOUT113_DDP="
--network mnasnet1_0 --batch 208 --precision fp32
--network googlenet --batch 232 --precision fp16 --channels-last"
MHOLDOUT113_GPUS=2
# MODE=mholdout112 (2 GPUs of one host) (drawn in session 73 for a later call, whatever model it ships then): ten
# 2-GPU jobs by random.Random(112112), mholdout35's rule (tools/draw_holdout.py --multi --emit); predicted in the call.
MHOLDOUT112_GRAPH="
wide_resnet50_2 184 fp16 ps2
resnext50_32x4d 168 fp32 ps1
resnet152 256 fp32 nccl
resnet152 136 fp16 nccl
vgg13 168 fp32 ps1"
MHOLDOUT112_DDP="
--network mnasnet1_0 --batch 168 --precision fp16 --channels-last
--network vgg13 --batch 240 --precision fp32
--network mnasnet1_0 --batch 224 --precision fp32
--network resnext50_32x4d --batch 136 --precision fp32"
MHOLDOUT112_GPUS=2
# MODE=mholdout111 (2 GPUs of one host) (drawn in session 73 for a later call, whatever model it ships then): ten
# 2-GPU jobs by random.Random(111111), mholdout35's rule (tools/draw_holdout.py --multi --emit); predicted in the call.
MHOLDOUT111_GRAPH="
resnet50 232 fp16 ps2
vgg13 216 fp32 ps1
resnet152 256 fp16 ps1"
MHOLDOUT111_LEGACY="
densenet169 80 fp32 nccl"
MHOLDOUT111_DDP="
--network vgg13 --batch 240 --precision fp16
--network vgg19 --batch 200 --precision fp16
--network resnet152 --batch 120 --precision fp32
--network wide_resnet50_2 --batch 80 --precision fp32
--network vgg13 --batch 128 --precision fp32 --channels-last
--network mnasnet1_0 --batch 104 --precision fp32 --channels-last"
MHOLDOUT111_GPUS=2
# MODE=mholdout110 (2 GPUs of one host) (drawn in session 72 for a later call, whatever model it ships then): ten
# 2-GPU jobs by random.Random(110110), mholdout35's rule (tools/draw_holdout.py --multi --emit); predicted in the call.
MHOLDOUT110_GRAPH="
resnet34 88 fp16 nccl
resnet152 200 fp32 ps2
alexnet 96 fp32 nccl
googlenet 152 fp16 ps1
wide_resnet50_2 144 fp16 ps1"
MHOLDOUT110_DDP="
--network densenet169 --batch 152 --precision fp16 --channels-last
--network densenet169 --batch 176 --precision fp16 --channels-last
--network resnet34 --batch 72 --precision fp16 --channels-last
--network resnet50 --batch 208 --precision fp16
--network mnasnet1_0 --batch 184 --precision fp32"
MHOLDOUT110_GPUS=2
# MODE=mholdout109 (2 GPUs of one host) (drawn in session 71 for a later call, whatever model it ships then): ten
# 2-GPU jobs by random.Random(109109), mholdout35's rule (tools/draw_holdout.py --multi --emit); predicted in the call.
MHOLDOUT109_GRAPH="
vgg13 72 fp32 nccl
lenet5 224 fp32 ps1
googlenet 152 fp32 ps2"
MHOLDOUT109_LEGACY="
vgg19 168 fp16 nccl
wide_resnet50_2 216 fp32 nccl
resnet34 104 fp32 nccl"
MHOLDOUT109_DDP="
--network densenet169 --batch 128 --precision fp32
--network vgg13 --batch 256 --precision fp16 --channels-last
--network googlenet --batch 160 --precision fp32
--network vgg13 --batch 224 --precision fp32 --channels-last"
MHOLDOUT109_GPUS=2
# MODE=mholdout108 (2 GPUs of one host) (drawn in session 70 for a later call, whatever model it ships then): ten
# 2-GPU jobs by random.Random(108108), mholdout35's rule (tools/draw_holdout.py --multi --emit); predicted in the call.
MHOLDOUT108_GRAPH="
wide_resnet50_2 112 fp16 ps2
resnet101 56 fp32 ps2
mnasnet1_0 64 fp32 nccl
lenet5 80 fp32 ps2
vgg16 72 fp32 ps2
lenet5 48 fp16 ps1"
MHOLDOUT108_LEGACY="
mnasnet1_0 144 fp32 nccl
lenet5 160 fp16 nccl
mnasnet1_0 168 fp16 nccl"
MHOLDOUT108_DDP="
--network resnet152 --batch 248 --precision fp16"
MHOLDOUT108_GPUS=2
# MODE=mholdout107 (4 GPUs of one host) (drawn in session 70 for a later call, whatever model it ships then): ten
# 4-GPU jobs by random.Random(107107), mholdout35's rule (tools/draw_holdout.py --multi --gpus 4 --emit); predicted in the call.
MHOLDOUT107_GRAPH="
vgg19 128 fp16 ps2
resnet101 152 fp16 ps2
vgg16 160 fp16 nccl
vgg13 232 fp32 nccl
resnet50 144 fp32 ps2
alexnet 192 fp32 ps1
wide_resnet50_2 152 fp16 ps1"
MHOLDOUT107_DDP="
--network resnext50_32x4d --batch 248 --precision fp32
--network densenet169 --batch 88 --precision fp16
--network mnasnet1_0 --batch 224 --precision fp32 --channels-last"
MHOLDOUT107_GPUS=4
# MODE=mholdout106 (2 GPUs of one host) (drawn in session 69 for a later call, whatever model it ships then): ten
# 2-GPU jobs by random.Random(106106), mholdout35's rule (tools/draw_holdout.py --emit); predicted in the call.
MHOLDOUT106_GRAPH="
vgg19 112 fp32 ps2
vgg13 144 fp16 ps2
wide_resnet50_2 216 fp32 ps2
resnext50_32x4d 160 fp32 ps2
googlenet 176 fp16 ps1"
MHOLDOUT106_LEGACY="
vgg19 176 fp16 nccl"
MHOLDOUT106_DDP="
--network resnext50_32x4d --batch 96 --precision fp16 --channels-last
--network vgg16 --batch 40 --precision fp32
--network wide_resnet50_2 --batch 232 --precision fp16 --channels-last
--network resnet50 --batch 48 --precision fp32 --channels-last"
MHOLDOUT106_GPUS=2
# MODE=mholdout105 (2 GPUs of one host) (drawn in session 69 for a later call, whatever model it ships then): ten
# 2-GPU jobs by random.Random(105105), mholdout35's rule (tools/draw_holdout.py --emit); predicted in the call.
MHOLDOUT105_GRAPH="
vgg16 256 fp16 nccl
resnet34 120 fp16 ps1
resnet50 96 fp16 ps1
densenet169 120 fp32 ps2
vgg19 56 fp32 ps2
vgg13 256 fp32 nccl
resnext50_32x4d 232 fp32 ps2
vgg16 48 fp32 nccl"
MHOLDOUT105_DDP="
--network lenet5 --batch 96 --precision fp32
--network wide_resnet50_2 --batch 136 --precision fp32"
MHOLDOUT105_GPUS=2
# MODE=mholdout104 (2 GPUs of one host) (drawn in session 68 for a later call, whatever model it ships then): ten
# 2-GPU jobs by random.Random(104104), mholdout35's rule (tools/draw_holdout.py --emit); predicted in the call.
MHOLDOUT104_GRAPH="
vgg19 136 fp32 ps1
vgg16 112 fp32 nccl
resnet101 112 fp16 ps1
mnasnet1_0 40 fp32 nccl
resnext50_32x4d 192 fp16 ps2
densenet169 232 fp32 nccl"
MHOLDOUT104_LEGACY="
googlenet 64 fp32 nccl
resnet101 96 fp16 nccl"
MHOLDOUT104_DDP="
--network resnet152 --batch 32 --precision fp32
--network resnext50_32x4d --batch 96 --precision fp32"
MHOLDOUT104_GPUS=2
# MODE=mholdout103 (2 GPUs of one host) (drawn in session 68 for a later call, whatever model it ships then): ten
# 2-GPU jobs by random.Random(103103), mholdout35's rule (tools/draw_holdout.py --emit); predicted in the call.
MHOLDOUT103_GRAPH="
resnet34 48 fp16 nccl
densenet169 200 fp32 ps1
mnasnet1_0 72 fp16 ps1
resnet50 120 fp16 ps1
vgg19 144 fp32 nccl
alexnet 152 fp32 ps1"
MHOLDOUT103_LEGACY="
densenet169 56 fp32 nccl
resnet50 152 fp16 nccl"
MHOLDOUT103_DDP="
--network vgg19 --batch 136 --precision fp16 --channels-last
--network densenet169 --batch 88 --precision fp16 --channels-last"
MHOLDOUT103_GPUS=2
# MODE=mholdout102 (2 GPUs of one host) (drawn in session 65 for a later call, whatever model it ships then): ten
# 2-GPU jobs by random.Random(102102), mholdout35's rule (tools/draw_holdout.py --emit); predicted in the call.
MHOLDOUT102_GRAPH="
mnasnet1_0 256 fp32 ps2
resnet34 128 fp16 ps1"
MHOLDOUT102_LEGACY="
mnasnet1_0 232 fp16 nccl
mnasnet1_0 112 fp32 nccl
vgg16 144 fp32 nccl
resnet50 240 fp32 nccl
densenet169 144 fp16 nccl"
MHOLDOUT102_DDP="
--network vgg16 --batch 136 --precision fp32
--network resnet152 --batch 192 --precision fp16 --channels-last
--network alexnet --batch 40 --precision fp32 --channels-last"
MHOLDOUT102_GPUS=2
# MODE=holdout102 (session 65, the shipped model of session 63): ten one-GPU configurations by random.Random(102),
# holdout33's rule (tools/draw_holdout.py --emit), committed before the call; predicted in the call.
HOLDOUT102_MEASURE="
googlenet 200 fp32
mnasnet1_0 184 fp32 graphapi
resnet34 88 fp16 graphapi
resnet50 240 fp16
vgg13 48 fp16 graphapi
wide_resnet50_2 112 fp32"
HOLDOUT102_TORCH="
--network resnet50 --batch 208 --precision fp16 --channels-last
--network vgg16 --batch 160 --precision fp16 --channels-last
--network vgg19 --batch 40 --precision fp16 --channels-last
--network resnet34 --batch 184 --precision fp32 --channels-last"
# MODE=holdout102b: holdout102's three PyTorch jobs its call (given the session's last 250 s) did not reach, in their
# drawn order, for a later call.
HOLDOUT102B_TORCH="
--network vgg16 --batch 160 --precision fp16 --channels-last
--network vgg19 --batch 40 --precision fp16 --channels-last
--network resnet34 --batch 184 --precision fp32 --channels-last"
# MODE=holdout101b and holdout101c: holdout101's three channels-last FP32 jobs, which its call did not finish (VGG-13
# b232 was still in cudnn.benchmark's search when the call's limit came at 545 s; the other two were not reached),
# the shorter first, each VGG-13 in a call of its own; run with TORCH_CL32_LIMIT raised.
# holdout101c's call (session 66, TORCH_CL32_LIMIT=580) stopped VGG-13 b248 still in the search 485 s after it
# started: a 600 s call cannot measure it.
HOLDOUT101B_TORCH="
--network lenet5 --batch 48 --precision fp32 --channels-last
--network vgg13 --batch 232 --precision fp32 --channels-last"
HOLDOUT101C_TORCH="
--network vgg13 --batch 248 --precision fp32 --channels-last"
# MODE=holdout100b: holdout100's two channels-last FP32 jobs, which its call did not finish (VGG-16 b128 was still in
# cudnn.benchmark's search when the call's deadline came at 375 s; ResNet-34 b168 was not reached), in a call of
# their own, the shorter first; run with TORCH_CL32_LIMIT raised.
HOLDOUT100B_TORCH="
--network resnet34 --batch 168 --precision fp32 --channels-last
--network vgg16 --batch 128 --precision fp32 --channels-last"
# MODE=mholdout100 (2 GPUs) (session 64, the shipped model of session 63): ten 2-GPU jobs by random.Random(100100),
# mholdout35's rule (tools/draw_holdout.py --emit), committed before the call; predicted in the call.
MHOLDOUT100_GRAPH="
vgg19 184 fp32 ps2
wide_resnet50_2 96 fp32 nccl
resnet50 152 fp32 nccl
vgg13 160 fp32 ps1
resnext50_32x4d 136 fp32 nccl
resnet101 88 fp16 nccl"
MHOLDOUT100_DDP="
--network vgg19 --batch 248 --precision fp16 --channels-last
--network wide_resnet50_2 --batch 200 --precision fp32
--network vgg16 --batch 56 --precision fp16
--network googlenet --batch 120 --precision fp32 --channels-last"
MHOLDOUT100_GPUS=2
# MODE=holdout99 and mholdout99 (2 GPUs) (session 64, the shipped model of session 63, no model file changed since):
# ten one-GPU configurations by random.Random(99), holdout33's rule, and ten 2-GPU jobs by random.Random(9999),
# mholdout35's rule (tools/draw_holdout.py --emit); predicted in the call.
HOLDOUT99_MEASURE="
resnet152 128 fp16
lenet5 88 fp16 graphapi
mnasnet1_0 216 fp32 graphapi
wide_resnet50_2 128 fp16
resnet50 32 fp32"
HOLDOUT99_TORCH="
--network resnext50_32x4d --batch 152 --precision fp16 --channels-last
--network vgg16 --batch 184 --precision fp16
--network resnet34 --batch 200 --precision fp16
--network densenet169 --batch 208 --precision fp16 --channels-last
--network resnet101 --batch 128 --precision fp16"
MHOLDOUT99_GRAPH="
wide_resnet50_2 56 fp16 nccl
googlenet 232 fp16 ps1
resnext50_32x4d 48 fp32 ps2
mnasnet1_0 184 fp16 ps2"
MHOLDOUT99_LEGACY="
alexnet 152 fp32 nccl"
MHOLDOUT99_DDP="
--network resnet50 --batch 88 --precision fp16
--network wide_resnet50_2 --batch 232 --precision fp16
--network mnasnet1_0 --batch 80 --precision fp16
--network vgg19 --batch 176 --precision fp16 --channels-last
--network lenet5 --batch 200 --precision fp32 --channels-last"
MHOLDOUT99_GPUS=2
# MODE=groupcheck63 (session 63, chosen before the call, not drawn; predicted in it): ResNeXt-50 FP16 on the H200
# at batches no earlier run used there, through the legacy API (b48, b144, b200), the graph API (b176) and PyTorch
# NCHW (b160): rules 46-48 (docs/ACCURACY.md, session 63) on whole iterations, then holdout98.
GROUPCHECK63_MEASURE="
resnext50_32x4d 48 fp16
resnext50_32x4d 144 fp16
resnext50_32x4d 200 fp16
resnext50_32x4d 176 fp16 graphapi"
GROUPCHECK63_TORCH="
--network resnext50_32x4d --batch 160 --precision fp16"
# MODE=holdout98 (session 63, the shipped model with rules 46-48): ten one-GPU configurations by random.Random(98),
# holdout33's rule (tools/draw_holdout.py --emit), predicted in the call.
HOLDOUT98_MEASURE="
vgg19 104 fp32 graphapi
vgg13 216 fp32
resnext50_32x4d 160 fp16"
HOLDOUT98_TORCH="
--network resnet101 --batch 176 --precision fp16
--network resnet152 --batch 40 --precision fp32
--network vgg16 --batch 240 --precision fp16 --channels-last
--network lenet5 --batch 128 --precision fp16
--network alexnet --batch 224 --precision fp16 --channels-last
--network wide_resnet50_2 --batch 240 --precision fp16 --channels-last
--network googlenet --batch 176 --precision fp16"
# MODE=holdout97 (session 63, the shipped model of session 62): ten one-GPU configurations by random.Random(97),
# holdout33's rule (tools/draw_holdout.py --emit), predicted in the call.
HOLDOUT97_MEASURE="
lenet5 136 fp32 graphapi
resnext50_32x4d 32 fp16 graphapi
vgg13 56 fp32
resnet50 80 fp16 graphapi
lenet5 176 fp16 graphapi
vgg19 216 fp16 graphapi
densenet169 168 fp32 graphapi"
HOLDOUT97_TORCH="
--network vgg16 --batch 240 --precision fp32
--network alexnet --batch 48 --precision fp32 --channels-last
--network mnasnet1_0 --batch 72 --precision fp32 --channels-last"
# MODE=holdout96 (session 63, the shipped model of session 62): ten one-GPU configurations by random.Random(96),
# holdout33's rule (tools/draw_holdout.py --emit), predicted in the call.
HOLDOUT96_MEASURE="
resnet101 112 fp32
densenet169 240 fp32 graphapi
vgg16 256 fp16
resnet152 192 fp32 graphapi
alexnet 72 fp16 graphapi"
HOLDOUT96_TORCH="
--network mnasnet1_0 --batch 112 --precision fp32
--network googlenet --batch 160 --precision fp16 --channels-last
--network resnet50 --batch 152 --precision fp32
--network lenet5 --batch 208 --precision fp32
--network resnet34 --batch 160 --precision fp16"
# MODE=holdout95 (session 62, the shipped model with rule 43): ten one-GPU configurations by random.Random(95),
# holdout33's rule (tools/draw_holdout.py --emit), predicted in the call.
HOLDOUT95_MEASURE="
alexnet 64 fp16 graphapi
vgg13 96 fp16 graphapi
resnext50_32x4d 216 fp16 graphapi
resnext50_32x4d 96 fp16 graphapi"
HOLDOUT95_TORCH="
--network vgg19 --batch 168 --precision fp16 --channels-last
--network resnet101 --batch 96 --precision fp32
--network googlenet --batch 72 --precision fp16 --channels-last
--network resnet101 --batch 184 --precision fp16 --channels-last
--network mnasnet1_0 --batch 32 --precision fp16
--network vgg16 --batch 56 --precision fp32 --channels-last"
# MODE=holdout94 (session 62, the shipped model with rule 43): ten one-GPU configurations by random.Random(94),
# holdout33's rule (tools/draw_holdout.py --emit), predicted in the call.
HOLDOUT94_MEASURE="
resnet50 32 fp32 graphapi
resnet101 232 fp16 graphapi
resnet152 232 fp32 graphapi"
HOLDOUT94_TORCH="
--network resnet50 --batch 72 --precision fp16
--network mnasnet1_0 --batch 136 --precision fp16 --channels-last
--network resnet101 --batch 104 --precision fp32
--network resnet152 --batch 144 --precision fp16
--network vgg16 --batch 96 --precision fp16
--network vgg16 --batch 136 --precision fp32 --channels-last
--network googlenet --batch 48 --precision fp32 --channels-last"
# MODE=holdout93 (session 62, the shipped model with rule 43): ten one-GPU configurations by random.Random(93),
# holdout33's rule (tools/draw_holdout.py --emit), predicted in the call.
HOLDOUT93_MEASURE="
wide_resnet50_2 152 fp32 graphapi
densenet169 120 fp16
resnet152 56 fp16 graphapi
resnet152 56 fp16
vgg19 88 fp32
lenet5 256 fp32 graphapi
densenet169 40 fp16 graphapi
densenet169 48 fp32 graphapi"
HOLDOUT93_TORCH="
--network resnext50_32x4d --batch 168 --precision fp16
--network resnext50_32x4d --batch 104 --precision fp32"
# MODE=holdout92 (session 61, the shipped model with rule 42): ten one-GPU configurations by random.Random(92),
# holdout33's rule (tools/draw_holdout.py --emit), predicted in the call.
HOLDOUT92_MEASURE="
resnet152 160 fp32 graphapi
resnext50_32x4d 160 fp32
alexnet 40 fp16
wide_resnet50_2 176 fp16
vgg16 136 fp32
alexnet 96 fp16
lenet5 184 fp16"
HOLDOUT92_TORCH="
--network wide_resnet50_2 --batch 240 --precision fp16
--network vgg16 --batch 56 --precision fp16 --channels-last
--network densenet169 --batch 136 --precision fp32 --channels-last"
# MODE=holdout90 and MODE=holdout91 (session 61, the shipped model): ten one-GPU configurations each by
# random.Random(90) and random.Random(91), holdout33's rule (tools/draw_holdout.py --emit), predicted in the call.
HOLDOUT90_MEASURE="
resnet34 96 fp32 graphapi
resnet50 216 fp16 graphapi
resnet34 232 fp16
resnet50 224 fp16 graphapi
vgg13 48 fp16 graphapi
resnet50 104 fp16 graphapi"
HOLDOUT90_TORCH="
--network lenet5 --batch 208 --precision fp16 --channels-last
--network vgg13 --batch 176 --precision fp32
--network vgg19 --batch 144 --precision fp32
--network vgg13 --batch 192 --precision fp32"
HOLDOUT91_MEASURE="
densenet169 176 fp16
resnet34 240 fp32
vgg16 232 fp32"
HOLDOUT91_TORCH="
--network lenet5 --batch 232 --precision fp16 --channels-last
--network vgg19 --batch 48 --precision fp16 --channels-last
--network resnet101 --batch 72 --precision fp32
--network resnet152 --batch 144 --precision fp32 --channels-last
--network lenet5 --batch 184 --precision fp32 --channels-last
--network vgg16 --batch 168 --precision fp32 --channels-last
--network resnet50 --batch 232 --precision fp32 --channels-last"

# MODE=holdout89 (session 60, the shipped model): ten one-GPU configurations by random.Random(89), holdout33's rule
# (tools/draw_holdout.py --emit), predicted in the call.
HOLDOUT89_MEASURE="
densenet169 224 fp32
resnet101 248 fp16
wide_resnet50_2 136 fp32
mnasnet1_0 208 fp32 graphapi
resnext50_32x4d 32 fp16
vgg16 112 fp16 graphapi"
HOLDOUT89_TORCH="
--network resnext50_32x4d --batch 248 --precision fp16 --channels-last
--network resnext50_32x4d --batch 144 --precision fp16
--network vgg16 --batch 48 --precision fp16 --channels-last
--network resnet34 --batch 48 --precision fp32"
# MODE=holdout88 (session 60, the shipped model): ten one-GPU configurations by random.Random(88), holdout33's rule
# (tools/draw_holdout.py --emit), predicted in the call; the channels-last FP32 PyTorch job comes last as drawn.
HOLDOUT88_MEASURE="
resnet152 80 fp32
vgg13 144 fp16
densenet169 208 fp16
googlenet 104 fp16 graphapi
resnet34 240 fp32 graphapi
lenet5 88 fp16 graphapi
lenet5 192 fp32 graphapi"
HOLDOUT88_TORCH="
--network vgg13 --batch 32 --precision fp16
--network googlenet --batch 256 --precision fp16 --channels-last
--network resnet34 --batch 136 --precision fp32 --channels-last"
# MODE=holdout87 (session 59, the shipped model): ten one-GPU configurations by random.Random(87), holdout33's rule
# (tools/draw_holdout.py --emit), predicted in the call; the channels-last FP32 PyTorch job comes last as drawn.
HOLDOUT87_MEASURE="
googlenet 216 fp16 graphapi
vgg16 56 fp32 graphapi
resnet50 184 fp16
vgg13 216 fp32"
HOLDOUT87_TORCH="
--network mnasnet1_0 --batch 224 --precision fp32
--network mnasnet1_0 --batch 128 --precision fp16 --channels-last
--network mnasnet1_0 --batch 72 --precision fp16
--network resnext50_32x4d --batch 216 --precision fp32
--network vgg13 --batch 120 --precision fp16 --channels-last
--network alexnet --batch 208 --precision fp32 --channels-last"

# MODE=holdout86 (session 58, the shipped model after rules 37 and 38 were put back): ten one-GPU configurations by
# random.Random(86), holdout33's rule (tools/draw_holdout.py --emit), predicted in the call; the channels-last FP32
# PyTorch job comes last as drawn.
HOLDOUT86_MEASURE="
wide_resnet50_2 216 fp32 graphapi
resnet34 32 fp16
resnet152 136 fp32"
HOLDOUT86_TORCH="
--network vgg19 --batch 224 --precision fp16
--network vgg16 --batch 32 --precision fp16
--network wide_resnet50_2 --batch 160 --precision fp16 --channels-last
--network resnet101 --batch 40 --precision fp16 --channels-last
--network mnasnet1_0 --batch 256 --precision fp16 --channels-last
--network googlenet --batch 240 --precision fp32
--network resnet152 --batch 48 --precision fp32 --channels-last"

# MODE=holdout85 (session 57, the model with rule 35 committed and not yet judged): ten one-GPU configurations by
# random.Random(85), holdout33's rule (tools/draw_holdout.py --emit), predicted in the call; its two channels-last
# FP32 PyTorch jobs come last as drawn.
HOLDOUT85_MEASURE="
resnext50_32x4d 88 fp32
vgg13 88 fp16
googlenet 32 fp32
resnet50 240 fp16 graphapi"
HOLDOUT85_TORCH="
--network lenet5 --batch 208 --precision fp16
--network lenet5 --batch 88 --precision fp32
--network densenet169 --batch 32 --precision fp16 --channels-last
--network resnet152 --batch 208 --precision fp16
--network vgg19 --batch 200 --precision fp32 --channels-last
--network resnet34 --batch 184 --precision fp32 --channels-last"

# MODE=holdout84 (session 56, the model as session 53 left it): ten one-GPU configurations by random.Random(84),
# holdout33's rule (tools/draw_holdout.py --emit), predicted in the call; the channels-last FP32 PyTorch job last.
HOLDOUT84_MEASURE="
alexnet 160 fp32
resnet34 152 fp32
resnet152 256 fp32
googlenet 200 fp32 graphapi
resnet50 232 fp16
alexnet 152 fp32 graphapi"
HOLDOUT84_TORCH="
--network vgg16 --batch 104 --precision fp16 --channels-last
--network alexnet --batch 88 --precision fp16 --channels-last
--network googlenet --batch 104 --precision fp16
--network resnet50 --batch 224 --precision fp32 --channels-last"

# MODE=holdout82, holdout83, mholdout82 (2 GPUs) (session 56, the model as session 53 left it): ten one-GPU configurations
# by random.Random(82) and (83), holdout33's rule, and ten multi-GPU jobs by random.Random(8282), mholdout35's rule
# (tools/draw_holdout.py --emit); predicted in the call, channels-last FP32 PyTorch jobs last.
HOLDOUT82_MEASURE="
wide_resnet50_2 232 fp16
vgg13 96 fp16 graphapi
resnet152 152 fp16
mnasnet1_0 168 fp16 graphapi
googlenet 240 fp16
resnet101 208 fp32 graphapi"
HOLDOUT82_TORCH="
--network googlenet --batch 224 --precision fp32
--network resnet34 --batch 48 --precision fp32
--network vgg19 --batch 152 --precision fp16 --channels-last
--network resnet50 --batch 120 --precision fp32 --channels-last"
HOLDOUT83_MEASURE="
resnet34 248 fp32 graphapi
googlenet 128 fp16 graphapi
vgg13 80 fp16
googlenet 120 fp32
googlenet 40 fp16 graphapi"
HOLDOUT83_TORCH="
--network mnasnet1_0 --batch 48 --precision fp16 --channels-last
--network resnet34 --batch 232 --precision fp16 --channels-last
--network resnext50_32x4d --batch 216 --precision fp16
--network vgg19 --batch 144 --precision fp32 --channels-last
--network resnet34 --batch 144 --precision fp32 --channels-last"
MHOLDOUT82_GRAPH="
resnet34 40 fp16 nccl
vgg19 232 fp32 ps2
resnet34 248 fp16 ps1
resnet50 64 fp32 nccl"
MHOLDOUT82_LEGACY="
googlenet 248 fp16 nccl
vgg13 96 fp16 nccl
alexnet 112 fp16 nccl"
MHOLDOUT82_DDP="
--network alexnet --batch 200 --precision fp16 --channels-last
--network wide_resnet50_2 --batch 72 --precision fp16 --channels-last
--network mnasnet1_0 --batch 72 --precision fp16"
MHOLDOUT82_GPUS=2

# MODE=holdout85b: the two channels-last FP32 jobs of HOLDOUT85_TORCH holdout85's call did not finish (VGG-19 b200 was
# still in cudnn.benchmark's search at its 368 s), in a call of their own, the shorter first; run with TORCH_CL32_LIMIT
# raised and EAGER_FROM naming holdout85's eager costs (same machine kind, measured in the session's previous call).
HOLDOUT85B_TORCH="
--network resnet34 --batch 184 --precision fp32 --channels-last
--network vgg19 --batch 200 --precision fp32 --channels-last"

# MODE=holdout83b: the two channels-last FP32 jobs of HOLDOUT83_TORCH holdout83's call did not reach (VGG-19 b144
# was still in cudnn.benchmark's search when the call's time ran out), in a call of their own.
HOLDOUT83B_TORCH="
--network vgg19 --batch 144 --precision fp32 --channels-last
--network resnet34 --batch 144 --precision fp32 --channels-last"

# MODE=holdout80, holdout81, mholdout80 (2 GPUs) (session 55, the model as session 53 left it): ten one-GPU configurations
# by random.Random(80) and (81), holdout33's rule, and ten multi-GPU jobs by random.Random(8080), mholdout35's rule
# (tools/draw_holdout.py --emit); predicted in the call, channels-last FP32 PyTorch jobs last.
HOLDOUT80_MEASURE="
alexnet 168 fp32
resnext50_32x4d 40 fp32
googlenet 160 fp16
resnet34 184 fp16
lenet5 120 fp32
densenet169 112 fp16 graphapi"
HOLDOUT80_TORCH="
--network mnasnet1_0 --batch 128 --precision fp32
--network resnet101 --batch 168 --precision fp32
--network vgg13 --batch 80 --precision fp32
--network vgg16 --batch 32 --precision fp16"
HOLDOUT81_MEASURE="
wide_resnet50_2 32 fp16
mnasnet1_0 216 fp32
mnasnet1_0 200 fp16 graphapi
lenet5 160 fp32
wide_resnet50_2 224 fp32
lenet5 208 fp32 graphapi"
HOLDOUT81_TORCH="
--network resnet50 --batch 240 --precision fp32
--network resnet34 --batch 200 --precision fp16
--network resnet152 --batch 256 --precision fp16 --channels-last
--network resnet50 --batch 168 --precision fp32 --channels-last"
MHOLDOUT80_GRAPH="
densenet169 168 fp16 ps2
resnext50_32x4d 152 fp32 ps1
resnext50_32x4d 48 fp16 ps1
resnet50 136 fp16 ps2
vgg13 120 fp32 nccl
densenet169 120 fp16 nccl"
MHOLDOUT80_DDP="
--network resnet152 --batch 168 --precision fp16
--network resnext50_32x4d --batch 240 --precision fp32
--network vgg19 --batch 184 --precision fp32
--network resnet101 --batch 64 --precision fp32 --channels-last"
MHOLDOUT80_GPUS=2

# MODE=holdout78, holdout79 (session 54, after rules 31 and 31c were put back: the model as session 53 left it):
# ten one-GPU configurations each by random.Random(78) and (79), holdout33's rule (tools/draw_holdout.py --emit),
# predicted in the call; the channels-last FP32 PyTorch jobs last.
HOLDOUT78_MEASURE="
resnet152 168 fp16
resnet101 192 fp32
alexnet 80 fp16
googlenet 144 fp32"
HOLDOUT78_TORCH="
--network wide_resnet50_2 --batch 80 --precision fp16
--network alexnet --batch 192 --precision fp16 --channels-last
--network vgg19 --batch 200 --precision fp16 --channels-last
--network googlenet --batch 224 --precision fp32
--network vgg13 --batch 216 --precision fp32 --channels-last
--network vgg16 --batch 72 --precision fp32 --channels-last"
HOLDOUT79_MEASURE="
googlenet 144 fp32
lenet5 88 fp32
densenet169 120 fp16
densenet169 96 fp32 graphapi
densenet169 192 fp16"
HOLDOUT79_TORCH="
--network densenet169 --batch 216 --precision fp32
--network googlenet --batch 136 --precision fp32
--network resnext50_32x4d --batch 240 --precision fp16 --channels-last
--network vgg16 --batch 48 --precision fp16 --channels-last
--network vgg16 --batch 208 --precision fp32 --channels-last"

# MODE=holdout76, holdout77, mholdout76 (2 GPUs), mholdout77 (4 GPUs) (session 54, the model as session 53 left
# it): ten one-GPU configurations each by random.Random(76) and (77), holdout33's rule, and ten multi-GPU jobs each
# by random.Random(7676) and (7777), mholdout35's rule; predicted in the call. Channels-last FP32 PyTorch jobs
# last; the multi-GPU calls time the PS exchange after their jobs again (ps_after). MODE=session54a runs plane53
# first, then holdout76 (one start for both).
HOLDOUT76_MEASURE="
resnet101 144 fp32
mnasnet1_0 40 fp32
lenet5 112 fp16 graphapi
vgg13 136 fp32
resnet101 168 fp32 graphapi
densenet169 200 fp32
vgg13 176 fp16 graphapi"
HOLDOUT76_TORCH="
--network lenet5 --batch 48 --precision fp32
--network densenet169 --batch 88 --precision fp16
--network mnasnet1_0 --batch 104 --precision fp32 --channels-last"
HOLDOUT77_MEASURE="
vgg19 96 fp32
resnet34 168 fp16
alexnet 240 fp32
googlenet 112 fp32 graphapi
lenet5 88 fp16 graphapi"
HOLDOUT77_TORCH="
--network lenet5 --batch 80 --precision fp16
--network resnet50 --batch 192 --precision fp16
--network vgg19 --batch 240 --precision fp16 --channels-last
--network densenet169 --batch 248 --precision fp16 --channels-last
--network densenet169 --batch 168 --precision fp32 --channels-last"
MHOLDOUT76_GRAPH="
alexnet 80 fp16 ps1
vgg19 128 fp16 nccl
vgg16 96 fp16 ps1
mnasnet1_0 120 fp32 ps1
vgg16 144 fp32 ps1"
MHOLDOUT76_LEGACY="
wide_resnet50_2 240 fp16 nccl
resnet34 160 fp32 nccl"
MHOLDOUT76_DDP="
--network mnasnet1_0 --batch 256 --precision fp32
--network resnet152 --batch 120 --precision fp16
--network lenet5 --batch 184 --precision fp16"
MHOLDOUT76_GPUS=2
MHOLDOUT77_GRAPH="
wide_resnet50_2 64 fp32 ps2
resnet152 48 fp32 ps2
mnasnet1_0 232 fp32 nccl
resnet34 240 fp16 ps1
mnasnet1_0 128 fp32 nccl
resnet152 128 fp16 nccl"
MHOLDOUT77_LEGACY="
resnet50 144 fp32 nccl"
MHOLDOUT77_DDP="
--network resnet50 --batch 168 --precision fp16
--network lenet5 --batch 32 --precision fp16 --channels-last
--network resnet152 --batch 248 --precision fp32 --channels-last"
MHOLDOUT77_GPUS=4

# MODE=holdout67 (session 49, the same model): ten one-GPU configurations by random.Random(67), holdout33's rule,
# predicted in the call; the channels-last FP32 PyTorch jobs last.
HOLDOUT67_MEASURE="
resnext50_32x4d 96 fp16 graphapi
vgg13 72 fp32 graphapi
googlenet 144 fp16 graphapi
vgg13 160 fp16"
HOLDOUT67_TORCH="
--network vgg13 --batch 56 --precision fp32
--network lenet5 --batch 128 --precision fp16 --channels-last
--network resnet101 --batch 160 --precision fp16 --channels-last
--network vgg19 --batch 216 --precision fp16 --channels-last
--network densenet169 --batch 56 --precision fp32 --channels-last
--network resnet152 --batch 96 --precision fp32 --channels-last"

# MODE=holdout66 (session 49, the same model): ten one-GPU configurations by random.Random(66), holdout33's rule,
# predicted in the call.
HOLDOUT66_MEASURE="
densenet169 104 fp32
googlenet 144 fp16 graphapi
vgg16 208 fp32 graphapi
resnet50 56 fp32
resnet101 32 fp16
resnext50_32x4d 152 fp32"
HOLDOUT66_TORCH="
--network vgg19 --batch 144 --precision fp32
--network wide_resnet50_2 --batch 232 --precision fp16 --channels-last
--network vgg16 --batch 120 --precision fp16 --channels-last
--network vgg16 --batch 144 --precision fp16"

# MODE=holdout65, mholdout65 (session 49, the session's model, unchanged since holdout64): ten one-GPU configurations
# by random.Random(65), holdout33's rule, and ten 2-GPU jobs by random.Random(6565), mholdout35's rule; predicted in
# the call. Channels-last FP32 PyTorch jobs last; mholdout65 also times the PS exchange after its jobs (ps_after).
HOLDOUT65_MEASURE="
resnet152 104 fp32
wide_resnet50_2 192 fp32
lenet5 192 fp32 graphapi
mnasnet1_0 56 fp16
vgg19 200 fp16
resnet34 152 fp16"
HOLDOUT65_TORCH="
--network resnet34 --batch 144 --precision fp32
--network densenet169 --batch 256 --precision fp32
--network vgg16 --batch 120 --precision fp32
--network resnext50_32x4d --batch 88 --precision fp16 --channels-last"
MHOLDOUT65_GRAPH="
vgg16 72 fp32 nccl
lenet5 192 fp32 nccl
vgg19 200 fp16 ps2
lenet5 64 fp16 nccl
alexnet 136 fp32 ps2"
MHOLDOUT65_LEGACY="
densenet169 192 fp16 nccl
wide_resnet50_2 112 fp16 nccl
mnasnet1_0 152 fp32 nccl"
MHOLDOUT65_DDP="
--network resnet152 --batch 232 --precision fp16
--network resnext50_32x4d --batch 256 --precision fp32 --channels-last"
MHOLDOUT65_GPUS=2

# MODE=holdout64, mholdout64 (session 49, after the eager profiles were rebuilt: the session's model): ten one-GPU
# configurations by random.Random(64), holdout33's rule, and ten 4-GPU jobs by random.Random(6464), mholdout35's
# rule; predicted in the call. The channels-last FP32 PyTorch jobs go last (cudnn.benchmark may hold one past
# CALL_LIMIT); mholdout64 also times the PS exchange after its cnnperf-measure jobs (ps_after).
HOLDOUT64_MEASURE="
resnet34 56 fp32 graphapi
lenet5 96 fp16
lenet5 216 fp16 graphapi
resnet152 200 fp16 graphapi
lenet5 168 fp16 graphapi"
HOLDOUT64_TORCH="
--network googlenet --batch 56 --precision fp16
--network lenet5 --batch 104 --precision fp16 --channels-last
--network resnet101 --batch 160 --precision fp32
--network wide_resnet50_2 --batch 32 --precision fp32 --channels-last
--network densenet169 --batch 248 --precision fp32 --channels-last"
MHOLDOUT64_GRAPH="
resnet101 192 fp16 ps2
resnet34 120 fp32 nccl
vgg16 88 fp16 nccl
lenet5 96 fp16 nccl"
MHOLDOUT64_DDP="
--network vgg13 --batch 136 --precision fp32
--network resnet50 --batch 80 --precision fp32
--network mnasnet1_0 --batch 72 --precision fp32
--network resnet50 --batch 72 --precision fp16
--network vgg19 --batch 144 --precision fp16 --channels-last
--network mnasnet1_0 --batch 144 --precision fp32 --channels-last"
MHOLDOUT64_GPUS=4

# MODE=holdout63 (session 48, the session's final model): ten one-GPU configurations by random.Random(63),
# holdout33's rule; predicted in the call (run with CALL_LIMIT at the call's timeout: its last PyTorch job is a
# channels-last FP32 VGG, which cudnn.benchmark may hold past it).
HOLDOUT63_MEASURE="
vgg16 48 fp16
mnasnet1_0 48 fp32 graphapi
lenet5 96 fp16 graphapi
resnext50_32x4d 208 fp16
vgg13 120 fp32
densenet169 256 fp16 graphapi"
HOLDOUT63_TORCH="
--network resnet34 --batch 144 --precision fp32
--network resnet34 --batch 200 --precision fp16 --channels-last
--network lenet5 --batch 200 --precision fp16
--network vgg19 --batch 184 --precision fp32 --channels-last"

# MODE=mholdout63 (session 48, the session's final model; 2 GPUs): ten 2-GPU jobs by random.Random(6363),
# mholdout35's rule, predicted in the call; the PS exchange also timed after the cnnperf-measure jobs (ps_after).
MHOLDOUT63_GRAPH="
vgg16 152 fp32 nccl
resnet152 168 fp32 ps2
resnet101 64 fp16 ps2
vgg13 192 fp16 ps1"
MHOLDOUT63_DDP="
--network lenet5 --batch 144 --precision fp32
--network googlenet --batch 96 --precision fp16
--network lenet5 --batch 208 --precision fp32
--network wide_resnet50_2 --batch 208 --precision fp32 --channels-last
--network googlenet --batch 152 --precision fp32 --channels-last
--network mnasnet1_0 --batch 64 --precision fp16 --channels-last"
MHOLDOUT63_GPUS=2

# MODE=holdout62, mholdout62 (session 48, after rule 22 was read and left out of validate's default: predictions of
# every recorded run as before the session): ten one-GPU configurations by random.Random(62), holdout33's rule, and
# ten 4-GPU jobs by random.Random(6262), mholdout35's rule; predicted in the call. mholdout62 also times the PS
# exchange after its cnnperf-measure jobs (ps_after).
HOLDOUT62_MEASURE="
resnext50_32x4d 72 fp16
resnet34 104 fp32
resnet50 72 fp16 graphapi
mnasnet1_0 192 fp16 graphapi
alexnet 152 fp32 graphapi
vgg19 248 fp32"
HOLDOUT62_TORCH="
--network vgg16 --batch 80 --precision fp16
--network resnet50 --batch 144 --precision fp16 --channels-last
--network mnasnet1_0 --batch 256 --precision fp32
--network resnet34 --batch 256 --precision fp16"
MHOLDOUT62_GRAPH="
resnet152 128 fp16 ps1
lenet5 184 fp32 ps2
vgg16 160 fp32 ps2"
MHOLDOUT62_LEGACY="
lenet5 248 fp16 nccl"
MHOLDOUT62_DDP="
--network alexnet --batch 72 --precision fp16 --channels-last
--network alexnet --batch 96 --precision fp16 --channels-last
--network resnet50 --batch 216 --precision fp32
--network resnet50 --batch 168 --precision fp16
--network resnet34 --batch 208 --precision fp16
--network resnet101 --batch 40 --precision fp16 --channels-last"
MHOLDOUT62_GPUS=4

# MODE=holdout61, mholdout61 (session 47, after rule 21 was kept: the session's model): ten one-GPU configurations by
# random.Random(61), holdout33's rule, and ten 4-GPU jobs by random.Random(6161), mholdout35's rule; predicted in
# the call.
HOLDOUT61_MEASURE="
vgg13 32 fp16
resnet101 32 fp32
resnet101 184 fp32"
HOLDOUT61_TORCH="
--network resnet34 --batch 72 --precision fp16
--network mnasnet1_0 --batch 112 --precision fp16 --channels-last
--network resnet101 --batch 120 --precision fp16 --channels-last
--network resnet34 --batch 112 --precision fp16
--network googlenet --batch 216 --precision fp32
--network mnasnet1_0 --batch 216 --precision fp32 --channels-last
--network vgg19 --batch 208 --precision fp32 --channels-last"
MHOLDOUT61_GRAPH="
resnet101 64 fp32 ps1
densenet169 32 fp32 ps2
googlenet 96 fp32 ps1"
MHOLDOUT61_LEGACY="
resnet101 136 fp16 nccl
wide_resnet50_2 144 fp16 nccl
wide_resnet50_2 168 fp16 nccl"
MHOLDOUT61_DDP="
--network alexnet --batch 112 --precision fp32 --channels-last
--network resnet50 --batch 240 --precision fp16
--network resnet152 --batch 40 --precision fp16 --channels-last
--network vgg16 --batch 240 --precision fp32"
MHOLDOUT61_GPUS=4

# MODE=holdout60, mholdout60 (session 47, drawn before any change this session: the model as it stands, no model file
# changed since session 46's rule 20b): ten one-GPU configurations by random.Random(60), holdout33's rule, and ten 4-GPU
# jobs by random.Random(6060), mholdout35's rule; predicted in the call.
HOLDOUT60_MEASURE="
resnet101 256 fp16 graphapi
vgg13 248 fp16
resnet152 40 fp16 graphapi
resnet152 232 fp16
mnasnet1_0 184 fp16 graphapi
vgg19 88 fp32 graphapi"
HOLDOUT60_TORCH="
--network mnasnet1_0 --batch 104 --precision fp16
--network lenet5 --batch 232 --precision fp32 --channels-last
--network resnext50_32x4d --batch 176 --precision fp16
--network googlenet --batch 32 --precision fp16"
MHOLDOUT60_GRAPH="
resnet152 152 fp16 nccl
vgg16 72 fp32 ps1
resnet101 32 fp16 ps1
lenet5 48 fp16 ps2
alexnet 168 fp32 ps2
resnet34 184 fp32 ps2"
MHOLDOUT60_LEGACY="
vgg19 56 fp16 nccl
densenet169 192 fp32 nccl"
MHOLDOUT60_DDP="
--network densenet169 --batch 200 --precision fp16
--network resnet50 --batch 112 --precision fp32 --channels-last"
MHOLDOUT60_GPUS=4

# MODE=holdout59 (session 46, after rule 20b was kept: the session's final model): ten one-GPU configurations by
# random.Random(59), holdout33's rule; cnnperf-measure jobs first, then PyTorch's in drawn order; predicted in the call.
HOLDOUT59_MEASURE="
lenet5 48 fp32 graphapi
googlenet 248 fp32 graphapi
resnet152 152 fp32
vgg16 176 fp32
densenet169 40 fp16 graphapi"
HOLDOUT59_TORCH="
--network vgg13 --batch 184 --precision fp16 --channels-last
--network resnet50 --batch 56 --precision fp16
--network vgg13 --batch 40 --precision fp32
--network resnext50_32x4d --batch 184 --precision fp16
--network mnasnet1_0 --batch 48 --precision fp16"

# MODE=holdout58 (session 46, after rules 18 and 19 were judged and reverted: the model as it
# stands, no model file changed since session 43): ten one-GPU configurations by random.Random(58), holdout33's rule;
# cnnperf-measure jobs first, then PyTorch's in drawn order (what the deadline leaves); predicted in the call.
HOLDOUT58_MEASURE="
resnext50_32x4d 80 fp16
wide_resnet50_2 176 fp16 graphapi
resnet34 80 fp32 graphapi
googlenet 184 fp16 graphapi"
HOLDOUT58_TORCH="
--network alexnet --batch 80 --precision fp32 --channels-last
--network resnet101 --batch 104 --precision fp32 --channels-last
--network vgg19 --batch 184 --precision fp32
--network resnet34 --batch 168 --precision fp32
--network alexnet --batch 56 --precision fp16
--network alexnet --batch 72 --precision fp32"

# MODE=holdout57, holdout57b, mholdout57 (session 46, drawn before any change this session: the model as it stands,
# no model file changed since session 43): ten one-GPU configurations by random.Random(57), holdout33's rule (the
# cnnperf-measure jobs in MODE=session46a, the PyTorch ones in holdout57b), and ten 4-GPU jobs by
# random.Random(5757), mholdout35's rule, in MODE=coexec57 after its calibration part; predicted in the call.
HOLDOUT57_MEASURE="
alexnet 120 fp16
resnet152 192 fp32 graphapi
resnet50 96 fp16
resnet101 176 fp16
wide_resnet50_2 96 fp32"
HOLDOUT57_TORCH="
--network resnet50 --batch 112 --precision fp32
--network wide_resnet50_2 --batch 216 --precision fp16
--network resnet152 --batch 128 --precision fp16 --channels-last
--network googlenet --batch 128 --precision fp16 --channels-last
--network resnet50 --batch 224 --precision fp16 --channels-last"
MHOLDOUT57_GRAPH="
wide_resnet50_2 88 fp16 ps2
lenet5 120 fp16 ps2
vgg16 192 fp32 ps2
vgg13 192 fp16 nccl"
MHOLDOUT57_LEGACY="
vgg16 128 fp32 nccl"
MHOLDOUT57_DDP="
--network wide_resnet50_2 --batch 128 --precision fp32
--network resnet101 --batch 96 --precision fp32
--network resnet50 --batch 184 --precision fp32 --channels-last
--network vgg16 --batch 176 --precision fp16 --channels-last
--network resnet101 --batch 144 --precision fp16"
MHOLDOUT57_GPUS=4

# MODE=holdout56, MODE=mholdout56 (session 45, after rule 17 was judged and reverted: the model as it stands, no model
# file changed since session 43): ten one-GPU configurations by random.Random(56), holdout33's rule, and ten 2-GPU
# jobs by random.Random(5656), mholdout35's rule, drawn and committed before their calls; predicted in the call.
HOLDOUT56_MEASURE="
resnext50_32x4d 80 fp16
lenet5 72 fp16
resnet50 80 fp32
vgg16 128 fp16 graphapi"
HOLDOUT56_TORCH="
--network wide_resnet50_2 --batch 168 --precision fp16 --channels-last
--network vgg13 --batch 160 --precision fp32 --channels-last
--network vgg16 --batch 88 --precision fp16
--network resnext50_32x4d --batch 48 --precision fp32
--network alexnet --batch 176 --precision fp16 --channels-last
--network vgg13 --batch 32 --precision fp16 --channels-last"
MHOLDOUT56_GRAPH="
alexnet 128 fp16 nccl
densenet169 152 fp16 ps2
mnasnet1_0 40 fp32 ps1
mnasnet1_0 224 fp32 nccl"
MHOLDOUT56_LEGACY="
resnet152 184 fp32 nccl
resnet101 56 fp16 nccl
resnext50_32x4d 104 fp16 nccl
resnet152 232 fp16 nccl"
MHOLDOUT56_DDP="
--network resnet101 --batch 120 --precision fp16
--network resnet34 --batch 32 --precision fp32 --channels-last"
MHOLDOUT56_GPUS=2

# MODE=holdout55, MODE=mholdout55 (session 45, for the model as it stands: no model file changed since session 43):
# ten one-GPU configurations by random.Random(55), holdout33's rule, and ten 4-GPU jobs by random.Random(5555),
# mholdout35's rule, drawn and committed before their calls; predicted in the call. holdout54b and holdout52c are
# the configurations of holdout54's and holdout52's draws that no call ran (their lists above stay the record of
# the draws), run after holdout55's own with the call's eager costs copied from torch/holdout55 (EAGER_FROM).
HOLDOUT55_MEASURE="
lenet5 48 fp32
googlenet 104 fp32 graphapi"
HOLDOUT55_TORCH="
--network densenet169 --batch 80 --precision fp16
--network wide_resnet50_2 --batch 48 --precision fp16
--network densenet169 --batch 120 --precision fp32 --channels-last
--network resnet152 --batch 160 --precision fp32
--network vgg16 --batch 136 --precision fp16
--network alexnet --batch 88 --precision fp16 --channels-last
--network wide_resnet50_2 --batch 88 --precision fp16 --channels-last
--network lenet5 --batch 224 --precision fp16 --channels-last"
HOLDOUT54B_TORCH="
--network resnet50 --batch 112 --precision fp32 --channels-last
--network vgg13 --batch 96 --precision fp32 --channels-last
--network resnext50_32x4d --batch 256 --precision fp16 --channels-last
--network vgg13 --batch 32 --precision fp32"
HOLDOUT52C_TORCH="
--network resnet34 --batch 88 --precision fp32 --channels-last"
MHOLDOUT55_GRAPH="
wide_resnet50_2 136 fp16 nccl
vgg13 88 fp32 ps1
resnext50_32x4d 144 fp32 nccl
resnext50_32x4d 240 fp32 nccl"
MHOLDOUT55_LEGACY="
vgg16 88 fp16 nccl
densenet169 120 fp16 nccl
resnet50 104 fp16 nccl
googlenet 64 fp32 nccl"
MHOLDOUT55_DDP="
--network lenet5 --batch 96 --precision fp16
--network resnet152 --batch 128 --precision fp16 --channels-last"
MHOLDOUT55_GPUS=4

# MODE=holdout54 (session 44, the session's last device time): ten one-GPU configurations by random.Random(54),
# holdout33's rule, for the model as it stands (no model file changed in session 44); measure jobs first, then
# PyTorch in drawn order (what the deadline leaves); predicted in the call.
HOLDOUT54_MEASURE="
resnet101 176 fp32
vgg19 168 fp32 graphapi
mnasnet1_0 168 fp16 graphapi"
HOLDOUT54_TORCH="
--network googlenet --batch 144 --precision fp32 --channels-last
--network resnet34 --batch 128 --precision fp16 --channels-last
--network vgg16 --batch 80 --precision fp16 --channels-last
--network resnet50 --batch 112 --precision fp32 --channels-last
--network vgg13 --batch 96 --precision fp32 --channels-last
--network resnext50_32x4d --batch 256 --precision fp16 --channels-last
--network vgg13 --batch 32 --precision fp32"

# MODE=holdout53, MODE=holdout52b and MODE=mholdout53 (drawn in session 44 for the model as it stands, session 43's:
# rule 15 in): ten one-GPU configurations by random.Random(53), holdout33's rule; holdout52's five that no call ran
# (its lists above stay the record of the draw); ten 4-GPU jobs by random.Random(5353), mholdout35's rule (4-GPU jobs
# are the fewest; DenseNet-169 b200 FP32 with one server is predicted not to fit, and runs as drawn); predicted in
# the call.
HOLDOUT53_MEASURE="
vgg16 144 fp16 graphapi
vgg16 40 fp16 graphapi
resnet101 88 fp32
alexnet 112 fp32"
HOLDOUT53_TORCH="
--network resnext50_32x4d --batch 248 --precision fp16 --channels-last
--network resnet50 --batch 208 --precision fp32
--network googlenet --batch 120 --precision fp16
--network lenet5 --batch 64 --precision fp16
--network resnet50 --batch 224 --precision fp32 --channels-last
--network densenet169 --batch 232 --precision fp32 --channels-last"
HOLDOUT52B_MEASURE="
wide_resnet50_2 40 fp32 graphapi
resnext50_32x4d 128 fp32"
HOLDOUT52B_TORCH="
--network mnasnet1_0 --batch 40 --precision fp32
--network vgg19 --batch 136 --precision fp16
--network resnet34 --batch 88 --precision fp32 --channels-last"
MHOLDOUT53_GRAPH="
wide_resnet50_2 216 fp16 ps2
vgg16 200 fp32 ps1
densenet169 200 fp32 ps1
wide_resnet50_2 112 fp32 ps2
resnet101 176 fp16 ps1"
MHOLDOUT53_LEGACY="
vgg16 96 fp32 nccl
vgg16 232 fp16 nccl"
MHOLDOUT53_DDP="
--network resnext50_32x4d --batch 160 --precision fp32
--network vgg19 --batch 112 --precision fp32 --channels-last
--network vgg13 --batch 104 --precision fp16"
MHOLDOUT53_GPUS=4

# MODE=holdout48 (session 41): ten more one-GPU evaluation configurations by random.Random(48), holdout33's rule,
# drawn before the call for the session's final model (no model file changed since session 40); measure jobs first,
# then PyTorch in drawn order; predicted in the call.
HOLDOUT48_MEASURE="
vgg13 88 fp16
resnet34 80 fp16 graphapi
vgg13 72 fp16 graphapi
vgg16 112 fp16"
HOLDOUT48_TORCH="
--network resnet50 --batch 112 --precision fp16
--network vgg19 --batch 160 --precision fp16 --channels-last
--network googlenet --batch 64 --precision fp16 --channels-last
--network resnet152 --batch 48 --precision fp16 --channels-last
--network vgg16 --batch 168 --precision fp32
--network mnasnet1_0 --batch 96 --precision fp16"

# MODE=mholdout48 (session 41, 2 GPUs): ten 2-GPU evaluation jobs drawn before the call by random.Random(4848),
# mholdout35's rule, for the session's final model; the host's 2-rank sweeps first, then the graph-API jobs in
# drawn order, the legacy ones and the five DDP ones (torchrun, 2 processes) in drawn order; predicted in the call.
MHOLDOUT48_GRAPH="
resnext50_32x4d 128 fp32 ps1
lenet5 224 fp16 nccl
resnet50 224 fp16 ps2"
MHOLDOUT48_LEGACY="
resnet152 256 fp16 nccl
resnext50_32x4d 200 fp16 nccl"
MHOLDOUT48_DDP="
--network resnet50 --batch 96 --precision fp32 --channels-last
--network lenet5 --batch 88 --precision fp16 --channels-last
--network resnext50_32x4d --batch 160 --precision fp32
--network resnet34 --batch 128 --precision fp16
--network mnasnet1_0 --batch 224 --precision fp16"
MHOLDOUT48_GPUS=2

# MODE=holdout46 (session 39): ten more one-GPU evaluation configurations by random.Random(46), holdout33's rule,
# drawn before the call for the session's final model; measure jobs first, then PyTorch; predicted in the call.
HOLDOUT46_MEASURE="
densenet169 128 fp16
vgg13 160 fp16 graphapi
alexnet 48 fp32 graphapi
vgg16 152 fp32
googlenet 56 fp32 graphapi"
HOLDOUT46_TORCH="
--network wide_resnet50_2 --batch 32 --precision fp16
--network resnet50 --batch 112 --precision fp16 --channels-last
--network resnet34 --batch 144 --precision fp16 --channels-last
--network vgg16 --batch 208 --precision fp16 --channels-last
--network lenet5 --batch 112 --precision fp32"

# MODE=mholdout46 (session 39, 4 GPUs of one host): ten 4-GPU evaluation jobs drawn before the call by
# random.Random(4646), mholdout35's rule; the host's 4-rank sweeps first, then the graph-API jobs in drawn order and
# the DDP ones (torchrun, 4 processes); predicted in the call.
MHOLDOUT46_GRAPH="
resnet101 80 fp32 ps2
vgg13 256 fp16 ps1
alexnet 232 fp16 ps1
alexnet 144 fp32 nccl
mnasnet1_0 88 fp32 ps2"
MHOLDOUT46_DDP="
--network resnet101 --batch 32 --precision fp32 --channels-last
--network googlenet --batch 80 --precision fp16 --channels-last
--network resnext50_32x4d --batch 104 --precision fp32
--network resnet101 --batch 184 --precision fp16 --channels-last
--network vgg19 --batch 48 --precision fp16"
MHOLDOUT46_GPUS=4

# MODE=coexec47 (session 40, 4 x H100): the H100's co-execution of NCCL all-reduces and compute, which no
# H100 profile had (session 21's 2 x H100 calls came back 2 x H200, so devices/h100.json kept the assumption):
# cnnperf-calibrate --only overlap under 2 ranks and under 4, twice each, then the calibration set's NCCL jobs
# through the graph API on 4 GPUs and on 2 of them, and its DDP jobs on 4 (calibration data: a co-execution
# rule is judged on them, docs/ACCURACY.md session 40); predicted in the call with the model as it stands.
COEXEC47_GRAPH4="
resnet18 64 fp32 nccl
resnet18 128 fp16 nccl
vgg11 64 fp32 nccl
vgg11 64 fp16 nccl
densenet121 32 fp32 nccl
inception_v3 32 fp32 nccl
mobilenet_v2 64 fp32 nccl
squeezenet1_1 64 fp16 nccl"
COEXEC47_GRAPH2="
resnet18 64 fp32 nccl
vgg11 64 fp32 nccl
vgg11 64 fp16 nccl
densenet121 32 fp32 nccl
inception_v3 32 fp32 nccl
mobilenet_v2 64 fp32 nccl"
COEXEC47_DDP="
--network resnet18 --batch 64 --precision fp32,fp16
--network vgg11 --batch 64 --precision fp32
--network inception_v3 --batch 32 --precision fp32
--network densenet121 --batch 32 --precision fp32"
coexec47() {
    need_gpus 4 || return
    mpi_setup
    RES=$BUILD/results/coexec47
    rm -rf "$RES"
    mkdir -p "$RES"
    local n r
    for r in 1 2; do
        for n in 2 4; do
            say "calibrate --only overlap, $n ranks, run $r"
            timeout 120 "${MPIRUN[@]}" -np "$n" -x LD_LIBRARY_PATH "$BUILD/measure/cnnperf-calibrate" --only overlap \
                --raw "$RES/calibrated-overlap-${n}gpu-r$r-raw.json" </dev/null 2>&1 | grep -v 'NCCL INFO' |
                grep -E 'co-execution' || fail "calibrate overlap, $n ranks, run $r"
        done
    done
    bundle
    nccl_sweep 4
    GPUS=4 CONV_API=graph multi_runs "$COEXEC47_GRAPH4"
    GPUS=2 CONV_API=graph multi_runs "$COEXEC47_GRAPH2"
    predict_in_call "$RES"/measure-*.json
    NPROC=4 ddp "$COEXEC47_DDP"
}

# MODE=coexec57 (session 46, 4 GPUs; calibration data): cnnperf-calibrate --only overlap, which now also times an
# FP16 tensor-core GEMM beside the all-reduces, under 2 ranks twice and 4 ranks once (docs/ACCURACY.md session 46,
# rule 19), then 16-bit NCCL jobs of the calibration set's networks through the graph API on 2 GPUs, on which the
# rule is judged with coexec47's; predicted in the call. MODE=session46b: coexec57, then mholdout57 (4 GPUs).
COEXEC57_GRAPH2="
resnet18 128 fp16 nccl
vgg11 128 fp16 nccl
densenet121 64 fp16 nccl
inception_v3 64 fp16 nccl
squeezenet1_1 128 fp16 nccl"
coexec57() {
    need_gpus 4 || return
    mpi_setup
    RES=$BUILD/results/coexec57
    rm -rf "$RES"
    mkdir -p "$RES"
    local n r
    for r in 1 2; do
        for n in 2 4; do
            [ "$r$n" != 24 ] || continue # 4 ranks once: coexec47's 4-rank rates were within 0.05 of the 2-rank ones
            say "calibrate --only overlap, $n ranks, run $r"
            timeout 120 "${MPIRUN[@]}" -np "$n" -x LD_LIBRARY_PATH "$BUILD/measure/cnnperf-calibrate" --only overlap \
                --raw "$RES/calibrated-overlap-${n}gpu-r$r-raw.json" </dev/null 2>&1 | grep -v 'NCCL INFO' |
                grep -E 'co-execution' || fail "calibrate overlap, $n ranks, run $r"
        done
    done
    bundle
    nccl_sweep 2
    GPUS=2 CONV_API=graph multi_runs "$COEXEC57_GRAPH2"
    predict_in_call "$RES"/measure-*.json "$RES/calibrated-nccl-2gpu-raw.json"
}

# MODE=rankcost57 (session 46, 2+ GPUs; calibration data, a diagnostic): every layer pass of a harness job on several
# GPUs takes 0.5-1.1 us more than alone (docs/ACCURACY.md session 46, rule 18, not kept). Which part of being one
# of several ranks costs it? ResNet-18 b128 FP16 through the graph API, twice over: alone, as the one rank of
# mpirun (MPI in the process), as one of two ranks each training alone (--comm none: another process at work on
# another GPU), and as one of two exchanging by NCCL; then the launch benchmark alone and as rank 0 of 2 (rank 1
# waiting in MPI). The files go into a tar (results/rankcost57), not beside the runs validate reads.
rankcost57() {
    need_gpus 2 || return
    mpi_setup
    RES=$BUILD/results/rankcost57
    rm -rf "$RES"
    mkdir -p "$RES"
    local r how a=(--conv-api graph --network resnet18 --batch 128 --precision fp16 --warmup 5 --iters 20)
    for r in 1 2; do
        for how in alone np1 np2-none np2-nccl; do
            say "rankcost57 $how, run $r"
            case $how in
            alone) timeout 120 "$MEASURE" "${a[@]}" -o "$RES/rank-$how-r$r.json" ;;
            np1) timeout 120 "${MPIRUN[@]}" -np 1 -x LD_LIBRARY_PATH "$MEASURE" "${a[@]}" -o "$RES/rank-$how-r$r.json" ;;
            np2-none) timeout 120 "${MPIRUN[@]}" -np 2 -x LD_LIBRARY_PATH "$MEASURE" "${a[@]}" --comm none \
                -o "$RES/rank-$how-r$r.json" ;;
            np2-nccl) timeout 120 "${MPIRUN[@]}" -np 2 -x LD_LIBRARY_PATH "$MEASURE" "${a[@]}" --comm nccl \
                -o "$RES/rank-$how-r$r.json" ;;
            esac </dev/null 2>&1 | grep -v 'NCCL INFO' | grep -E 'timed iterations|error|rror' || fail "rankcost57 $how $r"
        done
    done
    say "launch benchmark alone, then as rank 0 of 2"
    timeout 60 "$BUILD/measure/cnnperf-calibrate" --only launch --raw "$RES/launch-alone-raw.json" </dev/null 2>&1 |
        grep -E 'kernel launch' || fail "launch alone"
    timeout 60 "${MPIRUN[@]}" -np 2 -x LD_LIBRARY_PATH "$BUILD/measure/cnnperf-calibrate" --only launch \
        --raw "$RES/launch-np2-raw.json" </dev/null 2>&1 | grep -E 'kernel launch' || fail "launch as rank 0 of 2"
    bundle
}

# MODE=hostlink56 (session 56, one GPU): the device's host link and launch gap by cnnperf-calibrate (pinned
# copies 8 B to 1 GiB, empty kernels back to back), so the H200's profile estimates (50 GB/s, 2.5 us) can be read
# against a measurement, and the input copy torch_bench makes every iteration (its traces copy nothing) be timed
hostlink56() {
    local RES=$BUILD/results/hostlink56
    mkdir -p "$RES"
    say "calibrate --only hostlink,launch"
    timeout 120 "$BUILD/measure/cnnperf-calibrate" --only hostlink,launch --raw "$RES/calibrated-hostlink-raw.json" \
        </dev/null 2>&1 | grep -E -i 'host|launch' || fail "calibrate hostlink,launch"
    bundle
}

# MODE=ddp4cal41 (session 41, 4 GPUs): PyTorch DDP on four GPUs for the calibration set's networks, which had
# none (coexec47's deadline came first): COEXEC47_DDP's five jobs on 4 ranks, then the same five on 2 of the
# GPUs for pairs from one host and one call; predicted in the call. Nothing from the evaluation set.
ddp4cal41() {
    need_gpus 4 || return
    RES=$BUILD/results/ddp4cal41
    rm -rf "$RES"
    mkdir -p "$RES"
    NPROC=4 ddp "$COEXEC47_DDP"
    NPROC=2 ddp "$COEXEC47_DDP" ddp2
}

# MODE=mholdout45 (session 39, 2 GPUs): ten 2-GPU evaluation jobs drawn before the call by random.Random(4545),
# mholdout35's rule; the host's 2-rank sweeps first, then the graph-API jobs in drawn order, the legacy ones and
# the DDP one (torchrun, 2 processes); predicted in the call.
MHOLDOUT45_GRAPH="
vgg19 72 fp16 ps2
alexnet 88 fp32 ps2
resnet101 128 fp32 ps2
resnet50 112 fp32 nccl
resnet50 120 fp32 ps1
alexnet 192 fp16 ps1"
MHOLDOUT45_LEGACY="
alexnet 176 fp32 nccl
mnasnet1_0 144 fp32 nccl
resnet152 192 fp16 nccl"
MHOLDOUT45_DDP="
--network vgg16 --batch 208 --precision fp16 --channels-last"
MHOLDOUT45_GPUS=2

# MODE=mholdout40 (session 37, 4 GPUs of one host): ten 4-GPU evaluation jobs drawn before the call by
# random.Random(4040), mholdout35's rule (network, batch per GPU 32..256 in steps of 8, fp16/fp32, and the exchange:
# NCCL graph API, NCCL legacy API, one or two CPU parameter servers through the graph API, PyTorch DDP NCHW or
# channels-last); the host's sweeps on 4 ranks first, then the graph-API jobs in drawn order, the legacy one and
# the DDP ones (torchrun, 4 processes); predicted in the call.
MHOLDOUT40_GRAPH="
densenet169 112 fp32 ps2
wide_resnet50_2 128 fp16 nccl
resnet101 64 fp16 ps1
vgg19 160 fp16 ps1
lenet5 40 fp32 ps1
vgg19 32 fp32 ps2"
MHOLDOUT40_LEGACY="
vgg19 232 fp16 nccl"
MHOLDOUT40_DDP="
--network googlenet --batch 192 --precision fp16
--network resnet101 --batch 184 --precision fp16 --channels-last
--network wide_resnet50_2 --batch 160 --precision fp32 --channels-last"
MHOLDOUT40_GPUS=4

# MODE=mholdout42 (session 38, 2 GPUs): ten 2-GPU evaluation jobs drawn before the call by random.Random(4242),
# mholdout35's rule; the host's 2-rank sweeps first, then the graph-API jobs in drawn order, the legacy ones and
# the DDP ones (torchrun, 2 processes); predicted in the call.
MHOLDOUT42_GRAPH="
wide_resnet50_2 136 fp16 nccl
resnext50_32x4d 128 fp32 ps1
mnasnet1_0 72 fp32 nccl
resnext50_32x4d 224 fp32 nccl
lenet5 248 fp16 ps2
alexnet 96 fp32 nccl"
MHOLDOUT42_LEGACY="
wide_resnet50_2 152 fp16 nccl
alexnet 64 fp16 nccl"
MHOLDOUT42_DDP="
--network resnet101 --batch 56 --precision fp16 --channels-last
--network resnet101 --batch 256 --precision fp16"
MHOLDOUT42_GPUS=2

# MODE=mholdout37 (session 36, 2 GPUs): ten 2-GPU evaluation jobs drawn before the call by random.Random(3737),
# mholdout35's rule (network, batch 32..256 in steps of 8, fp16/fp32, and the exchange: NCCL graph API, NCCL legacy
# API, one or two CPU parameter servers through the graph API, PyTorch DDP NCHW or channels-last); the host's sweeps
# first (cnnperf-psbench now with its one-thread pass), then the graph-API jobs in drawn order and the DDP ones.
MHOLDOUT37_GRAPH="
resnet152 256 fp16 nccl
mnasnet1_0 88 fp16 nccl
resnet101 88 fp16 ps2
vgg13 32 fp32 ps1
resnet50 88 fp32 nccl"
MHOLDOUT37_DDP="
--network vgg16 --batch 88 --precision fp16 --channels-last
--network densenet169 --batch 120 --precision fp16 --channels-last
--network wide_resnet50_2 --batch 48 --precision fp16
--network vgg13 --batch 248 --precision fp32 --channels-last
--network vgg16 --batch 88 --precision fp32"
MHOLDOUT37_GPUS=2

# MODE=mholdout35 (session 35, 2 GPUs): ten 2-GPU evaluation jobs drawn before the call by random.Random(3535):
# per job a network of the 14 evaluation networks in name order, a batch of the multiples of 8 in 32..256, fp16
# or fp32, and the exchange: NCCL (graph API), NCCL (legacy API), one CPU parameter server (graph API), two
# (graph API), PyTorch DDP NCHW or channels-last, drawn in that order per job. The host's NCCL and MPI sweeps and
# its whole PS exchange (one and two servers) first, then the graph-API jobs in drawn order, the legacy one, the
# DDP one; a job past the deadline is skipped and said so. Predicted in the call with this commit's model.
MHOLDOUT35_GRAPH="
densenet169 152 fp32 ps1
vgg13 80 fp16 nccl
resnet34 152 fp16 ps2
mnasnet1_0 88 fp16 ps2
vgg13 128 fp16 ps1
lenet5 144 fp16 ps2
googlenet 240 fp32 nccl
resnext50_32x4d 160 fp16 ps1"
MHOLDOUT35_LEGACY="
alexnet 128 fp32 nccl"
MHOLDOUT35_DDP="
--network alexnet --batch 48 --precision fp16 --channels-last"
MHOLDOUT35_GPUS=2

# MODE=pin33 (session 33): is a process's host speed a property of the CPU it runs on? The host probes of
# probe33 and legacyrank33 came in two levels about 1.5x apart (a legacy convolution call 26-31 us or 37-52 us),
# the two ranks of one job often one of each, and one process could change level between just before and just
# after its timed iterations. Here the calibration set's ResNet-18 b32 FP16 through the legacy API runs pinned
# to each CPU in turn (taskset -c), twice over in opposite orders, then four times unpinned; each run records
# its probe and host time. The CPUs' topology (SMT siblings, cores, sockets) is logged first.
pin33() {
    lscpu || true
    grep -H . /sys/devices/system/cpu/cpu*/topology/thread_siblings_list 2>/dev/null | sed 's#.*/cpu\([0-9]*\)/topology/thread_siblings_list:#cpu\1 siblings #' | sort -V || true
    grep -E '^(processor|cpu MHz)' /proc/cpuinfo | paste - - | head -64 || true
    local RES=$BUILD/results/pin33 n c pass order
    mkdir -p "$RES"
    n=$(nproc)
    for pass in 1 2; do
        order=$(seq 0 $((n - 1)))
        [ "$pass" = 2 ] && order=$(seq $((n - 1)) -1 0)
        for c in $order; do
            [ $(($(date +%s) - START)) -lt "$DEADLINE" ] || { fail "pin cpu $c pass $pass skipped: past the deadline"; continue; }
            timeout 60 taskset -c "$c" "$MEASURE" --network resnet18 --batch 32 --precision fp16 --warmup 3 \
                --iters 10 -o "$RES/measure-resnet18-b32-fp16-cpu$c-p$pass.json" </dev/null 2>&1 |
                grep -E '^cnnperf-measure: [0-9]+ warm' | sed "s/^/cpu $c pass $pass: /" || fail "pin cpu $c"
        done
        bundle
    done
    for c in 1 2 3 4; do
        timeout 60 "$MEASURE" --network resnet18 --batch 32 --precision fp16 --warmup 3 --iters 10 \
            -o "$RES/measure-resnet18-b32-fp16-free$c.json" </dev/null 2>&1 | grep -E '^cnnperf-measure: [0-9]+ warm' ||
            fail "unpinned $c"
    done
    bundle
}

# MODE=legacyrank33 (session 33, 2 GPUs): do the two ranks of a legacy-API NCCL job issue their calls at different
# speeds, as DDP's do (rank_spread 0.10 on 2 x H100), with the slower one setting the pace? Calibration-set
# configurations through the legacy API, once on one GPU, then twice each as a 2-GPU NCCL job (each rank's
# host_enqueue_ms and host probe, new in session 33), rounds interleaved; then two evaluation configurations fixed
# before the call (GoogLeNet b32 FP16 and ResNet-50 b32 FP16 as 2-GPU NCCL jobs; scored as any run), predicted in
# the call. The rule, fixed before the call: a legacy-API NCCL job's host (the legacy_host median x its calls) takes
# cp_eager_slowest_rank(N, s), s the ranks' host spread pooled over this call's calibration jobs as
# tools/eager_profile.py pools DDP's, if that lowers the iteration MAPE over the calibration set's legacy multi-GPU
# runs (this call's and the earlier ones); otherwise it is reported and not used.
LEGACYRANK33_ONE="
resnet18 32 fp16
densenet121 32 fp16
squeezenet1_1 32 fp32
inception_v3 32 fp16
vgg11 64 fp16"
LEGACYRANK33_MULTI="
resnet18 32 fp16 nccl r1
densenet121 32 fp16 nccl r1
squeezenet1_1 32 fp32 nccl r1
inception_v3 32 fp16 nccl r1
vgg11 64 fp16 nccl r1
resnet18 32 fp16 nccl r2
densenet121 32 fp16 nccl r2
squeezenet1_1 32 fp32 nccl r2
inception_v3 32 fp16 nccl r2
vgg11 64 fp16 nccl r2"
LEGACYRANK33_EVAL="
googlenet 32 fp16 nccl
resnet50 32 fp16 nccl"
legacyrank33() {
    need_gpus 2 || return
    lscpu | grep -E 'Model name|^CPU\(s\)|NUMA' || true
    mpi_setup
    local RES=$BUILD/results/legacyrank33
    mkdir -p "$RES"
    CONV_API=legacy single "$LEGACYRANK33_ONE" ""
    CONV_API=legacy multi_runs "$LEGACYRANK33_MULTI"
    predict_in_call
    RES=$BUILD/results/legacyrank33-eval
    mkdir -p "$RES"
    CONV_API=legacy multi_runs "$LEGACYRANK33_EVAL"
    predict_in_call
}

# MODE=ddpsplit32 (session 32): DDP's host on 2 x H100 taken apart on calibration-set networks (b64 FP16, NCHW
# and channels-last): torch_bench --ddp-split, every rank at once in turns of the DDP model, the DDP model under
# no_sync() and the bare module, then the bare module on each rank alone, paired in rounds; plus a CPU profile
# of two iterations of DDP and of the bare module. Nothing from the evaluation set.
ddpsplit() {
    need_gpus 2 || return
    python3 -c 'import torch, torchvision' 2>/dev/null || { fail "no torch/torchvision here"; return; }
    export NCCL_NVLS_ENABLE=0
    local dir="$RES/ddpsplit" fmt cl
    mkdir -p "$dir"
    for fmt in "" "--channels-last"; do
        cl=${fmt:+ channels-last}
        [ $(($(date +%s) - START)) -lt "$DEADLINE" ] || { fail "ddp-split$cl skipped: past the deadline"; continue; }
        say "torchrun torch_bench.py --ddp-split --network $DDPHOST_NETS$cl"
        # shellcheck disable=SC2086
        NCCL_DEBUG=WARN timeout 240 torchrun --standalone --nproc-per-node 2 tools/torch_bench.py --ddp-split \
            --network "$DDPHOST_NETS" --batch 64 --precision fp16 --iters 8 $fmt --out-dir "$dir" </dev/null 2>&1 |
            grep -E '^torch_bench|Error|error' || fail "ddp-split$cl"
        bundle
    done
}

# MODE=ddphold31 (session 31): PyTorch DDP on 2 x H100, eight evaluation jobs drawn before the call by
# Python's random.Random(31): for each, a network of the 13 evaluation networks, a batch of 32-160 in steps of 8,
# fp16 or fp32, NCHW or channels-last (docs/ACCURACY.md, "Session 31"); predicted in the call; then the
# operator costs of both ranks at once again (concurrent/), a second call's sample of DDP's operator_scale
DDPHOLD31_CONFIGS="
--network alexnet --batch 152 --precision fp16 --channels-last
--network googlenet --batch 40 --precision fp16
--network resnext50_32x4d --batch 88 --precision fp16
--network vgg19 --batch 40 --precision fp16
--network mnasnet1_0 --batch 144 --precision fp32
--network vgg13 --batch 48 --precision fp16
--network wide_resnet50_2 --batch 128 --precision fp32
--network mnasnet1_0 --batch 112 --precision fp32 --channels-last"

# MODE=clfp32hold31 (session 31): PyTorch channels-last FP32/TF32 on one GPU, evaluation networks: eight drawn
# before the call by random.Random(3131) (a network of the 13, a batch of 32-160 in steps of 8, fp32 or tf32),
# and MnasNet-1.0, the evaluation set's one depthwise network, at two batches drawn by random.Random(3132);
# predicted in the call (the FP32 channels-last rules of chlast31)
CLFP32HOLD31_CONFIGS="
--network vgg13 --batch 32 --precision tf32 --channels-last
--network googlenet --batch 32 --precision fp32 --channels-last
--network vgg19 --batch 56 --precision fp32 --channels-last
--network vgg19 --batch 88 --precision fp32 --channels-last
--network googlenet --batch 128 --precision fp32 --channels-last
--network resnet152 --batch 104 --precision fp32 --channels-last
--network wide_resnet50_2 --batch 48 --precision fp32 --channels-last
--network wide_resnet50_2 --batch 40 --precision fp32 --channels-last
--network mnasnet1_0 --batch 128 --precision fp32 --channels-last
--network mnasnet1_0 --batch 80 --precision fp32 --channels-last"
# MODE=ddphold31b (session 31): eight more DDP jobs on 2 x H100 drawn the same way by random.Random(313), predicted
# in the call with the session's final model
DDPHOLD31B_CONFIGS="
--network vgg13 --batch 72 --precision fp32 --channels-last
--network alexnet --batch 80 --precision fp16
--network resnet152 --batch 112 --precision fp16
--network resnet50 --batch 128 --precision fp32 --channels-last
--network vgg19 --batch 64 --precision fp32
--network densenet169 --batch 160 --precision fp16
--network wide_resnet50_2 --batch 160 --precision fp32
--network vgg19 --batch 112 --precision fp16"

# MODE=torchacc (session 22): PyTorch on one GPU, the folder's eager costs
# (with autograd's gradient sum) measured first; DenseNet-121 and the other
# calibration-set networks that fork tensors, to judge the eager model's
# gradient sums on, then evaluation configurations no call had run, chosen
# before the call; predicted in the call by cnnperf validate.
TORCHACC_CONFIGS="
--network densenet121 --batch 32,64 --precision fp32,fp16
--network inception_v3 --batch 32 --precision fp16
--network squeezenet1_1 --batch 64 --precision fp16
--network googlenet --batch 32,64 --precision fp32,fp16
--network resnet152 --batch 32 --precision fp32,fp16
--network resnet50 --batch 48 --precision fp16
--network vgg19 --batch 64 --precision fp16"

# MODE=torchhost (session 22): the calibration-set networks through PyTorch
# with the host's own issue time recorded (torch_bench host_wall_ms), to
# compare the eager model's host costs with what whole networks spend;
# three evaluation configurations chosen before the call, only read.
TORCHHOST_CONFIGS="
--network densenet121,inception_v3,resnet18,mobilenet_v2,squeezenet1_1,vgg11 --batch 32 --precision fp32,fp16
--network resnet152,googlenet,resnet50 --batch 32 --precision fp16"

# MODE=torchhost2 (session 22): the eager costs with a chain of conv + BN +
# ReLU blocks of changing shapes (mixed_block_us), the calibration-set
# networks at 16 bits (host-bound) with their host time, and the costs
# measured again after them (repeat/): how much one call's numbers move.
TORCHHOST2_CONFIGS="
--network densenet121,inception_v3,resnet18,mobilenet_v2,squeezenet1_1 --batch 32,64 --precision fp16"

# order_torch_jobs LIST: torch_bench argument lines in run order: the channels-last FP32 and TF32 ones last, as
# tools/draw_holdout.py's lists already hold them, and among those the shortest iteration cnnperf predicts first;
# the others in their listed order. Those spend minutes in cudnn.benchmark's search before their first timed step
# (holdout101's VGG-13 b232 about 460 s, VGG-16 b128 235 s, ResNet-34 b168 25 s), so one of them reaching the
# call's limit no longer keeps a quicker one behind it from running (holdout101's LeNet-5 b48)
order_torch_jobs() {
    local c net batch prec key
    while read -r c; do
        [ -n "$c" ] || continue
        if [[ $c == *--channels-last* && ($c == *fp32* || $c == *tf32*) ]]; then
            net=$(sed -n 's/.*--network \([^ ]*\).*/\1/p' <<<"$c")
            batch=$(sed -n 's/.*--batch \([0-9]*\).*/\1/p' <<<"$c")
            prec=$(sed -n 's/.*--precision \([^ ]*\).*/\1/p' <<<"$c")
            key=$("${PREDICT:-false}" predict --network "$net" --batch "$batch" --precision "$prec" --device "${DEV:-h100}" \
                --format json </dev/null 2>/dev/null | python3 -c 'import json, sys; print("%.3f" % json.load(sys.stdin)["iteration_ms"])' \
                2>/dev/null) || key=1e9
            echo "1 $key $c"
        else
            echo "0 0 $c"
        fi
    done <<<"$1" | sort -s -k1,1n -k2,2g | cut -d' ' -f3-
}

# torch_one CONFIGS DIR [LAUNCHER...]: tools/torch_bench.py, one process (or
# one LAUNCHER, e.g. torchrun for --ddp lines) per line of CONFIGS, the
# folder's eager costs measured first, predicted in the call.
torch_one() {
    python3 -c 'import torch, torchvision' 2>/dev/null || { fail "no torch/torchvision here"; return; }
    local configs dir="$RES/$2" c
    configs=$(order_torch_jobs "$1")
    shift 2
    local launch=("$@")
    [ ${#launch[@]} -gt 0 ] || launch=(python3)
    mkdir -p "$dir"
    if [ -n "${EAGER_FROM:-}" ] && [ -f "$EAGER_FROM" ]; then
        say "eager costs from $EAGER_FROM (measured earlier in this call)"
        cp "$EAGER_FROM" "$dir/"
    else
        say "torch_bench --eager-overhead"
        timeout 150 python3 tools/torch_bench.py --eager-overhead -o "$dir/eager-overhead-$DEV.json" </dev/null ||
            fail "eager overhead"
    fi
    while read -r c; do
        [ -n "$c" ] || continue
        [ $(($(date +%s) - START)) -lt "$DEADLINE" ] || { fail "torch $c skipped: past the deadline"; continue; }
        say "${launch[*]} torch_bench.py $c"
        # FP32 channels-last spends minutes in cudnn.benchmark's first backward (torchclbench-h100: ~2 min for
        # VGG-13 b64) before its first timed step; VGG-19 b200 (holdout85) took over 368 s, so TORCH_CL32_LIMIT can raise it
        local limit=200 left=$((CALL_LIMIT - CALL_MARGIN - $(date +%s) + START))
        [[ $c == *--channels-last* && $c == *fp32* ]] && limit=${TORCH_CL32_LIMIT:-400}
        [ "$left" -ge "$limit" ] || limit=$left
        [ "$limit" -gt 0 ] || { fail "torch $c skipped: no time left before the call's limit"; continue; }
        # shellcheck disable=SC2086
        timeout "$limit" "${launch[@]}" tools/torch_bench.py $c --out-dir "$dir" </dev/null 2>&1 | grep -E '^torch_bench' ||
            fail "torch $c"
        bundle
    done <<<"$configs"
    torch_in_call "$dir"
}

# MODE=netemu2 (session 21): nine more, chosen before the call.
NETEMU2_CONFIGS="
resnet50 32 fp32 nccl netemu
resnet152 32 fp16 nccl netemu
googlenet 128 fp16 nccl netemu
alexnet 256 fp16 nccl netemu
vgg16 32 fp32 nccl netemu-nooverlap
resnet101 64 fp16 nccl netemu
resnet34 128 fp16 nccl netemu
vgg19 64 fp16 nccl netemu
lenet5 128 fp32 nccl netemu"

# netemu CONFIGS: two nodes emulated on one host (NCCL's network transport
# forced): the emulated network's all-reduce sweep first (the runs' network
# link, cnnperf validate --net-link auto), then CONFIGS, predicted in the call
# by cnnperf validate with that link.
netemu() {
    need_gpus 2 || return
    mpi_setup
    case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z')" in
    *h200*) DEV=h200 ;;
    *) DEV=h100 ;;
    esac
    say "calibrate --only nccl, NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 (two nodes emulated)"
    NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 timeout 240 "${MPIRUN[@]}" -np 2 -x NCCL_P2P_DISABLE -x NCCL_SHM_DISABLE \
        "$BUILD/measure/cnnperf-calibrate" --only nccl --raw "$RES/calibrated-nccl-netemu-raw.json" </dev/null 2>&1 |
        grep -v 'NCCL INFO' | grep -E '^ +[0-9]+ ' | tail -14 || fail "calibrate nccl (emulated)"
    say "calibrate --only nccl, the GPUs' own link"
    timeout 200 "${MPIRUN[@]}" -np 2 "$BUILD/measure/cnnperf-calibrate" --only nccl \
        --raw "$RES/calibrated-nccl-2gpu-raw.json" </dev/null 2>&1 | grep -v 'NCCL INFO' | grep -E '^ +[0-9]+ ' |
        tail -6 || fail "calibrate nccl"
    bundle
    multi_runs "$1"
    predict_in_call "$RES"/measure-multi-*.json "$RES"/calibrated-nccl-*.json
}

# multi_runs CONFIGS: each 2-GPU configuration measured (mpirun_measure) and
# predicted with the same convolution API; MPIRUN and DEV set by the caller.
multi_runs() {
    local net batch prec exch variant np extra comm overlap tag P g=${GPUS:-2}
    P="--device $DEV --gpus $g --conv-api ${CONV_API:-legacy}"
    # this host's MPI link, where the mode measured it first (MODE=psholdout)
    [ -f "$RES/host-mpi-raw.json" ] && P="$P --host-mpi $RES/host-mpi-raw.json"
    [ -f "$RES/psbench.json" ] && P="$P --ps-bench $RES/psbench.json" # the servers' pass, where measured
    while read -r net batch prec exch variant; do
        [ -n "$net" ] || continue
        np=$g extra="" comm=$exch overlap=on tag=multi-$net-b$batch-$prec-$exch
        case "$exch" in
        ps1) np=$((g + 1)) extra="--ps-servers 1" comm=ps ;;
        ps2) np=$((g + 2)) extra="--ps-servers 2" comm=ps ;;
        esac
        [[ "$variant" == *nooverlap ]] && overlap=off
        [ -n "$variant" ] && tag=$tag-$variant
        [ "$g" = 2 ] || tag=$tag-${g}gpu # one mode may run a configuration on 2 and on 4 GPUs
        # shellcheck disable=SC2086
        if [[ "$variant" == netemu* ]]; then
            NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 mpirun_measure "$tag" "$np" \
                "--network $net --batch $batch --precision $prec $P --comm $comm $extra --overlap $overlap" -- \
                --network "$net" --batch "$batch" --precision "$prec" --comm "$comm" $extra --overlap "$overlap"
        else
            mpirun_measure "$tag" "$np" \
                "--network $net --batch $batch --precision $prec $P --comm $comm $extra --ps-on cpu --overlap $overlap" -- \
                --network "$net" --batch "$batch" --precision "$prec" --comm "$comm" $extra --overlap "$overlap"
        fi
    done <<<"$1"
}

multi() {
    local ngpu
    ngpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
    [ "$ngpu" -ge 2 ] || { fail "MODE=multi needs 2 GPUs, this machine has $ngpu"; return; }
    case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z')" in
    *h200*) DEV=h200 ;;
    *) DEV=h100 ;;
    esac
    command -v mpirun >/dev/null || { fail "no mpirun on this machine"; return; }
    ldd "$BUILD/measure/cnnperf-measure" | grep -q -E 'libmpi|libmpich' || { fail "cnnperf-measure was built without MPI"; return; }
    ldd "$BUILD/measure/cnnperf-measure" | grep -q libnccl || fail "cnnperf-measure was built without NCCL: the nccl runs will fail"
    mpirun --version 2>&1 | head -1
    grep -E '^(MPI_C_LIBRARIES|MPIEXEC_EXECUTABLE|CNNPERF_NCCL_LIBRARY):' "$BUILD/CMakeCache.txt"
    nvidia-smi topo -m 2>/dev/null | head -4
    mpi_setup
    multi_runs "$MULTI_CONFIGS"
    if [ $(($(date +%s) - START)) -lt "$DEADLINE" ]; then
        say "calibrate: NCCL all-reduce and MPI ping-pong sweeps, 2 ranks"
        timeout 150 "${MPIRUN[@]}" -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE=0 "$BUILD/measure/cnnperf-calibrate" \
            --only nccl,mpi --raw "$RES/calibrated-nccl-2gpu-raw.json" </dev/null 2>&1 | grep -v 'NCCL INFO' | tail -45 ||
            fail "calibrate nccl,mpi"
    fi
    if python3 -c 'import torch' 2>/dev/null && [ $(($(date +%s) - START)) -lt "$DEADLINE" ]; then
        say "torch.distributed all-reduce sweep, 2 ranks"
        NCCL_DEBUG=WARN timeout 150 torchrun --standalone --nproc-per-node 2 tools/torch_bench.py --allreduce \
            -o "$RES/torch-allreduce-2gpu.json" </dev/null 2>&1 | tail -12 || fail "torch allreduce"
    fi
    bundle

    say "training through the exchange: the loss falls (nccl, then ps)"
    timeout 120 "${MPIRUN[@]}" -np 2 "$MEASURE" --network lenet5 --batch 16 --check-loss 30 --comm nccl \
        </dev/null >"$RES/check-loss-nccl.log" 2>&1 || fail "check-loss with nccl"
    grep -E '^cnnperf-measure: (loss|.*skipped|.*rank [0-9])' "$RES/check-loss-nccl.log" | head -5
    timeout 120 "${MPIRUN[@]}" -np 3 "$MEASURE" --network lenet5 --batch 16 --check-loss 30 --comm ps \
        </dev/null >"$RES/check-loss-ps.log" 2>&1 || fail "check-loss with ps"
    grep -E '^cnnperf-measure: (loss|.*skipped|.*rank [0-9])' "$RES/check-loss-ps.log" | head -5

    fault hang
    fault exit
    bundle
    unset NCCL_DEBUG NCCL_DEBUG_SUBSYS
    single "$MULTI_SINGLE" "--warmup 3 --iters 10"
    if python3 -c 'import torch' 2>/dev/null && [ $(($(date +%s) - START)) -lt "$DEADLINE" ]; then
        say "PyTorch eager operator costs ($DEV)"
        timeout 100 python3 tools/torch_bench.py --eager-overhead -o "$RES/eager-overhead-$DEV.json" </dev/null ||
            fail "eager overhead"
    fi

    say "summary (2 GPUs, measured vs predicted, $DEV)"
    python3 - "$RES" <<'EOF' | tee "$RES/summary-multi.txt" || fail "summary"
import json, os, sys
res = sys.argv[1]
print(f"{'configuration':40} {'meas ms':>8} {'compute':>8} {'exch':>7} {'exposed':>8} {'pred ms':>8} "
      f"{'pred exch':>9} {'pred exp':>8}  identical  note")
for f in sorted(os.listdir(res)):
    if not (f.startswith("measure-multi-") and f.endswith(".json")):
        continue
    m = json.load(open(os.path.join(res, f)))
    tag = f[len("measure-"):-len(".json")]
    p_path = os.path.join(res, "predict-" + tag + ".json")
    p = json.load(open(p_path)) if os.path.exists(p_path) else {}
    g = lambda d, k: d.get(k, float("nan"))
    note = "2 nodes emulated (NCCL net transport); prediction: one node" if m.get("nccl_network_emulation") else ""
    print(f"{tag:40} {m['iteration_ms']:8.2f} {g(m, 'compute_only_ms'):8.2f} {g(m, 'exchange_ms'):7.2f} "
          f"{g(m, 'exposed_exchange_ms'):8.2f} {g(p, 'iteration_ms'):8.2f} {g(p, 'exchange_ms'):9.2f} "
          f"{g(p, 'exposed_exchange_ms'):8.2f}  {str(m.get('parameters_identical')):9}  {note}")
EOF
}

# --- MODE=campaign -----------------------------------------------------------
# One device call on one GPU: the PyTorch references of issue 4 (ResNet-50 and
# VGG-16 side by side with cnnperf-measure), the eager-operator host costs,
# the single-GPU calibration microbenchmarks, then the evaluation
# configurations and the calibration-set networks, as many as the time allows.
campaign() {
    export LD_LIBRARY_PATH
    local cal=$BUILD/measure/cnnperf-calibrate
    if [ -x "$cal" ]; then
        say "calibrate (one GPU: gemm, memory, launch, latency, host link)"
        timeout 120 "$cal" --only gemm,memory,launch,latency,hostlink -o "$RES/calibrated-$DEV.json" \
            </dev/null 2>&1 | tail -25 || fail "calibrate"
    fi
    if python3 -c 'import torch, torchvision' 2>/dev/null; then
        say "PyTorch eager operator costs"
        timeout 120 python3 tools/torch_bench.py --eager-overhead -o "$RES/eager-overhead-$DEV.json" </dev/null ||
            fail "eager overhead"
        say "PyTorch references: resnet50, vgg16"
        timeout 200 python3 tools/torch_bench.py --network resnet50,vgg16 --batch 32,64 --precision fp32,fp16 \
            --warmup 5 --iters 20 --out-dir "$RES/torch" </dev/null || fail "torch_bench resnet50,vgg16"
        bundle
    else
        fail "no torch/torchvision here: no PyTorch reference"
    fi
    single "$CAMPAIGN_EVAL" "--warmup 3 --iters 10"
    single "$CAMPAIGN_CALIB" "--warmup 3 --iters 10"
    if python3 -c 'import torch' 2>/dev/null && [ $(($(date +%s) - START)) -lt "$DEADLINE" ]; then
        say "PyTorch eager references: alexnet, googlenet, lenet5, resnet18"
        timeout $((DEADLINE + 100 - $(date +%s) + START)) python3 tools/torch_bench.py \
            --network alexnet,googlenet,lenet5,resnet18 --batch 64 --precision fp32,fp16 --warmup 5 --iters 20 \
            --out-dir "$RES/torch" </dev/null || fail "torch_bench eager references"
    fi
}

# MODE=campaign2: what the first campaign left open: tf32 and bf16 runs of the
# calibration set, larger cuDNN workspaces where fp16 lagged PyTorch, the
# eager-operator costs and more PyTorch references (eager mode).
CAMPAIGN2="
resnet18 64 tf32
vgg11 64 tf32
mobilenet_v2 64 tf32
densenet121 64 tf32
resnet18 64 bf16
vgg11 64 bf16
mobilenet_v2 64 bf16
resnet50 64 fp16 ws=8192
vgg16 64 fp16 ws=8192
vgg16 128 fp16 ws=8192
vgg16 32 fp32 ws=8192
vgg16 128 fp32 ws=8192
resnet50 128 tf32
vgg16 64 tf32
googlenet 64 bf16
"
campaign2() {
    if python3 -c 'import torch, torchvision' 2>/dev/null; then
        say "PyTorch eager operator costs ($DEV)"
        timeout 100 python3 tools/torch_bench.py --eager-overhead -o "$RES/eager-overhead-$DEV.json" </dev/null ||
            fail "eager overhead"
        bundle
    fi
    single "$CAMPAIGN2" "--warmup 3 --iters 10"
    if python3 -c 'import torch' 2>/dev/null && [ $(($(date +%s) - START)) -lt "$DEADLINE" ]; then
        say "PyTorch references for eager mode"
        timeout $((DEADLINE + 100 - $(date +%s) + START)) python3 tools/torch_bench.py \
            --network resnet50,vgg16,mobilenet_v2,densenet121,squeezenet1_1 --batch 32,128 --precision fp32,fp16 \
            --warmup 3 --iters 10 --out-dir "$RES/torch" </dev/null || fail "torch_bench eager references"
    fi
}

# --- MODE=psholdout ------------------------------------------------------------
# 2-GPU configurations no campaign had measured, parameter server and NCCL
# side by side, predicted with the host's MPI link measured first in the
# same call (cnnperf-calibrate --only mpi), by the commit the call measures.
PSHOLDOUT_CONFIGS="
resnet34 64 fp32 ps1
resnet34 64 fp32 nccl
resnet101 32 fp32 ps1
resnet101 32 fp32 nccl
vgg19 32 fp16 ps1
vgg19 32 fp16 nccl
alexnet 256 fp16 ps1
alexnet 256 fp16 nccl
googlenet 128 fp16 ps1
googlenet 128 fp16 nccl
resnet50 128 fp32 ps2
vgg16 64 fp16 ps2"
# MODE=multiholdout (session 17): eleven more, larger batches and deeper
# networks, mostly NCCL, with the same host-link measurement first.
MULTIHOLDOUT_CONFIGS="
resnet152 64 fp16 nccl
resnet101 64 fp32 nccl
vgg19 64 fp32 nccl
googlenet 256 fp16 nccl
resnet50 256 fp16 nccl
alexnet 512 fp32 nccl
vgg16 128 fp16 nccl
resnet34 128 fp16 nccl
resnet152 32 fp32 ps1
vgg19 32 fp32 ps1
resnet50 128 fp16 ps1"
# MODE=psbench (session 19): parameter-server runs at batches no campaign had
# used, with the host's MPI link and its servers' sum-and-SGD rate
# (cnnperf-psbench) measured first.
PSBENCH_CONFIGS="
resnet50 96 fp16 ps1
alexnet 192 fp32 ps1
vgg16 48 fp16 ps1
resnet101 48 fp16 ps1
googlenet 96 fp32 ps1
resnet34 96 fp32 ps2"
# MODE=psbench2: five more, the servers' pass measured beside two copying threads
PSBENCH2_CONFIGS="
resnet50 48 fp32 ps1
vgg19 40 fp16 ps1
alexnet 160 fp16 ps1
resnet152 40 fp16 ps1
googlenet 160 fp32 ps1"
# MODE=psredo_* (session 24): every PS job measured before 0dbc2fd (the server's
# sum and SGD in static OpenMP shares, and before c4f13f2 each bucket on one
# server), the same configurations again with today's server. By the folder
# they replace: h100x2 graph-api, psholdout, multiholdout (graph API);
# legacy-api, psbench2 (legacy API; psbench's six are psbench3/psbench3x);
# h200x2 multiall-graph and psbucket (graph), multiall (legacy); h200x4 quad,
# quad2, holdout23.
# the seven PS jobs of MODE=multi and multi2, in every folder above
PSREDO_MULTIALL="
alexnet 128 fp32 ps1
googlenet 64 fp32 ps1
resnet50 64 fp16 ps1
resnet50 64 fp32 ps1
resnet50 64 fp32 ps2
vgg16 32 fp32 ps1
vgg16 32 fp32 ps2"
PSREDO_H100X2_GRAPH="$PSREDO_MULTIALL
resnet34 64 fp32 ps1
resnet101 32 fp32 ps1
vgg19 32 fp16 ps1
alexnet 256 fp16 ps1
googlenet 128 fp16 ps1
resnet50 128 fp32 ps2
vgg16 64 fp16 ps2
resnet152 32 fp32 ps1
vgg19 32 fp32 ps1
resnet50 128 fp16 ps1"
PSREDO_H100X2_LEGACY="$PSREDO_MULTIALL
resnet50 48 fp32 ps1
vgg19 40 fp16 ps1
alexnet 160 fp16 ps1
resnet152 40 fp16 ps1
googlenet 160 fp32 ps1"
PSREDO_H200X2_GRAPH="$PSREDO_MULTIALL
resnet34 96 fp32 ps2
resnet50 128 fp32 ps2
vgg16 64 fp16 ps2"
PSREDO_H200X2_LEGACY=$PSREDO_MULTIALL
PSREDO_H200X4="
googlenet 64 fp32 ps1
resnet50 64 fp32 ps1
vgg16 32 fp16 ps2
resnet101 32 fp32 ps1
resnet50 64 fp16 ps2"
PSREDO_H200X3="
resnet50 64 fp32 ps2"

# MODE=holdout26: one GPU, the default path (cnnperf-measure and cnnperf predict through cuDNN's graph API): every
# evaluation network at FP32 and FP16, each at a batch drawn uniformly from the multiples of 8 in 32..256 that no
# one-GPU run of that network and precision had used (any API, harness or PyTorch), by Python's
# random.Random(20261126) in this order; rule and list fixed before the call (session 26)
HOLDOUT26_CONFIGS="
alexnet 216 fp32 graphapi
alexnet 184 fp16 graphapi
googlenet 72 fp32 graphapi
googlenet 248 fp16 graphapi
lenet5 224 fp32 graphapi
lenet5 56 fp16 graphapi
resnet34 176 fp32 graphapi
resnet34 160 fp16 graphapi
resnet50 168 fp32 graphapi
resnet50 168 fp16 graphapi
resnet101 112 fp32 graphapi
resnet101 184 fp16 graphapi
resnet152 168 fp32 graphapi
resnet152 136 fp16 graphapi
vgg16 224 fp32 graphapi
vgg16 104 fp16 graphapi
vgg19 224 fp32 graphapi
vgg19 232 fp16 graphapi"

# torch_bench.py arguments for each "network batch precision ..." line of $1, with $2 (if any) after each
torch_args() {
    awk -v extra="${2:-}" 'NF {print "--network " $1 " --batch " $2 " --precision " $3 (extra != "" ? " " extra : "")}' \
        <<<"$1"
}

# MODE=holdout27 and torchholdout27 (session 27): networks no validation run had used, five torchvision
# architectures added to networks/ for it (vgg13, resnext50_32x4d, wide_resnet50_2, densenet169, mnasnet1_0),
# none in the calibration set; each at FP32 and FP16, each at a batch drawn uniformly from the multiples of 8
# in 32..256 by Python's random.Random(20261127) in this order; the same list through cnnperf-measure's graph
# API (holdout27) and PyTorch (torchholdout27); rule and list fixed before the calls
HOLDOUT27_CONFIGS="
vgg13 40 fp32 graphapi
vgg13 176 fp16 graphapi
resnext50_32x4d 96 fp32 graphapi
resnext50_32x4d 240 fp16 graphapi
wide_resnet50_2 104 fp32 graphapi
wide_resnet50_2 168 fp16 graphapi
densenet169 240 fp32 graphapi
densenet169 64 fp16 graphapi
mnasnet1_0 72 fp32 graphapi
mnasnet1_0 104 fp16 graphapi"
TORCHHOLDOUT27_CONFIGS=$(torch_args "$HOLDOUT27_CONFIGS")

# MODE=holdout28 and torchholdout28 (session 27; asked of an H200, run on the H100 given): holdout27's networks, the model
# that session ended with, FP32 and FP16, each at a batch drawn uniformly from the multiples of 8 in 32..256 other
# than holdout27's for that network and precision, by Python's random.Random(20261128) in this order; through
# cnnperf-measure's graph API (holdout28) and PyTorch (torchholdout28, 3 warm-up and 10 timed iterations);
# rule and list fixed before the calls
HOLDOUT28_CONFIGS="
vgg13 152 fp32 graphapi
vgg13 56 fp16 graphapi
resnext50_32x4d 224 fp32 graphapi
resnext50_32x4d 224 fp16 graphapi
wide_resnet50_2 56 fp32 graphapi
wide_resnet50_2 32 fp16 graphapi
densenet169 192 fp32 graphapi
densenet169 136 fp16 graphapi
mnasnet1_0 136 fp32 graphapi
mnasnet1_0 128 fp16 graphapi"
TORCHHOLDOUT28_CONFIGS=$(torch_args "$HOLDOUT28_CONFIGS" "--warmup 3 --iters 10")

# MODE=holdout29 (session 27): the session's final model (with conv_3x3_wide) on every evaluation network through
# the graph API, one configuration each: the precision drawn from fp32/fp16 and the batch from the multiples of 8
# in 32..128 no one-GPU run of that network and precision had used (any harness), by Python's
# random.Random(20261129) over the networks in name order (32..128 to fit one call); run in this order, MNASNet
# FP32 last (its graph-API autotuning took 166 s in holdout27); rule and list fixed before the call
HOLDOUT29_CONFIGS="
alexnet 88 fp32 graphapi
densenet169 48 fp16 graphapi
googlenet 120 fp32 graphapi
lenet5 72 fp16 graphapi
resnet101 72 fp32 graphapi
resnet152 72 fp16 graphapi
resnet34 56 fp32 graphapi
resnet50 112 fp16 graphapi
resnext50_32x4d 120 fp32 graphapi
vgg13 112 fp16 graphapi
vgg16 112 fp32 graphapi
vgg19 88 fp32 graphapi
wide_resnet50_2 40 fp16 graphapi
mnasnet1_0 120 fp32 graphapi"

# MODE=torchholdout25: every evaluation network in PyTorch (eager), FP32 and FP16, each at the first batch of
# 48, 80, 112, 144, 176, 208, 240 that no run of that network and precision had used (any GPU, harness or
# PyTorch), the rule and the list fixed before the call
TORCHHOLDOUT25_CONFIGS="
--network alexnet --batch 80 --precision fp32
--network alexnet --batch 80 --precision fp16
--network googlenet --batch 144 --precision fp32
--network googlenet --batch 80 --precision fp16
--network lenet5 --batch 48 --precision fp32
--network lenet5 --batch 48 --precision fp16
--network resnet34 --batch 80 --precision fp32
--network resnet34 --batch 80 --precision fp16
--network resnet50 --batch 144 --precision fp32
--network resnet50 --batch 80 --precision fp16
--network resnet101 --batch 80 --precision fp32
--network resnet101 --batch 112 --precision fp16
--network resnet152 --batch 112 --precision fp32
--network resnet152 --batch 80 --precision fp16
--network vgg16 --batch 80 --precision fp32
--network vgg16 --batch 112 --precision fp16
--network vgg19 --batch 80 --precision fp32
--network vgg19 --batch 80 --precision fp16"

# MODE=holdout25: six NCCL and four PS jobs on 2 GPUs whose configuration no multi-GPU call had run (the
# NCCL ones on no 2-GPU host, the PS ones never with a parameter server), networks, batches and precisions
# chosen before the call; AlexNet b320 FP32 is past the batch (192) where cuDNN's engine for its third
# convolution's weight gradient changes (docs/ACCURACY.md, session 25)
HOLDOUT25_CONFIGS="
resnet152 48 fp32 nccl
vgg19 48 fp16 nccl
googlenet 96 fp32 nccl
resnet34 160 fp16 nccl
alexnet 320 fp32 nccl
resnet101 96 fp16 nccl nooverlap
resnet34 128 fp16 ps1
googlenet 128 fp32 ps2
resnet101 64 fp16 ps2
vgg19 64 fp16 ps1"

# ps_host W: into $RES, this host's MPI ping-pong (2 ranks), the servers' pass beside W
# workers' copies (cnnperf-psbench) and the whole exchange of W workers and one server
# (cnnperf-psexchange), which validate's folder scan takes as the server's stream, and (unless
# PS_HOST_K2=0) that exchange with two servers
ps_host() {
    mpi_setup
    mkdir -p "$RES"
    say "host: MPI ping-pong, the servers' pass beside $1 workers, the PS exchange of $1 workers"
    timeout 60 "${MPIRUN[@]}" -np 2 -x LD_LIBRARY_PATH "$BUILD/measure/cnnperf-calibrate" --only mpi \
        --raw "$RES/host-mpi-raw.json" </dev/null 2>&1 | grep -E '^# fit' || fail "calibrate mpi"
    timeout 60 "$BUILD/measure/cnnperf-psbench" --beside "$1" -o "$RES/psbench.json" </dev/null || fail "psbench"
    ps_exchange "$1" "$RES" ""
}

# ps_exchange W DIR WHEN: the whole PS exchange of W workers and one server into DIR/psexchange.json and (unless
# PS_HOST_K2=0) with two servers into DIR/psexchange-k2.json; WHEN names the sweep in a failure
ps_exchange() {
    timeout 120 "${MPIRUN[@]}" -np $(($1 + 1)) "$BUILD/measure/cnnperf-psexchange" --max-mb 128 --rounds 3 \
        -o "$2/psexchange.json" </dev/null || fail "psexchange$3"
    [ "${PS_HOST_K2:-1}" = 0 ] || # two servers' streams at once: the two-server jobs' own rate
        timeout 120 "${MPIRUN[@]}" -np $(($1 + 2)) "$BUILD/measure/cnnperf-psexchange" --servers 2 --max-mb 128 \
            --rounds 3 -o "$2/psexchange-k2.json" </dev/null || fail "psexchange --servers 2$3"
}

# ps_after W: the whole PS exchange of W workers (ps_exchange) timed again after a call's jobs, into
# $RES/after/ (a folder of its own: validate's folder scan takes $RES's sweeps, from before the jobs). Session 48
# found one call's sweep before the jobs predicts its PS jobs better than the median of all calls' on the evaluation
# set and worse on the calibration set: whether the host's speed drifts within a call is what this records.
ps_after() {
    mkdir -p "$RES/after"
    say "host: the PS exchange of $1 workers again, after the jobs"
    ps_exchange "$1" "$RES/after" " after the jobs"
}

# gpus_host DIR [N]: RES=results/DIR (emptied first; the caller declares RES local) gets this N-GPU (2) host's
# NCCL all-reduce and MPI sweeps (calibrated-nccl-Ngpu-raw.json) and its whole PS exchange of N workers (ps_host),
# which a holdout's jobs are then predicted with
gpus_host() {
    local n=${2:-2}
    need_gpus "$n" || return 1
    mpi_setup
    RES=$BUILD/results/$1
    rm -rf "$RES"
    mkdir -p "$RES"
    nccl_sweep "$n"
    ps_host "$n"
}

# nccl_sweep N: the host's NCCL all-reduce and MPI sweeps on N ranks into $RES/calibrated-nccl-Ngpu-raw.json
nccl_sweep() {
    say "calibrate --only nccl,mpi, $1 ranks"
    timeout 150 "${MPIRUN[@]}" -np "$1" -x LD_LIBRARY_PATH "$BUILD/measure/cnnperf-calibrate" --only nccl,mpi \
        --raw "$RES/calibrated-nccl-${1}gpu-raw.json" </dev/null 2>&1 | grep -E '^# fit' || fail "calibrate nccl,mpi"
}

# ps_redo DIR API W CONFIGS [CONFIGS_ON_3_GPUS]: in results/DIR (emptied first: a warm machine keeps an
# earlier call's), ps_host W, then CONFIGS on W GPUs (and the second list on 3) through convolution API API,
# with PS_AFTER=1 the exchange timed again after them (ps_after), predicted in the call
ps_redo() {
    local RES=$BUILD/results/$1
    rm -rf "$RES"
    ps_host "$3"
    GPUS=$3 CONV_API=$2 multi_runs "$4"
    [ -z "${5:-}" ] || GPUS=3 CONV_API=$2 multi_runs "$5"
    [ "${PS_AFTER:-0}" = 0 ] || ps_after "$3"
    predict_in_call
}

psholdout() { # [CONFIGS]: default PSHOLDOUT_CONFIGS
    need_gpus 2 || return
    mpi_setup
    say "calibrate: MPI ping-pong, 2 ranks (the host link the predictions use)"
    timeout 120 "${MPIRUN[@]}" -np 2 -x LD_LIBRARY_PATH "$BUILD/measure/cnnperf-calibrate" --only mpi \
        --raw "$RES/host-mpi-raw.json" </dev/null 2>&1 | grep -v 'NCCL INFO' | tail -20 || fail "calibrate mpi"
    if [ -x "$BUILD/measure/cnnperf-psbench" ]; then # the servers' sum and SGD on this host's CPUs
        say "psbench: the parameter server's sum and SGD, alone (log only), then beside two workers' copies"
        timeout 120 "$BUILD/measure/cnnperf-psbench" </dev/null >/dev/null || fail "psbench alone"
        timeout 120 "$BUILD/measure/cnnperf-psbench" --beside 2 -o "$RES/psbench.json" </dev/null ||
            fail "psbench beside"
    fi
    multi_runs "${1:-$PSHOLDOUT_CONFIGS}"
}

# --- MODE=multi2 ----------------------------------------------------------------
# More networks, batch sizes and precisions on two GPUs (one rank each), NCCL
# and parameter server (one CPU server rank, and two sharded).
multi2() {
    need_gpus 2 || return
    mpi_setup
    multi_runs "$MULTI2_CONFIGS"
}

# parity DIR [TORCH_BENCH ARGS]: issue 4's side-by-side in one device call:
# ResNet-50 and VGG-16 at batch 32 and 64, fp32 and fp16, by cnnperf-measure
# ($MEASURE) and then by tools/torch_bench.py (results in $RES/DIR), and the
# table of the two.
parity() {
    local dir=$1
    shift
    single "$PARITY_CONFIGS" "--warmup 3 --iters 10"
    say "torch_bench $*"
    timeout $((DEADLINE + 100 - $(date +%s) + START)) python3 tools/torch_bench.py --network resnet50,vgg16 \
        --batch 32,64 --precision fp32,fp16 --warmup 3 --iters 10 "$@" --out-dir "$RES/$dir" </dev/null ||
        fail "torch_bench parity"
    python3 - "$RES" "$dir" <<'EOF' | tee "$RES/parity.txt"
import glob, json, os, sys
res, sub = sys.argv[1], sys.argv[2]
print(f"{'configuration':22} {'cnnperf-measure ms':>19} {'cuDNN':>8} {'PyTorch ms':>11} {'cuDNN':>8} {'ours/PyTorch':>13}")
for f in sorted(glob.glob(os.path.join(res, sub, "torch-*.json"))):
    t = json.load(open(f))
    tag = os.path.basename(f)[len("torch-"):-len(".json")]
    m_path = os.path.join(res, f"measure-{tag}.json")
    if not os.path.exists(m_path):
        continue
    m = json.load(open(m_path))
    print(f"{tag:22} {m['iteration_ms']:19.3f} {m['provenance'].get('cudnn', '?'):>8} {t['iteration_ms']:11.3f} "
          f"{t['provenance'].get('cudnn', '?')!s:>8} {m['iteration_ms'] / t['iteration_ms']:13.3f}")
EOF
    bundle
}

# use_torch_cudnn: build cnnperf-measure against the cuDNN that the
# installed PyTorch wheel carries (often newer than the machine's) and make
# MEASURE that build.
use_torch_cudnn() {
    local tc lib hdr B2
    tc=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')
    lib=$(find "$tc" -name 'libcudnn.so.9*' 2>/dev/null | sort | head -1)
    hdr=$(find "$tc" -name 'cudnn_version*.h' 2>/dev/null | head -1)
    say "PyTorch's cuDNN: ${lib:-none} (headers ${hdr:-none})"
    if [ -z "$lib" ] || [ -z "$hdr" ]; then
        fail "no cuDNN library and headers beside PyTorch"
        return 1
    fi
    B2=$ROOT/build-gpu-torchcudnn
    cmake -S "$ROOT" -B "$B2" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$P" "${PKG_ARG[@]}" \
        -DCNNPERF_TESTS=OFF -DCNNPERF_CUDNN_INCLUDE_DIR="$(dirname "$hdr")" -DCNNPERF_CUDNN_LIBRARY="$lib" \
        >/dev/null && cmake --build "$B2" -j "$(nproc)" --target cnnperf-measure >/dev/null ||
        { fail "build against PyTorch's cuDNN"; return 1; }
    export LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    with_api "$B2/measure/cnnperf-measure"
}

# Issue 4's side by side with cnnperf-measure's convolutions on cuDNN's graph
# API (--conv-api graph: the engines PyTorch's path chooses among, chosen
# the way cudnn.benchmark does) beside its legacy-API runs, PyTorch (its
# default benchmark_limit) in the same call. First a check that the graph
# API computes what the legacy API does: LeNet-5 and ResNet-18 trained on
# one fixed batch by both, the losses of every iteration side by side (same
# weights and data; the engines sum in other orders, so they differ by
# rounding only).
parity_graph_api() {
    local net prec api
    for net in lenet5 resnet18; do
        for prec in fp32 fp16; do
            for api in legacy graph; do
                say "check-loss $net $prec --conv-api $api"
                timeout 120 "$MEASURE" --network "$net" --batch 16 --precision "$prec" --check-loss 8 \
                    --conv-api "$api" </dev/null 2>"$RES/checkloss-$net-$prec-$api.log" ||
                    fail "check-loss $net $prec $api (log checkloss-$net-$prec-$api.log)"
            done
        done
    done
    python3 - "$RES" <<'EOF2' | tee "$RES/checkloss.txt"
import glob, os, re, sys
res = sys.argv[1]
def losses(f):
    return [float(m.group(1)) for m in re.finditer(r"iteration \d+: loss ([-0-9.e+naif]+)", open(f).read())]
worst = 0.0
for f in sorted(glob.glob(os.path.join(res, "checkloss-*-legacy.log"))):
    a, b = losses(f), losses(f.replace("-legacy.log", "-graph.log"))
    tag = os.path.basename(f)[len("checkloss-"):-len("-legacy.log")]
    if not a or len(a) != len(b):
        print(f"{tag:16} MISSING: legacy {len(a)} losses, graph {len(b)}")
        worst = float("inf")
        continue
    d = max(abs(x - y) / max(abs(x), 1e-12) for x, y in zip(a, b))
    worst = max(worst, d)
    print(f"{tag:16} legacy {a[0]:.6f} -> {a[-1]:.6f}  graph {b[0]:.6f} -> {b[-1]:.6f}  max relative difference {d:.2e}")
print(f"graph API vs legacy API: largest relative loss difference {worst:.2e}")
EOF2
    single "$(printf '%s\n' "$PARITY_CONFIGS" | awk 'NF {print $0; print $0, "graphapi"}')" "--warmup 3 --iters 10"
    say "torch_bench (default benchmark_limit)"
    timeout $((DEADLINE + 100 - $(date +%s) + START)) python3 tools/torch_bench.py --network resnet50,vgg16 \
        --batch 32,64 --precision fp32,fp16 --warmup 3 --iters 10 --out-dir "$RES/torch" </dev/null ||
        fail "torch_bench parity"
    python3 - "$RES" <<'EOF2' | tee "$RES/parity.txt"
import glob, json, os, sys
res = sys.argv[1]
print(f"{'configuration':20} {'legacy API ms':>14} {'graph API ms':>13} {'PyTorch ms':>11} {'legacy/PyTorch':>15} "
      f"{'graph/PyTorch':>14}")
for f in sorted(glob.glob(os.path.join(res, "torch", "torch-*.json"))):
    t = json.load(open(f))["iteration_ms"]
    tag = os.path.basename(f)[len("torch-"):-len(".json")]
    ms = []
    for suffix in ("", "-graphapi"):
        p = os.path.join(res, f"measure-{tag}{suffix}.json")
        ms.append(json.load(open(p))["iteration_ms"] if os.path.exists(p) else float("nan"))
    print(f"{tag:20} {ms[0]:14.3f} {ms[1]:13.3f} {t:11.3f} {ms[0] / t:15.3f} {ms[1] / t:14.3f}")
EOF2
    bundle
}

# Layer microbenchmarks: one-layer networks built here (a batch norm in front
# so that the layer computes its data gradient, a small head behind it), each
# pass timed alone (--layers isolated), to fit a layer kind's decomposition on
# shapes of our choosing rather than on the evaluation networks. Pool: max
# pooling with stride 1 and 2, windows 2, 3 and 5, planes 7x7 to 112x112;
# first: convolutions of 3-channel images (the first layer of every CNN).
LAYERBENCH_POOL="
64 112 32 3 2 1
96 56 32 3 2 1
192 27 64 3 2 0
288 35 32 3 2 0
128 56 16 3 1 1
256 28 32 3 1 1
512 14 64 3 1 1
832 7 64 3 1 1
384 14 64 5 1 2
128 112 16 2 2 0
256 56 32 2 2 0
512 28 32 2 2 0
512 14 64 2 2 0"
LAYERBENCH_CONV1X1="
64 256 56 64
256 64 56 64
64 64 112 32
128 512 28 64
512 128 28 64
256 1024 14 64
1024 256 14 64
512 2048 7 64
2048 512 7 64
1024 1024 7 32
96 576 14 64
32 192 112 16"
# 3x3 stride-1 convolutions (input channels, output channels, plane, batch):
# planes and batches that no shipped network has, from VGG-like to ResNet-like.
LAYERBENCH_CONV3X3="
64 64 200 32
64 64 100 64
64 128 100 32
128 128 100 32
128 128 50 64
128 32 50 64
256 256 50 32
256 256 25 64
512 512 25 32
512 512 12 64"
# Small first layers (input channels, output channels, kernel, stride, pad,
# plane, batch): CIFAR- and MNIST-sized images, none a shipped network's layer.
LAYERBENCH_SMALLFIRST="
3 16 3 1 1 32 128
3 32 3 1 1 32 64
3 64 3 1 1 32 256
1 16 3 1 1 28 128
1 32 5 1 2 28 64
3 32 5 1 2 64 64
3 64 7 2 3 64 64
3 24 3 2 1 96 64
1 12 5 1 0 36 128"
# cuDNN's own FP32 kernels on PyTorch's path (session 18: the NCHW xmma implicit GEMM's tiles, plain FFT's
# whole planes and flip_filter, the thin layers' gradient engines): input channels, output channels, kernel,
# stride, pad, plane, batch; a batch norm in front so the data gradient runs. Shapes no shipped network has.
LAYERBENCH_XMMA="
192 192 3 2 1 30 64
384 384 3 2 1 16 64
96 192 3 2 1 60 32
384 384 3 1 1 6 64
320 320 3 1 1 9 64
640 640 3 1 1 5 32
320 320 3 1 1 10 16
320 320 3 1 1 10 48
320 320 3 1 1 10 160
768 32 1 1 0 9 64
640 24 1 1 0 12 64
48 640 1 1 0 9 64"
# FP32 1x1 weight gradients (input channels, output channels, plane, batch): the three kernels cudnnFind
# picks among (wgrad_alg0_engine's 32x32 and 64x128 tiles, the NHWC xmma kernel) over planes 5x5 to
# 144x144 and channel counts no shipped network has (session 19: their issue rate against the plane).
LAYERBENCH_WGRAD1X1="
96 160 96 32
160 96 64 32
64 192 48 64
224 96 36 64
128 128 24 128
96 352 18 64
352 96 18 64
448 448 12 64
640 224 12 96
288 768 9 64
768 288 9 128
1536 384 6 64
384 1536 6 64
1280 640 5 32
64 96 80 32
200 600 20 48
600 200 20 48
48 48 144 16
320 640 24 32
576 288 40 16"
# Strided convolutions (input channels, output channels, kernel, stride, pad, plane, batch), each behind a batch
# norm so the data gradient runs: 3x3 stride 2 padded and unpadded, 1x1 stride 2, shapes no shipped network has
# (session 34: for a conv_strided class, fitted with the calibration set, not kept; MODE=strided34).
LAYERBENCH_STRIDED="
48 96 3 2 1 96 32
96 96 3 2 1 80 32
96 192 3 2 1 48 64
160 160 3 2 1 40 64
192 384 3 2 1 24 64
320 320 3 2 1 20 64
384 768 3 2 1 12 64
640 640 3 2 1 10 32
64 64 3 2 1 112 16
128 192 3 2 0 33 32
256 320 3 2 0 19 64
96 192 1 2 0 80 32
192 384 1 2 0 40 64
320 640 1 2 0 24 64
640 1280 1 2 0 12 64
160 480 1 2 0 48 32"
LAYERBENCH_FIRST="
96 11 4 2 224 64
64 7 2 3 224 64
32 3 2 0 299 32
32 3 1 1 224 32
64 5 2 2 224 64
48 9 3 4 224 64"
# One network of the layers given (JSON objects) and a common head: global
# average pooling, fc, loss. Written into $dir; its name and batch join the list.
bench_net() { # name channels height batch layers
    printf '{"format": "cnnperf-network/1", "name": "%s", "input": {"channels": %s, "height": %s, "width": %s}, "layers": [%s, {"name": "gap", "kind": "global_avgpool"}, {"name": "flatten", "kind": "flatten"}, {"name": "fc", "kind": "fc", "out": 10}, {"name": "loss", "kind": "softmax"}]}\n' \
        "$1" "$2" "$3" "$3" "$5" >"$dir/$1.json"
    echo "$1 $4" >>"$dir/list"
}
# bench_convs NAME KERNEL LIST (inside layerbench, whose $bn it uses): one
# network per "in out plane batch" line of LIST, the batch norm in front of a
# conv of that kernel (3: padded to keep the plane), named
# NAME_<in>to<out>_<plane> (NAME ending in _b: _b<batch> too).
bench_convs() {
    local name=$1 k=$2 ci co h b tag pad=""
    [ "$k" = 3 ] && pad=', "pad": 1'
    while read -r ci co h b; do
        [ -n "$ci" ] || continue
        tag="${name%_b}_${ci}to${co}_${h}"
        [ "$name" != "${name%_b}" ] && tag="${tag}_b${b}"
        bench_net "$tag" "$ci" "$h" "$b" \
            "$bn, {\"name\": \"conv\", \"kind\": \"conv\", \"out\": $co, \"kernel\": $k$pad, \"bias\": false}"
    done <<<"$3"
}
layerbench() {
    local dir=$RES/layerbench-nets c h b k s p out name prec ci co
    local bn='{"name": "bn", "kind": "batchnorm"}'
    mkdir -p "$dir"
    while read -r c h b k s p; do
        [ -n "$c" ] || continue
        bench_net "pool_k${k}s${s}p${p}_${c}x${h}" "$c" "$h" "$b" \
            "$bn, {\"name\": \"pool\", \"kind\": \"maxpool\", \"kernel\": $k, \"stride\": $s, \"pad\": $p}"
    done <<<"$LAYERBENCH_POOL"
    while read -r out k s p h b; do
        [ -n "$out" ] || continue
        bench_net "first_k${k}s${s}p${p}_${out}x${h}" 3 "$h" "$b" \
            "{\"name\": \"conv\", \"kind\": \"conv\", \"out\": $out, \"kernel\": $k, \"stride\": $s, \"pad\": $p, \"bias\": false}"
    done <<<"$LAYERBENCH_FIRST"
    while read -r c out k s p h b; do
        [ -n "$c" ] || continue
        bench_net "small_c${c}_k${k}s${s}p${p}_${out}x${h}" "$c" "$h" "$b" \
            "{\"name\": \"conv\", \"kind\": \"conv\", \"out\": $out, \"kernel\": $k, \"stride\": $s, \"pad\": $p}"
    done <<<"$LAYERBENCH_SMALLFIRST"
    bench_convs conv1x1 1 "$LAYERBENCH_CONV1X1"
    while read -r c out k s p h b; do
        [ -n "$c" ] || continue
        bench_net "xmma_c${c}_k${k}s${s}_${out}x${h}_b${b}" "$c" "$h" "$b" \
            "$bn, {\"name\": \"conv\", \"kind\": \"conv\", \"out\": $out, \"kernel\": $k, \"stride\": $s, \"pad\": $p, \"bias\": false}"
    done <<<"$LAYERBENCH_XMMA"
    while read -r c out k s p h b; do
        [ -n "$c" ] || continue
        bench_net "strided_c${c}_k${k}s${s}p${p}_${out}x${h}_b${b}" "$c" "$h" "$b" \
            "$bn, {\"name\": \"conv\", \"kind\": \"conv\", \"out\": $out, \"kernel\": $k, \"stride\": $s, \"pad\": $p, \"bias\": false}"
    done <<<"$LAYERBENCH_STRIDED"
    while read -r c out k s g h b; do
        [ -n "$c" ] || continue
        bench_net "grouped_c${c}_g${g}_k${k}s${s}_${out}x${h}" "$c" "$h" "$b" \
            "$bn, {\"name\": \"conv\", \"kind\": \"conv\", \"out\": $out, \"kernel\": $k, \"stride\": $s, \"pad\": $((k / 2)), \"groups\": $g, \"bias\": false}"
    done <<<"${LAYERBENCH_GROUPED:-}"
    bench_convs wgrad_1x1_b 1 "$LAYERBENCH_WGRAD1X1"
    bench_convs conv3x3 3 "$LAYERBENCH_CONV3X3"
    # LAYERBENCH_ONLY: a prefix of the names to run (pool_, first_, small_, conv1x1_, conv3x3_, xmma_, wgrad_,
    # grouped_, strided_); all by default.
    # LAYERBENCH_PRECS: the precisions (default fp32 fp16 tf32).
    # LAYERBENCH_LAYERS=stream: per-layer times as a network run takes them (events between the passes of
    # one stream, host gaps included) instead of each pass alone (--layers isolated, the default).
    local layers=(--layers isolated)
    [ "${LAYERBENCH_LAYERS:-isolated}" = stream ] && layers=()
    grep "^${LAYERBENCH_ONLY:-}" "$dir/list" >"$dir/run" || true
    while read -r name b; do
        for prec in ${LAYERBENCH_PRECS:-fp32 fp16 tf32}; do
            case "$name:$prec" in pool_*:tf32) continue ;; esac
            [ $(($(date +%s) - START)) -lt "$DEADLINE" ] || { fail "layerbench $name $prec skipped: past the ${DEADLINE} s budget"; continue; }
            say "layerbench $name b$b $prec"
            timeout 120 "$MEASURE" --network "$dir/$name.json" --batch "$b" --precision "$prec" --warmup 2 --iters 3 \
                "${layers[@]}" -o "$RES/layerbench-$name-b$b-$prec.json" </dev/null >/dev/null ||
                fail "layerbench $name $prec"
            "$PREDICT" predict --network "$dir/$name.json" --device "$DEV" --batch "$b" --precision "$prec" \
                --conv-api "${CONV_API:-legacy}" --calibration none --format json \
                -o "$RES/layerbench-predict-$name-b$b-$prec.json" </dev/null ||
                fail "predict layerbench $name $prec"
        done
    done <"$dir/run"
    bundle
    # LAYERBENCH_NCU=1: the same networks' passes under Nsight Compute too (which kernels, grids, L2 bytes), in
    # the precisions of LAYERBENCH_NCU_PRECS (default fp32)
    if [ "${LAYERBENCH_NCU:-0}" = 1 ]; then
        local p list=""
        for p in ${LAYERBENCH_NCU_PRECS:-fp32}; do
            list+=$(awk -v d="$dir" -v p="$p" '{print d "/" $1 ".json", $2, p}' "$dir/run")$'\n'
        done
        NCU_CONFIGS=$list ncu_profile
    fi
}

# The campaign's configurations again, nothing else (e.g. after a change of defaults).
remeasure() {
    single "$CAMPAIGN_EVAL" "--warmup 3 --iters 10"
    single "$CAMPAIGN_CALIB$CAMPAIGN_CALIB_TF32" "--warmup 3 --iters 10"
}

# The kernels cuDNN runs for batch normalisation (names, grid, block, GPU
# time), read from the CUDA profiler through PyTorch: the decomposition
# layers/batchnorm.c assumes, checked against the library.
kernel_trace() {
    say "kernel_trace batchnorm"
    timeout 200 python3 tools/kernel_trace.py --op batchnorm --precision fp32,fp16 \
        -o "$RES/kernels-batchnorm-$DEV.json" </dev/null >"$RES/kernel-trace-$DEV.log" 2>&1 || fail "kernel_trace"
    tail -60 "$RES/kernel-trace-$DEV.log"
    bundle
}

# Every kernel of one timed iteration under Nsight Compute: name, grid,
# block, registers, GPU time, instructions, DRAM and L2 bytes, in launch
# order (cnnperf-measure's passes run in the order of its layers, so the rows
# map onto layer passes). CNNPERF_MEASURE_PROFILE=1 makes cnnperf-measure
# open the profiler's window around the timed iterations only (cudnnFind and
# warm-up stay out). The CSVs are the ground truth for the decompositions of
# layers/*.c; the run's own timings under replay mean nothing and are dropped.
NCU_CONFIGS="
resnet50 64 fp16
resnet50 64 fp32
googlenet 128 fp16
alexnet 256 fp32
vgg16 32 fp16"
ncu_profile() {
    local ncu metrics
    ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    [ -n "$ncu" ] && [ -x "$ncu" ] || { fail "ncu not found"; return; }
    metrics=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread
    metrics=$metrics,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum
    metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active
    # FFMA thread instructions: issue slots per FFMA of a kernel without
    # knowing its tile's reduction (the FFT GEMM, session 17's open item)
    metrics=$metrics,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
    metrics=${NCU_METRICS:-$metrics} # NCU_METRICS: fewer, for a faster replay of a whole network
    "$ncu" --version 2>&1 | tail -1
    while read -r net batch prec; do
        [ -n "$net" ] || continue
        [ $(($(date +%s) - START)) -lt "$DEADLINE" ] || { say "deadline: ncu $net stopped here"; break; }
        local tag
        tag="$(basename "$net" .json)-b$batch-$prec${NCU_TAG:-}"
        say "ncu $tag"
        # --clock-control none: the GPU keeps its own clocks (ncu would otherwise lock them at base)
        # shellcheck disable=SC2086
        CNNPERF_MEASURE_PROFILE=1 timeout "${NCU_TIMEOUT:-150}" "$ncu" --clock-control none --profile-from-start off \
            ${NCU_FILTER:-} --csv --page raw --metrics "$metrics" \
            --log-file "$RES/ncu-$tag.csv" "$MEASURE" --network "$net" --batch "$batch" --precision "$prec" \
            --warmup 2 --iters 1 -o "$RES/ncu-scratch.json" </dev/null >"$RES/ncu-$tag.log" 2>&1 ||
            fail "ncu $tag (log ncu-$tag.log)"
        # NCU_KEEP_ENGINES=1: the run's chosen algorithms and engines per layer (its provenance), which map the
        # kernels onto the graph API's engine ids; the run's timings under replay are dropped all the same
        [ "${NCU_KEEP_ENGINES:-0}" = 0 ] || python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["provenance"]
json.dump({"format": "cnnperf-conv-engines/1", "command": p["command"], "gpu_name": p["gpu_name"],
           "driver_version": p["driver_version"], "cudnn": p["cudnn"], "date_utc": p["date_utc"],
           "git_commit": p["git_commit"], "conv_algorithms": p["conv_algorithms"]}, open(sys.argv[2], "w"), indent=1)' \
            "$RES/ncu-scratch.json" "$RES/engines-$tag.json" || fail "engines $tag"
        rm -f "$RES/ncu-scratch.json"
        python3 tools/ncu_summary.py "$RES/ncu-$tag.csv" 2>&1 | head -25
        bundle
    done <<<"$NCU_CONFIGS"
}

# ncu_engines TIMEOUT CONFIGS [API]: ncu_profile through the graph API (or API: legacy, its files tagged -legacy)
# with names, grids and GPU times only (a whole network's replay stays short) and each run's engine or algorithm
# choice beside its CSV (ncu1x1, ncu52, ncutf32)
ncu_engines() {
    local api=${3:-graph} suffix=""
    [ "$api" = graph ] || suffix=-$api
    CONV_API=$api NCU_TAG=$suffix NCU_KEEP_ENGINES=1 NCU_METRICS=gpu__time_duration.sum,launch__grid_size,launch__block_size \
        NCU_TIMEOUT=$1 NCU_CONFIGS=$2 ncu_profile
}

# MODE=memcheck (session 28): the memory footprint predict reports (model/memory.c) against cnnperf-measure's
# own (memory_used_mib, memory_harness_mib), graph API, 1 warm-up and 2 timed iterations (only the memory is
# read). First LeNet-5 (its tensors take under 20 MiB: what the runtime holds), then networks of every
# structure, then pairs at the H100's edge chosen before the call with the model of this commit: one batch
# predicted to fit (70-79 GiB of 79.2) and one predicted not to (80-90 GiB), which should fail to allocate.
MEMCHECK_CONFIGS="
lenet5 64 fp32
lenet5 64 fp16
alexnet 128 fp32
resnet50 64 fp32
googlenet 64 fp32
densenet121 64 fp16
vgg16 64 fp16
mobilenet_v2 64 fp16
inception_v3 32 fp32
resnet152 136 fp32
resnet152 152 fp32
wide_resnet50_2 224 fp32
wide_resnet50_2 240 fp32
resnet50 288 fp32
resnet50 320 fp32
densenet169 176 fp32
resnext50_32x4d 240 fp32"
# MODE=memcheck2 (session 28): the model after memcheck (cudaMalloc's 2 MiB pages, the runtime LeNet-5 held),
# judged on configurations no call had run: other precisions and one legacy-API run; then, for four networks
# memcheck did not take to the edge, the largest multiple of 8 this commit predicts to fit on an H100 and the
# next one (rule and list fixed before the call)
MEMCHECK2_CONFIGS="
mnasnet1_0 64 fp16
resnet34 64 bf16
squeezenet1_1 64 fp32
resnext50_32x4d 64 fp16
vgg13 32 tf32
resnet50 64 fp32 legacy
vgg19 312 fp32
vgg19 320 fp32
inception_v3 312 fp32
inception_v3 320 fp32
resnet101 200 fp32
resnet101 208 fp32
densenet121 208 fp32
densenet121 216 fp32"

# MODE=torchmem (session 28): PyTorch's own memory (torch_bench.py's new "memory": peak allocated and reserved
# over the timed iterations and the warm-up's, cudaMemGetInfo after) beside its time, for the evaluation
# networks but LeNet-5, VGG-13/19 and ResNet-152, each once: the precision drawn from fp32/fp16 and the batch
# from the multiples of 8 in 32..128 no one-GPU PyTorch run of that network and precision had used, by
# Python's random.Random(2026112828) over the networks in name order; rule and list fixed before the call
TORCHMEM_CONFIGS=$(torch_args "
alexnet 72 fp16
densenet169 104 fp32
googlenet 120 fp32
mnasnet1_0 64 fp16
resnet101 120 fp32
resnet34 88 fp32
resnet50 72 fp16
resnext50_32x4d 120 fp32
vgg16 48 fp32
wide_resnet50_2 120 fp32")

# MODE=chlast (session 29): PyTorch in channels-last (torch_bench.py --channels-last; cnnperf predict --mode
# eager --memory-format channels_last) on the calibration set's networks only: FP16 at batch 64 for all six,
# the same three in NCHW beside them (the host's speed of this call), BF16, FP32 and TF32 for a few; then every
# kernel of a channels-last FP16 iteration of three of them, with the operator that launched it
# (tools/kernel_trace.py --channels-last), and of ResNet-18 in FP32: which kernels channels-last runs
CHLAST_CONFIGS="
--network resnet18,vgg11,mobilenet_v2 --batch 64 --precision fp16 --channels-last
--network densenet121,squeezenet1_1,inception_v3 --batch 64 --precision fp16 --channels-last
--network resnet18,vgg11,densenet121 --batch 64 --precision fp16
--network resnet18,inception_v3 --batch 64 --precision bf16 --channels-last
--network resnet18,vgg11,mobilenet_v2 --batch 64 --precision fp32 --channels-last
--network resnet18 --batch 64 --precision tf32 --channels-last"

# MODE=clcal42 (session 38): channels-last FP16 on the calibration set's networks at batches large enough that the
# GPU, not the host, sets the pace (chlast29's b64 runs were all host-paced but VGG-11's), to fit the one factor
# the NCHW-fitted scale of a 16-bit convolution pass takes in channels-last; VGG-11 and ResNet-18 b256 in NCHW
# beside them (this call's host and the NCHW model at these batches)
CLCAL42_CONFIGS="
--network vgg11 --batch 128,256 --precision fp16 --channels-last
--network resnet18 --batch 256 --precision fp16 --channels-last
--network mobilenet_v2 --batch 256 --precision fp16 --channels-last
--network squeezenet1_1 --batch 256 --precision fp16 --channels-last
--network densenet121 --batch 256 --precision fp16 --channels-last
--network inception_v3 --batch 128 --precision fp16 --channels-last
--network vgg11,resnet18 --batch 256 --precision fp16"

# MODE=clcal42b (session 38): more GPU-paced channels-last 16-bit runs of the calibration set's 1x1 and depthwise
# networks (and ResNet-18 b128, VGG-11 b256 in BF16), for a rule fixed before the call: one factor for the 3x3
# classes and one for the others in place of clcal42's single one (docs/CALIBRATION.md)
CLCAL42B_CONFIGS="
--network mobilenet_v2 --batch 128,192 --precision fp16 --channels-last
--network squeezenet1_1 --batch 128,192 --precision fp16 --channels-last
--network densenet121 --batch 192 --precision fp16 --channels-last
--network inception_v3 --batch 192,256 --precision fp16 --channels-last
--network resnet18 --batch 128 --precision fp16 --channels-last
--network vgg11 --batch 256 --precision bf16 --channels-last"

# MODE=chlast_holdout (session 29): the channels-last model fixed after MODE=chlast (NHWC batch norm and
# depthwise kernels, no layout transposes on tensor cores, FP32 between transposes) on the evaluation networks
# but LeNet-5, none of which any channels-last run had used: each in FP16 at a batch drawn uniformly from the
# multiples of 8 in 32..256 by Python's random.Random(2026112929) over the networks in name order; then four of
# them drawn by random.Random(2026112930) (r.sample, then a batch from the multiples of 8 in 32..128) in FP32;
# rule and list fixed before the call, predicted in it
CHLAST_HOLDOUT_CONFIGS=$(torch_args "
alexnet 128 fp16
densenet169 152 fp16
googlenet 96 fp16
mnasnet1_0 176 fp16
resnet101 72 fp16
resnet152 168 fp16
resnet34 40 fp16
resnet50 128 fp16
resnext50_32x4d 104 fp16
vgg13 48 fp16
vgg16 160 fp16
vgg19 56 fp16
wide_resnet50_2 72 fp16
resnet34 88 fp32
vgg13 72 fp32
densenet169 88 fp32
wide_resnet50_2 96 fp32" --channels-last)

# MODE=torchholdout29 (session 29): the session's final eager model (channels-last, PyTorch's host costs x1.25
# fitted on the calibration set) on every evaluation network but LeNet-5, each once: precision from fp16/fp32,
# memory format from nchw/channels_last and batch from the multiples of 8 in 32..128, drawn in that order per
# network by Python's random.Random(2026112931) over the networks in name order; rule and list fixed before the
# call, predicted in it
TORCHHOLDOUT29_CONFIGS="
--network alexnet --batch 48 --precision fp16 --channels-last
--network densenet169 --batch 96 --precision fp16 --channels-last
--network googlenet --batch 104 --precision fp32
--network mnasnet1_0 --batch 104 --precision fp16
--network resnet101 --batch 64 --precision fp16
--network resnet152 --batch 40 --precision fp16
--network resnet34 --batch 120 --precision fp16
--network resnet50 --batch 40 --precision fp16
--network resnext50_32x4d --batch 56 --precision fp32 --channels-last
--network vgg13 --batch 32 --precision fp32 --channels-last
--network vgg16 --batch 96 --precision fp32
--network vgg19 --batch 96 --precision fp32
--network wide_resnet50_2 --batch 128 --precision fp32"

# MODE=torchholdout30 (session 29, asked of an H200): the same final eager model on every evaluation network but
# LeNet-5, each once: precision from fp16/fp32, memory format from nchw/channels_last and batch from the multiples
# of 8 in 32..256, drawn per network in that order by Python's random.Random(2026112932) over the networks in name
# order; rule and list fixed before the call, predicted in it
TORCHHOLDOUT30_CONFIGS="
--network alexnet --batch 168 --precision fp16
--network densenet169 --batch 232 --precision fp16 --channels-last
--network googlenet --batch 168 --precision fp32
--network mnasnet1_0 --batch 224 --precision fp16
--network resnet101 --batch 48 --precision fp32
--network resnet152 --batch 104 --precision fp16 --channels-last
--network resnet34 --batch 168 --precision fp32 --channels-last
--network resnet50 --batch 104 --precision fp32 --channels-last
--network resnext50_32x4d --batch 216 --precision fp16 --channels-last
--network vgg13 --batch 216 --precision fp32 --channels-last
--network vgg16 --batch 32 --precision fp32
--network vgg19 --batch 80 --precision fp16
--network wide_resnet50_2 --batch 32 --precision fp16"

# net_trace DIR NAME LOG SECONDS NETWORKS BATCH PRECISION [--channels-last]: every kernel of PyTorch training
# iterations of NETWORKS, with the operator that launched each (tools/kernel_trace.py --op network), into
# DIR/NAME-$DEV.json, its output appended to DIR/LOG-$DEV.log
net_trace() {
    local dir=$1 name=$2 log=$3 secs=$4 nets=$5 batch=$6 prec=$7 layout=${8:-}
    mkdir -p "$dir"
    say "kernel_trace network${layout:+, channels-last}: $nets b$batch $prec"
    # shellcheck disable=SC2086
    timeout "$secs" python3 tools/kernel_trace.py --op network --network "$nets" --batch "$batch" --precision "$prec" \
        $layout --iters 5 -o "$dir/$name-$DEV.json" </dev/null >>"$dir/$log-$DEV.log" 2>&1 ||
        fail "kernel_trace${layout:+ channels-last} $nets b$batch $prec"
}

# cl_trace NAME LOG SECONDS NETWORKS BATCH PRECISION: net_trace's channels-last iterations into $RES/chlast/
cl_trace() { net_trace "$RES/chlast" "$1" "$2" "$3" "$4" "$5" "$6" --channels-last; }

chlast_traces() {
    cl_trace kernels-torch-cl-fp16 kernel-trace-cl 240 resnet18,mobilenet_v2,densenet121 32 fp16
    cl_trace kernels-torch-cl-fp32 kernel-trace-cl 120 resnet18 32 fp32
    tail -8 "$RES/chlast/kernel-trace-cl-$DEV.log"
    bundle
}

# MODE=eagertrace55 (session 55, calibration networks only): every kernel of PyTorch training iterations at
# batches the GPU paces (b128), NCHW FP16 and FP32 and channels-last FP16, with the operator that launched each
# (tools/kernel_trace.py), into $RES/eagertrace55/; then the same networks timed by torch_bench (EAGERTRACE55_CONFIGS),
# predicted in the call. What it is for: eager mode times PyTorch's own element-wise, pooling and batch-norm
# kernels with the calibration fitted on cnnperf-measure's cuDNN calls; tools/trace_compare.py reads the traces.
EAGERTRACE55_CONFIGS="
--network resnet18 --batch 128 --precision fp16
--network resnet18 --batch 256 --precision fp16
--network mobilenet_v2 --batch 128 --precision fp16
--network densenet121 --batch 128 --precision fp16
--network inception_v3 --batch 128 --precision fp16
--network squeezenet1_1 --batch 256 --precision fp16
--network vgg11 --batch 128 --precision fp16
--network resnet18 --batch 128 --precision fp32
--network mobilenet_v2 --batch 128 --precision fp32
--network resnet18 --batch 128 --precision fp16 --channels-last
--network mobilenet_v2 --batch 128 --precision fp16 --channels-last
--network densenet121 --batch 128 --precision fp16 --channels-last"
eagertrace55() {
    local d="$RES/eagertrace55"
    net_trace "$d" kernels-torch-b128-fp16 kernel-trace 150 resnet18,mobilenet_v2,densenet121 128 fp16
    net_trace "$d" kernels-torch-b128-fp32 kernel-trace 100 resnet18,mobilenet_v2 128 fp32
    net_trace "$d" kernels-torch-cl-b128-fp16 kernel-trace 150 resnet18,mobilenet_v2,densenet121 128 fp16 --channels-last
    tail -6 "$d/kernel-trace-$DEV.log"
    bundle
    torch_one "$EAGERTRACE55_CONFIGS" torchcal55
}

# MODE=torchcal57 (session 57, calibration networks only): the data rule 35 is judged on (docs/ACCURACY.md),
# committed with the rule before the call: the six calibration networks timed by torch_bench on one GPU in FP16
# NCHW, FP16 channels-last and FP32 NCHW, each at a batch drawn from 128-256 by 8 (Python's random.Random(57),
# networks in calibration-set.json's order, the three variants in that order; run NCHW first, channels-last last)
TORCHCAL57_CONFIGS="
--network resnet18 --batch 136 --precision fp16
--network vgg11 --batch 184 --precision fp16
--network mobilenet_v2 --batch 248 --precision fp16
--network densenet121 --batch 224 --precision fp16
--network squeezenet1_1 --batch 256 --precision fp16
--network inception_v3 --batch 224 --precision fp16
--network resnet18 --batch 128 --precision fp32
--network vgg11 --batch 208 --precision fp32
--network mobilenet_v2 --batch 232 --precision fp32
--network densenet121 --batch 168 --precision fp32
--network squeezenet1_1 --batch 224 --precision fp32
--network inception_v3 --batch 248 --precision fp32
--network resnet18 --batch 216 --precision fp16 --channels-last
--network vgg11 --batch 256 --precision fp16 --channels-last
--network mobilenet_v2 --batch 200 --precision fp16 --channels-last
--network densenet121 --batch 128 --precision fp16 --channels-last
--network squeezenet1_1 --batch 216 --precision fp16 --channels-last
--network inception_v3 --batch 152 --precision fp16 --channels-last"

# MODE=torchcal58 and torchcal58b (session 58, calibration networks only): the data rule 37 is judged on
# (docs/ACCURACY.md), committed with the rule before the calls: the six calibration networks in channels-last, at
# batches drawn from 128-256 by 8 (Python's random.Random(58): networks in calibration-set.json's order, each
# network's FP16 batch, then an FP32 one for the three with max pooling, ResNet-18, DenseNet-121, SqueezeNet 1.1).
# torchcal58: every kernel of one FP16 step of each (tools/kernel_trace.py, into $RES/torchcal58/traces/), then
# the six timed by torch_bench, predicted in the call; torchcal58b: the same for the three FP32 ones (cudnn.benchmark
# takes minutes over FP32 channels-last, so they have a call of their own).
TORCHCAL58_CONFIGS="
--network resnet18 --batch 176 --precision fp16 --channels-last
--network vgg11 --batch 176 --precision fp16 --channels-last
--network mobilenet_v2 --batch 136 --precision fp16 --channels-last
--network densenet121 --batch 176 --precision fp16 --channels-last
--network squeezenet1_1 --batch 224 --precision fp16 --channels-last
--network inception_v3 --batch 200 --precision fp16 --channels-last"
TORCHCAL58B_CONFIGS="
--network resnet18 --batch 176 --precision fp32 --channels-last
--network densenet121 --batch 240 --precision fp32 --channels-last
--network squeezenet1_1 --batch 216 --precision fp32 --channels-last"
# MODE=torchtf32cal (session 59, calibration networks only): PyTorch in TF32, which the evaluation's first TF32 runs
# (pholdout87: GoogLeNet, ResNet-34, VGG-16 +5 to +7%, GPU-paced) say eager mode times long, though the harness's TF32
# runs are right: the six calibration networks in NCHW TF32 at b128, timed by torch_bench and every kernel of one
# step traced (tools/trace_compare.py), for a rule to be stated before its judging data; then three calibration
# networks in bf16 and fp16 in one process each (torch_bench --precision bf16,fp16), whose host times say whether
# bfloat16's autocast costs the host what float16's does (pholdout87's ResNet-101 b64 bf16: 53.0 ms of host
# against 41.5 predicted).
TORCHTF32CAL_CONFIGS="
--network resnet18 --batch 128 --precision tf32
--network vgg11 --batch 128 --precision tf32
--network mobilenet_v2 --batch 128 --precision tf32
--network densenet121 --batch 128 --precision tf32
--network squeezenet1_1 --batch 128 --precision tf32
--network inception_v3 --batch 128 --precision tf32"
TORCHBF16CAL_CONFIGS="
--network resnet18 --batch 64 --precision bf16,fp16
--network densenet121 --batch 64 --precision bf16,fp16
--network inception_v3 --batch 64 --precision bf16,fp16"

# torchcal58_traces DIR SECONDS CONFIGS: one kernel trace a configuration (its own batch and layout), into DIR/traces/
torchcal58_traces() {
    local c net batch prec cl
    while read -r c; do
        [ -n "$c" ] || continue
        read -r _ net _ batch _ prec _ <<<"$c"
        [ $(($(date +%s) - START)) -lt "$DEADLINE" ] || { fail "kernel_trace $net skipped: past the deadline"; continue; }
        cl=
        [[ $c == *--channels-last* ]] && cl=--channels-last
        net_trace "$1/traces" "kernels-torch${cl:+-cl}-$(basename "$net" .json)-b$batch-$prec" kernel-trace "$2" "$net" \
            "$batch" "$prec" $cl
        bundle
    done <<<"$3"
    grep -v -i warn "$1/traces/kernel-trace-$DEV.log" | tail -10
}

# MODE=bneck60 (session 60, calibration microbenchmarks): PyTorch channels-last FP16 over-predicts the evaluation's
# bottleneck ResNets where the GPU paces them (+5 to +17%) and the calibration set has no such network; two networks
# of our own (validation/layerbench-h200/bneck60/nets/: ResNet-style bottleneck blocks at widths and planes no shipped
# network uses, one with a grouped 3x3 as ResNeXt's), timed channels-last FP16 at b128 and b256 and NCHW FP16 at
# b256, then kernel traces of the channels-last b128 steps (tools/trace_compare.py reads them)
BNECK60_CONFIGS="
--network validation/layerbench-h200/bneck60/nets/bneck60a.json --batch 128 --precision fp16 --channels-last
--network validation/layerbench-h200/bneck60/nets/bneck60g.json --batch 128 --precision fp16 --channels-last
--network validation/layerbench-h200/bneck60/nets/bneck60a.json --batch 256 --precision fp16 --channels-last
--network validation/layerbench-h200/bneck60/nets/bneck60g.json --batch 256 --precision fp16 --channels-last
--network validation/layerbench-h200/bneck60/nets/bneck60a.json --batch 256 --precision fp16
--network validation/layerbench-h200/bneck60/nets/bneck60g.json --batch 256 --precision fp16"

# MODE=torchcal59 and torchcal59b (session 58): rule 38's judging data, as torchcal58 with batches drawn by
# random.Random(59) (same order): torchcal59 traces and times the six FP16 configurations, then traces the three FP32
# ones; torchcal59b times the FP32 ones. Committed with the rule before the calls.
TORCHCAL59_CONFIGS="
--network resnet18 --batch 184 --precision fp16 --channels-last
--network vgg11 --batch 240 --precision fp16 --channels-last
--network mobilenet_v2 --batch 128 --precision fp16 --channels-last
--network densenet121 --batch 160 --precision fp16 --channels-last
--network squeezenet1_1 --batch 128 --precision fp16 --channels-last
--network inception_v3 --batch 248 --precision fp16 --channels-last"
TORCHCAL59B_CONFIGS="
--network resnet18 --batch 144 --precision fp32 --channels-last
--network densenet121 --batch 200 --precision fp32 --channels-last
--network squeezenet1_1 --batch 128 --precision fp32 --channels-last"

# MODE=eagertrace55b (session 55, after rule 32 was not kept): the calibration networks eagertrace55 did not trace,
# whose PyTorch runs fell furthest under rule 32 (VGG-11, SqueezeNet 1.1; Inception-v3), at b128 in FP16 and FP32 NCHW
# and VGG-11 channels-last FP16, every kernel with its operator, into $RES/eagertrace55b/ (tools/trace_compare.py)
eagertrace55b() {
    local d="$RES/eagertrace55b"
    net_trace "$d" kernels-torch-b128-fp16 kernel-trace 120 vgg11,squeezenet1_1,inception_v3 128 fp16
    bundle
    net_trace "$d" kernels-torch-b128-fp32 kernel-trace 90 vgg11,squeezenet1_1,inception_v3 128 fp32
    bundle
    net_trace "$d" kernels-torch-cl-b128-fp16 kernel-trace 60 vgg11 128 fp16 --channels-last
    grep -v -i warn "$d/kernel-trace-$DEV.log" | tail -8
    bundle
}

# MODE=torchmem2 (session 28): the eager memory model (model/memory.c, cp_memory_eager) fixed before the call,
# on configurations no call had run: four networks at ordinary batches, then for ResNet-50 and GoogLeNet FP16 a
# ladder across the H100's edge: the largest batch the model says fits (its 10% allowance included) and three
# where the predicted allocation alone, with the runtime, reaches 96%, 100% and 104% of the GPU's memory
# (multiples of 8); 2 warm-up and 2 timed iterations (only the memory is read); rule and list fixed before the call
TORCHMEM2_CONFIGS="
vgg19 32 fp16
densenet121 48 fp32
inception_v3 48 fp16
resnet152 24 fp32
resnet50 1680 fp16
resnet50 1792 fp16
resnet50 1872 fp16
resnet50 1944 fp16
googlenet 2480 fp16
googlenet 2636 fp16
googlenet 2748 fp16
googlenet 2860 fp16"

# MODE=torchmem3 (session 28): the eager model's headroom rule after torchmem2 (512 MiB beyond the predicted
# peak allocation, not 10% of it), fixed before the call, across the edge for DenseNet-121 and VGG-16 FP16: the
# largest multiple of 8 it says fits and the next, then one about 4% below and one about 4% above (rule and
# list fixed before the call)
TORCHMEM3_CONFIGS="
densenet121 1248 fp16
densenet121 1256 fp16
vgg16 1880 fp16
vgg16 1888 fp16
densenet121 1192 fp16
densenet121 1304 fp16
vgg16 1800 fp16
vgg16 1960 fp16"

# torch_memcheck NAME CONFIGS: each "network batch precision" once in PyTorch (edge_runs), predicted in eager mode
torch_memcheck() {
    python3 -c 'import torch, torchvision' 2>/dev/null || { fail "no torch/torchvision here"; return; }
    edge_runs "$1" "$2" run_torch_step 2 --mode eager
}

# run_torch_step TAG NET BATCH PREC API: a few PyTorch steps, PyTorch's memory in $RES/torch-TAG.json
run_torch_step() {
    timeout 120 python3 tools/torch_bench.py --network "$2" --batch "$3" --precision "$4" --warmup 2 --iters 2 \
        --out-dir "$RES"
}

# MODE=memmulti (session 28): what a worker of a 2-GPU NCCL job holds beside one GPU's footprint (NCCL's
# buffers and communicator), graph API; rank 0's provenance.memory_used_mib against predict's one-GPU memory
MEMMULTI_CONFIGS="
resnet50 64 fp32 nccl
densenet121 64 fp16 nccl"

memmulti() {
    need_gpus 2 || return
    command -v mpirun >/dev/null || { fail "no mpirun on this machine"; return; }
    mpi_setup
    RES=$BUILD/results/memmulti
    rm -rf "$RES"
    mkdir -p "$RES"
    CONV_API=graph multi_runs "$MEMMULTI_CONFIGS"
    local f
    for f in "$RES"/measure-*.json; do
        python3 - "$f" "${f/measure-/predict-}" <<'PYEOF'
import json, sys
m = json.load(open(sys.argv[1]))["provenance"]
p = json.load(open(sys.argv[2]))
print(sys.argv[1].split("/")[-1], "used", round(m["memory_used_mib"]), "harness", round(m["memory_harness_mib"]),
      "workspace", round(m["workspace_used_mib"]))
PYEOF
    done
}

# edge_runs NAME CONFIGS RUN TAIL [PREDICT ARGS...]: each "network batch precision [api]" of CONFIGS (api
# graph unless given) once through RUN (TAG NET BATCH PREC API, writing into $RES), into results/NAME, emptied
# first; each exit status in status.txt, its error output in stderr-TAG.txt (its last TAIL lines printed; a
# negative TAIL: only when it failed) and the prediction of the same configuration (predict-TAG.json)
edge_runs() {
    local name=$1 configs=$2 runner=$3 tail_lines=$4 net batch prec api tag rc
    shift 4
    RES=$BUILD/results/$name
    rm -rf "$RES"
    mkdir -p "$RES"
    while read -r net batch prec api; do
        [ -n "$net" ] || continue
        api=${api:-graph}
        tag=$net-b$batch-$prec
        [ "$api" = graph ] || tag=$tag-$api
        [ $(($(date +%s) - START)) -lt "$DEADLINE" ] || { fail "$name $tag skipped: past the ${DEADLINE} s budget"; continue; }
        say "$name $tag"
        rc=0
        "$runner" "$tag" "$net" "$batch" "$prec" "$api" </dev/null >/dev/null 2>"$RES/stderr-$tag.txt" || rc=$?
        echo "$tag $rc" >>"$RES/status.txt"
        if [ "$tail_lines" -gt 0 ]; then
            tail -"$tail_lines" "$RES/stderr-$tag.txt"
        elif [ "$rc" != 0 ]; then
            tail -"${tail_lines#-}" "$RES/stderr-$tag.txt"
        fi
        "$PREDICT" predict --network "$net" --device "$DEV" --batch "$batch" --precision "$prec" --conv-api "$api" \
            "$@" --format json -o "$RES/predict-$tag.json" </dev/null 2>/dev/null || fail "predict $tag"
        bundle
    done <<<"$configs"
}

# run_measure_memory TAG NET BATCH PREC API: a few cnnperf-measure iterations, its memory in $RES/measure-TAG.json
run_measure_memory() {
    timeout 150 "$MEASURE" --network "$2" --batch "$3" --precision "$4" --warmup 1 --iters 2 --conv-api "$5" \
        -o "$RES/measure-$1.json"
}

# memcheck NAME CONFIGS: each "network batch precision [legacy]" once through cnnperf-measure (edge_runs), then
# the summary of predicted and held memory
memcheck() {
    edge_runs "$1" "$2" run_measure_memory -3
    python3 - "$RES" <<'PYEOF' | tee "$RES/summary.txt"
import json, os, sys
res = sys.argv[1]
print(f"{'configuration':32} {'exit':>4} {'predicted GiB':>13} {'fits':>5} {'used GiB':>9} {'harness GiB':>11} {'workspace GiB':>13}")
for line in open(os.path.join(res, "status.txt")):
    tag, rc = line.split()
    p = json.load(open(os.path.join(res, f"predict-{tag}.json")))["memory"]
    used = harness = ws = float("nan")
    f = os.path.join(res, f"measure-{tag}.json")
    if rc == "0" and os.path.exists(f):
        pr = json.load(open(f))["provenance"]
        used, harness, ws = pr["memory_used_mib"] / 1024, pr["memory_harness_mib"] / 1024, pr["workspace_used_mib"] / 1024
    print(f"{tag:32} {rc:>4} {p['total_gib']:13.2f} {str(p['fits']):>5} {used:9.2f} {harness:11.2f} {ws:13.2f}")
PYEOF
}

main() {
    local m
    for m in ${MODE//,/ }; do
        mode_route "$m" >/dev/null || { fail "MODE=$m: no such mode (run_mode's cases, or a drawn holdout's lists)"; return 1; }
    done
    setup || return
    [ -x "${MEASURE:-}" ] || return
    case "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z')" in
    *h200*) DEV=h200 ;;
    *) DEV=h100 ;;
    esac
    for m in ${MODE//,/ }; do # MODE=a,b: both in one call
        run_mode "$m"
    done
}

# quad_calibrate: four GPUs of one host: the NCCL all-reduce sweep, send/receive ring and MPI ping-pong of
# 4 ranks (NCCL's tuner table in calibrate-4gpu-tuning.log) and the servers' pass, which the jobs after it
# are predicted with (multi_runs's --host-mpi); quad_predict: the jobs predicted in the call.
quad_calibrate() {
    need_gpus 4 || return
    mpi_setup
    say "calibrate --only nccl,mpi, 4 ranks, with NCCL's tuner table"
    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING timeout 150 "${MPIRUN[@]}" -np 4 -x LD_LIBRARY_PATH -x NCCL_DEBUG \
        -x NCCL_DEBUG_SUBSYS "$BUILD/measure/cnnperf-calibrate" --only nccl,mpi \
        --raw "$RES/calibrated-nccl-4gpu-raw.json" </dev/null >"$RES/calibrate-4gpu-tuning.log" 2>&1 ||
        fail "calibrate nccl,mpi"
    grep -E 'AllReduce|Ring|Tree' "$RES/calibrate-4gpu-tuning.log" | head -12
    timeout 120 "$BUILD/measure/cnnperf-psbench" --beside 4 -o "$RES/psbench.json" </dev/null || fail "psbench"
    cp "$RES/calibrated-nccl-4gpu-raw.json" "$RES/host-mpi-raw.json"
}

quad_predict() {
    rm -f "$RES/host-mpi-raw.json"
    predict_in_call "$RES"/measure-*.json "$RES"/calibrated-nccl-4gpu-raw.json
}

run_mode() {
    case "$1" in
    multi) multi ;;
    multi2) multi2 ;;
    psholdout) psholdout ;;
    multiholdout) psholdout "$MULTIHOLDOUT_CONFIGS" ;;
    psbench) psholdout "$PSBENCH_CONFIGS" ;;
    psbench2) psholdout "$PSBENCH2_CONFIGS" ;;
    psthreads) # why a server's in-run sum and SGD is slower than cnnperf-psbench's: the host's cores, then the
        # pass alone on 30, 14 and 6 threads, then two PS jobs with each of those --ps-threads
        lscpu | grep -E '^(Model name|Socket|Core|Thread|NUMA|CPU\(s\))' || true
        for t in 30 14 6; do
            timeout 60 "$BUILD/measure/cnnperf-psbench" --threads "$t" </dev/null || fail "psbench --threads $t"
        done
        mpi_setup
        for t in 30 14 6; do
            mpirun_measure "multi-googlenet-b64-fp32-ps1-t$t" 3 "--network googlenet --batch 64 --precision fp32 --device $DEV --gpus 2 --comm ps --conv-api ${CONV_API:-legacy}" -- \
                --network googlenet --batch 64 --precision fp32 --comm ps --ps-servers 1 --ps-threads "$t"
            mpirun_measure "multi-resnet50-b96-fp16-ps1-t$t" 3 "--network resnet50 --batch 96 --precision fp16 --device $DEV --gpus 2 --comm ps --conv-api ${CONV_API:-legacy}" -- \
                --network resnet50 --batch 96 --precision fp16 --comm ps --ps-servers 1 --ps-threads "$t"
        done ;;
    hostbehind) # do cuDNN's legacy calls wait for the GPU? host profiles with a 3 ms kernel queued ahead of each pass
        for c in "resnet50 32 fp16 legacy" "vgg16 32 fp16 legacy" "resnet50 32 fp32 legacy" "googlenet 32 fp16 legacy" \
            "resnet50 32 fp16 graph"; do
            read -r net batch prec api <<<"$c"
            for behind in 0 3000; do
                say "measure $net-b$batch-$prec-$api-behind$behind"
                timeout 120 "$BUILD/measure/cnnperf-measure" --network "$net" --batch "$batch" --precision "$prec" \
                    --conv-api "$api" --warmup 2 --iters 5 --host-profile 3 --host-profile-behind "$behind" \
                    -o "$RES/measure-$net-b$batch-$prec-$api-behind$behind.json" </dev/null || fail "measure $net behind $behind"
            done
        done
        bundle ;;
    netemu) netemu "$NETEMU_CONFIGS" ;;
    overlap) overlap "$CALIBMULTI_CONFIGS" ;; # the calibration-set networks on 2 GPUs
    nccloverlap) overlap "$NCCLHOLDOUT_CONFIGS" ;;
    ddp) ddp "$DDP_CONFIGS" ;;
    ddpcl) ddp "$DDPCL_CONFIGS" ;; # session 29: DDP channels-last, drawn before the call
    ddph100) # session 29: DDP's own host costs on the H100s' host (no H100 profile had them; torch_bench
        # --ddp-overhead), then DDPCL_CONFIGS again in NCHW: what channels-last itself changes
        need_gpus 2 || return
        mkdir -p "$RES/ddp"
        say "torchrun torch_bench.py --ddp-overhead"
        NCCL_DEBUG=WARN timeout 200 torchrun --standalone --nproc-per-node 2 tools/torch_bench.py --ddp-overhead \
            -o "$RES/ddp/ddp-overhead-$DEV.json" </dev/null 2>&1 | grep -E '^torch_bench' || fail "ddp overhead"
        ddp "$(sed 's/ --channels-last//' <<<"$DDPCL_CONFIGS")" ;;
    ddpcalib) ddp "$DDP_CALIB_CONFIGS" ;;
    pholdout87b) pholdout87b ;;
    ddphost) ddphost ;;
    hostshare) # session 31: DDP's operator_scale paired (torch_bench --host-share, three times), beside the call's
        # eager costs alone; the two unpaired estimates (both ranks at once against alone minutes apart) were 1.19
        # and 0.91
        need_gpus 2 || return
        export NCCL_NVLS_ENABLE=0
        mkdir -p "$RES/hostshare"
        say "torch_bench --eager-overhead"
        timeout 150 python3 tools/torch_bench.py --eager-overhead -o "$RES/hostshare/eager-overhead-$DEV.json" \
            </dev/null || fail "eager overhead"
        for i in 1 2 3; do
            say "torchrun --nproc-per-node 2 torch_bench.py --host-share ($i)"
            NCCL_DEBUG=WARN timeout 150 torchrun --standalone --nproc-per-node 2 tools/torch_bench.py --host-share \
                -o "$RES/hostshare/host-share-$i-$DEV.json" </dev/null 2>&1 | grep -E '^torch_bench' || fail "host share $i"
        done
        bundle ;;
    clfp32hold31) torch_one "$CLFP32HOLD31_CONFIGS" clfp32hold31 ;;
    clfp32hold31b) # the four of CLFP32HOLD31_CONFIGS the first call's deadline left out (VGG-19 FP32 channels-last
        # took 113 and 187 s of cudnn.benchmark there)
        torch_one "$(tail -4 <<<"$CLFP32HOLD31_CONFIGS")" clfp32hold31b ;;
    ddphold31b) ddp "$DDPHOLD31B_CONFIGS" ;;
    ddphold32) ddp "$DDPHOLD32_CONFIGS" ;;
    holdout32)
        holdout_runs holdout32 "$HOLDOUT32_GRAPH"
        torch_one "$HOLDOUT32_TORCH" torchholdout32 ;;
    ddphold33) ddp "$DDPHOLD33_CONFIGS" ;;
    pscalib33) need_gpus 2 && ps_redo pscalib33 graph 2 "$PSCALIB33_CONFIGS" ;;
    # session 39, 4 GPUs: pscalib33's calibration-set jobs with four workers, where the evaluation's 4-GPU PS jobs
    # came out short (a server summing 5x slower than psbench): data a 4-worker server model can be fitted on
    pscalib39) need_gpus 4 && ps_redo pscalib39 graph 4 "$PSCALIB33_CONFIGS" ;;
    psov42) need_gpus 4 && ps_redo psov42 graph 4 "$PSOV42_CONFIGS" ;;
    # session 48, 4 GPUs: pscalib39's calibration-set PS jobs again with the exchange timed before and after them,
    # a fifth call on which rule 22 (a PS job's host stream: the call's own sweep or the median of all calls') is
    # judged (docs/ACCURACY.md session 48)
    pscalib48) need_gpus 4 && PS_AFTER=1 ps_redo pscalib48 graph 4 "$PSCALIB33_CONFIGS" ;;
    pscalib71) need_gpus 2 && PS_AFTER=1 ps_redo pscalib71 graph 2 "$PSCALIB71_CONFIGS" ;;
    probe33) probe33 ;;
    legacyrank33) legacyrank33 ;;
    pin33) pin33 ;;
    pswake34) pswake34 ;;
    pswake42) pswake42 ;;
    psidle54) psidle54 ;;
    torchgroup) torchgroup ;;
    groupblock46) groupblock46 ;;
    cutcheck55) holdout_runs cutcheck55 "$CUTCHECK55_MEASURE" "" legacy ;;
    cand52) holdout_runs cand52 "$CAND52_MEASURE" "" legacy ;;
    cand52b) holdout_runs cand52b "$CAND52B_MEASURE" "" legacy ;;
    session45c) # session 45's third call: the early cut checked, PyTorch's grouped kernels traced, and the
        # leftover drawn PyTorch runs (holdout54's last two as holdout54c, holdout52c), eager costs measured once
        holdout_runs cutcheck55 "$CUTCHECK55_MEASURE" "" legacy
        torchgroup
        torch_one "$(tail -2 <<<"$HOLDOUT54B_TORCH")" torchholdout54c
        EAGER_FROM=$RES/torchholdout54c/eager-overhead-$DEV.json torch_one "$HOLDOUT52C_TORCH" torchholdout52c ;;
    session46a) # session 46's first call: holdout57's cnnperf-measure jobs, then groupblock46 (what the deadline leaves)
        holdout_runs holdout57 "$HOLDOUT57_MEASURE" "" legacy
        groupblock46 ;;
    coexec57) coexec57 ;; # its comment above always named it a MODE; until session 65 the name ran the default campaign
    session46b) # session 46's multi-GPU call (4 x H100): rule 19's co-execution data, then mholdout57
        coexec57
        drawn_multi mholdout57 4 ;;
    holdout57b) torch_one "$HOLDOUT57_TORCH" torchholdout57 ;;
    holdout91b) # holdout91's last PyTorch job, which its call's deadline left out (session 61)
        torch_one "$(tail -1 <<<"$HOLDOUT91_TORCH")" torchholdout91b ;;
    holdout94b) # holdout94's last PyTorch job, which its call's deadline left out (session 62)
        torch_one "$(tail -1 <<<"$HOLDOUT94_TORCH")" torchholdout94b ;;
    holdout95b) # holdout95's last five PyTorch jobs, which its call's deadline left out (session 62)
        torch_one "$(tail -n +3 <<<"$HOLDOUT95_TORCH")" torchholdout95b ;;
    session46c) # session 46's last one-GPU call: groupblock57, then holdout57's PyTorch runs
        groupblock57
        torch_one "$HOLDOUT57_TORCH" torchholdout57 ;;
    groupblock57) groupblock57 ;;
    groupblock57b) groupblock57b ;;
    tf32wide61) tf32wide61 ;;
    tf32mid63) tf32mid63 ;;
    groupbehind63) groupbehind63 ;;
    behind64) behind64 ;;
    groupcheck63+holdout98) # session 63's last call: groupcheck63, then holdout98
        drawn_holdout groupcheck63
        drawn_holdout holdout98 ;;
    tf32wide61b) tf32wide61b ;;
    groupbench57) groupbench57 ;;
    groupbench58) groupbench58 ;;
    wgrad60) wgrad60 ;;
    session47a) # session 47's first call: holdout60 (drawn), then wgrad60's calibration data
        drawn_holdout holdout60
        wgrad60 ;;
    wgrad60b) wgrad60b ;;
    plane53) plane53 ;;
    plane54) plane54 ;;
    session54a) # session 54's first call: plane53's calibration data, then holdout76 (drawn)
        plane53
        drawn_holdout holdout76 ;;
    rankcost57) rankcost57 ;;
    session46d) # session 46's last call (4 GPUs): rankcost57, then the DDP jobs drawn in mholdout57 (4 GPUs) and
        # mholdout56 (2 GPUs) that their calls' deadlines left, each set predicted in the call
        rankcost57
        RES=$BUILD/results/mholdout57b
        rm -rf "$RES"
        NPROC=4 ddp "$(tail -1 <<<"$MHOLDOUT57_DDP")"
        local eager=$RES/ddp/eager-overhead-$DEV.json
        RES=$BUILD/results/mholdout56b
        rm -rf "$RES"
        EAGER_FROM=$eager NPROC=2 ddp "$MHOLDOUT56_DDP" ;;
    holdout56b) torch_one "$(tail -4 <<<"$HOLDOUT56_TORCH")" torchholdout56b ;; # the four past holdout56's deadline
    holdout55)
        drawn_holdout holdout55
        EAGER_FROM=$RES/torchholdout55/eager-overhead-$DEV.json torch_one "$HOLDOUT54B_TORCH" torchholdout54b
        EAGER_FROM=$RES/torchholdout55/eager-overhead-$DEV.json torch_one "$HOLDOUT52C_TORCH" torchholdout52c ;;
    psteam52) psteam52 ;;
    pswake35) pswake35 ;;
    buildcheck) # session 35: the build a later call gets (zlib found or not) and a compressed measurement read
        grep -E '^ZLIB_(INCLUDE_DIR|LIBRARY_RELEASE):' "$BUILD/CMakeCache.txt" || say "no zlib here: *.json.gz refused"
        "$PREDICT" validate --measured validation/h100/holdout35/measure-resnet101-b200-fp32-graphapi.json.gz \
            </dev/null | head -12 || fail "validate a .json.gz" ;;
    coexec47) coexec47 ;;
    hostlink56) hostlink56 ;;
    ddp4cal41) ddp4cal41 ;;
    calfresh42) holdout_runs calfresh42 "$CALFRESH42_LEGACY$CALFRESH42_GRAPH" "" legacy ;;
    holdout32b)
        holdout_runs holdout32b "$HOLDOUT32B_GRAPH"
        torch_one "$HOLDOUT32B_TORCH" torchholdout32b ;;
    ddpsplit32b) # session 32: the ranks' host spread again on another call (or another kind of host), with the
        # call's eager costs alone for the profile
        need_gpus 2 || return
        mkdir -p "$RES/ddpsplit"
        say "torch_bench --eager-overhead"
        timeout 150 python3 tools/torch_bench.py --eager-overhead -o "$RES/ddpsplit/eager-overhead-$DEV.json" \
            </dev/null || fail "eager overhead"
        ddpsplit ;;
    ddpsplit32) # session 32: the four jobs of DDPHOLD31B_CONFIGS its call's deadline left out, predicted in this
        # call with the model they were drawn for; then where DDP's host time goes on calibration-set networks
        ddp "$(tail -4 <<<"$DDPHOLD31B_CONFIGS")"
        ddpsplit ;;
    ddphold31)
        ddp "$DDPHOLD31_CONFIGS"
        mkdir -p "$RES/ddp/concurrent"
        say "torchrun --nproc-per-node 2 torch_bench.py --eager-overhead (both ranks at once)"
        NCCL_DEBUG=WARN timeout 170 torchrun --standalone --nproc-per-node 2 tools/torch_bench.py --eager-overhead \
            -o "$RES/ddp/concurrent/eager-overhead-$DEV.json" </dev/null 2>&1 | grep -E '^torch_bench' ||
            fail "concurrent eager overhead"
        bundle ;;
    quad2) # session 22: four GPUs again: the 4-rank sweep a second time, NCCL's tuner table for 4 ranks, legacy-API
        # and graph-API jobs and PyTorch DDP on 4 GPUs (its costs measured on 4 ranks first), chosen before the call
        quad_calibrate || return
        GPUS=4 CONV_API=legacy multi_runs "
resnet50 64 fp16 nccl
googlenet 64 fp32 nccl
vgg16 64 fp16 nccl"
        GPUS=4 CONV_API=graph multi_runs "
resnet50 128 fp16 nccl
resnet152 32 fp32 nccl
vgg16 32 fp16 ps2"
        quad_predict
        mkdir -p "$RES/ddp"
        say "torchrun --nproc-per-node 4 torch_bench.py --ddp-overhead"
        NCCL_DEBUG=WARN timeout 240 torchrun --standalone --nproc-per-node 4 tools/torch_bench.py --ddp-overhead \
            -o "$RES/ddp/ddp-overhead-$DEV.json" </dev/null 2>&1 | grep -E '^torch_bench' || fail "ddp overhead"
        NPROC=4 ddp "
--network resnet50 --batch 64 --precision fp32,fp16
--network googlenet --batch 64 --precision fp32" ;;
    legacyprocs) # session 23: do legacy-API calls cost the host more with four processes issuing them, or is the
        # 4-GPU host slower? Calibration-set networks only: each alone on one GPU, then on 2 and 4 GPUs (NCCL) of the
        # same host; the host's CPU and NUMA layout and the GPUs' topology in the log
        need_gpus 4 || return
        lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Socket|NUMA' || true
        nvidia-smi topo -m || true
        mpi_setup
        CONV_API=legacy single "$LEGACYPROCS_CONFIGS"
        GPUS=4 CONV_API=legacy multi_runs "$(echo "$LEGACYPROCS_CONFIGS" | sed '/^$/d; s/$/ nccl/')"
        GPUS=2 CONV_API=legacy multi_runs "$(echo "$LEGACYPROCS_CONFIGS" | sed '/^$/d; s/$/ nccl/' | head -3)"
        predict_in_call ;;
    holdout23) # session 23: three- and four-GPU jobs no call had run, chosen before the call, graph API, PS with
        # every bucket split over the servers, predicted in the call
        quad_calibrate || return
        GPUS=4 CONV_API=graph multi_runs "
resnet34 64 fp32 nccl
alexnet 256 fp16 nccl
vgg19 32 fp16 nccl
googlenet 128 fp16 nccl
resnet50 64 fp16 ps2
resnet101 32 fp32 ps1"
        GPUS=3 CONV_API=graph multi_runs "
resnet152 32 fp32 nccl
resnet50 64 fp32 ps2"
        quad_predict ;;
    psthreads4) # session 23: four workers' server, 60 threads by default on 64 cores, ran its pass at 0.84-1.2 ns
        # per parameter where cnnperf-psbench took 0.17-0.18: the same two PS jobs on 4 GPUs with 60, 48, 32 and
        # 16 server threads, and the pass alone on those threads
        need_gpus 4 || return
        local t
        for t in ${PS_THREADS:-60 48 32 16}; do
            timeout 60 "$BUILD/measure/cnnperf-psbench" --threads "$t" --beside 4 </dev/null || fail "psbench --threads $t"
        done
        mpi_setup
        for t in ${PS_THREADS:-60 48 32 16}; do
            mpirun_measure "multi-resnet50-b64-fp32-ps1-4gpu-t$t" 5 "--network resnet50 --batch 64 --precision fp32 --device $DEV --gpus 4 --comm ps --conv-api graph" -- \
                --network resnet50 --batch 64 --precision fp32 --comm ps --ps-servers 1 --ps-threads "$t" --conv-api graph
            mpirun_measure "multi-googlenet-b64-fp32-ps1-4gpu-t$t" 5 "--network googlenet --batch 64 --precision fp32 --device $DEV --gpus 4 --comm ps --conv-api graph" -- \
                --network googlenet --batch 64 --precision fp32 --comm ps --ps-servers 1 --ps-threads "$t" --conv-api graph
        done
        bundle ;;
    psbench3x) # session 23: psbench3 again with the whole PS exchange measured first (cnnperf-psexchange, 2
        # workers and 1 server, no GPU), which validate then takes as the folder's server stream
        need_gpus 2 || return
        PS_HOST_K2=0 ps_host 2
        multi_runs "$PSBENCH_CONFIGS"
        predict_in_call ;;
    psredo_h100x2_graph | psredo_h100x2_legacy) # session 24: the 2 x H100 PS jobs measured before the server's
        # loop took dynamic blocks (0dbc2fd) or its buckets were split over the servers (c4f13f2), again with today's server,
        # each API's jobs (one call each: 17 and 12 jobs) in their own folder after the host's exchange measured there
        need_gpus 2 || return
        if [ "$1" = psredo_h100x2_graph ]; then
            ps_redo "$1" graph 2 "$PSREDO_H100X2_GRAPH"
        else
            ps_redo "$1" legacy 2 "$PSREDO_H100X2_LEGACY"
        fi ;;
    psredo_h200x2_graph) # session 24: the same for the 2 x H200 folders (multiall-graph, psbucket)
        need_gpus 2 || return
        ps_redo "$1" graph 2 "$PSREDO_H200X2_GRAPH" ;;
    psredo_h200x2_legacy) # (multiall)
        need_gpus 2 || return
        ps_redo "$1" legacy 2 "$PSREDO_H200X2_LEGACY" ;;
    holdout26) # session 26: one GPU through the graph API at batches no run had used (HOLDOUT26_CONFIGS), predicted
        # in the call, in results/holdout26 (emptied first)
        holdout_runs holdout26 "$HOLDOUT26_CONFIGS" ;;
    holdout27) # session 27: networks new to the project through the graph API (HOLDOUT27_CONFIGS), predicted in
        # the call, in results/holdout27 (emptied first); fewer timed iterations than single's default
        holdout_runs holdout27 "$HOLDOUT27_CONFIGS" "--warmup 3 --iters 10" ;;
    torchholdout27) # session 27: the same configurations in PyTorch, the call's own eager costs first
        torch_one "$TORCHHOLDOUT27_CONFIGS" torchholdout27 ;;
    holdout28) # session 27: holdout27's networks again at other batches (HOLDOUT28_CONFIGS), predicted
        # in the call, in results/holdout28 (emptied first)
        holdout_runs holdout28 "$HOLDOUT28_CONFIGS" "--warmup 3 --iters 10" ;;
    torchholdout28) # session 27: the same configurations in PyTorch, the call's own eager costs first
        torch_one "$TORCHHOLDOUT28_CONFIGS" torchholdout28 ;;
    memcheck) # session 28: predicted memory footprints and fits against cnnperf-measure's (MEMCHECK_CONFIGS)
        memcheck memcheck "$MEMCHECK_CONFIGS" ;;
    torchholdout30) # session 29: the final eager model again, batches 32..256, on the GPU given (TORCHHOLDOUT30_CONFIGS)
        torch_one "$TORCHHOLDOUT30_CONFIGS" torchholdout30 ;;
    torchholdout29) # session 29: the final eager model on configurations drawn by rule (TORCHHOLDOUT29_CONFIGS)
        torch_one "$TORCHHOLDOUT29_CONFIGS" torchholdout29 ;;
    chlast_traces2) # session 29: every kernel of channels-last FP16 iterations of the calibration set's other
        # networks (VGG-11, Inception-v3, SqueezeNet 1.1) at b32 and of ResNet-18 at b128, with their operators
        cl_trace kernels-torch-cl2-fp16 kernel-trace-cl2 300 vgg11,inception_v3,squeezenet1_1 32 fp16
        cl_trace kernels-torch-cl2-b128-fp16 kernel-trace-cl2 150 resnet18 128 fp16
        tail -8 "$RES/chlast/kernel-trace-cl2-$DEV.log"
        bundle ;;
    chlast_traces3) # session 31: every kernel of channels-last FP32 iterations of the calibration set's networks with
        # 1x1 and depthwise layers (MobileNet-v2, DenseNet-121, SqueezeNet 1.1) at b32, with their operators: which
        # FP32 passes run between layout transposes and which on NHWC kernels
        cl_trace kernels-torch-cl3-fp32 kernel-trace-cl3 400 mobilenet_v2,densenet121,squeezenet1_1 32 fp32
        tail -8 "$RES/chlast/kernel-trace-cl3-$DEV.log"
        bundle ;;
    eagertrace55b) eagertrace55b ;; # session 55: the other calibration networks' PyTorch kernel traces, b128
    torchcal57) torch_one "$TORCHCAL57_CONFIGS" torchcal57 ;; # session 57: rule 35's judging runs, calibration networks
    torchcal58) # session 58: rule 37's judging data, channels-last FP16 on the calibration networks
        torchcal58_traces "$RES/torchcal58" 150 "$TORCHCAL58_CONFIGS"
        torch_one "$TORCHCAL58_CONFIGS" torchcal58 ;;
    torchcal58b) # session 58: the same in FP32
        torchcal58_traces "$RES/torchcal58b" 240 "$TORCHCAL58B_CONFIGS"
        torch_one "$TORCHCAL58B_CONFIGS" torchcal58b ;;
    torchcal59) # session 58: rule 38's judging data
        torchcal58_traces "$RES/torchcal59" 150 "$TORCHCAL59_CONFIGS"
        torch_one "$TORCHCAL59_CONFIGS" torchcal59
        torchcal58_traces "$RES/torchcal59" 150 "$TORCHCAL59B_CONFIGS" ;;
    torchtf32cal) # session 59: PyTorch TF32 on the calibration networks, timed and traced; bf16 beside fp16
        torch_one "$TORCHTF32CAL_CONFIGS" torchtf32cal
        torchcal58_traces "$RES/torchtf32cal" 150 "$TORCHTF32CAL_CONFIGS"
        EAGER_FROM="$RES/torchtf32cal/eager-overhead-$DEV.json" torch_one "$TORCHBF16CAL_CONFIGS" torchbf16cal ;;
    torchcal59b) torch_one "$TORCHCAL59B_CONFIGS" torchcal59b ;; # session 58: rule 38's FP32 timings
    bneck60) # session 60: bottleneck blocks of our own shapes, channels-last FP16 timed and traced
        torch_one "$BNECK60_CONFIGS" bneck60
        torchcal58_traces "$RES/bneck60" 150 "$(grep -e '--batch 128' <<<"$BNECK60_CONFIGS")" ;;
    eagertrace55) eagertrace55 ;; # session 55: PyTorch kernel traces and timings of calibration networks, b128
    chlast_holdout) # session 29: channels-last on the evaluation networks, predicted in the call (CHLAST_HOLDOUT_CONFIGS)
        torch_one "$CHLAST_HOLDOUT_CONFIGS" chlast_holdout ;;
    clcal42) torch_one "$CLCAL42_CONFIGS" clcal42 ;; # session 38: channels-last FP16, calibration set, GPU-paced
    clcal42b) torch_one "$CLCAL42B_CONFIGS" clcal42b ;; # session 38: more of them, 1x1 and depthwise networks
    chlast) # session 29: PyTorch channels-last on the calibration set's networks, then kernel traces (CHLAST_CONFIGS)
        torch_one "$CHLAST_CONFIGS" chlast
        chlast_traces ;;
    torchmem) # session 28: PyTorch's memory and time on configurations no run had used (TORCHMEM_CONFIGS)
        torch_one "$TORCHMEM_CONFIGS" torchmem ;;
    torchmem2) # session 28: the eager memory model on new configurations and across the edge (TORCHMEM2_CONFIGS)
        torch_memcheck torchmem2 "$TORCHMEM2_CONFIGS" ;;
    torchmem3) # session 28: the eager model's headroom rule across the edge of two more networks (TORCHMEM3_CONFIGS)
        torch_memcheck torchmem3 "$TORCHMEM3_CONFIGS" ;;
    memmulti) # session 28: a 2-GPU NCCL worker's memory beside one GPU's (MEMMULTI_CONFIGS)
        memmulti ;;
    memcheck2) # session 28: the model after memcheck on configurations no call had run (MEMCHECK2_CONFIGS)
        memcheck memcheck2 "$MEMCHECK2_CONFIGS" ;;
    holdout29) # session 27: every evaluation network once through the graph API with the final model
        # (HOLDOUT29_CONFIGS), predicted in the call
        holdout_runs holdout29 "$HOLDOUT29_CONFIGS" "--warmup 3 --iters 10" ;;
    torchholdout25) # session 25: PyTorch training on one GPU at batches no run had measured (TORCHHOLDOUT25_CONFIGS,
        # chosen before the call by a rule), the call's own eager costs first, predicted in the call
        torch_one "$TORCHHOLDOUT25_CONFIGS" torchholdout25 ;;
    exchangecheck) # session 25: after exchange.c took its pieces from ps.c's cm_ps_plan: jobs this session measured
        # before the change on the same kind of host (h200x2/psredo/graph), one and two parts (FP32; FP16 with
        # batch norm's FP32) on one and two servers, an NCCL job, and the loss falling through NCCL and both PS
        need_gpus 2 || return
        mpi_setup
        local RES=$BUILD/results/exchangecheck
        rm -rf "$RES"
        mkdir -p "$RES"
        GPUS=2 CONV_API=graph multi_runs "
resnet50 64 fp16 ps1
resnet50 64 fp32 ps2
vgg16 64 fp16 ps2
googlenet 64 fp32 ps1
resnet50 64 fp32 nccl"
        local c
        for c in "nccl 2" "ps 3" "ps 4 --ps-servers 2"; do
            set -- $c
            say "check-loss: lenet5 --comm $1 (${*:2})"
            # shellcheck disable=SC2086
            timeout 120 "${MPIRUN[@]}" -np $2 "$MEASURE" --network lenet5 --batch 16 --check-loss 30 --comm $1 \
                ${*:3} </dev/null >"$RES/check-loss-$1-np$2.log" 2>&1 || fail "check-loss $c"
            grep -E '^cnnperf-measure: (loss|.*skipped|.*rank [0-9])' "$RES/check-loss-$1-np$2.log" | head -3
        done
        bundle ;;
    holdout25) # session 25: 2-GPU jobs no call had run (HOLDOUT25_CONFIGS, chosen before the call; graph API),
        # predicted in the call: the host's NCCL all-reduce and MPI sweeps of 2 ranks and its whole PS exchange
        # (ps_host) first, in results/holdout25 (emptied first)
        local RES
        gpus_host holdout25 || return
        GPUS=2 CONV_API=graph multi_runs "$HOLDOUT25_CONFIGS"
        predict_in_call "$RES"/measure-*.json "$RES"/calibrated-nccl-2gpu-raw.json ;;
    psredo_h200x4) # session 24: the same for the 4 x H200 folders (quad, quad2, holdout23; one job on 3 GPUs)
        need_gpus 4 || return
        ps_redo "$1" graph 4 "$PSREDO_H200X4" "$PSREDO_H200X3" ;;
    psbench3) # session 23: psbench's six jobs again (all 8-29% short on 2 x H100 in session 16) with the servers'
        # buckets split and their loop in dynamic blocks, predicted in the call
        psholdout "$PSBENCH_CONFIGS"
        predict_in_call ;;
    psbucket) # session 23: PS jobs after the servers' shards changed from contiguous to every bucket split over
        # them (measure/ps.h), configurations measured before with contiguous shards, chosen before the call
        CONV_API=graph psholdout "
resnet50 64 fp32 ps2
resnet50 64 fp32 ps1
resnet50 128 fp32 ps2
vgg16 32 fp32 ps2
vgg16 64 fp16 ps2
resnet34 96 fp32 ps2"
        predict_in_call "$RES"/measure-*.json "$RES"/host-mpi-raw.json "$RES"/psbench.json ;;
    ringsize2) # session 23: the ring sweeps again on another machine, with 3- and 4-GPU jobs chosen before the
        # call, predicted in it by the model fitted on ringsize's 4 x H200 sweep
        RING_JOBS3="
resnet50 64 fp16 nccl
vgg16 32 fp32 nccl" RING_JOBS4="
resnet50 64 fp32 nccl
googlenet 64 fp16 nccl
vgg16 64 fp16 nccl
resnet152 32 fp16 nccl" run_mode ringsize ;;
    ringsize) # session 23: how an NCCL ring's link changes with its length: all-reduce, send/receive,
        # all-gather and reduce-scatter sweeps on 2, 3 and 4 GPUs of one host (NCCL's tuner table for
        # each), then 3-GPU jobs chosen before the call, predicted in it
        need_gpus 4 || return
        mpi_setup
        local np
        for np in 2 3 4; do
            say "calibrate --only nccl, $np ranks, with NCCL's tuner table"
            NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING timeout 150 "${MPIRUN[@]}" -np "$np" -x LD_LIBRARY_PATH \
                -x NCCL_DEBUG -x NCCL_DEBUG_SUBSYS "$BUILD/measure/cnnperf-calibrate" --only nccl \
                --raw "$RES/calibrated-nccl-${np}gpu-raw.json" </dev/null >"$RES/calibrate-${np}gpu-tuning.log" 2>&1 ||
                fail "calibrate nccl, $np ranks"
            grep -E 'cnnperf-calibrate.*256 MiB' "$RES/calibrate-${np}gpu-tuning.log"
        done
        if [ -n "${RING_JOBS3:-}${RING_JOBS4:-}" ]; then # MODE=ringsize2: the jobs the caller chose
            [ -z "${RING_JOBS3:-}" ] || GPUS=3 CONV_API=graph multi_runs "$RING_JOBS3"
            [ -z "${RING_JOBS4:-}" ] || GPUS=4 CONV_API=graph multi_runs "$RING_JOBS4"
        else
            GPUS=3 CONV_API=graph multi_runs "
resnet50 64 fp32 nccl
vgg16 32 fp16 nccl
googlenet 64 fp32 nccl
resnet101 32 fp32 nccl"
        fi
        predict_in_call "$RES"/measure-*.json "$RES"/calibrated-nccl-*gpu-raw.json ;;
    quad) # session 22: four GPUs of one host, configurations chosen before the call, through the graph API
        quad_calibrate || return
        GPUS=4 CONV_API=graph multi_runs "
resnet50 64 fp32 nccl
resnet50 64 fp16 nccl
vgg16 32 fp32 nccl
googlenet 64 fp32 nccl
resnet101 32 fp16 nccl
alexnet 128 fp32 nccl
resnet50 64 fp32 ps1
googlenet 64 fp32 ps1"
        quad_predict ;;
    ddpoverhead) # session 22: DDP's own host costs (torch_bench --ddp-overhead) measured first, then the
        # calibration-set DDP jobs, then three evaluation ones chosen before the call
        need_gpus 2 || return
        mkdir -p "$RES/ddp"
        say "torchrun torch_bench.py --ddp-overhead"
        NCCL_DEBUG=WARN timeout 240 torchrun --standalone --nproc-per-node 2 tools/torch_bench.py --ddp-overhead \
            -o "$RES/ddp/ddp-overhead-$DEV.json" </dev/null 2>&1 | grep -E '^torch_bench' || fail "ddp overhead"
        ddp "$DDP_CALIB_CONFIGS
--network resnet34 --batch 64 --precision fp32,fp16
--network googlenet --batch 96 --precision fp32" ;;
    torchacc) torch_one "$TORCHACC_CONFIGS" torchacc ;;
    torchhost) torch_one "$TORCHHOST_CONFIGS" torchhost ;;
    legacyholdout) # session 22: legacy-API configurations no call had run, chosen before the call, predicted in it
        # with the host's pacing (devices' legacy_host)
        CONV_API=legacy single "
resnet50 48 fp16
resnet101 64 fp16
resnet34 48 fp16
googlenet 48 fp16
resnet152 40 fp16
googlenet 96 fp32
alexnet 96 fp16
vgg16 48 fp16
resnet50 96 fp32
resnet101 40 fp32" "--warmup 3 --iters 10"
        predict_in_call ;;
    hostcalib) # session 22: the calibration-set legacy-API runs of validation/h100/host-profile/ on this GPU's host,
        # so that its legacy calls' host cost has its own calibration (host_us per pass, --host-profile's default)
        CONV_API=legacy single "
densenet121 32 fp16
densenet121 32 fp32
densenet121 32 tf32
inception_v3 32 fp16
inception_v3 32 fp32
mobilenet_v2 32 fp16
mobilenet_v2 32 fp32
mobilenet_v2 32 tf32
resnet18 128 fp16
resnet18 32 bf16
resnet18 32 fp16
resnet18 32 fp32
resnet18 32 tf32
squeezenet1_1 32 fp16
squeezenet1_1 32 fp32
vgg11 32 fp16
vgg11 32 fp32" "--warmup 3 --iters 10" ;;
    opcounts) # session 22: the ATen operators of one PyTorch step per network, to check eager mode's structure
        mkdir -p "$RES/opcounts"
        timeout 300 python3 tools/torch_bench.py --op-counts \
            --network densenet121,googlenet,resnet50,inception_v3,squeezenet1_1,mobilenet_v2,vgg16 \
            -o "$RES/opcounts/op-counts-$DEV.json" </dev/null || fail "op counts"
        bundle ;;
    torchhost2)
        torch_one "$TORCHHOST2_CONFIGS" torchhost2
        mkdir -p "$RES/torchhost2/repeat"
        timeout 200 python3 tools/torch_bench.py --eager-overhead -o "$RES/torchhost2/repeat/eager-overhead-$DEV.json" \
            </dev/null || fail "eager overhead again"
        bundle ;;
    overlapprofile) # a calibrated profile with the co-execution rates, used by predict
        need_gpus 2 || return
        mpi_setup
        say "calibrate --only overlap -o calibrated-overlap.json"
        timeout 200 "${MPIRUN[@]}" -np 2 "$BUILD/measure/cnnperf-calibrate" --only overlap \
            -o "$RES/calibrated-overlap.json" </dev/null 2>&1 | grep -v 'NCCL INFO' | grep -E 'co-execution|nccl_overlap' ||
            fail "calibrate overlap -o"
        grep nccl_overlap -A3 "$RES/calibrated-overlap.json" || fail "no nccl_overlap in the profile"
        "$PREDICT" predict --network resnet50 --device "$RES/calibrated-overlap.json" --gpus 2 --comm nccl --explain \
            </dev/null | grep -E 'backward \+ exchange' || fail "predict with the calibrated profile"
        bundle ;;
    netemu2) netemu "$NETEMU2_CONFIGS" ;;
    multiall) # MODE=multi2's and MODE=multi's runs again, this host's MPI link and PS servers' pass measured first
        psholdout "$MULTI2_CONFIGS"
        multi ;;
    campaign) campaign ;;
    campaign2) campaign2 ;;
    calibset) # the calibration-set networks on this GPU (a device's own fit), then evaluation runs
        single "$CAMPAIGN_CALIB$CAMPAIGN_CALIB_TF32" "--warmup 3 --iters 10"
        single "$CAMPAIGN_EVAL" "--warmup 3 --iters 10" ;;
    repeat) # the same configurations in separate processes: the run-to-run spread
        single "
resnet50 64 fp16 r1
resnet50 64 fp16 r2
resnet50 64 fp16 r3
googlenet 32 fp16 r1
googlenet 32 fp16 r2
googlenet 32 fp16 r3
vgg16 64 fp32 r1
vgg16 64 fp32 r2
vgg16 64 fp32 r3
resnet50 64 fp32 r1
resnet50 64 fp32 r2
resnet50 64 fp32 r3" "--warmup 3 --iters 10" ;;
    p2p) # the GPU link as a copy sees it (two GPUs in one process)
        say "calibrate --only p2p"
        timeout 200 "$BUILD/measure/cnnperf-calibrate" --only p2p --raw "$RES/calibrated-p2p-raw.json" </dev/null 2>&1 |
            tail -40 || fail "calibrate p2p"
        bundle ;;
    parity) # issue 4's side-by-side: cnnperf-measure and PyTorch timing every cuDNN engine (benchmark_limit 0)
        parity torch-limit0 --benchmark-limit 0 ;;
    parity_cudnn) # the side-by-side with cnnperf-measure built against PyTorch's own cuDNN
        use_torch_cudnn || return
        parity torch ;;
    cudnn919) # the calibration set and the evaluation configurations on PyTorch's cuDNN
        use_torch_cudnn || return
        single "$CAMPAIGN_CALIB$CAMPAIGN_CALIB_TF32
resnet18 64 bf16" "--warmup 3 --iters 10"
        single "$CAMPAIGN_EVAL" "--warmup 3 --iters 10" ;;
    nccl) # the NCCL all-reduce and send/receive sweeps and MPI ping-pong, 2 ranks, then the speed figures
        need_gpus 2 || return
        MPIRUN=(mpirun)
        mpirun --version 2>&1 | grep -q 'Open MPI' && MPIRUN+=(--allow-run-as-root --bind-to none)
        nvidia-smi topo -m 2>/dev/null | head -4
        say "calibrate: NCCL all-reduce, NCCL send/receive and MPI ping-pong sweeps, 2 ranks"
        NCCL_NVLS_ENABLE=0 timeout 200 "${MPIRUN[@]}" -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE=0 \
            "$BUILD/measure/cnnperf-calibrate" --only nccl,mpi --raw "$RES/calibrated-nccl-2gpu-raw.json" </dev/null 2>&1 |
            grep -v 'NCCL INFO' | tail -70 || fail "calibrate nccl,mpi"
        say "cnnperf-bench (lscpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1))"
        for i in 1 2 3; do "$BUILD/cnnperf-bench" "$PREDICT" </dev/null 2>&1 | tee -a "$RES/bench.txt"; done
        bundle ;;
    nccltune) # NCCL's own tuner on this machine: the latency/bandwidth table it prints at start-up and the
        # algorithm and protocol it picks per size (NCCL_DEBUG_SUBSYS=TUNING), then the all-reduce sweep
        # with each protocol forced on the ring, and the tree: diagnostics of the protocol model beside
        # the default sweeps (validate keeps forced sweeps out of the target)
        need_gpus 2 || return
        mpi_setup
        mkdir -p "$RES/nccl-protocols"
        say "calibrate --only nccl with NCCL's tuning log"
        NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING,ENV timeout 200 "${MPIRUN[@]}" -np 2 -x NCCL_DEBUG -x NCCL_DEBUG_SUBSYS \
            "$BUILD/measure/cnnperf-calibrate" --only nccl --raw "$RES/nccl-protocols/tuning-log-raw.json" \
            </dev/null >"$RES/nccl-protocols/nccl-tuning.log" 2>&1 || fail "calibrate nccl (tuning log)"
        grep -E 'Latency/AlgBw|NThreads|AllReduce \||coll channels|threadThresholds' "$RES/nccl-protocols/nccl-tuning.log" | head -20
        grep -E 'AllReduce: [0-9]+ Bytes' "$RES/nccl-protocols/nccl-tuning.log" | sed 's/^.*AllReduce:/AllReduce:/' | sort -u -t' ' -k2,2n | head -60
        local algo proto
        for ap in Ring/LL Ring/LL128 Ring/Simple Tree/LL Tree/LL128 Tree/Simple; do
            algo=${ap%/*} proto=${ap#*/}
            [ $(($(date +%s) - START)) -lt "$DEADLINE" ] || { fail "forced $ap skipped: past the deadline"; continue; }
            say "calibrate --only nccl, NCCL_ALGO=$algo NCCL_PROTO=$proto"
            NCCL_ALGO=$algo NCCL_PROTO=$proto timeout 200 "${MPIRUN[@]}" -np 2 -x NCCL_ALGO -x NCCL_PROTO \
                "$BUILD/measure/cnnperf-calibrate" --only nccl --min-bytes 65536 \
                --raw "$RES/nccl-protocols/forced-${algo,,}-${proto,,}-raw.json" </dev/null 2>&1 |
                grep -v 'NCCL INFO' | grep -E '^ +[0-9]+ ' | head -40 || fail "calibrate nccl $ap"
        done
        bundle ;;
    ncclholdout) # NCCL all-reduce at sizes no sweep had measured (x1.5 from 1.5 MiB), then the usual
        # powers of two again, each predicted in the call by the commit measured (cnnperf validate)
        need_gpus 2 || return
        mpi_setup
        local sweep
        for sweep in "holdout-x1.5 --min-bytes 1572864 --step 1.5" "repeat-x2 --min-bytes 1048576 --step 2"; do
            set -- $sweep
            local dir=$RES/nccl-$1
            shift
            mkdir -p "$dir"
            say "calibrate --only nccl $*"
            timeout 200 "${MPIRUN[@]}" -np 2 "$BUILD/measure/cnnperf-calibrate" --only nccl "$@" \
                --raw "$dir/calibrated-nccl-2gpu-raw.json" </dev/null 2>&1 | grep -v 'NCCL INFO' | grep -E '^ +[0-9]+ ' |
                head -20 || fail "calibrate nccl $*"
            "$PREDICT" validate --measured "$dir/calibrated-nccl-2gpu-raw.json" --format json \
                -o "$dir/predicted-in-call.json" </dev/null || fail "validate $dir"
            python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for a in d["nccl_allreduce"]: print("%12d %10.1f %10.1f %+7.1f%%" % (a["bytes"], a["measured_us"], a["predicted_us"], a["error_pct"]))
print(d["targets"][4]["target"], round(d["targets"][4]["value"], 2), "over", d["targets"][4]["n"])' "$dir/predicted-in-call.json"
        done
        bundle ;;
    bench) # the speed figures of README.md on this machine's CPU
        say "cnnperf-bench (lscpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1))"
        for i in 1 2 3; do "$BUILD/cnnperf-bench" "$PREDICT" </dev/null 2>&1 | tee -a "$RES/bench.txt"; done
        bundle ;;
    holdout) # shipped networks never measured before: a fresh out-of-sample test of the model
        single "
vgg19 64 fp32
resnet34 64 fp32
resnet101 32 fp32
vgg19 64 fp16
resnet34 64 fp16
resnet101 32 fp16
resnet152 32 fp32
resnet152 32 fp16" "--warmup 3 --iters 10" ;;
    graphcalib) # the calibration set launched as CUDA graphs: the GPU's time alone, for a host-free calibration
        single "$(printf '%s\n' "$CAMPAIGN_CALIB" "$CAMPAIGN_CALIB_TF32" | awk 'NF {print $0, "graph"}')" \
            "--warmup 3 --iters 10" ;;
    holdout2) # configurations no run had measured, predicted by the commit measured (session 11)
        single "
resnet34 32 fp32
resnet34 32 fp16
resnet101 64 fp32
resnet101 64 fp16
resnet152 64 fp16
vgg19 32 fp32
vgg19 32 fp16
alexnet 128 fp32
alexnet 128 fp16
googlenet 64 fp32
googlenet 64 fp16
resnet50 96 fp32
resnet50 96 fp16
vgg16 96 fp16
lenet5 128 fp32
resnet34 128 bf16" "--warmup 3 --iters 10" ;;
    bias) # after the change of the bias gradient: the campaigns' networks with convolution biases, then PyTorch
        single "$(printf '%s\n' "$CAMPAIGN_EVAL" "$CAMPAIGN_CALIB" "$CAMPAIGN_CALIB_TF32" | grep -E '^(vgg|alexnet|lenet|squeezenet)')" \
            "--warmup 3 --iters 10"
        single "
vgg19 64 fp32
vgg19 64 fp16" "--warmup 3 --iters 10"
        parity torch ;;
    ncu1x1) # session 36: which kernels the graph API's engines run for the calibration set's 16-bit convolutions
        # (engines 58/62 forward, 63/67 data gradient, 62/65 weight gradient on 1x1 layers: the largest class of
        # layer-pass error, by engine), at the batches of its measured runs; names and GPU times only, and each
        # run's engine choice beside its CSV
        ncu_engines 200 "
densenet121 64 fp16
inception_v3 64 fp16" ;;
    ncutf32) # session 59, for a later rule: which kernels the graph API's engines run for TF32 1x1 convolutions
        # on planes that are no whole number of 16-byte vectors (SqueezeNet's 55x55 and 27x27, Inception-v3's 35x35
        # and 17x17): PyTorch's cuDNN 9.19 runs them as GEMMs on NCHW with no transposes (torchtf32cal's traces),
        # the model transposes them and its TF32 conv_1x1 terms were fitted on cnnperf-measure's cuDNN; names,
        # grids and GPU times, each run's engine choice beside its CSV. Session 60 added the TF32 fits' own
        # configurations (DenseNet-121's 7x7 1x1 layers come out 0.71-0.82 of the model, its 14x14 transition
        # 1.6-2.3x: engines 67/71/68) and the legacy API's algorithms on two of them
        ncu_engines 200 "
squeezenet1_1 128 tf32
inception_v3 64 tf32
densenet121 64 tf32
mobilenet_v2 64 tf32
resnet18 64 tf32
vgg11 64 tf32"
        ncu_engines 200 "
densenet121 64 tf32
inception_v3 64 tf32" legacy ;;
    ncu73) # session 73, for session 72's layer-pass lead: which kernels the legacy API runs for the calibration
        # set's 16-bit convolutions (the 3x3 passes read long and the 1x1 ones short on the H100, while the
        # same shape times alike in every network), so the legacy FP16 decomposition can be fitted on kernels
        # rather than bent by class scales; names, grids and GPU times, each run's algorithm choice beside its
        # CSV, ResNet-18 first (3x3 only), then DenseNet-121 and Inception-v3 (1x1 beside 3x3 and kxk)
        ncu_engines 180 "
resnet18 64 fp16
densenet121 64 fp16
inception_v3 64 fp16" legacy ;;
    ncu52) # session 52: the kernels behind DenseNet-121 b64 FP32's graph-API engines (the narrow 3x3 weight
        # gradients rules 27-28 could not fit: FFT engine 18 on 56x56 and 28x28, Winograd on 7x7 and 14x14),
        # names, grids and GPU times, each run's engine choice beside its CSV
        ncu_engines 220 "
densenet121 64 fp32" ;;
    ncu) # every kernel of one timed iteration under Nsight Compute (ncu_profile above), then
         # PyTorch's cuDNN batch norm through torch.profiler (needs no hardware counters, should ncu lack them)
        ncu_profile
        kernel_trace ;;
    tf32cal60) # session 60: rule 41's TF32 training runs, then its judging runs
        holdout_runs tf32cal60 "$TF32CAL60_TRAIN" "" legacy
        holdout_runs tf32judge60 "$TF32JUDGE60" "" legacy ;;
    kcheck) # session 60: cnnperf-measure's bf16 dropout kernels checked element by element (measure/kernel_check.c)
        "$MEASURE" --check-dropout 2>&1 | tee "$RES/check-dropout.log"
        [ "${PIPESTATUS[0]}" = 0 ] || fail "check-dropout" ;;
    kernels) # the kernels cuDNN runs for batch normalisation, from the CUDA profiler (tools/kernel_trace.py)
        kernel_trace ;;
    torchtrace) # every kernel of PyTorch training iterations of calibration-set networks (eager mode's algorithms)
        net_trace "$RES" kernels-torch-networks kernel-trace-networks 400 vgg11,resnet18,mobilenet_v2 32 fp32,fp16
        tail -20 "$RES/kernel-trace-networks-$DEV.log"
        bundle ;;
    kernels_bias) # both of the above in one call
        kernel_trace
        run_mode bias ;;
    graph) # --launch graph (the GPU alone) beside the usual stream launch, where the host may set the pace
        single "$GRAPH_PAIRS" "--warmup 3 --iters 10" ;;
    oldharness) # the subfolders of validation/h100/ measured before commit 8647483 (convolution algorithms
        # by cudnnFind's host-timed pick, bias gradients by cuDNN's per-channel kernel), again with today's
        # harness on the machine's cuDNN: holdout, host-check (its own iteration counts), graph, parity.
        # Each group into its own results/ folder, since their configurations overlap.
        group holdout "
resnet34 64 fp32
resnet101 32 fp32
resnet34 64 fp16
resnet101 32 fp16
resnet152 32 fp32
resnet152 32 fp16" "--warmup 3 --iters 10"
        group host-check "$CONFIGS" "--warmup 5 --iters 20"
        group graph "$GRAPH_PAIRS" "--warmup 3 --iters 10"
        group parity "$PARITY_CONFIGS" "--warmup 3 --iters 10" ;;
    oldharness919) # the same for the cuDNN 9.19 subfolders: MODE=cudnn919's list, then the parity configurations
        use_torch_cudnn || return
        group cudnn919 "$CAMPAIGN_CALIB$CAMPAIGN_CALIB_TF32
resnet18 64 bf16" "--warmup 3 --iters 10"
        group cudnn919 "$CAMPAIGN_EVAL" "--warmup 3 --iters 10"
        group parity-cudnn919 "$PARITY_CONFIGS" "--warmup 3 --iters 10" ;;
    isolated) # --layers isolated beside the in-iteration layer times
        single "
alexnet 256 fp32 isolated
resnet50 64 fp32 isolated
resnet50 64 fp16 isolated
googlenet 32 fp16 isolated
vgg16 64 fp32 isolated" "--warmup 3 --iters 5" ;;
    retime) # after a change of how algorithms are chosen: the campaign again, then the PyTorch side-by-side
        remeasure
        parity torch ;;
    remeasure) remeasure ;;
    graphapi) parity_graph_api ;; # the side by side with the graph API's convolutions (above)
    graphapi_calib919) # session 25: graphapi_calib's runs on the cuDNN PyTorch ships (the library its runs use;
        # 9.19 against the machine's 9.14, which ran 16-bit ResNets 19-25% slower), 16-bit first, for
        # calibration/<dev>-torch.json, eager mode's
        use_torch_cudnn || return
        single "$(printf '%s\n' "$CAMPAIGN_CALIB" "$CAMPAIGN_CALIB_TF32" | awk 'NF {print $1, $2, $3, "graphapi"}' |
            sort -s -k3,3)" "--warmup 3 --iters 10" ;;
    graphapi_calib) # the calibration set with convolutions on cuDNN's graph API (PyTorch's path), for
        # calibration/<dev>-graph.json
        single "$(printf '%s\n' "$CAMPAIGN_CALIB" "$CAMPAIGN_CALIB_TF32" | awk 'NF {print $1, $2, $3, "graphapi"}')" \
            "--warmup 3 --iters 10" ;;
    list) # CONFIGS_LIST="net batch prec [extra];...": those configurations only (e.g. what a cut-off call left)
        single "${CONFIGS_LIST//;/$'\n'}" "--warmup 3 --iters 10" ;;
    graphapi_eval) # the evaluation configurations with convolutions on cuDNN's graph API
        single "$(printf '%s\n' "$CAMPAIGN_EVAL" | awk 'NF {print $1, $2, $3, "graphapi"}')" "--warmup 3 --iters 10" ;;
    wsbench) # session 26: FP32 3x3 layers (shapes of our choosing, in no shipped network) whose Winograd tiles
        # exceed cnnperf-measure's 8 GiB workspace, and one whose tiles fit, through the graph API, each pass alone
        # and then under Nsight Compute: which engine cuDNN runs for the weight gradient instead of Winograd
        LAYERBENCH_CONV3X3="
48 80 200 240
96 96 160 208
56 56 240 160
80 112 120 256" LAYERBENCH_ONLY=conv3x3_ LAYERBENCH_PRECS=fp32 LAYERBENCH_NCU=1 CONV_API=graph layerbench ;;
    wsncu) # session 26: wsbench's three layers whose Winograd tiles exceed the workspace, under Nsight Compute with
        # only the weight-gradient kernels profiled (wsbench's whole iterations ran past ncu's limit in FFT's replays)
        local dir=$RES/layerbench-nets bn='{"name": "bn", "kind": "batchnorm"}'
        mkdir -p "$dir"
        bench_convs conv3x3 3 "
48 80 200 240
96 96 160 208
56 56 240 160"
        NCU_CONFIGS=$(awk -v d="$dir" '{print d "/" $1 ".json", $2, "fp32"}' "$dir/list") \
            NCU_FILTER="--kernel-name regex:wgrad --launch-count 2" NCU_TIMEOUT=140 ncu_profile ;;
    groupbench) # session 27: grouped convolutions that are not depthwise (3 to 24 channels a group, as ResNeXt and
        # RegNet have) and 5x5 depthwise ones, shapes of our choosing in no shipped network; the calibration set's
        # only grouped layers are MobileNet-v2's 3x3 depthwise ones. Each pass alone through the graph API, then the
        # kernels of one of them under Nsight Compute
        LAYERBENCH_GROUPED="
192 192 3 1 32 40 64
384 384 3 1 32 20 64
768 768 3 1 32 10 64
96 96 3 1 32 80 32
192 192 3 1 8 40 64
384 384 3 2 16 40 64
576 576 3 1 64 14 128
240 240 5 1 240 28 64
480 480 5 2 480 28 64" LAYERBENCH_ONLY=grouped_ LAYERBENCH_PRECS="fp32 fp16" CONV_API=graph layerbench
        local dir=$RES/layerbench-nets
        NCU_CONFIGS=$(grep -E '^grouped_c192_g32' "$dir/list" |
            awk -v d="$dir" '{for (p = 0; p < 2; p++) print d "/" $1 ".json", $2, p ? "fp16" : "fp32"}') \
            NCU_TIMEOUT=100 ncu_profile ;;
    strided34) # session 34: the strided layers of LAYERBENCH_STRIDED through both APIs in fp32, fp16 and tf32,
        # stream-timed as the small first layers were, for a conv_strided class (tried, not kept:
        # validation/README.md, layerbench-h100 "Strided convolutions")
        local base=$RES api
        for api in legacy graph; do
            RES=$base/strided34-$api
            mkdir -p "$RES"
            CONV_API=$api LAYERBENCH_ONLY=strided_ LAYERBENCH_PRECS="fp32 fp16 tf32" LAYERBENCH_LAYERS=stream layerbench
        done
        RES=$base ;;
    layerbench) layerbench ;; # one-layer microbenchmarks (layerbench above); main() has set DEV
    single) single ;;
    *) drawn_holdout "$1" ;; # every drawn holdout, one GPU or several, and its later rests (main() has checked its lists, mode_route)
    esac
}

# --check-mode: say how each MODE would run, without building or measuring anything (exit 2 if one is unknown)
if [ "${1:-}" = --check-mode ]; then
    rc=0
    for m in ${MODE//,/ }; do
        if route=$(mode_route "$m"); then echo "run_device: MODE=$m: $route"; else echo "run_device: MODE=$m: no such mode" >&2; rc=2; fi
    done
    exit "$rc"
fi

main 2>&1 | tee "$OUT/run.log"
status=${PIPESTATUS[0]}
grep -q 'FAILED:' "$OUT/run.log" && status=1
bundle || echo "[run_device] no results to bundle"
echo "[run_device] done in $(($(date +%s) - START)) s, status $status; $OUT: $(ls "$OUT" | tr '\n' ' ')"
exit "$status"
