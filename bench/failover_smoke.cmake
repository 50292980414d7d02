# failover_smoke.cmake - the bench_failover_smoke test: runs `sluice-bench failover --kills 2
# --tables 20` (cmake -DBENCH=path/to/sluice-bench -P failover_smoke.cmake) and checks that it
# exits 0 and prints every line of its report. Times are never checked: they depend on the
# machine. The benchmark itself fails (exit 1) when an output table differs from the windows
# the generated data closes (a window missing, doubled or with a wrong row count), a slot
# never recovers or a daemon dies.
if(NOT BENCH)
  message(FATAL_ERROR "pass -DBENCH=<sluice-bench>")
endif()
execute_process(COMMAND "${BENCH}" failover --kills 2 --tables 20
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 140)
message("${out}")
if(NOT rc EQUAL 0)
  message("${err}")
  message(FATAL_ERROR "sluice-bench failover --kills 2 --tables 20 exited with ${rc}")
endif()
set(num "[0-9]+\\.[0-9][0-9]")
foreach(line
    "sluice-bench failover: 2 kills .* 20 child tables"
    "mnode node timeout 3000 ms"
    "detection  ins_snodes lists the killed snode as dead"
    "recovery   every \\(stream, slot range\\) row of ins_stream_tasks"
    "catch-up   N = rows every table holds when recovery is seen"
    "\n  1 +snode[0-9] +127\\.0\\.0\\.1:[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+->[0-9]+ +${num} +${num} +${num} +[0-9]+ +${num}\n"
    "\n  2 +snode[0-9] +127\\.0\\.0\\.1:[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+->[0-9]+ +${num} +${num} +${num} +[0-9]+ +${num}\n"
    "summary over 2 kills \\(node timeout 3000 ms"
    "detection +p50 +${num} s +max +${num} s"
    "recovery +p50 +${num} s +max +${num} s"
    "catch-up +p50 +${num} s +max +${num} s"
    "rejoin +p50 +${num} s +max +${num} s"
    "results: every output table holds exactly the windows the data closes"
    "result: ok")
  if(NOT out MATCHES "${line}")
    message("${err}")
    message(FATAL_ERROR "the report lacks a line matching: ${line}")
  endif()
endforeach()
