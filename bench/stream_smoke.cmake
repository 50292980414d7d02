# stream_smoke.cmake - the bench_stream_smoke test: runs `sluice-bench stream --quick`
# (cmake -DBENCH=path/to/sluice-bench -P stream_smoke.cmake) and checks that it exits 0 and
# prints every line of its report. Times and rates are never checked: they depend on the
# machine. The benchmark itself fails (exit 1) when an output table or the notifications
# differ from the counts the generated data must produce.
if(NOT BENCH)
  message(FATAL_ERROR "pass -DBENCH=<sluice-bench>")
endif()
execute_process(COMMAND "${BENCH}" stream --quick
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 170)
message("${out}")
if(NOT rc EQUAL 0)
  message("${err}")
  message(FATAL_ERROR "sluice-bench stream --quick exited with ${rc}")
endif()
foreach(line
    "ingest without streams: [0-9]+ rows/s"
    "ingest with streams: +[0-9]+ rows/s"
    "ingest with / without: +[0-9.]+ +\\(target >= 0.80: (met|MISSED)\\)"
    "results: every output table and the receiver hold exactly the expected rows"
    "stream processing: 10 streams x [0-9]+ rows"
    "trigger rows reported by the tasks"
    "all snodes: [0-9]+ rows in [0-9.]+ cpu-s"
    "memory: [0-9]+ groups"
    "result row visible \\(SELECT\\) +s_int_ll \\(LOW_LATENCY_CALC\\)"
    "notification received +s_int_ll \\(LOW_LATENCY_CALC\\)"
    "notification received +s_int_n \\(batched\\)"
    "result: ok")
  if(NOT out MATCHES "${line}")
    message("${err}")
    message(FATAL_ERROR "the report lacks a line matching: ${line}")
  endif()
endforeach()
