"""ROLLUP BY streams end to end (spec/stream-syntax.txt, "Trigger Grouping" and the
placeholders %%1, %%rollup_tag, _trollup_tbcount; docs/streams.md "ROLLUP BY"): a real
cluster (mnode, 2 vnodes, 2 snodes) - the trigger groups of one super table spread over both
snodes' slots and the child tables over both vgroups - streams created with the sluice CLI,
rows inserted once the streams are set up, the output tables read back.

Every expected row is worked out by hand below from the spec's rules - a tag value A.B.C is
in the groups A, A.B and A.B.C; a node's data is that of the child tables whose path is the
node or a descendant; NULL and empty paths make no group - or computed in Python from the
rows the test wrote (nodes_of, interval_expected, reference.sliding_points), never taken
from the system under test. Times are seconds after 2025-01-01 00:00:00 UTC; the tables use millisecond
precision.
"""
import re
import time

import pytest

from helpers import (create_stream, make_db, ms, num, poll, running, sec, stream_cluster,
                     stream_errors, wait_equal, wait_for)
from reference import sliding_points


@pytest.fixture(scope="module")
def cl(bin_dir, tmp_path_factory):
    with running(stream_cluster(bin_dir, tmp_path_factory.mktemp("rollup"))) as cs:
        yield cs


ST = "CREATE STABLE st (ts TIMESTAMP, v BIGINT) TAGS (path VARCHAR(64), g INT)"

# Child tables: name -> path (None: NULL). t6 has no rows; t7/t8 differ only where the
# path of t7 has '_' (a LIKE wildcard) and t9's first node f1.w10 starts with "f1.w1" (no
# descendant of f1.w1): both check that a node's restriction is exact.
TABLES = {"t1": "f1.w1.l1", "t2": "f1.w1.l2", "t3": "f1.w2.l1", "t4": "f2.w1.l1",
          "t5": "f1.w1", "t6": "f2.w9", "t7": "f3_a.x", "t8": "f3xa.y", "t9": "f1.w10.l1",
          "tn": None, "te": ""}

# Rows (sec, v): two in the windows [0,10) and [10,20), then one past 20 that closes both
# (INTERVAL(10s), WATERMARK 0: a window closes when its group's newest row reaches its end,
# semantics rule 8); the closing rows have v = 0 and sit in the open window [20,30).
EARLY = {"t1": [(1, 1), (12, 2)], "t2": [(3, 10), (14, 20)], "t3": [(5, 100), (15, 200)],
         "t4": [(2, 1000), (13, 2000)], "t5": [(4, 10000), (16, 20000)],
         "t7": [(6, 100000), (17, 200000)], "t8": [(7, 1000000), (18, 2000000)],
         "t9": [(8, 10000000), (19, 20000000)],
         "tn": [(1, 7), (11, 7)], "te": [(1, 9), (11, 9)]}
LATE = {"t1": [(25, 0)], "t2": [(26, 0)], "t3": [(21, 0)], "t4": [(22, 0)], "t5": [(27, 0)],
        "t7": [(23, 0)], "t8": [(24, 0)], "t9": [(28, 0)], "tn": [(21, 7)], "te": [(21, 9)]}

# Per node: (rows in [0,10), their sum, rows in [10,20), their sum, _trollup_tbcount).
# _trollup_tbcount = child tables of st whose path is the node or below it (docs), rows or
# not: f2 counts t4 and the row-less t6.
#   f1        = t1 t2 t3 t5 t9: 1+10+100+10000+10000000, 2+20+200+20000+20000000
#   f1.w1     = t1 t2 t5:       1+10+10000, 2+20+20000   (not t9: f1.w10 is no descendant)
#   f3_a      = t7 only (f3xa.y would match an unescaped LIKE 'f3_a.%')
NODES = {
    "f1": (5, 10010111, 5, 20020222, 5),
    "f1.w1": (3, 10011, 3, 20022, 3),
    "f1.w1.l1": (1, 1, 1, 2, 1),
    "f1.w1.l2": (1, 10, 1, 20, 1),
    "f1.w2": (1, 100, 1, 200, 1),
    "f1.w2.l1": (1, 100, 1, 200, 1),
    "f1.w10": (1, 10000000, 1, 20000000, 1),
    "f1.w10.l1": (1, 10000000, 1, 20000000, 1),
    "f2": (1, 1000, 1, 2000, 2),
    "f2.w1": (1, 1000, 1, 2000, 1),
    "f2.w1.l1": (1, 1000, 1, 2000, 1),
    "f3_a": (1, 100000, 1, 200000, 1),
    "f3_a.x": (1, 100000, 1, 200000, 1),
    "f3xa": (1, 1000000, 1, 2000000, 1),
    "f3xa.y": (1, 1000000, 1, 2000000, 1),
}


def leaf(node):
    return node.rsplit(".", 1)[-1]


def make_rollup_db(sql, db):
    make_db(sql, db, [ST] + [
        f"CREATE TABLE {t} USING st TAGS ({'NULL' if p is None else repr(p)}, {i})"
        for i, (t, p) in enumerate(TABLES.items())])


def insert_all(sql, db, rows):
    for t, r in rows.items():
        sql.insert(db, t, r)


def test_rollup_interval(cl):
    c, sql = cl
    db = "r_int"
    make_rollup_db(sql, db)
    # s: the query reads the trigger table itself: per node it is restricted to the node's
    # subtree (docs), plus OUTPUT_SUBTABLE / TAGS with %%1 and %%rollup_tag.
    create_stream(c, sql, db,
                  "CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM st ROLLUP BY path INTO out "
                  "OUTPUT_SUBTABLE(concat('r_', %%1)) "
                  "TAGS (node VARCHAR(64) AS %%1, lf VARCHAR(64) AS %%rollup_tag) "
                  "AS SELECT _twstart AS ws, COUNT(*) AS cnt, SUM(v) AS total, "
                  "_trollup_tbcount AS ntb FROM st WHERE ts >= _twstart AND ts < _twend")
    # s2: %%trows (the trigger rows of the node and its descendants), the placeholders in
    # the query, generated subtable names and the default tag (the node's full path).
    create_stream(c, sql, db,
                  "CREATE STREAM s2 INTERVAL(10s) SLIDING(10s) FROM st ROLLUP BY path INTO out2 "
                  "AS SELECT _twstart AS ws, COUNT(*) AS cnt, SUM(v) AS total, %%1 AS node, "
                  "%%rollup_tag AS lf FROM %%trows")
    # The window rows of every table first, then the closing rows: a group's rows come from
    # both vgroups in any interleaving; a late one recomputes and replaces (rules 2, 11).
    insert_all(sql, db, EARLY)
    insert_all(sql, db, LATE)

    expected = sorted(
        [(f"r_{n}", n, leaf(n), 0, a, b, k) for n, (a, b, _, _, k) in NODES.items()] +
        [(f"r_{n}", n, leaf(n), 10, a, b, k) for n, (_, _, a, b, k) in NODES.items()])

    def get():
        return sorted((r[0], r[1], r[2], sec(r[3]), num(r[4]), num(r[5]), num(r[6]))
                      for r in sql.rows("SELECT tbname, node, lf, CAST(ws AS BIGINT), cnt, "
                                        "total, ntb FROM out", db))
    wait_equal(get, expected, "ROLLUP BY, FROM st", sql, db, ["s"], timeout=40)

    expected2 = sorted(
        [(n, n, leaf(n), 0, a, b) for n, (a, b, _, _, _) in NODES.items()] +
        [(n, n, leaf(n), 10, a, b) for n, (_, _, a, b, _) in NODES.items()])

    def get2():
        return sorted((r[0], r[1], r[2], sec(r[3]), num(r[4]), num(r[5]))
                      for r in sql.rows("SELECT path, node, lf, CAST(ws AS BIGINT), cnt, total "
                                        "FROM out2", db))
    wait_equal(get2, expected2, "ROLLUP BY, FROM %%trows", sql, db, ["s2"], settle=0)

    # One output subtable per node, none for the NULL / empty paths (no group) or for
    # f2.w9 (no rows, no trigger): out's tags are %%1 and %%rollup_tag, out2's the default
    # tag `path` = the full path, under stable generated names, one per node.
    tags = sql.dicts("SELECT table_name, tag_name, tag_value FROM information_schema.ins_tags "
                     f"WHERE db_name = '{db}' AND stable_name = 'out'")
    assert sorted((t["table_name"], t["tag_name"], t["tag_value"]) for t in tags) == sorted(
        [(f"r_{n}", "node", n) for n in NODES] + [(f"r_{n}", "lf", leaf(n)) for n in NODES])
    tags2 = sql.dicts("SELECT table_name, tag_name, tag_value FROM information_schema.ins_tags "
                      f"WHERE db_name = '{db}' AND stable_name = 'out2'")
    assert sorted(t["tag_value"] for t in tags2) == sorted(NODES)
    assert {t["tag_name"] for t in tags2} == {"path"}
    names = {t["table_name"] for t in tags2}
    assert len(names) == len(NODES)
    assert all(re.fullmatch(r"out2_[0-9a-f]{16}", n) for n in names), names
    assert stream_errors(sql, db, "s") == [] and stream_errors(sql, db, "s2") == []


def test_rollup_session_and_late_table(cl):
    """SESSION with ROLLUP BY; a child table created after the stream joins its nodes."""
    c, sql = cl
    db = "r_ses"
    make_db(sql, db, [ST, "CREATE TABLE a1 USING st TAGS ('x.y', 1)",
                      "CREATE TABLE a2 USING st TAGS ('x.z', 2)"])
    create_stream(c, sql, db,
                  "CREATE STREAM s SESSION(ts, 5s) FROM st ROLLUP BY path INTO out "
                  "AS SELECT _twstart AS ws, _twend AS we, COUNT(*) AS cnt, SUM(v) AS total, "
                  "_trollup_tbcount AS ntb FROM %%trows")
    sql.run("CREATE TABLE a3 USING st TAGS ('x', 3)", db)
    sql.insert(db, "a1", [(0, 1), (2, 2)])
    sql.insert(db, "a2", [(3, 10)])
    sql.insert(db, "a3", [(4, 100)])
    sql.insert(db, "a1", [(30, 0)])
    sql.insert(db, "a2", [(31, 0)])
    sql.insert(db, "a3", [(32, 0)])
    # Sessions (gap > 5s closes, spec): x = a1 a2 a3: rows 0,2,3,4 -> [0..4], 4 rows, 113,
    # closed by the row at 30. x.y = a1: [0..2], 2 rows, 3. x.z = a2: [3..3], 1 row, 10.
    # _trollup_tbcount: x -> 3 (a1, a2, a3), x.y -> 1, x.z -> 1.
    expected = sorted([("x", 0, 4, 4, 113, 3), ("x.y", 0, 2, 2, 3, 1), ("x.z", 3, 3, 1, 10, 1)])

    def get():
        return sorted((r[0], sec(r[1]), sec(r[2]), num(r[3]), num(r[4]), num(r[5]))
                      for r in sql.rows("SELECT path, CAST(ws AS BIGINT), CAST(we AS BIGINT), "
                                        "cnt, total, ntb FROM out", db))
    wait_equal(get, expected, "ROLLUP BY SESSION", sql, db, ["s"], timeout=40)
    assert stream_errors(sql, db, "s") == []


def test_rollup_fill_history_and_nodelay(cl):
    """FILL_HISTORY: rows stored before the stream feed every prefix group like live rows;
    NODELAY_CREATE_SUBTABLE makes one subtable per node of the paths present."""
    c, sql = cl
    db = "r_hist"
    make_db(sql, db, [ST, "CREATE TABLE a1 USING st TAGS ('x.y', 1)",
                      "CREATE TABLE a2 USING st TAGS ('x.z', 2)",
                      "CREATE TABLE a3 USING st TAGS (NULL, 3)"])
    sql.insert(db, "a1", [(1, 1), (12, 2), (25, 0)])
    sql.insert(db, "a2", [(3, 10), (14, 20), (26, 0)])
    sql.insert(db, "a3", [(2, 5), (13, 5), (27, 5)])
    create_stream(c, sql, db,
                  "CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM st ROLLUP BY path "
                  "STREAM_OPTIONS(FILL_HISTORY) INTO out AS SELECT _twstart AS ws, "
                  "COUNT(*) AS cnt, SUM(v) AS total FROM %%trows")
    create_stream(c, sql, db,
                  "CREATE STREAM s3 INTERVAL(10s) SLIDING(10s) FROM st ROLLUP BY path INTO out3 "
                  "NODELAY_CREATE_SUBTABLE OUTPUT_SUBTABLE(concat('n_', %%rollup_tag)) "
                  "AS SELECT _twstart AS ws, COUNT(*) AS cnt FROM %%trows")
    # NODELAY: nodes x, x.y, x.z (a3's NULL path has none), named by their last segment,
    # tagged with the full path (the default tag), before any live row.
    wait_equal(lambda: sorted((t["table_name"], t["tag_value"]) for t in sql.dicts(
        "SELECT table_name, tag_value FROM information_schema.ins_tags "
        f"WHERE db_name = '{db}' AND stable_name = 'out3'")),
        [("n_x", "x"), ("n_y", "x.y"), ("n_z", "x.z")], "NODELAY subtables", sql, db, ["s3"],
        settle=0)
    # History: x = a1 + a2: [0,10) 1+10, [10,20) 2+20; x.y = a1; x.z = a2 (a3: no node).
    # Then live rows at 33/34 close [20,30): x 2 rows (25, 26) sum 0, x.y 1, x.z 1.
    sql.insert(db, "a1", [(33, 0)])
    sql.insert(db, "a2", [(34, 0)])
    sql.insert(db, "a3", [(35, 5)])
    expected = sorted([("x", 0, 2, 11), ("x", 10, 2, 22), ("x", 20, 2, 0),
                       ("x.y", 0, 1, 1), ("x.y", 10, 1, 2), ("x.y", 20, 1, 0),
                       ("x.z", 0, 1, 10), ("x.z", 10, 1, 20), ("x.z", 20, 1, 0)])

    def get():
        return sorted((r[0], sec(r[1]), num(r[2]), num(r[3])) for r in sql.rows(
            "SELECT path, CAST(ws AS BIGINT), cnt, total FROM out", db))
    wait_equal(get, expected, "ROLLUP BY FILL_HISTORY", sql, db, ["s"], timeout=40)
    assert stream_errors(sql, db, "s") == [] and stream_errors(sql, db, "s3") == []


def test_rollup_invalid_path_is_an_error(cl):
    """A child table whose path breaks the spec's rules (here an empty segment) puts the
    stream in the error state (the task's error) and triggers nothing; the valid tables
    still compute. (Its rows are outside every valid node here: a node's query matches
    paths by prefix, so an invalid path below a node would be read by it - docs.)"""
    c, sql = cl
    db = "r_bad"
    make_db(sql, db, [ST, "CREATE TABLE ok1 USING st TAGS ('p.q', 1)",
                      "CREATE TABLE bad1 USING st TAGS ('b..q', 2)"])
    create_stream(c, sql, db,
                  "CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM st ROLLUP BY path INTO out "
                  "AS SELECT _twstart AS ws, COUNT(*) AS cnt FROM %%trows")
    sql.insert(db, "bad1", [(1, 1), (21, 1)])
    sql.insert(db, "ok1", [(1, 1), (21, 1)])
    # ok1: nodes p and p.q, window [0,10) with 1 row each; bad1 makes no node (no b, b..q).
    wait_equal(lambda: sorted((r[0], sec(r[1]), num(r[2])) for r in sql.rows(
        "SELECT path, CAST(ws AS BIGINT), cnt FROM out", db)),
        [("p", 0, 1), ("p.q", 0, 1)], "ROLLUP BY with an invalid path", sql, db, ["s"],
        settle=0)
    wait_for(lambda: any("invalid path 'b..q'" in e for e in stream_errors(sql, db, "s")), 20,
             lambda: f"no invalid-path error: {stream_errors(sql, db, 's')}")


# ------------------------------------------------------------------------------ PERIOD,
# plain SLIDING, DELETE_RECALC, a path that is a prefix of another's

def rollup_db(sql, db, tables, vgroups=2):
    """Database db with the super table st and child tables name -> path (None: NULL)."""
    sql.run(f"CREATE DATABASE {db} VGROUPS {vgroups}")
    sql.run(ST, db)
    for i, (t, p) in enumerate(tables.items()):
        sql.run(f"CREATE TABLE {t} USING st TAGS ({'NULL' if p is None else repr(p)}, {i})", db)


def nodes_of(tables):
    """{node: set of the tables in it} by the spec's rule: a table whose path is A.B.C is in
    the nodes A, A.B and A.B.C; a NULL or empty path is in none."""
    out = {}
    for t, p in tables.items():
        if p:
            segs = p.split(".")
            for i in range(1, len(segs) + 1):
                out.setdefault(".".join(segs[:i]), set()).add(t)
    return out


def insert_in_order(sql, db, rows):
    """rows: (sec, table, v); one INSERT per row, in time order, in one CLI call."""
    sql.run(" ".join(f"INSERT INTO {t} VALUES ({ms(s)}, {v});" for s, t, v in sorted(rows)), db)


def out_tags(sql, db, stable):
    return sorted(t["tag_value"] for t in sql.dicts(
        "SELECT tag_value FROM information_schema.ins_tags "
        f"WHERE db_name = '{db}' AND stable_name = '{stable}'"))


# A table whose path (a.b / f.a / A.B) is a prefix of another's (a.b.c / f.a.x / A.B.C) is
# a leaf of its own and in the nodes of the longer path: its node holds both tables.
PTABLES = {"p1": "f.a.x", "p2": "f.a", "p3": "f.b", "p4": "g", "pn": None, "pe": ""}


def test_rollup_period(cl):
    """PERIOD with ROLLUP BY (docs/streams.md "PERIOD and %%trows"): a node's %%trows at a
    point is the rows its tables wrote since the previous point. The points are wall-clock
    time, so nothing checked depends on where they fall: per node the counts and sums of
    all its output rows add up to exactly the rows written to its tables (each counted
    once), a point without new rows writes nothing (rule 10), every node has its subtable
    and the NULL / '' paths none, and the placeholders follow the PERIOD(1s) schedule.

    One vgroup: the docs' range is exact when a group's rows of a later period have later
    timestamps than its rows of earlier periods. The rows are written in time order; over
    two vgroups the snode may read one vgroup's newer rows before the other's older ones,
    and these groups span tables (docs: such rows are counted again)."""
    c, sql = cl
    db = "r_per"
    rollup_db(sql, db, PTABLES, vgroups=1)
    create_stream(c, sql, db,
                  "CREATE STREAM s PERIOD(1s) FROM st ROLLUP BY path INTO out "
                  "AS SELECT _tlocaltime AS ts, _tprev_localtime AS tp, _tnext_localtime AS tn, "
                  "COUNT(*) AS cnt, SUM(v) AS total, _trollup_tbcount AS ntb, %%1 AS node, "
                  "%%rollup_tag AS lf FROM %%trows")
    # Three bursts of two rows per table, more than a period apart, so a node's rows spread
    # over several points; event times rise over the bursts and the tables.
    rows = []
    k = 0
    for burst in range(3):
        b = []
        for _ in range(2):
            for t in PTABLES:
                k += 1
                b.append((k, t, k))
        insert_in_order(sql, db, b)
        rows += b
        if burst < 2:
            time.sleep(1.3)
    nodes = nodes_of(PTABLES)
    assert sorted(nodes) == ["f", "f.a", "f.a.x", "f.b", "g"]
    expected = {n: (sum(1 for _, t, _ in rows if t in ts), sum(v for _, t, v in rows if t in ts))
                for n, ts in nodes.items()}

    def got_rows():
        return [(r[0], int(r[1]), int(r[2]), int(r[3]), num(r[4]), num(r[5]), num(r[6]), r[7],
                 r[8]) for r in sql.rows("SELECT path, CAST(ts AS BIGINT), CAST(tp AS BIGINT), "
                                         "CAST(tn AS BIGINT), cnt, total, ntb, node, lf FROM out",
                                         db)]

    def totals(rs):
        out = {}
        for p, *_, cnt, total, _ntb, _node, _lf in rs:
            a, b = out.get(p, (0, 0))
            out[p] = (a + cnt, b + total)
        return out
    got = poll(lambda: totals(got_rows()), lambda v: v == expected, 15)
    assert got == expected, (got, expected, stream_errors(sql, db, "s"))
    time.sleep(2.2)  # two more points at least, without rows: they write nothing
    rs = got_rows()
    assert totals(rs) == expected, rs
    for p, ts, tp, tn, cnt, total, ntb, node, lf in rs:
        # Each row is a point with rows (cnt > 0); _tlocaltime is the scheduled point (whole
        # seconds), _tnext_localtime the next one, _tprev_localtime an earlier point (the
        # previous one unless a point was missed on a loaded machine, docs 9).
        assert cnt > 0 and ts % 1000 == 0 and tn == ts + 1000, rs
        assert tp <= ts - 1000 and (ts - tp) % 1000 == 0, rs
        assert node == p and lf == leaf(p) and ntb == len(nodes[p]), rs
    assert len(rs) > len(nodes), rs  # the nodes' rows did spread over several points
    assert out_tags(sql, db, "out") == sorted(nodes)
    assert stream_errors(sql, db, "s") == []


STABLES = {"s1": "a.b.c", "s2": "a.b", "s3": "a.x", "s4": "q", "sn": None, "se": ""}
# (sec, table, v), written in this (time) order. Every node has rows in each of [0,10),
# [10,20) and [20,30); the rows at 31..35 fire the point 30 of every node. s1 and s3 both
# have a row at 14 (two tables, one timestamp, one node a).
SROWS = [(1, "s1", 1), (2, "s2", 10), (3, "sn", 7), (4, "s3", 100), (5, "s4", 1000),
         (6, "s1", 2), (8, "se", 9), (11, "s2", 20), (12, "s4", 2000), (14, "s1", 4),
         (14, "s3", 200), (17, "sn", 7), (19, "s2", 40), (23, "s1", 8), (25, "s4", 4000),
         (26, "s3", 400), (27, "s2", 80), (31, "s1", 0), (32, "s2", 0), (33, "s3", 0),
         (34, "s4", 0), (35, "se", 9)]


def test_rollup_plain_sliding(cl):
    """SLIDING without INTERVAL with ROLLUP BY: ON_TIME at the event-time points k*10s per
    node (docs/triggers.md 5: a node's first point is the first after its first row, each
    covers [_tprev_ts, _tcurrent_ts), a point fires when the node's newest row reaches it).
    Expected rows from reference.sliding_points over each node's rows (those of the tables
    the spec puts in it), with %%trows and with FROM st (restricted to the node's subtree).

    One vgroup, rows written in time order: a late row of an already fired point is absorbed
    (docs 5), and over two vgroups a node's rows may reach the snode out of order."""
    c, sql = cl
    db = "r_sld"
    rollup_db(sql, db, STABLES, vgroups=1)
    q = ("AS SELECT _tcurrent_ts AS ts, _tprev_ts AS tp, _tnext_ts AS tn, COUNT(*) AS cnt, "
         "SUM(v) AS total FROM ")
    create_stream(c, sql, db, "CREATE STREAM s SLIDING(10s) FROM st ROLLUP BY path INTO out "
                  + q + "%%trows")
    create_stream(c, sql, db, "CREATE STREAM s2 SLIDING(10s) FROM st ROLLUP BY path INTO out2 "
                  + q + "st WHERE ts >= _tprev_ts AND ts < _tcurrent_ts")
    insert_in_order(sql, db, SROWS)
    nodes = nodes_of(STABLES)
    assert sorted(nodes) == ["a", "a.b", "a.b.c", "a.x", "q"]
    expected = []
    for n, tables in nodes.items():
        pts, fired = sliding_points([(s, v, None) for s, t, v in SROWS if t in tables], 10)
        assert fired == [10, 20, 30] and sorted(pts) == fired  # the data is as meant
        expected += [(n, p, p - 10, p + 10, cnt, total) for p, (cnt, total) in pts.items()]
    expected.sort()
    # e.g. a.b = s1 + s2: 10 -> 1+10+2, 20 -> 20+4+40, 30 -> 8+80; a = a.b + s3.
    assert ("a.b", 10, 0, 20, 3, 13) in expected and ("a", 20, 10, 30, 4, 264) in expected

    def get(table):
        return lambda: sorted(
            (r[0], sec(r[1]), sec(r[2]), sec(r[3]), num(r[4]), num(r[5])) for r in sql.rows(
                "SELECT path, CAST(ts AS BIGINT), CAST(tp AS BIGINT), CAST(tn AS BIGINT), cnt, "
                f"total FROM {table}", db))
    wait_equal(get("out"), expected, "ROLLUP BY plain SLIDING, %%trows", sql, db, ["s"])
    wait_equal(get("out2"), expected, "ROLLUP BY plain SLIDING, FROM st", sql, db, ["s2"],
               settle=0)
    assert out_tags(sql, db, "out") == sorted(nodes) == out_tags(sql, db, "out2")
    assert stream_errors(sql, db, "s") == [] and stream_errors(sql, db, "s2") == []


DTABLES = {"d1": "A.B.C", "d2": "A.B", "d3": "A.X", "d4": "Z.Q", "dn": None, "de": ""}
# (sec, v) in [0,10) and [10,20); d1 and d2 share the timestamp 3 (one node, two tables).
DROWS = {"d1": [(1, 1), (3, 2), (5, 4), (12, 8), (14, 16), (16, 32)],
         "d2": [(3, 100), (13, 200)], "d3": [(2, 1000), (15, 2000)],
         "d4": [(4, 10000), (11, 20000)], "dn": [(1, 7), (11, 7)], "de": [(1, 9), (11, 9)]}
# Rows in [20,30) that close both windows of every node (INTERVAL(10s), WATERMARK 0).
DCLOSE = {"d1": [(25, 0)], "d2": [(26, 0)], "d3": [(27, 0)], "d4": [(28, 0)],
          "dn": [(21, 7)], "de": [(21, 9)]}


def interval_expected(nodes, rows):
    """{(node, window start): (cnt, sum)} of the windows [0,10) and [10,20) over rows
    {table: [(sec, v)]}, each node reading the tables the spec puts in it."""
    out = {}
    for n, tables in nodes.items():
        for ws in (0, 10):
            inside = [v for t in tables for s, v in rows.get(t, []) if ws <= s < ws + 10]
            if inside:
                out[(n, ws)] = (len(inside), sum(inside))
    return out


def test_rollup_delete_recalc(cl):
    """DELETE_RECALC with ROLLUP BY: deleting rows of one child table recomputes every node
    the table is in - for A.B.C: A, A.B and A.B.C - and no other node; A.B is also the path
    of a table of its own, so its node holds both (and a delete in that table recomputes A
    and A.B, not A.B.C). NULL and '' paths make no node, also when their rows are deleted.
    A recomputation is seen by `lt` (_tlocaltime, the system time of the trigger): it
    changes when a window is computed again and only then. _twrownum counts the node's rows
    of every table, two tables' rows at one timestamp being two rows."""
    c, sql = cl
    db = "r_del"
    rollup_db(sql, db, DTABLES)
    tail = ("AS SELECT _twstart AS ws, COUNT(*) AS cnt, SUM(v) AS total, _tlocaltime AS lt, "
            "_trollup_tbcount AS ntb, _twrownum AS rn FROM ")
    create_stream(c, sql, db,
                  "CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM st ROLLUP BY path "
                  "STREAM_OPTIONS(DELETE_RECALC) INTO out " + tail + "%%trows")
    create_stream(c, sql, db,
                  "CREATE STREAM s2 INTERVAL(10s) SLIDING(10s) FROM st ROLLUP BY path "
                  "STREAM_OPTIONS(DELETE_RECALC) INTO out2 " + tail +
                  "st WHERE ts >= _twstart AND ts < _twend")
    insert_all(sql, db, DROWS)
    insert_all(sql, db, DCLOSE)
    nodes = nodes_of(DTABLES)
    assert sorted(nodes) == ["A", "A.B", "A.B.C", "A.X", "Z", "Z.Q"]
    rows = {t: list(r) for t, r in DROWS.items()}

    def get(table):
        return {(r[0], sec(r[1])): (num(r[2]), num(r[3]), int(r[4]), num(r[5]), num(r[6]))
                for r in sql.rows(f"SELECT path, CAST(ws AS BIGINT), cnt, total, "
                                  f"CAST(lt AS BIGINT), ntb, rn FROM {table}", db)}

    def check(what, expected):
        """Waits for both outputs to hold `expected` (cnt, sum; ntb = the node's tables,
        rn = cnt); returns {stream output: {(node, ws): lt}}."""
        lts = {}
        for i, table in enumerate(("out", "out2")):
            wait_equal(lambda: {k: (a, b, n, r) for k, (a, b, _, n, r) in get(table).items()},
                       {k: (a, b, len(nodes[k[0]]), a) for k, (a, b) in expected.items()},
                       f"{what} ({table})", sql, db, ["s", "s2"], settle=1.0 if i == 0 else 0)
            lts[table] = {k: v[2] for k, v in get(table).items()}
        return lts

    # Before: A.B = d1 + d2 (3+100 at the shared timestamp 3: both rows count), A = d1 d2 d3.
    exp0 = interval_expected(nodes, rows)
    assert exp0[("A.B", 0)] == (4, 107) and exp0[("A", 10)] == (5, 2256)
    lt0 = check("ROLLUP BY before the deletes", exp0)

    # 1. d1 loses 3, 5, 12, 14 (1 and 16 stay, so no window empties): A, A.B and A.B.C
    # recompute both windows; A.X, Z and Z.Q keep their rows as they were. The range also
    # spans rows of d2 (3, 13) and d3 (2) - rows of the same nodes that stay.
    sql.run(f"DELETE FROM d1 WHERE ts >= {ms(2)} AND ts <= {ms(14)}", db)
    sql.run(f"DELETE FROM dn WHERE ts >= {ms(0)} AND ts <= {ms(20)}", db)
    rows["d1"] = [(1, 1), (16, 32)]
    exp1 = interval_expected(nodes, rows)
    assert exp1[("A.B", 0)] == (2, 101) and exp1[("A", 10)] == (3, 2232)
    lt1 = check("ROLLUP BY after deleting rows of d1 (A.B.C)", exp1)
    for out in ("out", "out2"):
        for k in exp0:
            changed = k[0] in ("A", "A.B", "A.B.C")
            assert (lt1[out][k] > lt0[out][k]) if changed else (lt1[out][k] == lt0[out][k]), (
                out, k, lt0[out], lt1[out])

    # 2. d2 (path A.B, a prefix of d1's) loses 3 and 13 - timestamps the first delete also
    # spanned: A and A.B recompute, A.B.C (d1 only) and the others do not.
    sql.run(f"DELETE FROM d2 WHERE ts >= {ms(3)} AND ts <= {ms(13)}", db)
    rows["d2"] = []
    exp2 = interval_expected(nodes, rows)
    assert exp2[("A.B", 0)] == (1, 1) and exp2[("A", 10)] == (2, 2032)
    lt2 = check("ROLLUP BY after deleting rows of d2 (A.B)", exp2)
    for out in ("out", "out2"):
        for k in exp0:
            changed = k[0] in ("A", "A.B")
            assert (lt2[out][k] > lt1[out][k]) if changed else (lt2[out][k] == lt1[out][k]), (
                out, k, lt1[out], lt2[out])
    assert out_tags(sql, db, "out") == sorted(nodes) == out_tags(sql, db, "out2")
    assert stream_errors(sql, db, "s") == [] and stream_errors(sql, db, "s2") == []


@pytest.mark.parametrize("stmt, message", [
    ("CREATE STREAM b1 STATE_WINDOW(v) FROM st ROLLUP BY path INTO o1 "
     "AS SELECT _twstart, COUNT(*) FROM %%trows",
     "ROLLUP BY only works with PERIOD, SLIDING, INTERVAL and SESSION"),
    ("CREATE STREAM b2 COUNT_WINDOW(3) FROM st ROLLUP BY path INTO o2 "
     "AS SELECT _twstart, COUNT(*) FROM %%trows",
     "ROLLUP BY only works with PERIOD, SLIDING, INTERVAL and SESSION"),
    ("CREATE STREAM b3 PERIOD(10s) ROLLUP BY path INTO o3 AS SELECT _tlocaltime, COUNT(*) "
     "FROM st", "ROLLUP BY needs a trigger table (FROM ...)"),
    ("CREATE STREAM b4 INTERVAL(10s) SLIDING(10s) FROM st ROLLUP BY g INTO o4 "
     "AS SELECT _twstart, COUNT(*) FROM %%trows", "ROLLUP BY needs a VARCHAR or NCHAR tag"),
    ("CREATE STREAM b5 INTERVAL(10s) SLIDING(10s) FROM st ROLLUP BY path INTO o5 "
     "OUTPUT_SUBTABLE(concat('x', _trollup_tbcount)) AS SELECT _twstart, COUNT(*) FROM %%trows",
     "_trollup_tbcount cannot be used in OUTPUT_SUBTABLE or TAGS"),
])
def test_rollup_refused(cl, stmt, message):
    c, sql = cl
    db = "r_ref"
    if not any(d["name"] == db for d in sql.dicts("SELECT name FROM information_schema.ins_databases")):
        make_db(sql, db, [ST])
    r = sql.run(stmt, db, check=False)
    assert r.returncode != 0, r.stdout
    assert message in r.stderr + r.stdout, r.stderr + r.stdout
    name = re.match(r"CREATE STREAM (\w+)", stmt).group(1)
    out = re.search(r"INTO (\w+)", stmt).group(1)
    # Nothing was created: no stream, no output table.
    assert not [s for s in sql.dicts("SELECT stream_name, db_name FROM information_schema.ins_streams")
                if s["stream_name"] == name]
    assert not [t for t in sql.dicts("SELECT stable_name, db_name FROM information_schema.ins_stables")
                if t["db_name"] == db and t["stable_name"] == out]


def test_dropped_table_recomputes_with_delete_recalc(cl):
    """DELETE_RECALC covers a dropped child table (spec: "data deletions in the trigger
    table (including when a child table is dropped)"): its rows leave every group they were
    in - a PARTITION BY tag group and each ROLLUP BY node of its path - and those windows
    are computed again; the other groups and nodes are not."""
    c, sql = cl
    db = "r_drop"
    make_db(sql, db, [ST] + [f"CREATE TABLE {t} USING st TAGS ('{p}', {g})" for t, p, g in (
        ("r1", "A.B", 1), ("r2", "A.C", 2), ("r3", "A.C", 2), ("r4", "Z", 3))])
    q = ("AS SELECT _twstart AS ws, %%1 AS k, COUNT(*) AS cnt, SUM(v) AS total, "
         "_tlocaltime AS lt FROM %%trows")
    create_stream(c, sql, db, "CREATE STREAM sr INTERVAL(10s) SLIDING(10s) FROM st ROLLUP BY "
                  f"path STREAM_OPTIONS(DELETE_RECALC) INTO outr {q}")
    create_stream(c, sql, db, "CREATE STREAM sg INTERVAL(10s) SLIDING(10s) FROM st PARTITION BY "
                  f"g STREAM_OPTIONS(DELETE_RECALC) INTO outg {q}")
    for t, v in (("r1", 1), ("r2", 10), ("r3", 100), ("r4", 1000)):
        sql.insert(db, t, [(1, v)])
    for t in ("r1", "r2", "r3", "r4"):  # close [0,10) everywhere
        sql.insert(db, t, [(15, 0)])

    def get(table):
        return {(r[0], sec(r[1])): (num(r[2]), num(r[3]), int(r[4])) for r in sql.rows(
            f"SELECT k, CAST(ws AS BIGINT), cnt, total, CAST(lt AS BIGINT) FROM {table}", db)}

    def counts(table):
        return lambda: {k: v[:2] for k, v in get(table).items()}
    # Before: A = r1 r2 r3, A.B = r1, A.C = r2 r3, Z = r4; g 1 = r1, 2 = r2 r3, 3 = r4.
    wait_equal(counts("outr"), {("A", 0): (3, 111), ("A.B", 0): (1, 1), ("A.C", 0): (2, 110),
                                ("Z", 0): (1, 1000)}, "ROLLUP BY before the drop", sql, db, ["sr"])
    wait_equal(counts("outg"), {("1", 0): (1, 1), ("2", 0): (2, 110), ("3", 0): (1, 1000)},
               "PARTITION BY g before the drop", sql, db, ["sg"])
    lt0 = {**{("r",) + k: v[2] for k, v in get("outr").items()},
           **{("g",) + k: v[2] for k, v in get("outg").items()}}
    sql.run("DROP TABLE r3", db)
    # After: A = r1 r2 and A.C = r2, g 2 = r2: computed again; the others as they were.
    wait_equal(counts("outr"), {("A", 0): (2, 11), ("A.B", 0): (1, 1), ("A.C", 0): (1, 10),
                                ("Z", 0): (1, 1000)}, "ROLLUP BY after the drop", sql, db, ["sr"])
    wait_equal(counts("outg"), {("1", 0): (1, 1), ("2", 0): (1, 10), ("3", 0): (1, 1000)},
               "PARTITION BY g after the drop", sql, db, ["sg"])
    lt1 = {**{("r",) + k: v[2] for k, v in get("outr").items()},
           **{("g",) + k: v[2] for k, v in get("outg").items()}}
    for k in lt0:
        changed = k[1] in ("A", "A.C", "2")
        assert (lt1[k] > lt0[k]) if changed else (lt1[k] == lt0[k]), (k, lt0, lt1)
    assert stream_errors(sql, db, "sr") == [] and stream_errors(sql, db, "sg") == []
