"""Cluster administration end to end (docs/sql.md "Administration", docs/operations.md
"Monitor"): SHOW DNODES / VNODES [ON DNODE n] / [db.]VGROUPS / SNODES / STREAMS and
information_schema.ins_stream_tasks through the sluice CLI, checked against the cluster the
test starts (one mnode, two vnodes, two snodes on known ports) and the streams and tables it
creates; kill -9 of an snode seen dead after the node timeout; DROP SNODE; refusals with
their positions; `sluice --status`, line by line, while healthy, with a dead, a dropped
and no alive snode, and its non-zero exit once the mnode is killed; and the storage load the
vnodes report (rows, disk_bytes, write_requests, rows_written, fenced in ins_vgroups / SHOW
VNODES and their per-vnode totals in ins_dnodes) against rows written, updated, deleted and a
write refused for a stale epoch.

The tests run in order on one cluster (module fixture): each section builds on the state the
previous one left, as an operator's session would.
"""
import os
import re
import signal
import subprocess
import time

import pytest

from helpers import (NODE_TIMEOUT_MS, create_stream, ms, num, running, sec, stream_cluster,
                     wait_acked, wait_equal, wait_for)

DB = "adm"
SLOTS = 256
TABLES = [f"d{i}" for i in range(6)]
S_ERR = ("CREATE STREAM s_err INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
         "INTO out AS SELECT _twstart AS ws, 100 / MIN(v) AS q, COUNT(*) AS cnt FROM %%trows")
S_OK = ("CREATE STREAM s_ok INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
        "INTO out_ok AS SELECT _twstart AS ws, COUNT(*) AS cnt FROM %%trows")
S_IDLE = ("CREATE STREAM s_idle COUNT_WINDOW(5) FROM n1 INTO out_idle "
          "AS SELECT _twstart, COUNT(*) FROM %%trows")


@pytest.fixture(scope="module")
def cl(bin_dir, tmp_path_factory):
    with running(stream_cluster(bin_dir, tmp_path_factory.mktemp("admin"))) as cs:
        yield cs


def status(c, check=True):
    """`sluice --status` against the cluster's mnode: (exit code, stdout lines, stderr)."""
    r = subprocess.run([os.path.join(c.bin, "sluice"), "-h", "127.0.0.1", "-P", str(c.mport),
                        "--status"], capture_output=True, text=True, timeout=60)
    if check:
        assert r.returncode == 0, r.stderr
        assert r.stderr == ""
    return r.returncode, r.stdout.splitlines(), r.stderr


def refused(sql, stmt, msg, caret_col):
    """stmt fails through the CLI with msg, and the caret under column caret_col (1-based)."""
    r = sql.run(stmt, check=False)
    assert r.returncode == 1, r.stdout
    lines = r.stderr.splitlines()
    assert lines[0] == f"ERROR: {msg}", r.stderr
    assert lines[1] == stmt
    assert lines[2] == " " * (caret_col - 1) + "^", r.stderr


def ids_by_endpoint(sql):
    return {d["endpoint"]: int(d["id"]) for d in sql.dicts("SHOW DNODES")}


# ------------------------------------------------------------------------------ nodes

def test_show_dnodes_vnodes_vgroups(cl):
    c, sql = cl
    sql.run(f"CREATE DATABASE {DB} VGROUPS 4")
    sql.run("CREATE STABLE meters (ts TIMESTAMP, v INT) TAGS (loc VARCHAR(16))", DB)
    for i, t in enumerate(TABLES):
        sql.run(f"CREATE TABLE {t} USING meters TAGS ('l{i}')", DB)
    sql.run("CREATE TABLE n1 (ts TIMESTAMP, v INT)", DB)

    # SHOW DNODES: the mnode itself (dnode 0, first), then the two vnodes and two snodes the
    # test started, all alive; 4 vgroups on 2 vnodes, fewest first: 2 each.
    dn = sql.dicts("SHOW DNODES")
    assert list(dn[0]) == ["id", "endpoint", "kind", "status", "vgroups", "create_time",
                           "last_heartbeat", "rows", "disk_bytes", "write_requests",
                           "rows_written", "fenced", "reads_held", "reads_held_ms"]
    assert (dn[0]["id"], dn[0]["endpoint"], dn[0]["kind"], dn[0]["status"]) == \
        ("0", c.maddr, "mnode", "alive")
    assert sorted((d["endpoint"], d["kind"], d["status"], d["vgroups"]) for d in dn) == sorted(
        [(c.maddr, "mnode", "alive", "0"),
         (c.vaddr(0), "vnode", "alive", "2"), (c.vaddr(1), "vnode", "alive", "2"),
         (c.saddr(0), "snode", "alive", "0"), (c.saddr(1), "snode", "alive", "0")])
    assert len({d["id"] for d in dn}) == 5
    # Only vnodes carry a storage load (NULL, empty in CSV, for the others).
    assert all(d[k] == "" for d in dn if d["kind"] != "vnode"
               for k in ("rows", "disk_bytes", "write_requests", "rows_written", "fenced",
                         "reads_held", "reads_held_ms"))
    assert [d["endpoint"] for d in sql.dicts("SHOW MNODES")] == [c.maddr]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}", d[k])
               for d in dn for k in ("create_time", "last_heartbeat"))
    assert [d["endpoint"] for d in sql.dicts("SHOW DNODES LIKE '%:" + str(c.sports[1]) + "'")] \
        == [c.saddr(1)]
    ids = ids_by_endpoint(sql)

    # SHOW VNODES: one row per vgroup with its vnode.
    vn = sql.dicts("SHOW VNODES")
    assert list(vn[0]) == ["vgroup_id", "db_name", "vgroup_index", "vnode_id", "endpoint",
                           "status", "tables", "rows", "disk_bytes", "write_requests",
                           "rows_written", "fenced"]
    assert sorted(int(v["vgroup_index"]) for v in vn) == [0, 1, 2, 3]
    assert all(v["db_name"] == DB and v["status"] == "alive" for v in vn)
    assert all(ids[v["endpoint"]] == int(v["vnode_id"]) for v in vn)
    assert sorted(v["endpoint"] for v in vn) == sorted([c.vaddr(0)] * 2 + [c.vaddr(1)] * 2)
    # 7 tables (6 children, n1), each in the vgroup ins_tables names.
    per_vg = {r["vgroup_id"]: int(r["n"]) for r in sql.dicts(
        "SELECT vgroup_id, COUNT(*) AS n FROM information_schema.ins_tables "
        f"WHERE db_name = '{DB}' GROUP BY vgroup_id")}
    assert sum(int(v["tables"]) for v in vn) == 7
    assert all(int(v["tables"]) == per_vg.get(v["vgroup_id"], 0) for v in vn)

    # ON DNODE n: the vgroups that vnode holds.
    for i in range(2):
        on = sql.dicts(f"SHOW VNODES ON DNODE {ids[c.vaddr(i)]}")
        assert sorted(v["vgroup_id"] for v in on) == sorted(
            v["vgroup_id"] for v in vn if v["endpoint"] == c.vaddr(i))
        assert len(on) == 2

    # [db.]VGROUPS: the database's vgroups; the current one when not named. (disk_bytes
    # moves as RocksDB allocates memtables, so it is left out of the comparison.)
    def fixed(rows):
        return [{k: v for k, v in r.items() if k != "disk_bytes"} for r in rows]
    wait_for(lambda: fixed(sql.dicts(f"SHOW {DB}.VGROUPS")) == fixed(sql.dicts("SHOW VNODES"))
             == fixed(sql.dicts("SHOW VGROUPS", DB)), 10, "SHOW VGROUPS differs from VNODES")
    assert sql.dicts("SHOW information_schema.VGROUPS") == []


def test_show_snodes_and_streams(cl):
    c, sql = cl
    for stmt in (S_ERR, S_OK, S_IDLE):
        create_stream(c, sql, DB, stmt)
    sql.insert(DB, "d1", [(2, 0), (6, 3), (13, 5), (24, 1)])
    sql.insert(DB, "d0", [(1, 4), (5, 5), (12, 2), (21, 1)])
    # s_err: d0 [0,10) 25.0, [10,20) 50.0; d1 [0,10) divides by zero (an error, no row),
    # [10,20) 20.0. s_ok: two closed windows per table.
    wait_equal(lambda: sorted((r[0], sec(r[1]), num(r[2])) for r in sql.rows(
        "SELECT tag_tbname, CAST(ws AS BIGINT), q FROM out", DB)),
        [("d0", 0, 25), ("d0", 10, 50), ("d1", 10, 20)], "s_err output", sql, DB, ["s_err"])
    wait_equal(lambda: sorted((r[0], sec(r[1]), num(r[2])) for r in sql.rows(
        "SELECT tag_tbname, CAST(ws AS BIGINT), cnt FROM out_ok", DB)),
        [("d0", 0, 2), ("d0", 10, 1), ("d1", 0, 2), ("d1", 10, 1)], "s_ok output", sql, DB,
        ["s_ok"])
    wait_acked(sql)

    def streams():
        return {s["stream_name"]: s for s in sql.dicts("SHOW STREAMS", DB)}
    wait_for(lambda: "division by zero" in streams()["s_err"]["error"], 15,
             lambda: f"no error in SHOW STREAMS: {streams()['s_err']}")

    # Reported lags only grow while nothing is written: ins_streams' maximum read between
    # two reads of ins_stream_tasks lies between their maxima.
    tasks = sql.dicts("SELECT * FROM information_schema.ins_stream_tasks")
    st = streams()
    later = sql.dicts("SELECT * FROM information_schema.ins_stream_tasks")
    assert list(next(iter(st.values()))) == [
        "stream_name", "db_name", "status", "trigger_table", "create_time", "output_table",
        "snodes", "tasks", "max_lag_ms", "error", "sql"]
    assert set(st) == {"s_err", "s_ok", "s_idle"}
    for name, stmt, trig, out in (("s_err", S_ERR, "meters", "out"),
                                  ("s_ok", S_OK, "meters", "out_ok"),
                                  ("s_idle", S_IDLE, "n1", "out_idle")):
        s = st[name]
        mine = [t for t in tasks if t["stream_name"] == name]
        assert (s["db_name"], s["status"], s["trigger_table"], s["output_table"], s["sql"]) == \
            (DB, "running", trig, out, stmt)
        # 256 slots over two snodes by rendezvous hashing: both own some.
        assert s["snodes"] == "2"
        assert {t["snode_endpoint"] for t in mine} == {c.saddr(0), c.saddr(1)}
        assert int(s["tasks"]) == len(mine)
        assert sum(int(t["slot_end"]) - int(t["slot_start"]) + 1 for t in mine) == SLOTS
        assert all(t["status"] == "running" for t in mine)
        assert max(int(t["lag_ms"]) for t in mine) <= int(s["max_lag_ms"]) <= max(
            int(t["lag_ms"]) for t in later if t["stream_name"] == name)
    # Rows of 2025-01-01 consumed long after: the lag is at least the time since then.
    since = int(time.time() * 1000) - 1735689600000 - 60000
    assert int(st["s_err"]["max_lag_ms"]) > since and int(st["s_ok"]["max_lag_ms"]) > since
    assert st["s_idle"]["max_lag_ms"] == "0" and st["s_idle"]["error"] == ""
    assert st["s_ok"]["error"] == ""

    # SHOW SNODES: both alive at the current epoch, each owning a share of the 3 x 256 pairs
    # that equals what ins_stream_tasks lists on it.
    epoch = max(int(t["epoch"]) for t in tasks)
    sn = sql.dicts("SHOW SNODES")
    assert list(sn[0]) == ["id", "endpoint", "status", "epoch", "streams", "slots", "groups",
                           "memory_bytes", "create_time", "last_heartbeat"]
    assert sorted(s["endpoint"] for s in sn) == sorted([c.saddr(0), c.saddr(1)])
    for s in sn:
        mine = [t for t in tasks if t["snode_endpoint"] == s["endpoint"]]
        assert (s["status"], int(s["epoch"]), s["streams"]) == ("alive", epoch, "3")
        assert int(s["slots"]) == sum(int(t["slot_end"]) - int(t["slot_start"]) + 1
                                      for t in mine)
        assert int(s["memory_bytes"]) > 0
    assert sum(int(s["slots"]) for s in sn) == 3 * SLOTS


def test_refusals(cl):
    c, sql = cl
    ids = ids_by_endpoint(sql)
    refused(sql, "SHOW VNODES ON DNODE 999", "dnode 999 does not exist", 22)
    sid = ids[c.saddr(0)]
    stmt = f"SHOW VNODES ON DNODE {sid}"
    refused(sql, stmt, f"dnode {sid} is an snode: only vnodes hold vgroups", 22)
    refused(sql, "DROP SNODE 999", "snode 999 does not exist", 12)
    vid = ids[c.vaddr(0)]
    refused(sql, f"DROP SNODE ON DNODE {vid}", f"snode {vid} does not exist", 21)
    refused(sql, "SHOW VNODES ON 1", "syntax error near '1': expected DNODE", 16)
    refused(sql, "SHOW VNODES ON DNODE x", "syntax error near 'x': expected a dnode id", 22)
    refused(sql, "SHOW VGROUPS ON DNODE 1",
            "syntax error near 'ON': expected ';' or end of input", 14)
    refused(sql, "DROP SNODE abc", "syntax error near 'abc': expected an snode id", 12)
    refused(sql, "SHOW nodb.VGROUPS", "database 'nodb' does not exist", 1)
    # Nothing changed: both snodes still alive.
    assert {s["endpoint"]: s["status"] for s in sql.dicts("SHOW SNODES")} == {
        c.saddr(0): "alive", c.saddr(1): "alive"}


# ------------------------------------------------------------------------------ --status

SNODE_LINE = r"snode {id} {ep} {st}: {streams} streams?, {slots} slots?, \d+ groups?, \d+\.\d MiB"


def check_status(c, sql, snodes, streams_line, stream_lines):
    """`sluice --status` line by line. snodes: [(index, status, streams, slots)] in id
    order; stream_lines: regexes of the lines of streams that need attention, in order, or
    None when which streams report lag or errors is not fixed (any number of well-formed
    lines)."""
    ids = ids_by_endpoint(sql)
    rc, lines, _ = status(c)
    nalive = sum(1 for s in snodes if s[1] == "alive")
    ndead = sum(1 for s in snodes if s[1] == "dead")
    ndropped = sum(1 for s in snodes if s[1] == "dropped")
    # 7 tables of the test, out_idle (s_idle is not grouped: a normal table) and one output
    # subtable per (grouped stream, group) that wrote: d0 and d1 for s_err and s_ok.
    head = [f"mnode: 127.0.0.1:{c.mport}",
            "vnodes: 2 (2 alive, 0 dead)",
            f"snodes: 2 ({nalive} alive, {ndead} dead, {ndropped} dropped)",
            "databases: 1 (4 vgroups, 12 tables)",
            streams_line]
    assert lines[:5] == head, lines
    vn = sorted((ids[c.vaddr(i)], c.vaddr(i)) for i in range(2))
    assert lines[5:7] == [f"vnode {i} {ep} alive: 2 vgroups" for i, ep in vn]
    if stream_lines is None:
        stream_lines = [rf"stream {DB}\.s_\w+ running: (lag \d+ ms|error: .*|lag \d+ ms, "
                        r"error: .*)"] * (len(lines) - 7 - len(snodes))
    assert len(lines) == 7 + len(snodes) + len(stream_lines), lines
    for line, (k, st, streams, slots) in zip(lines[7:], snodes):
        pat = SNODE_LINE.format(id=ids[c.saddr(k)], ep=re.escape(c.saddr(k)), st=st,
                                streams=streams, slots=slots)
        assert re.fullmatch(pat, line), (line, pat)
    for line, pat in zip(lines[7 + len(snodes):], stream_lines):
        assert re.fullmatch(pat, line), (line, pat)


def test_status_healthy(cl):
    c, sql = cl
    order = sorted(range(2), key=lambda k: ids_by_endpoint(sql)[c.saddr(k)])
    slots = {s["endpoint"]: s["slots"] for s in sql.dicts("SHOW SNODES")}
    check_status(c, sql, [(k, "alive", 3, slots[c.saddr(k)]) for k in order],
                 "streams: 3 (3 running, 0 stopped)",
                 [rf"stream {DB}\.s_err running: lag \d+ ms, error: .*division by zero.*",
                  rf"stream {DB}\.s_ok running: lag \d+ ms"])
    # The shell's status command prints the same.
    r = sql.run("status")
    assert r.stdout.splitlines()[:5] == status(c)[1][:5]


def test_snode_death_drop_and_status(cl):
    c, sql = cl
    ids = ids_by_endpoint(sql)
    order = sorted(range(2), key=lambda k: ids[c.saddr(k)])

    def snode_status():
        return {s["endpoint"]: s["status"] for s in sql.dicts("SHOW SNODES")}

    # kill -9: alive until the node timeout has passed, dead after it.
    killed = time.time()
    c.kill("snode1", signal.SIGKILL)
    assert snode_status()[c.saddr(1)] == "alive"
    wait_for(lambda: snode_status()[c.saddr(1)] == "dead", NODE_TIMEOUT_MS / 1000 + 5,
             lambda: f"snode 1 not dead: {snode_status()}")
    assert time.time() - killed >= NODE_TIMEOUT_MS / 1000 - 0.5
    assert {d["endpoint"]: d["status"] for d in sql.dicts("SHOW DNODES")}[c.saddr(1)] == "dead"
    # Its pairs moved to snode 0: one task per stream, on one snode.
    wait_acked(sql)
    wait_for(lambda: all(s["snodes"] == "1" and s["tasks"] == "1"
                         for s in sql.dicts("SHOW STREAMS", DB)), 10,
             lambda: f"pairs did not move: {sql.dicts('SHOW STREAMS', DB)}")
    assert {t["snode_endpoint"] for t in sql.dicts(
        "SELECT snode_endpoint FROM information_schema.ins_stream_tasks")} == {c.saddr(0)}
    # The new owner of the moved slots reports their lag and errors afresh (from their
    # checkpoints): which streams show lag or an error is not fixed any more.
    survivors = {0: (3, 3 * SLOTS), 1: (0, 0)}
    check_status(c, sql, [(k, "alive" if k == 0 else "dead", *survivors[k]) for k in order],
                 "streams: 3 (3 running, 0 stopped)", None)

    # DROP SNODE of the dead one: dropped, and so it stays.
    sql.run(f"DROP SNODE {ids[c.saddr(1)]}")
    assert snode_status() == {c.saddr(0): "alive", c.saddr(1): "dropped"}
    check_status(c, sql, [(k, "alive" if k == 0 else "dropped", *survivors[k]) for k in order],
                 "streams: 3 (3 running, 0 stopped)", None)

    # STOP one stream, then DROP SNODE ON DNODE of the live one: it drains, leaves, exits 0;
    # the running streams have no snode left.
    sql.run("STOP STREAM s_ok", DB)
    sql.run(f"DROP SNODE ON DNODE {ids[c.saddr(0)]}")
    assert c.procs["snode0"].wait(timeout=15) == 0
    c.procs.pop("snode0")
    assert snode_status() == {c.saddr(0): "dropped", c.saddr(1): "dropped"}
    wait_for(lambda: all(s["snodes"] == "0" for s in sql.dicts("SHOW STREAMS", DB)), 10,
             lambda: f"streams still placed: {sql.dicts('SHOW STREAMS', DB)}")
    check_status(c, sql, [(k, "dropped", 0, 0) for k in order],
                 "streams: 3 (2 running, 1 stopped)",
                 [rf"stream {DB}\.s_err running: no snode alive",
                  rf"stream {DB}\.s_idle running: no snode alive"])
    tasks = sql.dicts("SELECT stream_name, status, snode_id FROM "
                      "information_schema.ins_stream_tasks ORDER BY stream_name")
    assert [(t["stream_name"], t["status"], t["snode_id"]) for t in tasks] == [
        ("s_err", "unassigned", ""), ("s_idle", "unassigned", ""), ("s_ok", "unassigned", "")]


# ------------------------------------------------------------------------------ load

LOAD_DB = "ld"
LOAD_COLS = ("rows", "write_requests", "rows_written", "fenced")


def vgroup_loads(sql):
    """ld's vgroups: {vgroup_id: {column: int}} (disk_bytes included; NULL as None)."""
    out = {}
    for v in sql.dicts(f"SELECT * FROM information_schema.ins_vgroups WHERE db_name = "
                       f"'{LOAD_DB}'"):
        out[int(v["vgroup_id"])] = {k: (int(v[k]) if v[k] != "" else None)
                                    for k in LOAD_COLS + ("disk_bytes", "vnode_id")}
    return out


def dnode_fenced(sql):
    return {int(d["id"]): int(d["fenced"]) for d in sql.dicts(
        "SELECT id, fenced FROM information_schema.ins_dnodes WHERE kind = 'vnode'")}


def test_vnode_loads(cl):
    """Every vnode reports per vgroup, in its heartbeat, the rows stored, bytes on disk, write
    requests acknowledged, rows written and fenced writes refused: with a known number of
    rows written to a database of 2 vgroups the reports add up to exactly it, an update adds
    to rows_written but not to rows, a DELETE takes its rows away, and one write with a stale
    epoch raises the fenced count of its vgroup and vnode by exactly one and stores nothing."""
    c, sql = cl
    sql.run(f"CREATE DATABASE {LOAD_DB} VGROUPS 2")
    sql.run("CREATE STABLE m (ts TIMESTAMP, v INT) TAGS (k INT)", LOAD_DB)
    tables = [f"t{i}" for i in range(8)]
    for i, t in enumerate(tables):
        sql.run(f"CREATE TABLE {t} USING m TAGS ({i})", LOAD_DB)
    vg_of = {r["table_name"]: int(r["vgroup_id"]) for r in sql.dicts(
        "SELECT table_name, vgroup_id FROM information_schema.ins_tables "
        f"WHERE db_name = '{LOAD_DB}'")}
    vgs = sorted(vgroup_loads(sql))
    assert len(vgs) == 2
    # A fresh database: nothing stored, nothing written (NULL until the first report).
    wait_for(lambda: all(v["rows"] == 0 and v["write_requests"] == 0 and v["fenced"] == 0
                         for v in vgroup_loads(sql).values()), 10,
             lambda: f"no empty report: {vgroup_loads(sql)}")

    # One INSERT statement per table (one write request to its vgroup): 25 rows each, then
    # 5 of t0's rewritten (updates) - 200 rows stored, 205 written, 9 requests.
    want = {vg: {"rows": 0, "write_requests": 0, "rows_written": 0, "fenced": 0}
            for vg in vgs}
    for i, t in enumerate(tables):
        sql.insert(LOAD_DB, t, [(s, i * 100 + s) for s in range(25)])
        w = want[vg_of[t]]
        w["rows"] += 25
        w["write_requests"] += 1
        w["rows_written"] += 25
    sql.insert(LOAD_DB, "t0", [(s, -s) for s in range(5)])
    want[vg_of["t0"]]["write_requests"] += 1
    want[vg_of["t0"]]["rows_written"] += 5
    assert sum(w["rows"] for w in want.values()) == 200

    def loads():
        return {vg: {k: v[k] for k in LOAD_COLS} for vg, v in vgroup_loads(sql).items()}
    wait_equal(loads, want, "vgroup loads after the inserts", timeout=15, settle=1.5)
    # SHOW VNODES lists the same; the stored rows are what a count(*) finds.
    vn = {int(v["vgroup_id"]): v for v in sql.dicts("SHOW VNODES") if v["db_name"] == LOAD_DB}
    assert {vg: int(v["rows"]) for vg, v in vn.items()} == {vg: w["rows"] for vg, w in
                                                            want.items()}
    assert sql.rows("SELECT count(*) FROM m", LOAD_DB) == [["200"]]
    assert all(v["disk_bytes"] > 0 for v in vgroup_loads(sql).values())

    # Per vnode: the sums over every vgroup it holds (the adm database's too).
    def dnode_sums():
        per = {}
        for v in sql.dicts("SELECT vnode_id, rows, write_requests, rows_written FROM "
                           "information_schema.ins_vgroups"):
            p = per.setdefault(int(v["vnode_id"]), [0, 0, 0])
            for j, k in enumerate(("rows", "write_requests", "rows_written")):
                p[j] += int(v[k] or 0)
        dn = {int(d["id"]): [int(d["rows"]), int(d["write_requests"]),
                             int(d["rows_written"])]
              for d in sql.dicts("SELECT * FROM information_schema.ins_dnodes "
                                 "WHERE kind = 'vnode'")}
        return per == dn
    wait_for(dnode_sums, 10, "ins_dnodes totals differ from the sums of ins_vgroups")

    # A DELETE of 5 of t1's rows: 195 stored, one more request on t1's vgroup.
    sql.run(f"DELETE FROM t1 WHERE ts <= {ms(4)}", LOAD_DB)
    want[vg_of["t1"]]["rows"] -= 5
    want[vg_of["t1"]]["write_requests"] += 1
    wait_equal(loads, want, "vgroup loads after the delete", timeout=15, settle=1.5)

    # Fencing: a write at the current epoch passes (and tells the vnode that epoch); one at
    # an older epoch is refused (SL_ESTALE) and counted once, on t2's vgroup and vnode.
    cur = max(int(t["epoch"]) for t in sql.dicts(
        "SELECT epoch FROM information_schema.ins_stream_tasks"))
    assert cur >= 2
    c.rpc("--epoch", cur, "write", c.maddr, LOAD_DB, "t2", stdin=f"{ms(100)},1\n")
    want[vg_of["t2"]]["rows"] += 1
    want[vg_of["t2"]]["write_requests"] += 1
    want[vg_of["t2"]]["rows_written"] += 1
    wait_equal(loads, want, "vgroup loads after the current-epoch write", timeout=15,
               settle=1.5)
    vnode = vgroup_loads(sql)[vg_of["t2"]]["vnode_id"]
    before = dnode_fenced(sql)
    r = c.rpc("--epoch", cur - 1, "write", c.maddr, LOAD_DB, "t2", stdin=f"{ms(101)},2\n",
              check=False)
    assert r.returncode != 0 and "error -18" in r.stderr, r.stderr
    want[vg_of["t2"]]["fenced"] += 1
    wait_equal(loads, want, "vgroup loads after the stale write", timeout=15, settle=1.5)
    after = dnode_fenced(sql)
    assert after == {n: f + (1 if n == vnode else 0) for n, f in before.items()}
    assert sql.rows("SELECT count(*) FROM t2", LOAD_DB) == [["26"]]


def test_status_mnode_down(cl):
    c, sql = cl
    assert status(c)[0] == 0
    c.kill("mnode", signal.SIGKILL)
    rc, lines, err = status(c, check=False)
    assert rc != 0
    assert lines == []
    assert f"cannot connect to 127.0.0.1:{c.mport}" in err
