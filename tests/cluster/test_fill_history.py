"""FILL_HISTORY / FILL_HISTORY_FIRST end to end (issue 6, trigger readers; docs/streams.md,
"History"): a real cluster (mnode, 2 vnodes, 2 snodes), rows written before CREATE STREAM,
streams created with the sluice CLI, output tables read back through the CLI.

Every expected output row is worked out by hand (times are seconds after 2025-01-01
00:00:00 UTC, millisecond precision). Besides the output rows, the tasks' `rows` counters
(ins_stream_tasks: trigger rows fed to the engines) prove that every row was fed exactly
once - a computation over %%trows re-reads storage, so it alone would not show a row fed
twice.
"""
import signal
import time

import pytest

from conftest import free_port
from helpers import (B, create_stream, meters_db, num, poll, ready_marks, receiving,
                     running, sec, snode_log_count, stream_cluster, stream_errors, tasks,
                     wait_equal, wait_ready)


def fed_rows(sql, db, name):
    """Trigger rows fed by the stream's tasks: ins_stream_tasks has one row per run of
    slots with one owner, each showing its snode's task counter."""
    per_node = {t["snode_endpoint"]: int(t["rows"]) for t in tasks(sql, db, name)
                if t["rows"] != ""}
    return sum(per_node.values())


def log_count(c, pat):
    return sum(snode_log_count(c, pat, i) for i in range(len(c.sports)))


def interval_rows(sql, db, table="out"):
    return sorted((r[0], sec(r[1]), num(r[2]), num(r[3])) for r in sql.rows(
        f"SELECT tag_tbname, CAST(ws AS BIGINT), cnt, total FROM {table}", db))


@pytest.fixture(scope="module")
def cl(bin_dir, tmp_path_factory):
    with running(stream_cluster(bin_dir, tmp_path_factory.mktemp("fillhist"))) as cs:
        yield cs


def three_tables(sql, db):
    meters_db(sql, db, ["a", "b", "c"])


# ------------------------------------------------------------------------------ history

def test_history_then_live_exactly_once(cl):
    c, sql = cl
    db = "h_once"
    three_tables(sql, db)
    sql.insert(db, "d0", [(0, 1), (3, 2), (12, 3), (25, 4)])
    sql.insert(db, "d1", [(1, 10), (15, 20), (31, 30)])
    since_i = ready_marks(c, db, "si")
    since_c = ready_marks(c, db, "sc")
    sql.run("CREATE STREAM si INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
            "STREAM_OPTIONS(FILL_HISTORY) INTO out AS SELECT _twstart AS ws, COUNT(*) AS cnt, "
            "SUM(v) AS total FROM %%trows", db)
    sql.run("CREATE STREAM sc COUNT_WINDOW(2) FROM meters PARTITION BY tbname "
            "STREAM_OPTIONS(FILL_HISTORY_FIRST) INTO outc AS SELECT _twstart AS ws, "
            "COUNT(*) AS cnt, SUM(v) AS total FROM %%trows", db)
    # Written right away: while the tasks set up or read their history, or just after.
    # Each row lands either in a history snapshot or in the change log after it.
    sql.insert(db, "d0", [(33, 5), (41, 6)])
    sql.insert(db, "d1", [(44, 40)])
    wait_ready(c, sql, db, "si", since_i)
    wait_ready(c, sql, db, "sc", since_c)
    sql.insert(db, "d2", [(2, 100), (13, 200)])
    # INTERVAL(10s), one group per table:
    # d0 rows 0,3,12,25,33,41: [0,10) 2 rows sum 3, [10,20) 1/3, [20,30) 1/4, [30,40) 1/5,
    #    [40,50) open.
    # d1 rows 1,15,31,44: [0,10) 1/10, [10,20) 1/20, [20,30) no rows (no result row),
    #    [30,40) 1/30, [40,50) open.
    # d2 rows 2,13 (live): [0,10) 1/100, [10,20) open.
    expected = sorted([("d0", 0, 2, 3), ("d0", 10, 1, 3), ("d0", 20, 1, 4), ("d0", 30, 1, 5),
                       ("d1", 0, 1, 10), ("d1", 10, 1, 20), ("d1", 30, 1, 30),
                       ("d2", 0, 1, 100)])
    wait_equal(lambda: interval_rows(sql, db), expected, "FILL_HISTORY interval", sql, db,
               ["si"])
    # COUNT_WINDOW(2): d0 (0,3) 2/3, (12,25) 2/7, (33,41) 2/11; d1 (1,15) 2/30,
    # (31,44) 2/70; d2 (2,13) 2/300. A row fed twice or missed would shift the windows.
    expected_c = sorted([("d0", 0, 2, 3), ("d0", 12, 2, 7), ("d0", 33, 2, 11),
                         ("d1", 1, 2, 30), ("d1", 31, 2, 70), ("d2", 2, 2, 300)])
    wait_equal(lambda: interval_rows(sql, db, "outc"), expected_c, "FILL_HISTORY_FIRST count",
               sql, db, ["sc"])
    # 12 rows in all, each fed once to each stream.
    assert fed_rows(sql, db, "si") == 12
    assert fed_rows(sql, db, "sc") == 12
    assert stream_errors(sql, db, "si") == [] and stream_errors(sql, db, "sc") == []


def test_fill_history_start_time(cl):
    c, sql = cl
    db = "h_start"
    three_tables(sql, db)
    sql.insert(db, "d0", [(50, 1), (55, 2), (60, 3), (65, 4), (75, 5), (85, 6)])
    create_stream(c, sql, db,
                  "CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                  "STREAM_OPTIONS(FILL_HISTORY('2025-01-01 00:01:00')) INTO out AS "
                  "SELECT _twstart AS ws, COUNT(*) AS cnt, SUM(v) AS total FROM %%trows")
    sql.insert(db, "d0", [(95, 7)])
    # History from 60 s on: rows 60,65,75,85 (50 and 55 are before the start), then 95:
    # [60,70) 2/7, [70,80) 1/5, [80,90) 1/6, [90,100) open. [50,60) never triggers.
    expected = [("d0", 60, 2, 7), ("d0", 70, 1, 5), ("d0", 80, 1, 6)]
    wait_equal(lambda: interval_rows(sql, db), expected, "FILL_HISTORY(start)", sql, db, ["s"])
    assert fed_rows(sql, db, "s") == 5
    assert stream_errors(sql, db, "s") == []


def test_no_fill_history_ignores_old_rows(cl):
    c, sql = cl
    db = "h_none"
    three_tables(sql, db)
    sql.insert(db, "d0", [(0, 1), (5, 2), (12, 3)])
    create_stream(c, sql, db,
                  "CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                  "INTO out AS SELECT _twstart AS ws, COUNT(*) AS cnt, SUM(v) AS total "
                  "FROM %%trows")
    sql.insert(db, "d0", [(21, 4), (32, 5)])
    # Only the rows written after the task was ready: 21 opens [20,30), 32 closes it;
    # [0,10) and [10,20) never trigger.
    wait_equal(lambda: interval_rows(sql, db), [("d0", 20, 1, 4)], "no FILL_HISTORY", sql, db,
               ["s"])
    assert fed_rows(sql, db, "s") == 2


def test_history_tag_grouping_merges_tables_by_time(cl):
    """PARTITION BY a tag: a group spans tables (and vgroups); its history rows are fed in
    ts order across the tables."""
    c, sql = cl
    db = "h_tag"
    meters_db(sql, db, "xxxxy", first_gid=0)
    # Group 'x' = d0..d3 (spread over both vgroups), group 'y' = d4.
    sql.insert(db, "d0", [(0, 1), (21, 2)])
    sql.insert(db, "d1", [(5, 10), (12, 20)])
    sql.insert(db, "d2", [(14, 100)])
    sql.insert(db, "d3", [(33, 1000)])
    sql.insert(db, "d4", [(1, 7), (11, 8)])
    create_stream(c, sql, db,
                  "CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY loc "
                  "STREAM_OPTIONS(FILL_HISTORY) INTO out AS SELECT _twstart AS ws, "
                  "COUNT(*) AS cnt, SUM(v) AS total FROM %%trows")
    # x in ts order: 0,5,12,14,21,33 -> [0,10) 2/11, [10,20) 2/120, [20,30) 1/2, [30,40)
    # open. y: 1, 11 -> [0,10) 1/7, [10,20) open.
    expected = sorted([("x", 0, 2, 11), ("x", 10, 2, 120), ("x", 20, 1, 2), ("y", 0, 1, 7)])

    def get():
        return sorted((r[0], sec(r[1]), num(r[2]), num(r[3])) for r in sql.rows(
            "SELECT loc, CAST(ws AS BIGINT), cnt, total FROM out", db))
    wait_equal(get, expected, "FILL_HISTORY PARTITION BY tag", sql, db, ["s"])
    assert fed_rows(sql, db, "s") == 8
    assert stream_errors(sql, db, "s") == []


# ------------------------------------------------------------------------------ NOTIFY_HISTORY

def test_notify_history(cl):
    c, sql = cl
    db = "h_notify"
    port = free_port()
    with receiving(port) as recv:
        three_tables(sql, db)
        sql.insert(db, "d0", [(0, 1), (5, 2), (12, 3)])
        for name, opt in (("na", ""), ("nh", " NOTIFY_OPTIONS(NOTIFY_HISTORY)")):
            create_stream(c, sql, db,
                          f"CREATE STREAM {name} INTERVAL(10s) SLIDING(10s) FROM meters "
                          "PARTITION BY tbname STREAM_OPTIONS(FILL_HISTORY) "
                          f"NOTIFY('ws://127.0.0.1:{port}/{name}') ON (WINDOW_CLOSE){opt} "
                          f"INTO o_{name} AS SELECT _twstart AS ws, COUNT(*) AS cnt "
                          "FROM %%trows")
        # History closes [0,10) (row 12); the live row 25 closes [10,20).
        sql.insert(db, "d0", [(25, 4)])
        want = {"na": [10], "nh": [0, 10]}

        def windows(close_only):
            got = {}
            for stream, e in recv.events():
                if close_only:
                    assert e["eventType"] == "WINDOW_CLOSE"
                got.setdefault(stream, {})[e["triggerId"]] = (e["windowStart"] - B) // 1000
            return {k: sorted(v.values()) for k, v in got.items()}
        got = poll(lambda: windows(True), lambda got: got == want, 20)
        assert got == want
        time.sleep(1.0)  # nothing more arrives
        assert windows(False) == want
        for name in want:
            assert sorted(sec(r[0]) for r in sql.rows(
                f"SELECT CAST(ws AS BIGINT) FROM o_{name}", db)) == [0, 10]


# ------------------------------------------------------------------------------ kill -9

def test_kill_after_history_does_not_reread(bin_dir, tmp_path):
    with running(stream_cluster(bin_dir, tmp_path, nsnodes=1)) as (c, sql):
        db = "h_kill"
        three_tables(sql, db)
        sql.insert(db, "d0", [(0, 1), (3, 2), (12, 3), (25, 4)])
        sql.insert(db, "d1", [(1, 10), (15, 20)])
        create_stream(c, sql, db,
                      "CREATE STREAM s COUNT_WINDOW(2) FROM meters PARTITION BY tbname "
                      "STREAM_OPTIONS(FILL_HISTORY) INTO out AS SELECT _twstart AS ws, "
                      "COUNT(*) AS cnt, SUM(v) AS total FROM %%trows")
        # d0: (0,3) 2/3, (12,25) 2/7; d1: (1,15) 2/30.
        before = sorted([("d0", 0, 2, 3), ("d0", 12, 2, 7), ("d1", 1, 2, 30)])
        wait_equal(lambda: interval_rows(sql, db), before, "history", sql, db, ["s"], settle=0)
        assert fed_rows(sql, db, "s") == 6
        reads = log_count(c, f"stream {db}.s: reading history")
        assert reads >= 1
        since = ready_marks(c, db, "s")
        c.kill("snode0", signal.SIGKILL)
        c.start_snode(0)
        c.wait_snodes([c.saddr(0)])
        wait_ready(c, sql, db, "s", since, timeout=30)
        # The restarted task resumed from the checkpoint written when the history finished:
        # no second history read, nothing fed again.
        assert log_count(c, f"stream {db}.s: reading history") == reads
        # (polled: the first heartbeat of the restarted snode replaces the old report)
        wait_equal(lambda: fed_rows(sql, db, "s"), 0, "rows fed after the restart", sql, db,
                   ["s"], timeout=10, settle=0.5)
        sql.insert(db, "d0", [(33, 5), (41, 6)])
        sql.insert(db, "d1", [(31, 30)])
        # d0: (33,41) 2/11; d1: row 31 alone, its window stays open.
        after = sorted(before + [("d0", 33, 2, 11)])
        wait_equal(lambda: interval_rows(sql, db), after, "after the restart", sql, db, ["s"])
        assert fed_rows(sql, db, "s") == 3
        assert int(sql.rows("SELECT COUNT(*) FROM out", db)[0][0]) == 4
        assert stream_errors(sql, db, "s") == []
