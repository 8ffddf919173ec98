# validate_end_to_end.cmake: `cnnperf validate` on the synthetic runs of
# tests/data/validate/good (single- and multi-GPU, emulated nodes, PS and
# NCCL, a PyTorch run, an NCCL sweep, a calibration-set run, files to
# skip), in every format, keeping a document's hand-written part, writing
# and checking a baseline, and, where gnuplot is installed, the plots.
#
#   cmake -DCMD=cnnperf -DDATA=tests/data/validate -DWORK=dir [-DGNUPLOT=path] -P validate_end_to_end.cmake

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(good "${DATA}/good/**/*.json")
set(marker "<!-- hand-written below: kept by the generator -->")

# run(rc_var out_var args...): runs cnnperf, stdout into out_var.
function(run rc_var out_var)
  execute_process(COMMAND ${CMD} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  set(${rc_var} "${rc}" PARENT_SCOPE)
  set(${out_var} "${out}" PARENT_SCOPE)
  if(err AND rc EQUAL 0)
    message(FATAL_ERROR "cnnperf ${ARGN}: unexpected standard error:\n${err}")
  endif()
endfunction()

function(expect what text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: does not match '${regex}':\n${text}")
  endif()
endfunction()

# --eager-profile device: a PyTorch run takes the device profile's host costs, not its folder's
# torch_bench.py file: its predicted iteration is the one `cnnperf predict --mode eager` gives
run(rc out validate --eager-profile device --measured "${DATA}/eager/torch-lenet5-b64-fp32.json" --format json)
run(rc2 pred predict --network lenet5 --batch 64 --precision fp32 --mode eager --format json)
if(NOT rc EQUAL 0 OR NOT rc2 EQUAL 0)
  message(FATAL_ERROR "--eager-profile device: exit status ${rc}, predict ${rc2}\n${out}")
endif()
string(REGEX MATCH "\"iteration_ms\":[ \t]*([0-9.e+-]+)" m "${pred}")
set(want "${CMAKE_MATCH_1}")
string(REGEX MATCH "\"predicted_ms\":[ \t]*([0-9.e+-]+)" m "${out}")
if(want STREQUAL "" OR NOT CMAKE_MATCH_1 STREQUAL want)
  message(FATAL_ERROR "--eager-profile device: validate predicted '${CMAKE_MATCH_1}' ms, predict --mode eager '${want}'")
endif()
# ... and the host's range beside it is predict's, the run placed against it
foreach(end low high)
  string(REGEX MATCH "\"iteration_${end}_ms\":[ \t]*([0-9.e+-]+)" m "${pred}")
  set(want_${end} "${CMAKE_MATCH_1}")
  string(REGEX MATCH "\"host_range\":[ \t]*{[^}]*\"${end}_ms\":[ \t]*([0-9.e+-]+)" m "${out}")
  if(want_${end} STREQUAL "" OR NOT CMAKE_MATCH_1 STREQUAL want_${end})
    message(FATAL_ERROR "--eager-profile device: validate's host range ${end} '${CMAKE_MATCH_1}' ms, predict's '${want_${end}}'")
  endif()
endforeach()
expect("host range" "${out}" "\"measured\":[ \t]*\"(below|inside|above)\"")
run(rc out validate --measured "${DATA}/eager/torch-lenet5-b64-fp32.json" --format json)
string(REGEX MATCH "\"predicted_ms\":[ \t]*([0-9.e+-]+)" m "${out}")
if(CMAKE_MATCH_1 STREQUAL want)
  message(FATAL_ERROR "the folder's eager-overhead file: validate predicted what the device profile gives (${want} ms)")
endif()

# The table: every kind of input read, targets evaluated, files skipped with a note.
run(rc out validate --measured "${good}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "table: exit status ${rc}\n${out}")
endif()
expect(table "${out}" "multi-GPU iteration MAPE <= 5% +(met|NOT met) +[0-9.]+% 5 runs")
expect(table "${out}" "NCCL all-reduce MAPE <= 5% \\(1 MB-1 GB\\) +(met|NOT met) +[0-9.]+% 5 all-reduce sizes")
expect(table "${out}" "PS vs NCCL: .* [0-9]+ wrong 2 decisions")
expect(table "${out}" "vgg16 b32 fp32 2xh200, legacy API +300\\.000 +400\\.000 +[0-9.]+ +[0-9.]+ (right|wrong) +evaluation")
expect(table "${out}" "lenet5 b64 fp32 2xh200 nccl emulated +evaluation")
expect(table "${out}" "resnet18 b32 fp32 1xh200 +calibration")
# cnnperf-measure found the GPU waiting for the host: the note says so
expect(table "${out}" "lenet5 b64 fp32 1xh200 .*host-bound: enqueueing took 0\\.401 ms")
# the conv and fc passes again by the host's verdict: the host-bound run's apart from those with no host measured
expect(table "${out}" "conv and fc passes by host \\(evaluation set, passes measured >= 5 us\\):\n +host +passes +MAPE +worst\n +bound +14 +[0-9.]+% +[0-9.]+%\n +unknown +39 ")
# launched as a CUDA graph: shown, kept out of the targets
expect(table "${out}" "lenet5 b32 fp32 1xh200 +excluded .*launched as a CUDA graph")
expect(table "${out}" "lenet5 b64 fp32 1xh100 pytorch")
expect(table "${out}" "predict-lenet5\\.json \\(not a measurement \\(source 'prediction'\\)\\)")
expect(table "${out}" "nccl 2xh200 1 node \\[[a-z0-9_-]+\\] +2097152")

# Markdown into a document: the generated part replaced, the hand-written part kept (twice over).
set(doc "${WORK}/ACCURACY.md")
file(WRITE "${doc}" "# old generated text\n${marker}\n## Notes\n\nHAND-WRITTEN, KEEP ME\n")
foreach(round 1 2)
  run(rc out validate --measured "${good}" --format markdown -o "${doc}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "markdown round ${round}: exit status ${rc}")
  endif()
  file(READ "${doc}" text)
  expect("markdown round ${round}" "${text}" "^# Accuracy: predictions against measurements\n")
  expect("markdown round ${round}" "${text}" "\n## Targets \\(evaluation set\\)\n")
  expect("markdown round ${round}" "${text}" "\n${marker}\n## Notes\n\nHAND-WRITTEN, KEEP ME\n$")
  if(text MATCHES "old generated")
    message(FATAL_ERROR "markdown round ${round}: the old generated part is still there")
  endif()
endforeach()

# A document without the marker that cnnperf did not write is refused, untouched.
set(mine "${WORK}/mine.md")
file(WRITE "${mine}" "my own notes\n")
execute_process(COMMAND ${CMD} validate --measured "${good}" --format markdown -o "${mine}"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
file(READ "${mine}" text)
if(NOT rc EQUAL 2 OR NOT err MATCHES "mine\\.md: has no line '<!-- hand-written below" OR NOT text STREQUAL "my own notes\n")
  message(FATAL_ERROR "document without marker: exit ${rc}, stderr '${err}', file '${text}'")
endif()

# JSON and CSV.
run(rc out validate --measured "${good}" --format json)
expect(json "${out}" "\"schema\":[ \t]*\"cnnperf-validation/1\"")
expect(json "${out}" "\"key\":[ \t]*\"nccl_allreduce_mape\"")
expect(json "${out}" "\"backward_weight\":[ \t]*{")
expect(json "${out}" "\"host_enqueue_ms\":[ \t]*0\\.401,[ \t\n]*\"host_bound\":[ \t]*true")
run(rc out validate --measured "${good}" --format csv)
expect(csv "${out}" "^file,label,source,network,device,batch,precision,gpus,comm,")
expect(csv "${out}" ",exchange_measured_ms,exchange_predicted_ms,host_enqueue_ms,host_bound,host_enqueue_predicted_ms,memory_measured_mib,memory_predicted_mib,note\n")
expect(csv "${out}" ",,,0\\.401,1,,,,host-bound: enqueueing took 0\\.401 ms")
string(REGEX MATCHALL "\n" lines "${out}")
list(LENGTH lines n)
if(NOT n EQUAL 10) # the header and one row per run
  message(FATAL_ERROR "csv: ${n} lines, expected 10:\n${out}")
endif()

# A baseline written now passes its own check.
run(rc out validate --measured "${good}" --write-baseline "${WORK}/baseline.json" -o "${WORK}/table.txt")
run(rc out validate --measured "${good}" --baseline "${WORK}/baseline.json" --check)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "baseline check against itself: exit status ${rc}\n${out}")
endif()
expect(baseline "${out}" "one_gpu_iteration_mape +[0-9.]+% +[0-9.]+% ok")

# A baseline better than today's model: one line per regressed metric, status 1.
execute_process(COMMAND ${CMD} validate --measured "${good}" --baseline "${DATA}/baseline-mape.json" --check
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(want "^cnnperf: accuracy regression: one_gpu_iteration_mape: baseline 1\\.00%, now [0-9.]+%\n")
string(APPEND want "cnnperf: accuracy regression: one_gpu_iteration_worst: baseline 1\\.00%, now [0-9.]+%\n$")
if(NOT rc EQUAL 1 OR NOT err MATCHES "${want}")
  message(FATAL_ERROR "regression: exit status ${rc}, stderr:\n${err}")
endif()
expect("regression report" "${out}" "one_gpu_iteration_mape +1\\.00% +[0-9.]+% REGRESSED")
expect("regression report" "${out}" "new run, not in the baseline \\(reported, not checked\\): lenet5 b64 fp32 2xh200 nccl\n")

# Plots, where gnuplot is installed; no temporary file left behind.
if(GNUPLOT)
  run(rc out validate --measured "${good}" --plot "${WORK}/plot" --format markdown -o "${WORK}/plots.md")
  foreach(svg iterations scaling layers-lenet5-b64-fp32-1xh200)
    if(NOT EXISTS "${WORK}/plot-${svg}.svg")
      message(FATAL_ERROR "plot: ${WORK}/plot-${svg}.svg not written")
    endif()
    file(READ "${WORK}/plot-${svg}.svg" svgtext LIMIT 4096)
    expect("plot-${svg}.svg" "${svgtext}" "<svg")
  endforeach()
  file(READ "${WORK}/plots.md" text)
  expect(plots.md "${text}" "!\\[plot-iterations\\.svg\\]\\(plot-iterations\\.svg\\)")
  # FILE.png: the iterations plot is that file, the others named from it less its extension, all PNG
  run(rc out validate --measured "${good}" --plot "${WORK}/acc.png")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "plot acc.png: exit status ${rc}\n${out}")
  endif()
  expect(acc-table "${out}" "plots \\(gnuplot\\):\n  [^\n]*/acc\\.png\n")
  foreach(png acc.png acc-scaling.png acc-layers-lenet5-b64-fp32-1xh200.png)
    if(NOT EXISTS "${WORK}/${png}")
      message(FATAL_ERROR "plot: ${WORK}/${png} not written")
    endif()
    file(READ "${WORK}/${png}" magic LIMIT 4 HEX)
    expect("${png}" "${magic}" "^89504e47$")
  endforeach()
  # multi-GPU runs at one GPU count only: nothing to draw a curve through, an empty scaling plot that says so
  run(rc out validate --measured "${DATA}/good/h200x2/vgg16-b32-fp32-nccl.json" --plot "${WORK}/one.svg")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "plot one.svg: exit status ${rc}\n${out}")
  endif()
  file(READ "${WORK}/one-scaling.svg" svgtext)
  expect(one-scaling.svg "${svgtext}" "no configuration measured at two GPU counts or more")
  if(NOT EXISTS "${WORK}/one.svg")
    message(FATAL_ERROR "plot: ${WORK}/one.svg not written")
  endif()
  file(GLOB leftovers "${WORK}/*.tmp.*")
  if(leftovers)
    message(FATAL_ERROR "plot: temporary files left: ${leftovers}")
  endif()
endif()
message("validate end to end: ok")
