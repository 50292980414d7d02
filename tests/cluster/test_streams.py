"""Stream execution end to end (issue 6): a real cluster (mnode, 2 vnodes, 2 snodes), streams
created with the sluice CLI, rows inserted after the streams' tasks are set up, and the
output tables read back through the CLI.

Every expected output row is worked out by hand from spec/stream-syntax.txt and
spec/semantics.md (rule numbers below refer to semantics.md; "docs" to the decisions in
docs/triggers.md where the spec leaves room) - never taken from the system under test.
Times are seconds after 2025-01-01 00:00:00 UTC (B); the tables use millisecond precision.

The streams of one test live in their own database, so tests do not feed each other's
streams. All tests but the kill -9 one share one cluster.
"""
import re
import signal
import time

import pytest

from conftest import free_port
from helpers import (NODE_TIMEOUT_MS, busiest_snode, create_stream, make_db, meters_db,
                     ms, num, poll, ready_marks, receiving, running, sec, stream_cluster,
                     stream_errors, tasks, wait_acked, wait_equal, wait_ready)


# ------------------------------------------------------------------------------ fixtures

@pytest.fixture(scope="module")
def cl(bin_dir, tmp_path_factory):
    with running(stream_cluster(bin_dir, tmp_path_factory.mktemp("streams"))) as cs:
        yield cs


# ------------------------------------------------------------------------------ INTERVAL

def test_interval_partition_by_tbname(cl):
    c, sql = cl
    db = "s_int"
    meters_db(sql, db, ["a", "b", "c"])
    create_stream(c, sql, db,
                  "CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                  "INTO out AS SELECT _twstart AS ws, _twend AS we, COUNT(*) AS cnt, "
                  "SUM(v) AS total FROM %%trows")
    sql.insert(db, "d0", [(0, 1), (3, 2), (12, 3), (25, 4)])
    sql.insert(db, "d1", [(1, 10), (15, 20), (31, 30)])
    # One group per child table, each with its own watermark (rule 1, WATERMARK 0):
    # d0: max ts 25 -> [0,10) and [10,20) closed (rule 8), [20,30) open.
    #     [0,10) = rows 0,3 -> cnt 2, sum 3; [10,20) = row 12 -> cnt 1, sum 3.
    #     _twend of an INTERVAL window is its exclusive end (rule 3).
    # d1: max ts 31 -> [0,10) = row 1 (10), [10,20) = row 15 (20); [20,30) has no rows: it
    #     triggers (rule 8) but an aggregate over an empty %%trows yields no row, so nothing
    #     is written (rule 10, no FORCE_OUTPUT). [30,40) open.
    # d2 has no rows: no group, no subtable.
    expected = sorted([("d0", 0, 10, 2, 3), ("d0", 10, 20, 1, 3),
                       ("d1", 0, 10, 1, 10), ("d1", 10, 20, 1, 20)])

    def get():
        return sorted((r[0], sec(r[1]), sec(r[2]), num(r[3]), num(r[4])) for r in sql.rows(
            "SELECT tag_tbname, CAST(ws AS BIGINT), CAST(we AS BIGINT), cnt, total FROM out",
            db))
    wait_equal(get, expected, "INTERVAL PARTITION BY tbname", sql, db, ["s"])
    # One output subtable per group, generated stable names (rule 12), tag_tbname = the
    # group's child table (spec: default tag of a PARTITION BY tbname grouping).
    tags = sql.dicts("SELECT table_name, tag_name, tag_value FROM information_schema.ins_tags "
                     f"WHERE db_name = '{db}' AND stable_name = 'out'")
    assert sorted((t["tag_name"], t["tag_value"]) for t in tags) == [
        ("tag_tbname", "d0"), ("tag_tbname", "d1")]
    names = {t["tag_value"]: t["table_name"] for t in tags}
    assert names["d0"] != names["d1"]
    assert all(re.fullmatch(r"out_[0-9a-f]{16}", n) for n in names.values()), names
    per_sub = sorted((names[g], w) for g, w, *_ in expected)
    got_sub = sorted((r[0], sec(r[1])) for r in sql.rows(
        "SELECT tbname, CAST(ws AS BIGINT) FROM out", db))
    assert got_sub == per_sub
    assert stream_errors(sql, db, "s") == []


# ------------------------------------------------------------------------------ SESSION

def test_session_column_names_and_window_placeholders(cl):
    c, sql = cl
    db = "s_ses"
    make_db(sql, db, ["CREATE TABLE n (ts TIMESTAMP, v INT)"])
    create_stream(c, sql, db,
                  "CREATE STREAM s SESSION(ts, 5s) FROM n INTO out (ws, we, dur, rn, total) "
                  "AS SELECT _twstart, _twend, _twduration, _twrownum, SUM(v) FROM %%trows")
    sql.insert(db, "n", [(0, 1), (2, 2), (7, 3), (13, 4), (14, 5), (30, 6)])
    # Gaps: 2, 5 (<= 5: same session, spec), 6 (> 5: the row at 13 closes [0..7], rule 6),
    # 1, 16 (the row at 30 closes [13..14]). The session starting at 30 stays open.
    # _twstart/_twend = first/last row (rule 3), _twduration = wend - wstart in ms,
    # _twrownum = rows in the window.
    expected = [(0, 7, 7000, 3, 6), (13, 14, 1000, 2, 9)]

    def get():
        return [(sec(r[0]), sec(r[1]), num(r[2]), num(r[3]), num(r[4])) for r in sql.rows(
            "SELECT CAST(ws AS BIGINT), CAST(we AS BIGINT), dur, rn, total FROM out "
            "ORDER BY ws", db)]
    wait_equal(get, expected, "SESSION", sql, db, ["s"])
    # The column name list names the output columns.
    cols = [r[0] for r in sql.rows("DESCRIBE out", db)]
    assert cols[:5] == ["ws", "we", "dur", "rn", "total"], cols


# ------------------------------------------------------------------------------ STATE_WINDOW

def test_state_window_output_subtable(cl):
    c, sql = cl
    db = "s_st"
    meters_db(sql, db, ["a", "b"])
    create_stream(c, sql, db,
                  "CREATE STREAM s STATE_WINDOW(v) FROM meters PARTITION BY tbname INTO out "
                  "OUTPUT_SUBTABLE(concat('st_', %%1)) AS SELECT _twstart AS ws, _twend AS we, "
                  "COUNT(*) AS cnt, COUNT(v) AS nv FROM %%trows")
    sql.insert(db, "d0", [(0, 1), (2, 1), (3, 5), (5, None), (7, 5), (9, 1)])
    sql.insert(db, "d1", [(0, 2), (4, 2), (6, 3)])
    # d0 (rule 3's example plus a NULL row): windows (1: 0..2, 2 rows) and (5: 3..7); the
    # all-NULL row at 5 does not close the 5-window (rule 4) and lies inside it, so %%trows
    # (rows 3..7) has 3 rows, 2 non-NULL v. The window of v=1 from 9 stays open.
    # d1: (2: 0..4, 2 rows) closed by the 3 at 6, which stays open.
    # OUTPUT_SUBTABLE(concat('st_', %%1)): %%1 is the tbname -> st_d0, st_d1.
    expected = sorted([("st_d0", 0, 2, 2, 2), ("st_d0", 3, 7, 3, 2), ("st_d1", 0, 4, 2, 2)])

    def get():
        return sorted((r[0], sec(r[1]), sec(r[2]), num(r[3]), num(r[4])) for r in sql.rows(
            "SELECT tbname, CAST(ws AS BIGINT), CAST(we AS BIGINT), cnt, nv FROM out", db))
    wait_equal(get, expected, "STATE_WINDOW", sql, db, ["s"])


# ------------------------------------------------------------------------------ EVENT_WINDOW

def test_event_window(cl):
    c, sql = cl
    db = "s_ev"
    make_db(sql, db, ["CREATE TABLE n (ts TIMESTAMP, v INT)"])
    create_stream(c, sql, db,
                  "CREATE STREAM s EVENT_WINDOW(START WITH v > 10 END WITH v < 5) FROM n "
                  "INTO out AS SELECT _twstart AS ws, _twend AS we, COUNT(*) AS cnt, "
                  "SUM(v) AS total FROM %%trows")
    sql.insert(db, "n", [(0, 12), (1, 3), (2, 7), (3, 9), (4, 20), (6, 15), (8, 2), (10, 1),
                         (11, 11)])
    # Rule 5's example plus rows outside windows: 12@0 opens, 3@1 closes (0..1: 2 rows, 15);
    # 7@2, 9@3 meet no start condition; 20@4 opens, 15@6 stays, 2@8 closes (4..8: 3 rows,
    # 37); 1@10 nothing; 11@11 opens a window that stays open.
    expected = [(0, 1, 2, 15), (4, 8, 3, 37)]

    def get():
        return [(sec(r[0]), sec(r[1]), num(r[2]), num(r[3])) for r in sql.rows(
            "SELECT CAST(ws AS BIGINT), CAST(we AS BIGINT), cnt, total FROM out ORDER BY ws",
            db)]
    wait_equal(get, expected, "EVENT_WINDOW", sql, db, ["s"])


# ------------------------------------------------------------------------------ COUNT_WINDOW

def test_count_window(cl):
    c, sql = cl
    db = "s_cnt"
    make_db(sql, db, ["CREATE TABLE n (ts TIMESTAMP, v INT)"])
    q = "AS SELECT _twstart AS ws, _twend AS we, COUNT(*) AS cnt, SUM(v) AS total FROM %%trows"
    create_stream(c, sql, db, f"CREATE STREAM s3 COUNT_WINDOW(3) FROM n INTO out3 {q}")
    create_stream(c, sql, db, f"CREATE STREAM s32 COUNT_WINDOW(3, 2) FROM n INTO out32 {q}")
    sql.insert(db, "n", [(i, i + 1) for i in range(7)])   # rows 0..6 at i s, v = i + 1
    # COUNT_WINDOW(3): rows 0-2 (v 1+2+3 = 6) and 3-5 (4+5+6 = 15); row 6 stays open.
    # COUNT_WINDOW(3, 2) (rule 7's example): windows start at rows 0, 2, 4, 6: rows 0-2 (6),
    # 2-4 (3+4+5 = 12), 4-6 (5+6+7 = 18); the one starting at row 6 stays open.
    exp3 = [(0, 2, 3, 6), (3, 5, 3, 15)]
    exp32 = [(0, 2, 3, 6), (2, 4, 3, 12), (4, 6, 3, 18)]

    def get(t):
        return lambda: [(sec(r[0]), sec(r[1]), num(r[2]), num(r[3])) for r in sql.rows(
            f"SELECT CAST(ws AS BIGINT), CAST(we AS BIGINT), cnt, total FROM {t} ORDER BY ws",
            db)]
    wait_equal(get("out3"), exp3, "COUNT_WINDOW(3)", sql, db, ["s3"])
    wait_equal(get("out32"), exp32, "COUNT_WINDOW(3, 2)", sql, db, ["s32"])


# ------------------------------------------------------------------------------ SLIDING

def test_sliding_on_time(cl):
    c, sql = cl
    db = "s_sl"
    make_db(sql, db, ["CREATE TABLE n (ts TIMESTAMP, v INT)"])
    create_stream(c, sql, db,
                  "CREATE STREAM s SLIDING(10s) FROM n INTO out AS SELECT _tcurrent_ts AS t, "
                  "_tprev_ts AS tp, _tnext_ts AS tn, COUNT(*) AS cnt FROM n "
                  "WHERE ts >= _tprev_ts AND ts < _tcurrent_ts")
    sql.insert(db, "n", [(1, 1), (5, 1), (12, 1), (23, 1)])
    # Plain SLIDING: ON_TIME at event-time points k*10s (the PERIOD schedule in event time);
    # the group's first trigger is the first point after its first row (docs 5): 10. A point
    # fires when the watermark (max ts, WATERMARK 0) reaches it: 10 at the row 12, 20 at the
    # row 23; 30 not yet. _tprev_ts/_tnext_ts are the neighbouring points. The query counts
    # the rows in [_tprev_ts, _tcurrent_ts): [0,10) -> 1, 5; [10,20) -> 12.
    expected = [(10, 0, 20, 2), (20, 10, 30, 1)]

    def get():
        return [(sec(r[0]), sec(r[1]), sec(r[2]), num(r[3])) for r in sql.rows(
            "SELECT CAST(t AS BIGINT), CAST(tp AS BIGINT), CAST(tn AS BIGINT), cnt FROM out "
            "ORDER BY t", db)]
    wait_equal(get, expected, "SLIDING", sql, db, ["s"])


# ------------------------------------------------------------------------------ PERIOD

def test_period_wall_clock(cl):
    c, sql = cl
    db = "s_per"
    make_db(sql, db, ["CREATE TABLE src (ts TIMESTAMP, v INT)"])
    sql.insert(db, "src", [(0, 1), (1, 2), (2, 3)])
    t0 = int(time.time() * 1000)
    create_stream(c, sql, db,
                  "CREATE STREAM s PERIOD(2s) INTO out AS SELECT _tlocaltime AS t, "
                  "_tprev_localtime AS tp, COUNT(*) AS cnt FROM src")
    # PERIOD(2s): points at midnight (UTC, the default server zone) + k*2s, so every
    # _tlocaltime (the scheduled point, docs 9) is a multiple of 2000 ms, consecutive
    # triggers are 2000 ms apart and _tprev_localtime is the point before. The first
    # point is after the creation. Each computation counts src: 3 rows.
    deadline = time.time() + 12
    rows = []
    while time.time() < deadline:
        rows = [(int(r[0]), int(r[1]), num(r[2])) for r in sql.rows(
            "SELECT CAST(t AS BIGINT), CAST(tp AS BIGINT), cnt FROM out ORDER BY t", db)]
        if len(rows) >= 3:
            break
        time.sleep(0.3)
    now = int(time.time() * 1000)
    assert len(rows) >= 3, f"PERIOD(2s): {rows} after 12 s; errors {stream_errors(sql, db, 's')}"
    ts = [r[0] for r in rows]
    assert all(t % 2000 == 0 for t in ts), ts
    assert t0 - 2000 < ts[0] and ts[-1] <= now + 1000, (t0, ts, now)
    gaps = [b - a for a, b in zip(ts, ts[1:])]
    # Tolerant of one missed point on a loaded machine, but triggers must be real: 2 s apart.
    assert all(g > 0 and g % 2000 == 0 for g in gaps) and gaps.count(2000) >= len(gaps) - 1, gaps
    assert all(tp == t - 2000 for t, tp, _ in rows), rows
    assert all(cnt == 3 for *_, cnt in rows), rows
    # Still triggering: the newest row is recent (its point plus the period and slack).
    assert now - ts[-1] < 4000, (ts, now)


def test_period_partition_by_tbname(cl):
    c, sql = cl
    db = "s_perg"
    meters_db(sql, db, ["a", "b"])
    create_stream(c, sql, db,
                  "CREATE STREAM s PERIOD(2s) FROM meters PARTITION BY tbname INTO out AS "
                  "SELECT _tlocaltime AS t, COUNT(*) AS cnt FROM %%tbname")
    sql.insert(db, "d0", [(0, 1), (1, 2)])
    sql.insert(db, "d1", [(0, 1)])
    # With grouping a group exists once it had a row (docs 9); from then on every PERIOD
    # point computes per group over its child table: d0 has 2 rows, d1 1, each in its
    # own subtable (tag_tbname = the child table).
    deadline = time.time() + 8
    got = set()
    while time.time() < deadline:
        got = {(r[0], num(r[2])) for r in sql.rows("SELECT tag_tbname, CAST(t AS BIGINT), cnt "
                                                   "FROM out", db) if int(r[1]) % 2000 == 0}
        if got == {("d0", 2), ("d1", 1)}:
            break
        time.sleep(0.3)
    assert got == {("d0", 2), ("d1", 1)}, (got, stream_errors(sql, db, "s"))


def _period_rows(sql, db, table):
    """(point ms, cnt or None) of a PERIOD output table, in point order."""
    return [(int(r[0]), num(r[1])) for r in sql.rows(
        f"SELECT CAST(ts AS BIGINT), cnt FROM {table} ORDER BY ts", db)]


def test_period_trows_is_rows_written_since_previous_point(cl):
    """PERIOD with %%trows (docs/streams.md "PERIOD and %%trows"): %%trows is the group's
    rows written between the previous and the current point, so over all points the counts
    add up to exactly the rows written, each row counted once; a point without new rows
    writes nothing (rule 10), unless FORCE_OUTPUT (a row with cnt NULL, docs "Options")."""
    c, sql = cl
    db = "s_pertr"
    meters_db(sql, db, ["a", "b"])
    q = "INTO {} AS SELECT _tlocaltime AS ts, COUNT(*) AS cnt FROM %%trows"
    create_stream(c, sql, db, "CREATE STREAM sp PERIOD(2s) FROM meters " + q.format("op"))
    create_stream(c, sql, db, "CREATE STREAM spf PERIOD(2s) FROM meters "
                  "STREAM_OPTIONS(FORCE_OUTPUT) " + q.format("opf"))
    # Event times are old (B + seconds) and have nothing to do with the points (processing
    # time); rows written earlier or later are not in a point's %%trows.
    sql.insert(db, "d0", [(10, 1), (11, 2)])
    sql.insert(db, "d1", [(12, 3)])

    def total(table):
        return sum(cnt or 0 for _, cnt in _period_rows(sql, db, table))
    assert poll(lambda: total("op"), lambda n: n >= 3, 15) == 3, (
        _period_rows(sql, db, "op"), stream_errors(sql, db, "sp"))
    time.sleep(2.5)  # one more point at least: it has no rows and writes nothing
    sql.insert(db, "d0", [(100, 4), (101, 5)])
    assert poll(lambda: total("op"), lambda n: n >= 5, 15) == 5, _period_rows(sql, db, "op")
    time.sleep(4.5)  # two or more points without rows
    rows = _period_rows(sql, db, "op")
    # 5 rows in 2 inserts of 2 batches: every written point counts > 0 rows, the counts
    # add up to 5, and the points without rows wrote nothing (at most 3 + 2 non-empty
    # points: the inserts of a batch may straddle a point).
    assert sum(n for _, n in rows) == 5 and all(n and n > 0 for _, n in rows), rows
    assert 2 <= len(rows) <= 5, rows
    assert all(t % 2000 == 0 for t, _ in rows), rows
    # FORCE_OUTPUT: the same counts, plus a NULL row for points without rows.
    frows = _period_rows(sql, db, "opf")
    assert sum(n or 0 for _, n in frows) == 5, frows
    assert any(n is None for _, n in frows), frows
    assert all(n is None or n > 0 for _, n in frows), frows
    for s in ("sp", "spf"):
        assert stream_errors(sql, db, s) == []


def test_period_without_partition_ticks_from_the_start_as_group_0(cl):
    """A PERIOD stream with a trigger table and no PARTITION BY has one group, id 0, from
    the start (docs/triggers.md rule 9): it computes at every point before any row is
    written, and rows written later belong to that same group - one ON_TIME per point,
    always groupId "0" (notifications.md: ids as decimal strings)."""
    c, sql = cl
    db = "s_per0"
    port = free_port()
    with receiving(port) as recv:
        meters_db(sql, db, ["a"])
        create_stream(c, sql, db,
                      f"CREATE STREAM sp2 PERIOD(2s) FROM meters NOTIFY('ws://127.0.0.1:{port}/p') "
                      "INTO op2 AS SELECT _tlocaltime AS ts, _tgrpid AS g, 1 AS cnt")
        rows = poll(lambda: sql.rows("SELECT CAST(ts AS BIGINT), g FROM op2", db),
                    lambda r: len(r) >= 2, 12)
        assert len(rows) >= 2, (rows, stream_errors(sql, db, "sp2"))
        assert {num(g) for _, g in rows} == {0}, rows
        sql.insert(db, "d0", [(0, 1)])
        n0 = len(recv.events())
        poll(lambda: len(recv.events()), lambda n: n >= n0 + 3, 12)
        evs = [e for name, e in recv.events() if name == "sp2"]
        assert len(evs) >= 3
        assert {e["groupId"] for e in evs} == {"0"}, evs
        assert all(e["eventType"] == "ON_TIME" for e in evs), evs
        # One event per point: no two results for the same _tlocaltime.
        pts = [e["result"]["ts"] if isinstance(e.get("result"), dict) else None for e in evs]
        assert len([p for p in pts if p is not None]) == len({p for p in pts if p is not None}), evs
    assert stream_errors(sql, db, "sp2") == []


# ------------------------------------------------------------------------------ tag grouping

def test_partition_by_tag_subtable_tags_columns(cl):
    c, sql = cl
    db = "s_tag"
    meters_db(sql, db, ["north", "south", "north"])
    create_stream(c, sql, db,
                  "CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY loc "
                  "INTO out OUTPUT_SUBTABLE(concat('o_', %%1)) (wstart, cnt, avgv) "
                  "TAGS (region VARCHAR(16) AS %%1, label VARCHAR(24) AS concat('r-', %%1)) "
                  "AS SELECT _twstart, COUNT(*), AVG(v) FROM %%trows")
    # The same grouping without OUTPUT_SUBTABLE / TAGS: generated subtable names and the
    # grouping column as the tag (spec: tags derived from the grouping columns).
    create_stream(c, sql, db,
                  "CREATE STREAM s2 INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY loc "
                  "INTO out2 AS SELECT _twstart AS ws, COUNT(*) AS cnt FROM %%trows")
    sql.insert(db, "d0", [(1, 10), (4, 20), (12, 30)])
    sql.insert(db, "d2", [(2, 30), (11, 50), (21, 7)])
    sql.insert(db, "d1", [(3, 100), (14, 200), (25, 300)])
    # Groups by loc: north = d0 + d2 (rows 1,2,4,11,12,21 - they may arrive from two
    # vgroups in any interleaving; a late row recomputes and replaces, rules 2 and 11),
    # south = d1 (3, 14, 25). Watermarks: north 21, south 25 -> [0,10), [10,20) closed.
    # north [0,10): 10,30,20 -> cnt 3 avg 20; [10,20): 50,30 -> cnt 2 avg 40.
    # south [0,10): 100 -> 1, 100; [10,20): 200 -> 1, 200.
    # Subtables o_north / o_south; tags region = %%1, label = 'r-' || %%1.
    expected = sorted([("o_north", "north", "r-north", 0, 3, 20.0),
                       ("o_north", "north", "r-north", 10, 2, 40.0),
                       ("o_south", "south", "r-south", 0, 1, 100.0),
                       ("o_south", "south", "r-south", 10, 1, 200.0)])

    def get():
        return sorted((r[0], r[1], r[2], sec(r[3]), num(r[4]), float(r[5])) for r in sql.rows(
            "SELECT tbname, region, label, CAST(wstart AS BIGINT), cnt, avgv FROM out", db))
    wait_equal(get, expected, "PARTITION BY loc", sql, db, ["s"])
    cols = [r[0] for r in sql.rows("DESCRIBE out", db)]
    assert cols == ["wstart", "cnt", "avgv", "region", "label"], cols

    def get2():
        return sorted((r[0], sec(r[1]), num(r[2])) for r in sql.rows(
            "SELECT loc, CAST(ws AS BIGINT), cnt FROM out2", db))
    wait_equal(get2, sorted([("north", 0, 3), ("north", 10, 2), ("south", 0, 1),
                             ("south", 10, 1)]), "PARTITION BY loc, default tags", sql, db,
               ["s2"], settle=0)
    subs = {r[0] for r in sql.rows("SELECT tbname FROM out2", db)}
    assert len(subs) == 2 and all(re.fullmatch(r"out2_[0-9a-f]{16}", n) for n in subs), subs


# ------------------------------------------------------------------------------ %%trows, %%tbname

def test_trows_tbname_super_table_placeholders(cl):
    c, sql = cl
    db = "s_tb"
    meters_db(sql, db, ["a", "b"])
    head = "INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname"
    win = "ts >= _twstart AND ts < _twend"
    create_stream(c, sql, db,
                  f"CREATE STREAM s_rows {head} INTO o_rows AS SELECT _twstart AS ws, "
                  "COUNT(*) AS cnt, SUM(v) AS total, _twrownum AS rn, _twduration AS dur, "
                  "_twend AS we, %%tbname AS src, %%1 AS k FROM %%trows")
    create_stream(c, sql, db,
                  f"CREATE STREAM s_super {head} INTO o_super AS SELECT _twstart AS ws, "
                  f"COUNT(*) AS cnt, SUM(v) AS total FROM meters WHERE tbname = %%tbname AND {win}")
    create_stream(c, sql, db,
                  f"CREATE STREAM s_tbn {head} INTO o_tbn AS SELECT _twstart AS ws, "
                  f"COUNT(*) AS cnt, SUM(v) AS total FROM %%tbname WHERE {win}")
    sql.insert(db, "d0", [(1, 1), (2, 2), (13, 3), (21, 100)])
    sql.insert(db, "d1", [(5, 5), (16, 6), (18, 7), (29, 100)])
    # d0: [0,10) rows 1,2 -> cnt 2 sum 3; [10,20) row 13 -> 1, 3; [20,30) open (row 21).
    # d1: [0,10) row 5 -> 1, 5; [10,20) rows 16,18 -> 2, 13; [20,30) open (row 29).
    # The same numbers from %%trows, from the super table restricted to tbname = %%tbname
    # and the window, and from FROM %%tbname (the group's child table) with the window.
    # _twrownum = rows of the window, _twduration = 10000 ms, _twend = start + 10 s,
    # %%tbname and %%1 (the PARTITION BY tbname value) = the child table's name.
    base = sorted([("d0", 0, 2, 3), ("d0", 10, 1, 3), ("d1", 0, 1, 5), ("d1", 10, 2, 13)])
    exp_rows = sorted((g, w, n, s, n, 10000, w + 10, g, g) for g, w, n, s in base)

    def get_rows():
        return sorted((r[0], sec(r[1]), num(r[2]), num(r[3]), num(r[4]), num(r[5]),
                       sec(r[6]), r[7], r[8]) for r in sql.rows(
            "SELECT tag_tbname, CAST(ws AS BIGINT), cnt, total, rn, dur, CAST(we AS BIGINT), "
            "src, k FROM o_rows", db))
    wait_equal(get_rows, exp_rows, "FROM %%trows", sql, db, ["s_rows"], settle=0)

    def get(t):
        return lambda: sorted((r[0], sec(r[1]), num(r[2]), num(r[3])) for r in sql.rows(
            f"SELECT tag_tbname, CAST(ws AS BIGINT), cnt, total FROM {t}", db))
    wait_equal(get("o_super"), base, "FROM meters WHERE tbname = %%tbname", sql, db,
               ["s_super"], settle=0)
    wait_equal(get("o_tbn"), base, "FROM %%tbname", sql, db, ["s_tbn"])


def test_computation_over_another_table(cl):
    c, sql = cl
    db = "s_oth"
    make_db(sql, db, ["CREATE TABLE n (ts TIMESTAMP, v INT)",
                      "CREATE TABLE prices (ts TIMESTAMP, p DOUBLE)"])
    sql.insert(db, "prices", [(0, 1.5), (5, 2.5), (10, 4.0), (19, 1.0), (25, 100.0)])
    create_stream(c, sql, db,
                  "CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM n INTO out AS SELECT "
                  "_twstart AS ws, COUNT(*) AS cnt, SUM(p) AS total FROM prices "
                  "WHERE ts >= _twstart AND ts < _twend")
    sql.insert(db, "n", [(3, 1), (14, 1), (22, 1)])
    # Windows of n closed by its watermark 22: [0,10) and [10,20). Each computes over
    # prices (written before the stream; not the trigger table): [0,10) -> 1.5 + 2.5 = 4.0
    # (2 rows), [10,20) -> 4.0 + 1.0 = 5.0 (2 rows).
    expected = [(0, 2, 4.0), (10, 2, 5.0)]

    def get():
        return [(sec(r[0]), num(r[1]), float(r[2])) for r in sql.rows(
            "SELECT CAST(ws AS BIGINT), cnt, total FROM out ORDER BY ws", db)]
    wait_equal(get, expected, "computation over another table", sql, db, ["s"])


# ------------------------------------------------------------------------------ late data

def test_out_of_order_and_update_replace_the_row(cl):
    c, sql = cl
    db = "s_ooo"
    make_db(sql, db, ["CREATE TABLE n (ts TIMESTAMP, v INT)"])
    create_stream(c, sql, db,
                  "CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM n "
                  "STREAM_OPTIONS(WATERMARK(5s)) INTO out AS SELECT _twstart AS ws, "
                  "COUNT(*) AS cnt, SUM(v) AS total FROM %%trows")

    def get():
        return [(sec(r[0]), num(r[1]), num(r[2])) for r in sql.rows(
            "SELECT CAST(ws AS BIGINT), cnt, total FROM out ORDER BY ws", db)]
    sql.insert(db, "n", [(1, 1), (4, 4), (12, 12)])
    # Watermark 12 - 5 = 7: nothing closes. The row at 3 is older than the newest row but
    # within the watermark: released in order with the others (rule 2), no correction.
    sql.insert(db, "n", [(3, 3)])
    sql.insert(db, "n", [(16, 16)])
    # Watermark 11 >= 10: [0,10) closes with rows 1, 3, 4 -> cnt 3, sum 8 (rule 8).
    wait_equal(get, [(0, 3, 8)], "first result", sql, db, ["s"], settle=0.5)
    sql.insert(db, "n", [(2, 2)])
    # 2 < 4 (the last released row): out of order -> [0,10) is recomputed (rule 2) and its
    # row replaced (rule 11): rows 1,2,3,4 -> cnt 4, sum 10.
    wait_equal(get, [(0, 4, 10)], "after a late row", sql, db, ["s"], settle=0.5)
    sql.insert(db, "n", [(3, 30)])
    # An update of the existing timestamp 3 (v 3 -> 30): recomputed, sum 1+2+30+4 = 37.
    wait_equal(get, [(0, 4, 37)], "after an update", sql, db, ["s"], settle=0.5)
    sql.insert(db, "n", [(26, 26)])
    # Watermark 21: [10,20) closes with 12, 16 -> cnt 2, sum 28.
    wait_equal(get, [(0, 4, 37), (10, 2, 28)], "final", sql, db, ["s"])


# ------------------------------------------------------------------------------ errors

def test_computation_error_does_not_stop_other_groups(cl):
    c, sql = cl
    db = "s_err"
    meters_db(sql, db, ["a", "b"])
    create_stream(c, sql, db,
                  "CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                  "INTO out AS SELECT _twstart AS ws, 100 / MIN(v) AS q, COUNT(*) AS cnt "
                  "FROM %%trows")
    sql.insert(db, "d1", [(2, 0), (6, 3), (13, 5), (24, 1)])
    sql.insert(db, "d0", [(1, 4), (5, 5), (12, 2), (21, 1)])
    # d0: [0,10) min 4 -> 25.0 (2 rows); [10,20) min 2 -> 50.0 (1 row).
    # d1: [0,10) min 0 -> division by zero: an error in the task's status, no row;
    #     [10,20) min 5 -> 20.0 (1 row): the failing group goes on too.
    expected = sorted([("d0", 0, 25.0, 2), ("d0", 10, 50.0, 1), ("d1", 10, 20.0, 1)])

    def get():
        return sorted((r[0], sec(r[1]), float(r[2]), num(r[3])) for r in sql.rows(
            "SELECT tag_tbname, CAST(ws AS BIGINT), q, cnt FROM out", db))
    wait_equal(get, expected, "groups after an error", sql, db, ["s"])
    deadline = time.time() + 10
    while "division by zero" not in " ".join(stream_errors(sql, db, "s")):
        assert time.time() < deadline, f"no error shown: {tasks(sql, db, 's')[:3]}"
        time.sleep(0.2)


# ------------------------------------------------------------------------------ STOP / START

def test_stop_start_and_ignore_untreated(cl):
    c, sql = cl
    db = "s_stop"
    make_db(sql, db, ["CREATE TABLE n (ts TIMESTAMP, v INT)"])
    create_stream(c, sql, db,
                  "CREATE STREAM s COUNT_WINDOW(2) FROM n INTO out AS SELECT _twstart AS ws, "
                  "_twend AS we, COUNT(*) AS cnt FROM %%trows")

    def get():
        return [(sec(r[0]), sec(r[1]), num(r[2])) for r in sql.rows(
            "SELECT CAST(ws AS BIGINT), CAST(we AS BIGINT), cnt FROM out ORDER BY ws", db)]

    def stop():
        sql.run("STOP STREAM s", db)
        assert all(t["status"] == "stopped" for t in tasks(sql, db, "s"))
        wait_acked(sql)  # the snodes applied it: their tasks are gone

    def start(extra=""):
        since = ready_marks(c, db, "s")
        sql.run(f"START STREAM {extra}s", db)
        wait_ready(c, sql, db, "s", since)

    sql.insert(db, "n", [(1, 1), (2, 1)])
    # COUNT_WINDOW(2): rows 1, 2 -> window 1..2.
    wait_equal(get, [(1, 2, 2)], "before STOP", sql, db, ["s"], settle=0)
    stop()
    sql.insert(db, "n", [(3, 1), (4, 1)])
    time.sleep(1.0)
    assert get() == [(1, 2, 2)], "a stopped stream wrote output"
    start()
    # Without IGNORE UNTREATED the rows written while stopped are processed: window 3..4.
    wait_equal(get, [(1, 2, 2), (3, 4, 2)], "after START", sql, db, ["s"], settle=0)
    stop()
    sql.insert(db, "n", [(5, 1), (6, 1)])
    start("IGNORE UNTREATED ")
    sql.insert(db, "n", [(7, 1), (8, 1)])
    # IGNORE UNTREATED: rows 5, 6 are skipped (no window from 5); 7, 8 make window 7..8.
    wait_equal(get, [(1, 2, 2), (3, 4, 2), (7, 8, 2)], "after START IGNORE UNTREATED",
               sql, db, ["s"])


def test_rows_right_after_create_and_start_are_processed(cl):
    """CREATE STREAM and START STREAM return once every slot's task has positioned its
    readers (docs/streams.md "When a stream starts"): rows inserted the moment the
    statement returns are the stream's, without FILL_HISTORY and without waiting."""
    c, sql = cl
    db = "s_now"
    tables = meters_db(sql, db, ["x", "y", "z"])
    sql.insert(db, "d0", [(0, 100)])  # before the stream: not processed (no FILL_HISTORY)

    def get():
        return sorted((r[0], sec(r[1]), sec(r[2]), num(r[3])) for r in sql.rows(
            "SELECT tag_tbname, CAST(ws AS BIGINT), CAST(we AS BIGINT), cnt FROM out", db))

    # One CLI call: the CREATE, then at once the rows (no wait in between).
    rows = " ".join(f"{t} VALUES ({ms(1)}, 1) ({ms(2)}, 2)" for t in tables)
    sql.run("CREATE STREAM s COUNT_WINDOW(2) FROM meters PARTITION BY tbname INTO out AS "
            "SELECT _twstart AS ws, _twend AS we, COUNT(*) AS cnt FROM %%trows; "
            f"INSERT INTO {rows}", db)
    # COUNT_WINDOW(2) per table over the rows after the CREATE: 1..2 (row 0 is older).
    wait_equal(get, sorted((t, 1, 2, 2) for t in tables), "after CREATE", sql, db, ["s"])
    sql.run("STOP STREAM s", db)
    wait_acked(sql)
    sql.insert(db, "d1", [(3, 1)])  # while stopped: skipped by IGNORE UNTREATED
    rows = " ".join(f"{t} VALUES ({ms(4)}, 1) ({ms(5)}, 2)" for t in tables)
    sql.run(f"START STREAM IGNORE UNTREATED s; INSERT INTO {rows}", db)
    wait_equal(get, sorted([(t, 1, 2, 2) for t in tables] + [(t, 4, 5, 2) for t in tables]),
               "after START IGNORE UNTREATED", sql, db, ["s"])


# ------------------------------------------------------------------------------ kill -9 / move

def eight_tables(sql, db):
    """Database db with METERS and child tables d0..d7 (tags 'x<i>', i); their names."""
    return meters_db(sql, db, [f"x{i}" for i in range(8)], first_gid=0)


def test_kill_snode_moves_slots_exact_output(bin_dir, tmp_path):
    with running(stream_cluster(bin_dir, tmp_path)) as (c, sql):
        db = "s_kill"
        tables = eight_tables(sql, db)
        create_stream(c, sql, db,
                      "CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
                      "INTO out AS SELECT _twstart AS ws, COUNT(*) AS cnt, SUM(v) AS total "
                      "FROM %%trows")

        def put(times):
            # Row at t of table d<i> has v = 100 * i + t: sums identify the rows.
            vals = " ".join(f"{t} VALUES " + " ".join(f"({ms(x)}, {100 * i + x})" for x in times)
                            for i, t in enumerate(tables))
            sql.run(f"INSERT INTO {vals}", db)

        def get():
            return sorted((r[0], sec(r[1]), num(r[2]), num(r[3])) for r in sql.rows(
                "SELECT tag_tbname, CAST(ws AS BIGINT), cnt, total FROM out", db))

        def exp(windows):
            # windows: {start: [row times]} -> one row per group and window.
            return sorted((t, w, len(xs), sum(100 * i + x for x in xs))
                          for i, t in enumerate(tables) for w, xs in windows.items())

        put([1, 5, 12])
        # Every group: [0,10) = rows 1, 5 closed by 12; [10,20) open.
        wait_equal(get, exp({0: [1, 5]}), "before the kill", sql, db, ["s"], settle=0)
        # The victim holds groups of this stream (8 groups over 2 snodes; ins_snodes.groups,
        # from the snodes' heartbeats: the next one after the rows may still be on its way).
        vi, victim = poll(lambda: busiest_snode(c, sql), lambda b: int(b[1]["groups"]) > 0, 10)
        assert int(victim["groups"]) > 0
        survivor = 1 - vi
        since = ready_marks(c, db, "s")
        c.kill(f"snode{vi}", signal.SIGKILL)
        # Written while the victim is dead and before its slots moved.
        put([15, 22])
        # After the node timeout every slot is on the survivor, which restarts its task on
        # the new slots from the victim's checkpoints and replays the change log after them.
        wait_ready(c, sql, db, "s", {survivor: since[survivor]},
                   timeout=NODE_TIMEOUT_MS / 1000 + 15)
        assert {t["snode_endpoint"] for t in tasks(sql, db, "s")} == {c.saddr(survivor)}
        put([28, 35])
        # [10,20) = 12, 15; [20,30) = 22, 28; [30,40) open. Exactly these rows: nothing lost
        # with the victim, a recomputed window replaced its row (rule 11).
        expected = exp({0: [1, 5], 10: [12, 15], 20: [22, 28]})
        wait_equal(get, expected, "after the move", sql, db, ["s"], settle=0.5)
        # The victim restarts: its slots come back (rendezvous hashing), restored from the
        # survivor's checkpoints.
        since = ready_marks(c, db, "s")
        c.start_snode(vi)
        c.wait_snodes([c.saddr(0), c.saddr(1)])
        wait_ready(c, sql, db, "s", {vi: since[vi]}, timeout=20)
        put([38, 41])
        expected = exp({0: [1, 5], 10: [12, 15], 20: [22, 28], 30: [35, 38]})
        wait_equal(get, expected, "after the restart", sql, db, ["s"])
        assert stream_errors(sql, db, "s") == []


def test_ignore_untreated_then_kill_loses_no_rows(bin_dir, tmp_path):
    with running(stream_cluster(bin_dir, tmp_path)) as (c, sql):
        db = "s_ign"
        tables = eight_tables(sql, db)
        # COUNT_WINDOW: a row the trigger skips shifts the windows (%%trows is read from
        # storage by time, so a time window would hide a skipped row).
        create_stream(c, sql, db,
                      "CREATE STREAM s COUNT_WINDOW(2) FROM meters PARTITION BY tbname "
                      "INTO out AS SELECT _twstart AS ws, _twend AS we, COUNT(*) AS cnt "
                      "FROM %%trows")

        def put(times):
            sql.run("INSERT INTO " + " ".join(
                f"{t} VALUES " + " ".join(f"({ms(x)}, {x})" for x in times) for t in tables), db)

        def get():
            return sorted((r[0], sec(r[1]), sec(r[2]), num(r[3])) for r in sql.rows(
                "SELECT tag_tbname, CAST(ws AS BIGINT), CAST(we AS BIGINT), cnt FROM out", db))

        put([1, 2])
        wait_equal(get, sorted((t, 1, 2, 2) for t in tables), "before", sql, db, ["s"],
                   settle=0)
        sql.run("STOP STREAM s", db)
        wait_acked(sql)
        since = ready_marks(c, db, "s")
        sql.run("START STREAM IGNORE UNTREATED s", db)
        wait_ready(c, sql, db, "s", since)
        put([3])
        time.sleep(1.5)  # past a checkpoint of every slot (1 s): row 3 is in every group's
        # checkpointed state (an open window 3..)
        vi, _ = busiest_snode(c, sql)
        since = ready_marks(c, db, "s")
        c.kill(f"snode{vi}", signal.SIGKILL)
        put([4])   # written while the victim is dead: untreated, not written while stopped
        wait_ready(c, sql, db, "s", {1 - vi: since[1 - vi]}, timeout=NODE_TIMEOUT_MS / 1000 + 15)
        put([5, 6])
        # Every group: windows 1..2, 3..4 (row 4 must not be skipped by the moved groups'
        # new task: the IGNORE UNTREATED was for the START long before), 5..6.
        expected = sorted([(t, a, a + 1, 2) for t in tables for a in (1, 3, 5)])
        wait_equal(get, expected, "after the move", sql, db, ["s"], timeout=10, settle=0)


# ------------------------------------------------------------------------------ pruning

def test_super_table_where_tbname_and_tags_exact(cl):
    """The vnode opens only the child tables a super-table query's `tbname = / IN` and
    `tag = literal / IS NULL` conjuncts leave (vnode-adapter/daemon/query.c, "Child-table
    pruning") - what %%trows of a tag grouping and a ROLLUP BY node read. Whatever it
    prunes, the answers must be those of the filter over every row; each expected count
    below is worked out by hand from the rows written."""
    c, sql = cl
    db = "s_prune"
    make_db(sql, db, ["CREATE STABLE m (ts TIMESTAMP, v INT) TAGS (loc VARCHAR(16), gid INT, "
                      "u INT UNSIGNED)"])
    # t0..t5: loc a,a,b,NULL,'' ,'A'; gid 1,-2,1,NULL,3,1; u 7,7,8,NULL,9,7.
    tags = [("'a'", 1, 7), ("'a'", -2, 7), ("'b'", 1, 8), ("NULL", "NULL", "NULL"),
            ("''", 3, 9), ("'A'", 1, 7)]
    for i, (loc, gid, u) in enumerate(tags):
        sql.run(f"CREATE TABLE t{i} USING m TAGS ({loc}, {gid}, {u})", db)
        sql.insert(db, f"t{i}", [(k, i * 10 + k) for k in range(i + 1)])  # t_i has i+1 rows

    def count(where):
        r = sql.rows(f"SELECT COUNT(*) FROM m WHERE {where}", db)
        return num(r[0][0]) if r else None
    cases = {
        "tbname = 't2'": 3,
        "'t4' = tbname": 5,
        "tbname = 'T2'": 0,                      # names compare by bytes
        "tbname IN ('t0', 't5', 'zz')": 1 + 6,
        "loc = 'a'": 1 + 2,
        "loc = 'A'": 6,
        "loc = ''": 5,
        "loc IS NULL": 4,
        "gid = 1": 1 + 3 + 6,
        "gid = -2": 2,
        "gid = 1 AND loc = 'b'": 3,
        "gid = 1 AND tbname = 't0' AND v >= 0": 1,
        "u = 7": 1 + 2 + 6,
        "gid = 1 OR loc = 'a'": 1 + 2 + 3 + 6,   # OR prunes nothing
        "loc = 'a' AND v = 11": 1,                # t1's second row
        "m.tbname = 't3'": 4,
        "gid IS NULL AND loc IS NULL": 4,
        "NOT (loc = 'a')": 3 + 5 + 6,
    }
    got = {w: count(w) for w in cases}
    assert got == cases
    # Aliased FROM and a FROM subquery read the same base table.
    r = sql.rows("SELECT COUNT(*) FROM m x WHERE x.loc = 'a'", db)
    assert num(r[0][0]) == 3
    r = sql.rows("SELECT COUNT(*) FROM (SELECT v FROM m WHERE tbname = 't5') s", db)
    assert num(r[0][0]) == 6
