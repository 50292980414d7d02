"""COMPOSITE KEY end to end on a real cluster (mnode, 2 vnodes, 2 snodes): tables whose rows
are identified by (timestamp, second column), written and read through the sluice CLI over
two vgroups, and a stream whose GROUP BY subquery writes one output row per (window, key)
into an output table declared with `(ts, dev COMPOSITE KEY, ...)` (spec/stream-syntax.txt,
"Stream Processing Computation Tasks": grouped results with the same primary key overwrite
each other unless the output table has a composite key).

Every expected row is worked out by hand from the rows inserted, never read from the system
under test. Times are seconds after 2025-01-01 00:00:00 UTC (B); millisecond precision.
"""
import pytest

from helpers import (create_stream, make_db, ms, num, running, sec, stream_cluster,
                     stream_errors, wait_equal)


@pytest.fixture(scope="module")
def cl(bin_dir, tmp_path_factory):
    with running(stream_cluster(bin_dir, tmp_path_factory.mktemp("ckey"))) as cs:
        yield cs


def rows(sql, db, query):
    return [tuple(r) for r in sql.rows(query, db)]


def test_tables_with_composite_key(cl):
    c, sql = cl
    db = "ck_tab"
    # Six child tables and a normal table over the database's 2 vgroups (one per vnode).
    make_db(sql, db, ["CREATE STABLE st (ts TIMESTAMP, dev VARCHAR(16) COMPOSITE KEY, v INT) "
                      "TAGS (g INT)"] +
            [f"CREATE TABLE t{i} USING st TAGS ({i})" for i in range(6)] +
            ["CREATE TABLE n (ts TIMESTAMP, id BIGINT PRIMARY KEY, v DOUBLE)"])
    vgroups = {r["vgroup_id"] for r in sql.dicts(
        "SELECT table_name, vgroup_id FROM information_schema.ins_tables "
        f"WHERE db_name = '{db}'")}
    assert len(vgroups) == 2, vgroups

    # Same timestamp, several keys; the later (0, 'a') of the statement wins.
    for i in range(6):
        sql.insert(db, f"t{i}", [(0, "b", 10 * i + 1), (0, "a", 10 * i + 2), (1, "a", 10 * i + 3),
                                 (0, "a", 10 * i + 4)])
    # A second statement replaces (1, 'a') of t0 and adds a key at 0.
    sql.insert(db, "t0", [(1, "a", 99), (0, "c", 98)])
    # Per table (ts, dev): t0 -> (0,a,4) (0,b,1) (0,c,98) (1,a,99); ti -> (0,a,10i+4)
    # (0,b,10i+1) (1,a,10i+3).
    assert rows(sql, db, "SELECT CAST(ts AS BIGINT), dev, v FROM t0") == [
        (str(ms(0)), "a", "4"), (str(ms(0)), "b", "1"), (str(ms(0)), "c", "98"),
        (str(ms(1)), "a", "99")]
    got = sorted((r[0], sec(r[1]), r[2], num(r[3])) for r in sql.rows(
        "SELECT tbname, CAST(ts AS BIGINT), dev, v FROM st", db))
    want = sorted([("t0", 0, "a", 4), ("t0", 0, "b", 1), ("t0", 0, "c", 98), ("t0", 1, "a", 99)] +
                  [(f"t{i}", t, k, 10 * i + d) for i in range(1, 6)
                   for t, k, d in ((0, "a", 4), (0, "b", 1), (1, "a", 3))])
    assert got == want
    # Aggregates see every key: 3 * 5 + 4 rows; at ts 0: 2 * 5 + 3.
    assert rows(sql, db, "SELECT COUNT(*) FROM st") == [("19",)]
    assert rows(sql, db, f"SELECT COUNT(*) FROM st WHERE ts = {ms(0)}") == [("13",)]

    # BIGINT key on a normal table, negative keys first.
    sql.insert(db, "n", [(5, 7, 1.5), (5, -3, 2.5), (5, 7, 3.5), (6, 0, 4.5)])
    assert rows(sql, db, "SELECT CAST(ts AS BIGINT), id, v FROM n") == [
        (str(ms(5)), "-3", "2.5"), (str(ms(5)), "7", "3.5"), (str(ms(6)), "0", "4.5")]

    # A NULL key is refused and nothing of the statement is written.
    r = sql.run(f"INSERT INTO n VALUES ({ms(7)}, 1, 1.0) ({ms(8)}, NULL, 2.0)", db, check=False)
    assert r.returncode != 0
    assert "the composite key column 'id' cannot be NULL" in r.stderr + r.stdout
    r = sql.run(f"INSERT INTO n (ts, v) VALUES ({ms(7)}, 1.0)", db, check=False)
    assert r.returncode != 0
    assert "the column list must include the composite key column 'id'" in r.stderr + r.stdout
    assert rows(sql, db, "SELECT COUNT(*) FROM n") == [("3",)]

    # DESCRIBE and SHOW CREATE show the key.
    d = sql.dicts("DESCRIBE st", db)
    assert [(x["field"], x["note"]) for x in d] == [("ts", ""), ("dev", "COMPOSITE KEY"),
                                                    ("v", ""), ("g", "TAG")]
    create = sql.rows("SHOW CREATE TABLE n", db)[0][1]
    assert "`id` BIGINT COMPOSITE KEY" in create, create

    # Only the second column; only key types.
    r = sql.run("CREATE TABLE bad (ts TIMESTAMP, a INT, b INT PRIMARY KEY)", db, check=False)
    assert r.returncode != 0
    assert "COMPOSITE KEY can only mark the second column, 'b' is column 3" in r.stderr
    r = sql.run("CREATE TABLE bad (ts TIMESTAMP, d DOUBLE COMPOSITE KEY)", db, check=False)
    assert r.returncode != 0
    assert "COMPOSITE KEY column 'd' must be INT" in r.stderr

    # A time-range delete removes every key of its timestamps.
    sql.run(f"DELETE FROM t0 WHERE ts <= {ms(0)}", db)
    assert rows(sql, db, "SELECT CAST(ts AS BIGINT), dev, v FROM t0") == [
        (str(ms(1)), "a", "99")]


def test_stream_group_by_into_composite_key(cl):
    c, sql = cl
    db = "ck_str"
    make_db(sql, db, ["CREATE TABLE src (ts TIMESTAMP, dev VARCHAR(8), v INT)"])
    create_stream(c, sql, db,
                  "CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM src INTO out "
                  "(ts, dev COMPOSITE KEY, c, total) AS SELECT _twstart, dev, COUNT(*), SUM(v) "
                  "FROM %%trows GROUP BY dev")
    desc = sql.dicts("DESCRIBE out", db)
    assert [(x["field"], x["type"], x["note"]) for x in desc] == [
        ("ts", "TIMESTAMP", ""), ("dev", "VARCHAR", "COMPOSITE KEY"), ("c", "BIGINT", ""),
        ("total", "BIGINT", "")]
    sql.insert(db, "src", [(0, "a", 1), (2, "b", 2), (3, "a", 3), (7, "c", 4)])
    sql.insert(db, "src", [(12, "b", 5), (14, "b", 6), (25, "a", 7)])
    # WATERMARK 0: [0,10) closes at the row of 12, [10,20) at the row of 25; [20,30) stays
    # open. [0,10): a -> rows 0, 3 (count 2, sum 4); b -> row 2 (1, 2); c -> row 7 (1, 4).
    # [10,20): b -> rows 12, 14 (2, 11). With the composite key each group keeps its own
    # row of the window (without it they would overwrite each other at ts 0).
    expected = [(0, "a", 2, 4), (0, "b", 1, 2), (0, "c", 1, 4), (10, "b", 2, 11)]

    def get():
        return [(sec(r[0]), r[1], num(r[2]), num(r[3])) for r in sql.rows(
            "SELECT CAST(ts AS BIGINT), dev, c, total FROM out", db)]
    wait_equal(get, expected, "GROUP BY into a composite key", sql, db, ["s"])
    assert stream_errors(sql, db, "s") == []
