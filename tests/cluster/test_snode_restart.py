"""kill -9 of snodes during a continuous insert load (issue 6, Checkpoints): the output tables
and the notifications end exactly as a run that never stopped would make them.

A real cluster (mnode, 2 vnodes, 2 snodes, a WebSocket receiver in the test) runs four
streams - INTERVAL, COUNT_WINDOW, STATE_WINDOW and SESSION, PARTITION BY tbname, NOTIFY ON
WINDOW_CLOSE - while a loader thread inserts rows. During the load one snode is killed with
SIGKILL and restarted at once (it resumes from its own checkpoints: its slots never moved),
later the other one is killed and restarted only after its slots moved to the survivor
(which restores them from the checkpoints and replays the change log; the restarted snode
takes them back). The expected rows and events come from the reference implementation of
the window rules in reference.py (spec/semantics.md rules 3, 4, 6, 7, 8, 10), not from the
engine: every closed window has exactly one output row with the right count and sum, and
every closed window is notified (after de-duplicating by triggerId; repeats of a triggerId
carry the same window and result).
"""
import signal
import time

from conftest import free_port
from helpers import (NODE_TIMEOUT_MS, busiest_snode, make_db, ready_marks, receiving, running,
                     stream_cluster, wait_ready)
from reference import (Load, Loader, StreamDef, check_events, check_outputs, closed_ref,
                       count_windows, create_stream_set, interval_ref, session_windows,
                       state_windows)

STEPS = 240          # data seconds 0 .. STEPS-1 (a row per table and second, minus gaps)

STREAMS = [
    StreamDef("s_int", "INTERVAL(10s) SLIDING(10s)", "tbname", interval_ref(10, 10)),
    StreamDef("s_cnt", "COUNT_WINDOW(5)", "tbname", closed_ref(lambda r: count_windows(r, 5))),
    StreamDef("s_st", "STATE_WINDOW(st)", "tbname", closed_ref(state_windows)),
    StreamDef("s_ses", "SESSION(ts, 3s)", "tbname",
              closed_ref(lambda r: session_windows(r, 3))),
]


def test_kill_snodes_during_load_same_output_and_events(bin_dir, tmp_path):
    port = free_port()
    url = f"ws://127.0.0.1:{port}/r"
    with receiving(port) as recv, running(stream_cluster(bin_dir, tmp_path)) as (c, sql):
        db = "r_load"
        # One final row per table 100 s after the load closes what can close.
        load = Load(ntables=8, final_gap=101)
        make_db(sql, db, load.ddl())
        create_stream_set(c, sql, db, url, STREAMS)

        # The loader: 4 seconds of every table per INSERT, in time order, ~5 a second.
        loader = Loader(sql, db, load, per_call=4, pause=0.1, max_steps=STEPS)
        loader.start()

        # 1. kill -9 during the load, restarted at once: the slots never move (the node
        #    timeout has not passed); the snode resumes from its own checkpoints.
        loader.wait_loaded(STEPS // 4)
        vi, node = busiest_snode(c, sql)
        assert int(node["groups"]) > 0
        since = ready_marks(c, db, "s_int")
        c.kill(f"snode{vi}", signal.SIGKILL)
        assert loader.done < STEPS, "the load ended before the first kill"
        time.sleep(0.5)
        c.start_snode(vi)
        wait_ready(c, sql, db, "s_int", {vi: since[vi]}, timeout=NODE_TIMEOUT_MS / 1000 + 20)
        # 2. kill -9 the other one and leave it dead past the node timeout: its slots move
        #    to the survivor; then it restarts and takes them back.
        loader.wait_loaded(STEPS * 3 // 5)
        other = 1 - vi
        since = ready_marks(c, db, "s_int")
        c.kill(f"snode{other}", signal.SIGKILL)
        assert loader.done < STEPS, "the load ended before the second kill"
        wait_ready(c, sql, db, "s_int", {vi: since[vi]}, timeout=NODE_TIMEOUT_MS / 1000 + 20)
        since = ready_marks(c, db, "s_int")
        c.start_snode(other)
        wait_ready(c, sql, db, "s_int", {other: since[other]}, timeout=20)
        loader.wait_loaded(STEPS)
        upto = loader.finish()
        assert upto == STEPS

        # Output tables: exactly the reference rows (one per closed window with rows).
        check_outputs(sql, db, load, upto, STREAMS, timeout=90)
        # Notifications: every closed window once after de-duplication by triggerId, the
        # repeats equal; results equal the output rows.
        check_events(recv, sql, db, load, upto, STREAMS, timeout=60)
