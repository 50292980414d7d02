"""Stream notifications end to end: a real cluster (mnode, 2 vnodes, 1 snode) and a
WebSocket receiver in this test.

The receiver is stopped for 30 s while windows keep closing: the events wait in the
snode's durable outbox (ins_stream_tasks.outbox shows them) and arrive once it is back;
after de-duplicating by triggerId every expected event is there exactly once, in window
order per group, with the result the spec's JSON format describes.
"""
import time

import pytest

from conftest import Cluster, free_port
from helpers import B as T0, Receiver, Sql, exec_rows, poll, wait_for

websockets = pytest.importorskip("websockets")


def wait_running(c, stream, timeout=20):
    """Until every task of the stream runs and reports (rows not NULL)."""
    def running():
        rows = exec_rows(c, "SELECT status, rows FROM information_schema.ins_stream_tasks "
                            f"WHERE stream_name = '{stream}'")
        return rows and all(r["status"] == "running" and r["rows"] != "NULL" for r in rows)
    wait_for(running, timeout, f"stream {stream} did not start")


def insert(sql, table, tag, rows):
    """Through the sluice CLI (libsluice routes the rows to the vnodes)."""
    sql.insert("nd", table, rows, using=f"USING meters TAGS ('{tag}')")


def test_receiver_down_30s(bin_dir, tmp_path):
    port = free_port()
    recv = Receiver(port)
    recv.start()
    c = Cluster(bin_dir, tmp_path, 2, nsnodes=1)
    c.start()
    try:
        sql = Sql(c)
        c.exec("CREATE DATABASE nd")
        c.exec("CREATE STABLE meters (ts TIMESTAMP, v INT) TAGS (loc VARCHAR(16))", "nd")
        c.exec("CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
               f"NOTIFY('ws://127.0.0.1:{port}/n') ON (WINDOW_CLOSE) "
               "INTO o (ws, n, total) AS SELECT _twstart, count(*), sum(v) FROM %%trows", "nd")
        wait_running(c, "s")

        # Phase 1 (receiver up). INTERVAL(10s) windows [10k, 10k+10) s; a window closes when
        # the group's watermark (its newest row) reaches its end (semantics rule 8):
        #   a: rows at 0, 5, 12, 25 -> [0,10) 2 rows sum 3; [10,20) 1 row sum 3 (25 closes it)
        #   b: rows at 1, 11        -> [0,10) 1 row sum 10 (11 closes it)
        insert(sql, "a", "x", [(0, 1), (5, 2), (12, 3), (25, 4)])
        insert(sql, "b", "y", [(1, 10), (11, 20)])
        want1 = {("a", 0, 2, 3), ("a", 10, 1, 3), ("b", 0, 1, 10)}
        poll(recv.events, lambda events: len(events) >= 3, 20, 0.1)

        # Phase 2: the receiver is down for 30 s while more windows close:
        #   a: rows at 31, 47 -> [20,30) 1 row (25) sum 4; [30,40) 1 row (31) sum 5
        #   b: rows at 23, 52 -> [10,20) 1 row (11) sum 20; [20,30) 1 row (23) sum 30, and the
        #      empty windows [30,40) and [40,50) close too (rule 8: windows without rows
        #      still trigger); their aggregate over an empty %%trows yields no row (rule 10):
        #      no output row, and a notification without "result".
        recv.stop()
        down_at = time.time()
        insert(sql, "a", "x", [(31, 5), (47, 6)])
        insert(sql, "b", "y", [(23, 30), (52, 40)])
        want2 = {("a", 20, 1, 4), ("a", 30, 1, 5), ("b", 10, 1, 20), ("b", 20, 1, 30)}
        empty = {("b", 30, None, None), ("b", 40, None, None)}
        # The events wait in the outbox, visible in ins_stream_tasks.

        def outbox_size():
            rows = exec_rows(c, "SELECT max(outbox) AS o FROM information_schema.ins_stream_tasks "
                                "WHERE stream_name = 's'")
            return int(rows[0]["o"]) if rows and rows[0]["o"] != "NULL" else 0
        outbox = poll(outbox_size, lambda n: n >= len(want2), 20)
        assert outbox >= len(want2), f"outbox shows {outbox} events"
        time.sleep(max(0.0, 30 - (time.time() - down_at)))
        recv.start()

        want = want1 | want2 | empty
        got = poll(lambda: {e["triggerId"]: e for _, e in recv.events()},
                   lambda got: len(got) >= len(want), 60)
        # Exactly the expected events after de-duplication by triggerId.
        # Output subtable -> source table (its tag_tbname tag).
        by_table = {r["tbname"]: r["tag_tbname"]
                    for r in sql.dicts("SELECT tbname, tag_tbname FROM nd.o")}
        # Every event names the group's output subtable, also one without a result row (an
        # empty window): the stream has an output table (spec: the field is absent only
        # "when there is no output"; its example shows it on WINDOW_OPEN events, which never
        # carry a result). The subtables exist: every group here had a result row.

        def source(e):
            return by_table[e["tableName"]]

        seen = set()
        for tid, e in got.items():
            assert e["eventType"] == "WINDOW_CLOSE" and e["triggerType"] == "Interval"
            assert e["windowEnd"] - e["windowStart"] == 10000
            assert "tableName" in e, e
            src = source(e)
            res = e.get("result")
            seen.add((src, (e["windowStart"] - T0) // 1000,
                      res["count(*)"] if res else None, res["sum(v)"] if res else None))
        assert seen == want
        assert len(got) == len(want)
        # In window order per group, in the order the receiver got them (duplicates of a
        # re-sent message keep their place).
        for src in ("a", "b"):
            starts = []
            for name, e in recv.events():
                if source(e) == src and e["windowStart"] not in starts:
                    starts.append(e["windowStart"])
            assert starts == sorted(starts), (src, starts)
        # The output table holds the same rows.
        out = {(r["tag_tbname"], (int(r["ws"]) - T0) // 1000, int(r["n"]), int(r["total"]))
               for r in sql.dicts("SELECT CAST(ws AS BIGINT) AS ws, n, total, tag_tbname "
                                  "FROM nd.o")}
        assert out == want1 | want2
    finally:
        c.stop()
        recv.close()
