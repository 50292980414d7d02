"""FROM %%trows served from the rows the snode already read (issue 6, "Runner": %%trows
served from rows the trigger already holds where possible; docs/streams.md, "Where a
computation runs").

A computation that reads only %%trows of a group of one table runs on the snode over the
rows its reader received - no query to the vnodes - as long as the snode holds every stored
row of the event's range; otherwise (rows written before the task started, a composite key,
a group spanning tables, another table in the query) it goes to the vnodes as before. The
tests check both: the output rows, worked out by hand from the spec, and where each
computation ran (SNODE_STATUS calc_here / calc_remote of the stream's task).

Times are seconds after 2025-01-01 00:00:00 UTC; millisecond precision.
"""
import time

import pytest

from helpers import (create_stream, make_db, meters_db, ms, num, running, sec, snode_status,
                     stream_cluster, stream_errors, wait_equal, wait_for)


@pytest.fixture(scope="module")
def cl(bin_dir, tmp_path_factory):
    with running(stream_cluster(bin_dir, tmp_path_factory.mktemp("trows"), nsnodes=1)) as cs:
        yield cs


def calcs(c, db, name):
    """(calc_here, calc_remote) of stream db.name summed over the snodes."""
    here = remote = 0
    for addr in c.alive_snodes():
        st = snode_status(c, addr) or {"streams": []}
        for s in st["streams"]:
            if s["db"] == db and s["name"] == name:
                here += s["calc_here"]
                remote += s["calc_remote"]
    return here, remote


Q = ("INTO out AS SELECT _twstart AS ws, COUNT(*) AS cnt, SUM(v) AS total, MIN(v) AS lo "
     "FROM %%trows")


def windows_of(sql, db, table):
    return sorted(tuple([sec(r[0])] + [num(x) for x in r[1:]]) for r in sql.rows(
        f"SELECT CAST(ws AS BIGINT), cnt, total, lo FROM {table}", db))


def test_updates_deletes_and_rows_out_of_order_computed_here(cl):
    c, sql = cl
    db = "th_mix"
    meters_db(sql, db, ["a", "b"])
    create_stream(c, sql, db,
                  f"CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname {Q}")
    # The same with PRE_FILTER: the vnodes filter the change log by it, so an update that
    # makes a row fail it never reaches the snode - computed by the vnodes.
    create_stream(c, sql, db,
                  "CREATE STREAM sf INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                  "STREAM_OPTIONS(PRE_FILTER(v > 0)) " + Q.replace("INTO out ", "INTO outf "))
    # d0, one statement (one change-log entry) at a time:
    sql.insert(db, "d0", [(1, 5), (2, -1), (4, 7)])
    sql.insert(db, "d0", [(3, 2)])                   # before the newest row, window open
    sql.insert(db, "d0", [(4, 8)])                   # update 4s: 7 -> 8
    sql.insert(db, "d0", [(2, 6)])                   # update 2s: -1 -> 6
    sql.insert(db, "d0", [(1, -3)])                  # update 1s: 5 -> -3
    sql.insert(db, "d0", [(15, 4)])                  # closes [0,10) (watermark 15s)
    sql.run(f"DELETE FROM d0 WHERE ts = {ms(15)}", db)
    sql.insert(db, "d0", [(12, 1)])
    sql.insert(db, "d0", [(25, 9)])                  # closes [10,20)
    # d1 at the same times, its own group.
    sql.insert(db, "d1", [(5, 3), (6, 4), (11, 1)])
    # s: [0,10) of d0 holds 1s (-3), 2s (6), 3s (2), 4s (8); [10,20): 12s (1), 15s was
    # deleted; d1 [0,10): 5s (3), 6s (4).
    wait_equal(lambda: windows_of(sql, db, "out"), [(0, 2, 7, 3), (0, 4, 13, -3), (10, 1, 1, 1)],
               "windows computed on the snode", sql, db, ["s"])
    # sf: 1s fails PRE_FILTER after its update: [0,10) of d0 is 2s, 3s, 4s.
    wait_equal(lambda: windows_of(sql, db, "outf"),
               [(0, 2, 7, 3), (0, 3, 16, 2), (10, 1, 1, 1)], "PRE_FILTER", sql, db, ["sf"])
    assert calcs(c, db, "s") == (3, 0)
    assert calcs(c, db, "sf") == (0, 3)
    assert stream_errors(sql, db, "s") == [] and stream_errors(sql, db, "sf") == []


def test_rows_written_before_the_stream_go_to_the_vnodes(cl):
    c, sql = cl
    db = "th_pre"
    meters_db(sql, db, ["a"])
    sql.insert(db, "d0", [(1, 10), (2, 20)])         # before the stream: not in the log read
    create_stream(c, sql, db,
                  f"CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname {Q}")
    sql.insert(db, "d0", [(3, 30), (11, 1)])         # closes [0,10)
    sql.insert(db, "d0", [(15, 2), (21, 3)])         # closes [10,20)
    # [0,10) holds the two earlier rows too (%%trows is the table's rows in the window): the
    # snode did not read them, so that window is computed by the vnodes; [10,20) starts
    # after every row stored before the task, so it runs on the snode.
    expected = [(0, 3, 60, 10), (10, 2, 3, 1)]
    wait_equal(lambda: windows_of(sql, db, "out"), expected, "windows over earlier rows", sql, db, ["s"])
    assert calcs(c, db, "s") == (1, 1)


def test_streams_that_cannot_run_here_still_give_the_same_rows(cl):
    c, sql = cl
    db = "th_no"
    make_db(sql, db, [
        "CREATE STABLE meters (ts TIMESTAMP, v INT) TAGS (loc VARCHAR(16), gid INT)",
        "CREATE TABLE d0 USING meters TAGS ('a', 1)",
        "CREATE TABLE d1 USING meters TAGS ('a', 1)",
        "CREATE STABLE ck (ts TIMESTAMP, k INT COMPOSITE KEY, v INT) TAGS (g INT)",
        "CREATE TABLE k0 USING ck TAGS (1)",
        "CREATE TABLE other (ts TIMESTAMP, v INT)"])
    # A group over two tables (PARTITION BY a tag), a composite key, another table in FROM.
    create_stream(c, sql, db,
                  "CREATE STREAM sg INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY gid "
                  "INTO outg AS SELECT _twstart AS ws, COUNT(*) AS cnt, SUM(v) AS total "
                  "FROM %%trows")
    create_stream(c, sql, db,
                  "CREATE STREAM sk INTERVAL(10s) SLIDING(10s) FROM ck PARTITION BY tbname "
                  "INTO outk AS SELECT _twstart AS ws, COUNT(*) AS cnt, SUM(v) AS total "
                  "FROM %%trows")
    create_stream(c, sql, db,
                  "CREATE STREAM so INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                  "INTO outo AS SELECT _twstart AS ws, COUNT(*) AS cnt, SUM(v) AS total "
                  "FROM other WHERE ts >= _twstart AND ts < _twend")
    sql.insert(db, "other", [(1, 100), (2, 200), (12, 1)])
    sql.insert(db, "d0", [(1, 1), (2, 2)])
    sql.insert(db, "d1", [(1, 10), (3, 30)])
    sql.insert(db, "d0", [(11, 0)])
    sql.insert(db, "d1", [(11, 0)])
    sql.insert(db, "k0", [(1, 1, 5), (1, 2, 6), (2, 1, 7)])
    sql.insert(db, "k0", [(11, 1, 0)])

    def get(table):
        return lambda: sorted((sec(r[0]), num(r[1]), num(r[2])) for r in sql.rows(
            f"SELECT CAST(ws AS BIGINT), cnt, total FROM {table}", db))
    # gid 1 = d0 + d1: rows at 1s of both tables are two rows (docs/triggers.md).
    wait_equal(get("outg"), [(0, 4, 43)], "PARTITION BY gid", sql, db, ["sg"])
    # composite key: (1s,1), (1s,2), (2s,1) are three rows.
    wait_equal(get("outk"), [(0, 3, 18)], "composite key", sql, db, ["sk"])
    # other's rows in [0,10) for each of d0, d1.
    wait_equal(get("outo"), [(0, 2, 300), (0, 2, 300)], "FROM another table", sql, db, ["so"])
    for name in ("sg", "sk", "so"):
        here, remote = calcs(c, db, name)
        assert here == 0 and remote >= 1, (name, here, remote)


def test_a_query_without_from_runs_here(cl):
    c, sql = cl
    db = "th_const"
    meters_db(sql, db, ["a"])
    create_stream(c, sql, db,
                  "CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                  "INTO out AS SELECT _twstart AS ws, _twrownum AS n, %%1 AS tb")
    sql.insert(db, "d0", [(1, 1), (2, 2), (11, 3)])
    wait_equal(lambda: sorted((sec(r[0]), num(r[1]), r[2]) for r in sql.rows(
        "SELECT CAST(ws AS BIGINT), n, tb FROM out", db)), [(0, 2, "d0")], "no FROM", sql, db,
        ["s"])
    wait_for(lambda: calcs(c, db, "s") == (1, 0), 5, f"calcs {calcs(c, db, 's')}")


TRIGGERS = {
    "int": "INTERVAL(10s) SLIDING(5s)",
    "ses": "SESSION(ts, 3s)",
    "cnt": "COUNT_WINDOW(4, 1)",
    "sta": "STATE_WINDOW(st)",
}


def test_random_changes_match_the_vnodes(cl):
    """Differential: for each trigger type two streams with the same windows and query, one
    computed on the snode, one - PRE_FILTER(ts IS NOT NULL) keeps every row but sends its
    computations to the vnodes - the reference. Random inserts in and out of order, updates
    and deletes (DELETE_RECALC on both); the two output tables must end identical."""
    import random
    c, sql = cl
    db = "th_rand"
    make_db(sql, db, ["CREATE STABLE m (ts TIMESTAMP, v INT, st INT) TAGS (g INT)"] +
            [f"CREATE TABLE t{i} USING m TAGS ({i})" for i in range(3)])
    q = "AS SELECT _twstart AS ws, COUNT(*) AS cnt, SUM(v) AS total, MAX(v) AS hi FROM %%trows"
    for k, trig in TRIGGERS.items():
        create_stream(c, sql, db, f"CREATE STREAM l_{k} {trig} FROM m PARTITION BY tbname "
                      f"STREAM_OPTIONS(DELETE_RECALC) INTO lo_{k} {q}")
        create_stream(c, sql, db, f"CREATE STREAM r_{k} {trig} FROM m PARTITION BY tbname "
                      f"STREAM_OPTIONS(DELETE_RECALC | PRE_FILTER(ts IS NOT NULL)) "
                      f"INTO ro_{k} {q}")
    rnd = random.Random(6)
    newest = [0.0, 0.0, 0.0]
    for step in range(60):
        i = rnd.randrange(3)
        t = f"t{i}"
        op = rnd.random()
        if op < 0.6:    # rows after the newest, 0.5 s apart
            rows = []
            for _ in range(rnd.randint(1, 6)):
                newest[i] += 0.5 * rnd.randint(1, 4)
                rows.append((newest[i], rnd.randint(-50, 50), rnd.randint(0, 2)))
            sql.insert(db, t, rows)
        elif op < 0.8:  # a row out of order or an update, among the last 8 s
            ts = max(0.0, newest[i] - 0.5 * rnd.randint(0, 16))
            sql.insert(db, t, [(ts, rnd.randint(-50, 50), rnd.randint(0, 2))])
        else:           # delete a short range among the last 8 s
            hi = newest[i] - 0.5 * rnd.randint(0, 12)
            sql.run(f"DELETE FROM {t} WHERE ts >= {ms(max(0.0, hi - 1.5))} AND ts <= {ms(hi)}",
                    db)
    for i in range(3):  # close every window
        sql.insert(db, f"t{i}", [(newest[i] + 600 + j, 1, 9) for j in range(8)])

    def out(table):
        return lambda: sorted(tuple(r) for r in sql.rows(
            f"SELECT tag_tbname, CAST(ws AS BIGINT), cnt, total, hi FROM {table}", db))
    for k in TRIGGERS:
        last = {}

        def same():
            a, b = out(f"lo_{k}")(), out(f"ro_{k}")()
            last["diff"] = (sorted(set(a) - set(b)), sorted(set(b) - set(a)), len(a), len(b))
            return a == b and len(a) > 0
        wait_for(same, 30, lambda: f"{k}: snode - vnodes, vnodes - snode, sizes: {last}",
                 interval=0.5)
        time.sleep(2)
        assert same(), (k, last)
        assert stream_errors(sql, db, f"l_{k}") == [] and stream_errors(sql, db, f"r_{k}") == []
        here, _ = calcs(c, db, f"l_{k}")
        assert here > 0, k
        assert calcs(c, db, f"r_{k}")[0] == 0, k
