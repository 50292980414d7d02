"""Stream options end to end (issue 6, Runner / Output / Notifications): FORCE_OUTPUT,
NOTIFY ... WHERE, NODELAY_CREATE_SUBTABLE, DELETE_OUTPUT_TABLE and LOW_LATENCY_CALC vs the
default batched computation, on a real cluster (mnode, 2 vnodes, 2 snodes, a WebSocket
receiver in the test).

Every expected row and event is worked out by hand from spec/stream-syntax.txt and
spec/semantics.md (rule numbers refer to semantics.md; docs/streams.md "Options" records the
decisions where the spec leaves room). Times are seconds after 2025-01-01 00:00:00 UTC; the
tables use millisecond precision. Each test uses its own database.
"""
import time

import pytest

from conftest import free_port
from helpers import (B, create_stream, make_db, meters_db, num, poll, receiving, running, sec,
                     stream_cluster, stream_errors, wait_equal)


@pytest.fixture(scope="module")
def cl(bin_dir, tmp_path_factory):
    with running(stream_cluster(bin_dir, tmp_path_factory.mktemp("options"))) as cs:
        yield cs


def subtables(sql, db, stable):
    """(tag_name, tag_value, table_name) of the child tables of db.stable."""
    return sorted((t["tag_name"], t["tag_value"], t["table_name"]) for t in sql.dicts(
        "SELECT table_name, tag_name, tag_value FROM information_schema.ins_tags "
        f"WHERE db_name = '{db}' AND stable_name = '{stable}'"))


# ------------------------------------------------------------------------------ FORCE_OUTPUT

def test_force_output(cl):
    c, sql = cl
    db = "o_force"
    meters_db(sql, db, ["a", "b"])
    q = ("AS SELECT _twstart AS ws, _twend AS we, concat('g_', %%1) AS label, "
         "_twduration + 1 AS dur1, COUNT(*) AS cnt, SUM(v) + 0 * _twduration AS total FROM %%trows")
    create_stream(c, sql, db,
                  "CREATE STREAM sf INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                  f"STREAM_OPTIONS(FORCE_OUTPUT) INTO outf {q}")
    create_stream(c, sql, db,
                  "CREATE STREAM sn INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                  f"INTO outn {q}")
    # FORCE_OUTPUT over the empty window of the query-gives-no-row case (rule 10).
    create_stream(c, sql, db,
                  "CREATE STREAM sq COUNT_WINDOW(2) FROM meters PARTITION BY tbname "
                  "STREAM_OPTIONS(FORCE_OUTPUT) INTO outq AS SELECT _twstart AS ws, "
                  "%%tbname AS tb, ts AS t1, v AS big FROM %%tbname "
                  "WHERE ts >= _twstart AND ts <= _twend AND v > 100")
    sql.insert(db, "d0", [(0, 1), (3, 2), (12, 3), (25, 4)])
    sql.insert(db, "d1", [(1, 10), (15, 200), (31, 30)])
    # INTERVAL(10s), each group with its own watermark (rules 1, 8):
    # d0: max 25 -> [0,10) (2 rows, sum 3), [10,20) (1 row, 3) closed; [20,30) open.
    # d1: max 31 -> [0,10) (1, 10), [10,20) (1, 200), [20,30) closed without rows; [30,40) open.
    # Without FORCE_OUTPUT the empty window writes nothing (rule 10). With it, one row whose
    # constant items keep their values - _twstart, _twend, concat('g_', %%1) (a function of
    # a placeholder), _twduration + 1 - and whose other items (COUNT(*), an expression with
    # an aggregate) are NULL: ws 20, we 30 (the exclusive end, rule 3), 'g_d1', 10001.
    rows = [("d0", 0, 10, "g_d0", 10001, 2, 3), ("d0", 10, 20, "g_d0", 10001, 1, 3),
            ("d1", 0, 10, "g_d1", 10001, 1, 10), ("d1", 10, 20, "g_d1", 10001, 1, 200)]
    forced = [("d1", 20, 30, "g_d1", 10001, None, None)]

    def get(t):
        return lambda: sorted(
            (r[0], sec(r[1]), sec(r[2]), r[3], num(r[4]), num(r[5]), num(r[6]))
            for r in sql.rows("SELECT tag_tbname, CAST(ws AS BIGINT), CAST(we AS BIGINT), "
                              f"label, dur1, cnt, total FROM {t}", db))
    wait_equal(get("outf"), sorted(rows + forced), "FORCE_OUTPUT", sql, db, ["sf"])
    wait_equal(get("outn"), sorted(rows), "no FORCE_OUTPUT", sql, db, ["sn"])
    # The NULL columns have the output table's types (the row was written through it).
    desc = {r[0]: r[1] for r in sql.rows("DESCRIBE outf", db)}
    assert desc["cnt"].upper().startswith("BIGINT"), desc
    # COUNT_WINDOW(2) per table: d0 windows rows (0,3) and (12,25); d1 (1,15); (31) open.
    # The query selects rows with v > 100 of the window: only d1's window has one (200 at
    # 15): a normal row (ws 1, 'd1', 15, 200). The other windows select nothing, and
    # FORCE_OUTPUT gives one row: ws = _twstart (constant), tb = %%tbname (constant),
    # t1 and big NULL.
    expq = sorted([("d0", 0, "d0", None, None), ("d0", 12, "d0", None, None),
                   ("d1", 1, "d1", 15, 200)])

    def getq():
        return sorted((r[0], sec(r[1]), r[2], sec(r[3]) if r[3] else None, num(r[4]))
                      for r in sql.rows("SELECT tag_tbname, CAST(ws AS BIGINT), tb, "
                                        "CAST(t1 AS BIGINT), big FROM outq", db))
    wait_equal(getq, expq, "FORCE_OUTPUT of a query without rows", sql, db, ["sq"])
    for s in ("sf", "sn", "sq"):
        assert stream_errors(sql, db, s) == []


# ------------------------------------------------------------------------------ NOTIFY WHERE

def test_notify_where(cl):
    c, sql = cl
    db = "o_where"
    port = free_port()
    with receiving(port) as recv:
        make_db(sql, db, ["CREATE TABLE n (ts TIMESTAMP, v INT)"])
        url = f"ws://127.0.0.1:{port}/w"
        q = "AS SELECT _twstart AS ws, COUNT(*) AS cnt, SUM(v) AS total FROM %%trows"
        # On result column names, on the output table's column names (the stream renames
        # them), and a condition true for any row: events without a result are not notified.
        create_stream(c, sql, db,
                      "CREATE STREAM w1 INTERVAL(10s) SLIDING(10s) FROM n "
                      f"NOTIFY('{url}') ON (WINDOW_CLOSE) WHERE total > 5 INTO o1 {q}")
        create_stream(c, sql, db,
                      "CREATE STREAM w2 INTERVAL(10s) SLIDING(10s) FROM n "
                      f"NOTIFY('{url}') ON (WINDOW_CLOSE) WHERE c2 = 1 AND 1 < 2 "
                      f"INTO o2 (w2, c2, t2) {q}")
        create_stream(c, sql, db,
                      "CREATE STREAM w3 INTERVAL(10s) SLIDING(10s) FROM n "
                      f"NOTIFY('{url}') ON (WINDOW_CLOSE) WHERE total IS NULL OR cnt >= 0 "
                      f"INTO o3 {q}")
        sql.insert(db, "n", [(0, 1), (3, 2), (12, 10), (35, 3), (38, 4), (41, 1)])
        # Windows (rule 8, watermark 41): [0,10) cnt 2 sum 3; [10,20) cnt 1 sum 10;
        # [20,30) no rows (no result: rule 10); [30,40) cnt 2 sum 7; [40,50) open.
        # w1 (total > 5): windows 10 and 30. w2 (c2 = 1, the renamed cnt): window 10.
        # The empty window has no result: never notified when WHERE is given.
        # w3: every closed window with a result: 0, 10, 30 - not the empty [20,30), whose
        # event has no result row to test (docs/streams.md "Options"), although the
        # condition would hold on an all-NULL row.
        want = {("w1", "WINDOW_CLOSE", 10), ("w1", "WINDOW_CLOSE", 30),
                ("w2", "WINDOW_CLOSE", 10),
                ("w3", "WINDOW_CLOSE", 0), ("w3", "WINDOW_CLOSE", 10),
                ("w3", "WINDOW_CLOSE", 30)}
        # Every stream wrote its rows (the condition filters notifications only).
        for t in ("o1", "o2", "o3"):
            col = "w2" if t == "o2" else "ws"
            wait_equal(lambda: sorted(sec(r[0]) for r in sql.rows(
                f"SELECT CAST({col} AS BIGINT) FROM {t}", db)),
                [0, 10, 30], f"rows of {t}", sql, db, ["w1", "w2", "w3"])
        poll(lambda: {(name, e["eventType"], (e["windowStart"] - B) // 1000)
                      for name, e in recv.events() if e["eventType"] == "WINDOW_CLOSE"},
             lambda got: got >= want, 20)
        time.sleep(1.5)
        events = recv.events()
        got = {(name, e["eventType"], (e["windowStart"] - B) // 1000)
               for name, e in events if e["eventType"] == "WINDOW_CLOSE"}
        assert got == want
        # Every notified event carries the result the condition was checked on.
        for name, e in events:
            assert "result" in e, e
            if name == "w1" and e["eventType"] == "WINDOW_CLOSE":
                assert e["result"]["total"] > 5
        for s in ("w1", "w2", "w3"):
            assert stream_errors(sql, db, s) == []


# ------------------------------------------------------------------------------ NODELAY

def test_nodelay_create_subtable(cl):
    c, sql = cl
    db = "o_nodelay"
    meters_db(sql, db, ["a", "b", "a"])
    q = "AS SELECT _twstart AS ws, COUNT(*) AS cnt FROM %%trows"
    create_stream(c, sql, db,
                  "CREATE STREAM s1 INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                  f"INTO out1 NODELAY_CREATE_SUBTABLE {q}")
    create_stream(c, sql, db,
                  "CREATE STREAM s2 INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                  f"INTO out2 NODELAY_CREATE_SUBTABLE OUTPUT_SUBTABLE(concat('o_', %%1)) {q}")
    create_stream(c, sql, db,
                  "CREATE STREAM s3 INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY loc "
                  f"INTO out3 NODELAY_CREATE_SUBTABLE {q}")
    create_stream(c, sql, db,
                  "CREATE STREAM s4 INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                  f"INTO out4 {q}")
    # No row written: the subtables exist anyway, one per group of the trigger table when
    # the tasks started (the two snodes' tasks together own every slot):
    # s1: a generated name per child table (rule 12), tag tag_tbname; s2: o_d0, o_d1, o_d2;
    # s3 (tag grouping): one per distinct loc, 'a' (d0, d2) and 'b'; s4 (the default):
    # none before its first result.
    def names1():
        return sorted((n, v) for n, v, _ in subtables(sql, db, "out1"))
    wait_equal(names1, [("tag_tbname", "d0"), ("tag_tbname", "d1"), ("tag_tbname", "d2")],
               "NODELAY subtables (generated names)", sql, db, ["s1"])
    assert all(t.startswith("out1_") for *_, t in subtables(sql, db, "out1"))
    wait_equal(lambda: sorted(t for *_, t in subtables(sql, db, "out2")),
               ["o_d0", "o_d1", "o_d2"], "NODELAY subtables (OUTPUT_SUBTABLE)", sql, db, ["s2"])
    wait_equal(lambda: sorted((n, v) for n, v, _ in subtables(sql, db, "out3")),
               [("loc", "a"), ("loc", "b")], "NODELAY subtables (tag grouping)", sql, db, ["s3"])
    assert subtables(sql, db, "out4") == []
    # Results go to the subtables made up front: d1 rows 1, 12 -> [0,10) cnt 1 in o_d1.
    sql.insert(db, "d1", [(1, 1), (12, 2)])
    wait_equal(lambda: sorted((r[0], sec(r[1]), num(r[2])) for r in sql.rows(
        "SELECT tbname, CAST(ws AS BIGINT), cnt FROM out2", db)), [("o_d1", 0, 1)],
        "a result in a subtable made up front", sql, db, ["s2"])
    assert sorted(t for *_, t in subtables(sql, db, "out2")) == ["o_d0", "o_d1", "o_d2"]
    for s in ("s1", "s2", "s3", "s4"):
        assert stream_errors(sql, db, s) == []


# ------------------------------------------------------------------------------ DELETE_OUTPUT

def test_delete_output_table(cl):
    c, sql = cl
    db = "o_delout"
    meters_db(sql, db, ["a", "b"])
    q = "AS SELECT _twstart AS ws, COUNT(*) AS cnt FROM %%trows"
    create_stream(c, sql, db,
                  "CREATE STREAM s1 INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                  f"STREAM_OPTIONS(DELETE_OUTPUT_TABLE) INTO out1 {q}")
    create_stream(c, sql, db,
                  "CREATE STREAM s2 INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                  f"STREAM_OPTIONS(DELETE_OUTPUT_TABLE) INTO out2 "
                  f"OUTPUT_SUBTABLE(concat('x_', %%1)) {q}")
    create_stream(c, sql, db,
                  "CREATE STREAM s3 INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                  f"INTO out3 {q}")
    sql.insert(db, "d0", [(0, 1), (12, 2)])
    sql.insert(db, "d1", [(0, 1), (12, 2)])
    # [0,10) closes in both tables: one output subtable per table in every stream.
    for t in ("out1", "out2", "out3"):
        wait_equal(lambda: sorted(v for _, v, _ in subtables(sql, db, t)), ["d0", "d1"],
                   f"subtables of {t}", sql, db, ["s1", "s2", "s3"])
    sql.run("DROP TABLE d0", db)
    # DELETE_OUTPUT_TABLE: d0's output subtable goes with it (s1 generated name, s2 x_d0);
    # s3 (without the option) keeps it.
    wait_equal(lambda: sorted(v for _, v, _ in subtables(sql, db, "out1")), ["d1"],
               "out1 after DROP TABLE d0", sql, db, ["s1"])
    wait_equal(lambda: sorted(t for *_, t in subtables(sql, db, "out2")), ["x_d1"],
               "out2 after DROP TABLE d0", sql, db, ["s2"])
    assert sorted(v for _, v, _ in subtables(sql, db, "out3")) == ["d0", "d1"]


# ------------------------------------------------------------------------------ LOW_LATENCY

def test_low_latency_and_batched_same_output(cl):
    c, sql = cl
    db = "o_batch"
    meters_db(sql, db, ["a", "b"])
    q = ("AS SELECT _twstart AS ws, _twend AS we, COUNT(*) AS cnt, SUM(v) AS total "
         "FROM %%trows")
    create_stream(c, sql, db, "CREATE STREAM sb COUNT_WINDOW(2) FROM meters PARTITION BY tbname "
                              f"INTO outb {q}")
    create_stream(c, sql, db, "CREATE STREAM sl COUNT_WINDOW(2) FROM meters PARTITION BY tbname "
                              f"STREAM_OPTIONS(LOW_LATENCY_CALC) INTO outl {q}")
    create_stream(c, sql, db, "CREATE STREAM ub STATE_WINDOW(v) FROM meters PARTITION BY tbname "
                              f"INTO outu {q}")
    # One insert per table, several windows closing in each (one reader round: a batch).
    sql.insert(db, "d0", [(i, i + 1) for i in range(9)])          # v 1..9 at 0..8
    sql.insert(db, "d1", [(0, 5), (1, 5), (2, 6), (3, 6), (4, 6), (5, 7)])
    # COUNT_WINDOW(2) (rule 7): d0 rows (0,1) 3, (2,3) 7, (4,5) 11, (6,7) 15; row 8 open.
    # d1 rows (0,1) 10, (2,3) 12, (4,5) 13.
    exp = sorted([("d0", 0, 1, 2, 3), ("d0", 2, 3, 2, 7), ("d0", 4, 5, 2, 11),
                  ("d0", 6, 7, 2, 15), ("d1", 0, 1, 2, 10), ("d1", 2, 3, 2, 12),
                  ("d1", 4, 5, 2, 13)])
    # STATE_WINDOW(v): d0 every row its own state: windows 0..7 (one row each, v = i + 1),
    # the one at 8 open; d1 (5: 0..1, 10), (6: 2..4, 18); 7 open.
    expu = sorted([("d0", i, i, 1, i + 1) for i in range(8)] +
                  [("d1", 0, 1, 2, 10), ("d1", 2, 4, 3, 18)])

    def get(t):
        return lambda: sorted((r[0], sec(r[1]), sec(r[2]), num(r[3]), num(r[4])) for r in
                              sql.rows("SELECT tag_tbname, CAST(ws AS BIGINT), "
                                       f"CAST(we AS BIGINT), cnt, total FROM {t}", db))
    wait_equal(get("outb"), exp, "batched COUNT_WINDOW", sql, db, ["sb"])
    wait_equal(get("outl"), exp, "LOW_LATENCY_CALC COUNT_WINDOW", sql, db, ["sl"])
    wait_equal(get("outu"), expu, "batched STATE_WINDOW", sql, db, ["ub"])
    for s in ("sb", "sl", "ub"):
        assert stream_errors(sql, db, s) == []


# ------------------------------------------------------------------------------ MAX_DELAY

def test_max_delay_intermediate_then_final(cl):
    """MAX_DELAY(3s): a window still open 3 s (processing time) after it opened is computed
    and its row written; the final computation at the close replaces that row (rule 11)."""
    c, sql = cl
    db = "o_maxdelay"
    make_db(sql, db, ["CREATE TABLE n (ts TIMESTAMP, v INT)"])
    q = "AS SELECT _twstart AS ws, COUNT(*) AS cnt, SUM(v) AS total FROM %%trows"
    create_stream(c, sql, db, "CREATE STREAM md INTERVAL(1m) SLIDING(1m) FROM n "
                              f"STREAM_OPTIONS(MAX_DELAY(3s)) INTO omd {q}")
    create_stream(c, sql, db, f"CREATE STREAM nd INTERVAL(1m) SLIDING(1m) FROM n INTO ond {q}")

    def get(t):
        return lambda: sorted((sec(r[0]), num(r[1]), num(r[2])) for r in sql.rows(
            f"SELECT CAST(ws AS BIGINT), cnt, total FROM {t}", db))
    sql.insert(db, "n", [(0, 1), (5, 2)])
    # Window [0,60) opens with rows 0, 5 and stays open (watermark 5): about 3 s later the
    # MAX_DELAY trigger computes it: (0, 2 rows, sum 3).
    wait_equal(get("omd"), [(0, 2, 3)], "MAX_DELAY intermediate row", sql, db, ["md"],
               timeout=15, settle=0)
    # The same window without MAX_DELAY has no row: it is open.
    assert get("ond")() == []
    # More rows of the window, then one of the next closes it: the final row (0, 3, 13)
    # replaces the intermediate one - one row for the window, not two.
    sql.insert(db, "n", [(20, 10), (61, 1)])
    wait_equal(get("omd"), [(0, 3, 13)], "final row replaced the intermediate", sql, db, ["md"])
    wait_equal(get("ond"), [(0, 3, 13)], "final row without MAX_DELAY", sql, db, ["nd"])
    for s in ("md", "nd"):
        assert stream_errors(sql, db, s) == []


# ------------------------------------------------------------------------------ IGNORE_NODATA

def test_ignore_nodata_trigger(cl):
    """IGNORE_NODATA_TRIGGER: windows without rows do not trigger (INTERVAL: no open/close
    notification of an empty window; PERIOD: no ON_TIME for a point without new rows)."""
    c, sql = cl
    db = "o_nodata"
    port = free_port()
    with receiving(port) as recv:
        make_db(sql, db, ["CREATE TABLE n (ts TIMESTAMP, v INT)"])
        url = f"ws://127.0.0.1:{port}/nd"
        q = "AS SELECT _twstart AS ws, COUNT(*) AS cnt FROM %%trows"
        for name, opt in (("all", ""), ("ign", "STREAM_OPTIONS(IGNORE_NODATA_TRIGGER) ")):
            create_stream(c, sql, db,
                          f"CREATE STREAM i_{name} INTERVAL(10s) SLIDING(10s) FROM n {opt}"
                          f"NOTIFY('{url}') ON (WINDOW_OPEN|WINDOW_CLOSE) INTO oi_{name} {q}")
            create_stream(c, sql, db,
                          f"CREATE STREAM p_{name} PERIOD(1s) FROM n {opt}"
                          f"NOTIFY('{url}') INTO op_{name} AS SELECT _tlocaltime AS "
                          "t, COUNT(*) AS cnt FROM n")
        sql.insert(db, "n", [(0, 1), (3, 2), (35, 3)])
        # INTERVAL(10s), watermark 35: [0,10) opens and closes with rows; [10,20) and
        # [20,30) have none: they open and close only without the option; [30,40) opens.
        want = {
            "i_all": {("WINDOW_OPEN", 0), ("WINDOW_CLOSE", 0), ("WINDOW_OPEN", 10),
                      ("WINDOW_CLOSE", 10), ("WINDOW_OPEN", 20), ("WINDOW_CLOSE", 20),
                      ("WINDOW_OPEN", 30)},
            "i_ign": {("WINDOW_OPEN", 0), ("WINDOW_CLOSE", 0), ("WINDOW_OPEN", 30)},
        }

        def windows():
            got = {"i_all": set(), "i_ign": set()}
            for name, e in recv.events():
                if name in got:
                    got[name].add((e["eventType"], (e["windowStart"] - B) // 1000))
            return got
        assert poll(windows, lambda g: g == want, 20) == want
        # PERIOD(1s): without the option one ON_TIME per second whether rows came or not;
        # with it only the first point after the insert (rows since the previous point).
        def on_time():
            n = {"p_all": 0, "p_ign": 0}
            for name, e in recv.events():
                if name in n:
                    assert e["eventType"] == "ON_TIME", e
                    n[name] += 1
            return n
        assert poll(on_time, lambda n: n["p_all"] >= 4, 20)["p_all"] >= 4
        time.sleep(1.5)
        assert windows() == want
        assert on_time()["p_ign"] == 1, on_time()
        for s in ("i_all", "i_ign", "p_all", "p_ign"):
            assert stream_errors(sql, db, s) == []
