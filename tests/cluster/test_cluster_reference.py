"""Storage-cluster acceptance: mnode + 2 vnodes on loopback, everything through the real
client path (the `sluice` CLI over libsluice), checked against an independent reference.

- test_reference_queries: 1,000 child tables of `meters` in a VGROUPS 4 database, 200,000
  rows from a fixed seed (about 5% NULL in every non-key column), then ~2,000 updates (a
  re-insert of an existing (table, ts): last write wins) and DELETE ranges on child tables
  and on the super table. The same inserts/updates/deletes go into a sqlite3 table
  (REPLACE on (tbname, ts)); every aggregate and grouping form is computed in Python from
  the sqlite rows and compared (integers exactly, floats within 1e-6 relative), and a few
  queries are also compared with the same data in the embedded store (`sluice --embedded`).
- test_vnode_kill_during_insert_load / test_mnode_kill_during_create_table: kill -9 in the
  middle of a load driven by one CLI process per statement (exit status 0 and "Query OK"
  = acknowledged); after a restart on the same data folder and port every acknowledged
  batch/table is there and no batch is half there.
- test_bad_input_through_cli: wrong types, over-long strings, NULL timestamps, unknown
  tables and columns -> exact error messages, nothing stored.

SLUICE_REF_ROWS (default 200000) scales the row count (ctest passes 200000, also
for SLUICE_SANITIZE builds: about a minute either way); the table count stays 1,000.
"""
import math
import os
import random
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone

import pytest

from conftest import Cluster

T0 = 1735689600000  # 2025-01-01 00:00:00 UTC, ms
NTABLES = 1000
NROWS = int(os.environ.get("SLUICE_REF_ROWS", "200000"))
ROWS_PER_TABLE = max(1, NROWS // NTABLES)
STEP = 10000  # ms between two rows of one table; table t writes at T0 + i*STEP + t
LOCATIONS = ["Berlin", "Lisbon", "Oslo", "Paris", "Rome", "San Francisco", "Tokyo"]
SCHEMA = ("create stable meters (ts timestamp, current float, voltage int, phase double, "
          "note varchar(16)) tags (location varchar(32), groupid int)")
COLS = ("current", "voltage", "phase", "note")
REL = 1e-6


def progress(msg):
    # Straight to the terminal / ctest log, past pytest's capture.
    sys.__stderr__.write(f"[cluster_reference {time.strftime('%H:%M:%S')}] {msg}\n")
    sys.__stderr__.flush()


# ------------------------------------------------------------------ CLI helpers

def sluice(bin_dir, port, sql=None, *extra, files=(), check=True, timeout=300):
    args = [os.path.join(bin_dir, "sluice")]
    if port is None:
        args.append("--embedded")
    else:
        args += ["-h", "127.0.0.1", "-P", str(port)]
    args += list(extra)
    for f in files:
        args += ["-f", str(f)]
    if sql is not None:
        args += ["-s", sql]
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
    if check and r.returncode != 0:
        raise AssertionError(f"sluice failed ({r.returncode}): {r.stderr[-2000:]}")
    return r


def parse_csv(text):
    """The CLI's CSV: NULL is an empty field, an empty string is "" -> NULL reads as the
    string 'NULL' here (no generated value is that string). No embedded newlines."""
    out = []
    for line in text.splitlines():
        row, i, n = [], 0, len(line)
        while True:
            if i < n and line[i] == '"':
                j, buf = i + 1, []
                while True:
                    k = line.index('"', j)
                    buf.append(line[j:k])
                    if k + 1 < n and line[k + 1] == '"':
                        buf.append('"')
                        j = k + 2
                        continue
                    i = k + 1
                    break
                row.append("".join(buf))
            else:
                k = line.find(",", i)
                k = n if k < 0 else k
                row.append(line[i:k] if k > i else "NULL")
                i = k
            if i >= n:
                break
            assert line[i] == ",", line
            i += 1
        out.append(row)
    return out


def query(bin_dir, port, sql):
    r = sluice(bin_dir, port, "use db; " + sql, "--csv")
    rows = parse_csv(r.stdout)
    return rows[0], rows[1:]


# ------------------------------------------------------------------ data

def fmt_ts(ms):
    d = datetime.fromtimestamp(ms // 1000, tz=timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S") + f".{ms % 1000:03d}"


def sql_val(v):
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'" + v + "'"
    return repr(v)


def tag_of(t):
    return LOCATIONS[t % len(LOCATIONS)], t % 10


def gen_row(rnd, ts):
    def maybe(v):
        return None if rnd.random() < 0.05 else v
    current = maybe(rnd.randint(-400, 400) * 0.25)          # exact in float32
    voltage = maybe(rnd.randint(180, 260))
    phase = maybe(rnd.randint(-1_000_000, 1_000_000) / 1024)  # exact sums in double
    note = maybe("".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(0, 16))))
    return (ts, current, voltage, phase, note)


def gen_data(seed=20250101):
    rnd = random.Random(seed)
    data = {}
    for t in range(NTABLES):
        data[t] = [gen_row(rnd, T0 + i * STEP + t) for i in range(ROWS_PER_TABLE)]
    # ~2,000 updates of existing (table, ts), new values.
    nupd = max(10, NROWS // 100)
    updates = []
    seen = set()
    while len(updates) < nupd:
        t = rnd.randrange(NTABLES)
        i = rnd.randrange(ROWS_PER_TABLE)
        if (t, i) in seen:
            continue
        seen.add((t, i))
        updates.append((t, gen_row(rnd, T0 + i * STEP + t)))
    span = ROWS_PER_TABLE * STEP
    # DELETE ranges: some child tables, then the super table.
    deletes = []
    for t in rnd.sample(range(NTABLES), 12):
        a = T0 + rnd.randrange(span // 2)
        deletes.append((f"d{t:03d}", a, a + rnd.randrange(STEP, span // 3)))
    a = T0 + span // 2
    deletes.append(("meters", a, a + span // 20))
    return data, updates, deletes


def insert_stmt(items, tags=True):
    """items: [(t, [rows])] -> one multi-table INSERT."""
    parts = ["insert into"]
    for t, rows in items:
        name = f"d{t:03d}"
        if tags:
            loc, g = tag_of(t)
            parts.append(f"{name} using meters tags ('{loc}', {g}) values")
        else:
            parts.append(f"{name} values")
        parts.append(" ".join("(" + ", ".join(sql_val(v) for v in r) + ")" for r in rows))
    return " ".join(parts) + ";\n"


def write_load_files(tmp, data, updates, deletes, nfiles=8, tables_per_stmt=25):
    """The whole load as CLI script files: inserts, then updates, then deletes."""
    files = []
    per = NTABLES // nfiles
    for k in range(nfiles):
        p = tmp / f"load{k}.sql"
        with open(p, "w") as f:
            f.write("use db;\n")
            ts = list(range(k * per, NTABLES if k == nfiles - 1 else (k + 1) * per))
            for j in range(0, len(ts), tables_per_stmt):
                f.write(insert_stmt([(t, data[t]) for t in ts[j:j + tables_per_stmt]]))
        files.append(p)
    p = tmp / "update.sql"
    with open(p, "w") as f:
        f.write("use db;\n")
        for j in range(0, len(updates), 200):
            f.write(insert_stmt([(t, [r]) for t, r in updates[j:j + 200]], tags=False))
    files.append(p)
    p = tmp / "delete.sql"
    with open(p, "w") as f:
        f.write("use db;\n")
        for name, a, b in deletes:
            f.write(f"delete from {name} where ts >= {a} and ts < {b};\n")
    files.append(p)
    return files


def build_reference(data, updates, deletes):
    db = sqlite3.connect(":memory:")
    db.execute("create table meters (tbname text, location text, groupid int, ts int, "
               "current real, voltage int, phase real, note text, primary key (tbname, ts))")
    ins = ("insert or replace into meters values (?, ?, ?, ?, ?, ?, ?, ?)")
    for t, rows in data.items():
        loc, g = tag_of(t)
        db.executemany(ins, [(f"d{t:03d}", loc, g, *r) for r in rows])
    for t, r in updates:
        loc, g = tag_of(t)
        db.execute(ins, (f"d{t:03d}", loc, g, *r))
    affected = []
    for name, a, b in deletes:
        if name == "meters":
            cur = db.execute("delete from meters where ts >= ? and ts < ?", (a, b))
        else:
            cur = db.execute("delete from meters where tbname = ? and ts >= ? and ts < ?",
                             (name, a, b))
        affected.append(cur.rowcount)
    db.commit()
    return db, affected


# ------------------------------------------------------------------ reference aggregates

def agg(fn, rows, col):
    """rows: [(ts, current, voltage, phase, note)] of one group."""
    if fn == "count" and col == "*":
        return len(rows)
    ci = 1 + COLS.index(col) if col != "ts" else 0
    vals = [(r[0], r[ci]) for r in rows if r[ci] is not None]
    if fn == "count":
        return len(vals)
    if not vals:
        return None
    v = [x for _, x in vals]
    if fn == "sum":
        return sum(v)
    if fn == "avg":
        return math.fsum(v) / len(v)
    if fn == "min":
        return min(v)
    if fn == "max":
        return max(v)
    if fn == "first":
        return min(vals)[1]
    if fn == "last":
        return max(vals)[1]
    if fn == "spread":
        return float(max(v) - min(v))
    if fn == "stddev":
        m = math.fsum(v) / len(v)
        return math.sqrt(math.fsum((x - m) ** 2 for x in v) / len(v))
    raise ValueError(fn)


def parse_aggs(spec):
    """'count(*), sum(voltage)' -> [('count','*'), ('sum','voltage')]."""
    out = []
    for s in spec.split(","):
        s = s.strip()
        fn, col = s[:-1].split("(")
        out.append((fn, col))
    return out


def cell_ok(got, want):
    if want is None:
        return got == "NULL"
    if isinstance(want, str):
        return got == want
    if isinstance(want, bool) or isinstance(want, int):
        return got == str(want)
    try:
        g = float(got)
    except ValueError:
        return False
    return g == want or abs(g - want) <= REL * max(abs(want), abs(g))


def assert_rows(got, want, what):
    assert len(got) == len(want), f"{what}: {len(got)} rows, want {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert len(g) == len(w), f"{what}: row {i}: {g} vs {w}"
        for j, (gc, wc) in enumerate(zip(g, w)):
            assert cell_ok(gc, wc), f"{what}: row {i} col {j}: got {gc!r}, want {wc!r}\n{g}\n{w}"


def ref_rows(db, where="1"):
    return db.execute("select tbname, location, groupid, ts, current, voltage, phase, note "
                      f"from meters where {where} order by ts").fetchall()


def group(rows, key):
    out = {}
    for r in rows:
        out.setdefault(key(r), []).append(r[3:])
    return out


# ------------------------------------------------------------------ fixtures

@pytest.fixture(scope="module")
def loaded(bin_dir, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ref")
    c = Cluster(bin_dir, tmp, 2)
    c.start()
    try:
        t0 = time.time()
        data, updates, deletes = gen_data()
        files = write_load_files(tmp, data, updates, deletes)
        progress(f"generated {NTABLES} tables x {ROWS_PER_TABLE} rows, {len(updates)} updates, "
                 f"{len(deletes)} deletes in {time.time() - t0:.1f}s")
        sluice(bin_dir, c.mport, "create database db vgroups 4; use db; " + SCHEMA)
        nload = len(files) - 2
        for k, f in enumerate(files[:nload]):
            r = sluice(bin_dir, c.mport, None, files=[f])
            n = sum(int(line.split()[2]) for line in r.stdout.splitlines()
                    if line.startswith("Query OK,"))
            progress(f"loaded file {k + 1}/{nload} ({n} rows) at {time.time() - t0:.1f}s")
            assert n == sum(len(data[t]) for t in range(k * (NTABLES // nload),
                                                          NTABLES if k == nload - 1
                                                          else (k + 1) * (NTABLES // nload)))
        r = sluice(bin_dir, c.mport, None, files=[files[-2]])
        assert sum(int(line.split()[2]) for line in r.stdout.splitlines()
                   if line.startswith("Query OK,")) == len(updates)
        r = sluice(bin_dir, c.mport, None, files=[files[-1]])
        got_del = [int(line.split()[2]) for line in r.stdout.splitlines()
                   if line.startswith("Query OK,")][1:]  # [0] is the USE
        db, want_del = build_reference(data, updates, deletes)
        progress(f"updates and deletes applied at {time.time() - t0:.1f}s")
        yield dict(cluster=c, db=db, files=files, tmp=tmp, got_del=got_del, want_del=want_del)
    finally:
        c.stop()


# ------------------------------------------------------------------ the reference test

WHOLE = ("count(*), count(current), count(voltage), count(phase), count(note), "
         "sum(current), sum(voltage), sum(phase), avg(current), avg(voltage), avg(phase), "
         "min(current), min(voltage), min(phase), max(current), max(voltage), max(phase), "
         "first(current), first(voltage), first(note), last(current), last(phase), last(note), "
         "spread(current), spread(voltage), spread(phase), "
         "stddev(current), stddev(voltage), stddev(phase)")

WHERES = [
    "1 = 1",
    f"ts >= {T0 + 333333} and ts < {T0 + 1234567}",
    "voltage > 230 and current <= 0",
    "location = 'Oslo' or groupid in (2, 7)",
    f"ts < {T0 + 900000} and phase > 0 and location <> 'Tokyo' and note is not null",
    "current is null",
    "ts < 0",
]


def run_checks(bin_dir, port, db, checks):
    for sql, want, ordered in checks:
        hdr, rows = query(bin_dir, port, sql)
        if not ordered:
            rows = sorted(rows)
            want = sorted(want, key=lambda r: [str(x) for x in r])
        assert_rows(rows, want, sql)


def reference_checks(db):
    """[(sluice SQL, expected rows, ordered)] computed from sqlite + Python only."""
    checks = []
    aggs = parse_aggs(WHOLE)
    # Whole super table and WHERE forms (ts range, values, tags).
    for w in WHERES:
        rows = [r[3:] for r in ref_rows(db, w)]
        checks.append((f"select {WHOLE} from meters where {w}",
                       [[agg(f, rows, c) for f, c in aggs]], True))
    # PARTITION BY tbname (every child table).
    spec = ("count(*), count(voltage), sum(voltage), avg(current), min(phase), max(phase), "
            "first(current), last(voltage), spread(phase), stddev(voltage)")
    g = group(ref_rows(db), lambda r: r[0])
    checks.append((f"select tbname, {spec} from meters partition by tbname",
                   [[k] + [agg(f, v, c) for f, c in parse_aggs(spec)] for k, v in g.items()],
                   False))
    # GROUP BY a tag, with and without WHERE.
    spec = ("count(*), count(note), sum(voltage), sum(current), avg(phase), min(current), "
            "max(voltage), first(phase), last(current), spread(voltage), stddev(current)")
    for key, idx in (("location", 1), ("groupid", 2)):
        for w in ("1 = 1", f"ts >= {T0 + 600000} and voltage < 250"):
            g = group(ref_rows(db, w), lambda r: r[idx])
            checks.append((f"select {key}, {spec} from meters where {w} group by {key} "
                           f"order by {key}",
                           [[k] + [agg(f, v, c) for f, c in parse_aggs(spec)]
                            for k, v in sorted(g.items())], True))
    # INTERVAL(1m) over the super table.
    spec = ("count(*), count(current), sum(voltage), avg(current), min(voltage), max(phase), "
            "first(voltage), last(current), spread(current), stddev(voltage)")
    g = group(ref_rows(db), lambda r: r[3] - r[3] % 60000)
    checks.append((f"select _wstart, {spec} from meters interval(1m) order by _wstart",
                   [[fmt_ts(k)] + [agg(f, v, c) for f, c in parse_aggs(spec)]
                    for k, v in sorted(g.items())], True))
    # INTERVAL(5m) SLIDING(1m) with a value and tag filter: windows [s, s+5m), s multiple
    # of 1m, every window holding at least one row.
    w = "voltage >= 200 and groupid < 5"
    rows = ref_rows(db, w)
    win = {}
    for r in rows:
        last = r[3] - r[3] % 60000
        for s in range(last - 4 * 60000, last + 1, 60000):
            win.setdefault(s, []).append(r[3:])
    spec = "count(*), sum(voltage), avg(phase), max(current), first(note), last(note), stddev(phase)"
    checks.append((f"select _wstart, _wend, {spec} from meters where {w} "
                   f"interval(5m) sliding(1m) order by _wstart",
                   [[fmt_ts(k), fmt_ts(k + 300000)] + [agg(f, v, c) for f, c in parse_aggs(spec)]
                    for k, v in sorted(win.items())], True))
    # PARTITION BY tbname INTERVAL(1m) for a subset of the tables.
    subset = ("d007", "d123", "d500", "d999")
    w = "tbname in (" + ", ".join(f"'{s}'" for s in subset) + ")"
    g = group(ref_rows(db, w), lambda r: (r[0], r[3] - r[3] % 60000))
    spec = "count(*), sum(current), min(voltage), last(phase), spread(voltage)"
    checks.append((f"select tbname, _wstart, {spec} from meters where {w} "
                   f"partition by tbname interval(1m) order by tbname, _wstart",
                   [[k[0], fmt_ts(k[1])] + [agg(f, v, c) for f, c in parse_aggs(spec)]
                    for k, v in sorted(g.items())], True))
    # ORDER BY / LIMIT on aggregates and on raw rows.
    g = group(ref_rows(db), lambda r: r[0])
    sums = sorted(((agg("sum", v, "voltage"), k) for k, v in g.items()),
                  key=lambda x: (-x[0], x[1]))
    checks.append(("select tbname, sum(voltage) s from meters partition by tbname "
                   "order by s desc, tbname limit 10 offset 5",
                   [[k, s] for s, k in sums[5:15]], True))
    rows = ref_rows(db, "location = 'Rome' and current is not null")
    rows.sort(key=lambda r: (-r[4], -r[3]))
    checks.append(("select tbname, ts, current, voltage, note from meters "
                   "where location = 'Rome' and current is not null "
                   "order by current desc, ts desc limit 25",
                   [[r[0], fmt_ts(r[3]), r[4], r[5], r[7]] for r in rows[:25]], True))
    rows = ref_rows(db, "tbname = 'd042'")
    checks.append(("select * from d042 order by ts desc limit 7 offset 3",
                   [[fmt_ts(r[3]), r[4], r[5], r[6], r[7]] for r in rows[::-1][3:10]], True))
    checks.append(("select count(*) from d042", [[len(rows)]], True))
    return checks


def test_reference_queries(loaded, bin_dir):
    c, db = loaded["cluster"], loaded["db"]
    t0 = time.time()
    # Deletes removed exactly what the reference removed.
    assert loaded["got_del"] == loaded["want_del"]
    total = db.execute("select count(*) from meters").fetchone()[0]
    assert total == NTABLES * ROWS_PER_TABLE - sum(loaded["want_del"])
    hdr, rows = query(bin_dir, c.mport, "select count(*) from meters")
    assert rows == [[str(total)]]
    hdr, rows = query(bin_dir, c.mport, "select count(*) from information_schema.ins_tables "
                                        "where db_name = 'db'")
    assert rows == [[str(NTABLES)]]
    hdr, rows = query(bin_dir, c.mport, "show vnodes")
    assert len(rows) == 4 and len({r[4] for r in rows}) == 2  # 4 vgroups over both vnodes
    checks = reference_checks(db)
    run_checks(bin_dir, c.mport, db, checks)
    progress(f"{len(checks)} reference queries matched in {time.time() - t0:.1f}s")


def test_cluster_matches_embedded_store(loaded, bin_dir):
    """The super table over 4 vgroups on 2 vnodes answers what one embedded store does."""
    c, tmp = loaded["cluster"], loaded["tmp"]
    queries = [
        f"select {WHOLE} from meters",
        "select tbname, count(*), sum(voltage), first(current), last(note), stddev(phase) "
        "from meters partition by tbname order by tbname",
        "select location, groupid, count(*), avg(current), spread(phase) from meters "
        "group by location, groupid order by location, groupid",
        "select _wstart, count(*), sum(current), max(voltage), last(phase) from meters "
        f"where ts < {T0 + 1800000} interval(5m) sliding(1m) order by _wstart",
        "select ts, tbname, current, note from meters where voltage = 222 "
        "order by ts limit 40",
    ]
    qf = tmp / "queries.sql"
    qf.write_text("use db;\n" + "".join(q + ";\n" for q in queries))
    t0 = time.time()
    pre = tmp / "schema.sql"
    pre.write_text("create database db vgroups 4; use db; " + SCHEMA + ";\n")
    r = sluice(bin_dir, None, None, "--csv", files=[pre, *loaded["files"], qf])
    emb = parse_csv(r.stdout)
    progress(f"embedded store loaded and queried in {time.time() - t0:.1f}s")
    pos = 0
    for q in queries:
        hdr, rows = query(bin_dir, c.mport, q)
        assert emb[pos] == hdr, q
        want = emb[pos + 1:pos + 1 + len(rows)]
        # Same row values; floats may differ in the last bits of a different summing order.
        assert_rows(rows, [[w if w == "NULL" else _num_or_str(w) for w in row] for row in want], q)
        pos += 1 + len(rows)
    assert pos == len(emb)


def _num_or_str(s):
    try:
        if any(ch in s for ch in ".eE"):
            return float(s)
        return int(s)
    except ValueError:
        return s


# ------------------------------------------------------------------ durability

def _acked(r, nrows):
    return r is not None and r.returncode == 0 and f"Query OK, {nrows} row(s) affected" in r.stdout


def _try(bin_dir, port, sql, timeout):
    try:
        return sluice(bin_dir, port, sql, check=False, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def test_vnode_kill_during_insert_load(cluster, bin_dir):
    """kill -9 a vnode while a loader (one CLI process per single-table INSERT batch) runs;
    restart it on the same folder and port: every acknowledged batch is there, whole, and
    no batch is half there."""
    c = cluster
    nt, nb, rows_per = 40, 240, 50
    tables = ", ".join(f"k{t:02d} using meters tags ('L{t % 3}', {t})" for t in range(nt))
    sluice(bin_dir, c.mport, "create database db vgroups 4; use db; " + SCHEMA +
           "; create table " + tables.replace(", k", " k"))
    rnd = random.Random(99)
    batches = []
    for b in range(nb):
        t = b % nt
        base = T0 + (b // nt) * rows_per * 1000
        batches.append((f"k{t:02d}", [gen_row(rnd, base + j * 1000) for j in range(rows_per)]))
    acked, state = [False] * nb, {"killed_at": None, "restarted_at": None}

    def load(first, last):
        fails = 0
        for b in range(first, last):
            name, rows = batches[b]
            sql = f"use db; insert into {name} values " + " ".join(
                "(" + ", ".join(sql_val(v) for v in r) + ")" for r in rows)
            acked[b] = _acked(_try(bin_dir, c.mport, sql, 5), rows_per)
            fails += not acked[b]
            if fails >= 4:  # each refused batch can take the 5 s timeout: enough
                return b + 1
        return last

    def killer():
        while sum(acked) < 60:
            time.sleep(0.005)
        c.kill("vnode0")
        state["killed_at"] = sum(acked)

    th = threading.Thread(target=killer)
    th.start()
    t0 = time.time()
    stop = load(0, 120)  # the vnode dies somewhere in here, mid-load
    th.join()
    assert state["killed_at"] is not None
    n_down = sum(acked[60:120])
    c.start_vnode(0)
    c.wait_registered([c.vaddr(0), c.vaddr(1)])
    assert load(120, nb) == nb
    progress(f"vnode restarted after batch {stop}")
    progress(f"vnode kill load: killed after {state['killed_at']} acks, "
             f"{sum(acked)}/{nb} batches acknowledged in {time.time() - t0:.1f}s")
    # Some batches were refused while vnode0 was down (its vgroups), the others went on.
    assert n_down < 60 and sum(acked[120:]) == nb - 120
    hdr, got = query(bin_dir, c.mport, "select tbname, ts, current, voltage, phase, note from meters")
    have = {}
    for tb, ts, *vals in got:
        have.setdefault(tb, {})[ts] = vals
    for b, (name, rows) in enumerate(batches):
        present = [fmt_ts(r[0]) in have.get(name, {}) for r in rows]
        if acked[b]:
            assert all(present), f"acknowledged batch {b} ({name}) lost rows"
            for r in rows:
                want = [r[1], r[2], r[3], r[4]]
                assert_rows([have[name][fmt_ts(r[0])]], [want], f"batch {b}")
        else:
            assert all(present) or not any(present), f"batch {b} ({name}) is half there"
    assert len(got) == sum(rows_per for b in range(nb)
                           if all(fmt_ts(r[0]) in have.get(batches[b][0], {}) for r in batches[b][1]))


def test_mnode_kill_during_create_table(cluster, bin_dir):
    """kill -9 the mnode during a series of CREATE TABLE statements (one CLI process each);
    restart it: every acknowledged table exists and takes rows."""
    c = cluster
    sluice(bin_dir, c.mport, "create database db vgroups 4; use db; " + SCHEMA)
    n = 120
    acked = [False] * n
    state = {}

    def create(first, last):
        fails = 0
        for i in range(first, last):
            r = _try(bin_dir, c.mport, f"use db; create table c{i:03d} using meters tags "
                     f"('L{i % 5}', {i})", 5)
            acked[i] = r is not None and r.returncode == 0
            fails += not acked[i]
            if fails >= 3:  # each refused statement waits for the connect timeout
                return

    def killer():
        while sum(acked) < 30:
            time.sleep(0.002)
        c.kill("mnode")
        state["killed_at"] = sum(acked)

    th = threading.Thread(target=killer)
    th.start()
    t0 = time.time()
    create(0, 50)
    th.join()
    down = sum(acked[state["killed_at"] + 1:50])
    c.start_mnode()
    c.wait_registered([c.vaddr(0), c.vaddr(1)])
    create(50, n)
    progress(f"mnode kill: killed after {state['killed_at']} acks, {sum(acked)}/{n} tables "
             f"acknowledged in {time.time() - t0:.1f}s")
    assert down == 0 and all(acked[50:])
    hdr, rows = query(bin_dir, c.mport, "show tables")
    names = {r[0] for r in rows}
    missing = [f"c{i:03d}" for i in range(n) if acked[i] and f"c{i:03d}" not in names]
    assert not missing, f"acknowledged tables lost: {missing}"
    assert names <= {f"c{i:03d}" for i in range(n)}
    # Every table the catalog has is whole: it takes a row and reads back its tags.
    stmt = "insert into " + " ".join(f"{t} values ({T0}, 1.5, 220, 0.5, 'x')" for t in sorted(names))
    r = sluice(bin_dir, c.mport, "use db; " + stmt)
    assert f"Query OK, {len(names)} row(s) affected" in r.stdout
    hdr, rows = query(bin_dir, c.mport, "select tbname, location, groupid, voltage from meters")
    assert sorted(rows) == sorted([t, f"L{int(t[1:]) % 5}", str(int(t[1:])), "220"] for t in names)


# ------------------------------------------------------------------ bad input

BAD = [
    ("insert into d1 values (1735689600000, 'abc', 220, 0.5, 'a')",
     "column 'current' expects FLOAT, got 'abc'"),
    ("insert into d1 values (1735689600000, 1.5, 'x', 0.5, 'a')",
     "column 'voltage' expects INT, got 'x'"),
    ("insert into d1 values (1735689600000, 1.5, 99999999999, 0.5, 'a')",
     "value 99999999999 is out of range for column 'voltage' INT"),
    ("insert into d1 values (1735689600000, 1.5, 220, 0.5, 'a') "
     "(1735689601000, 1.5, 220, 0.5, 'abcdefghijklmnopq')",
     "value 'abcdefghijklmnopq' is too long for column 'note' VARCHAR(16)"),
    ("insert into d1 values (1735689600000, 1.5, 220, 0.5, 'a') d2 values "
     "(NULL, 1.5, 220, 0.5, 'a')",
     "the timestamp column 'ts' cannot be NULL"),
    ("insert into nosuch values (1735689600000, 1.5, 220, 0.5, 'a')",
     "table 'nosuch' does not exist in database 'db'"),
    ("insert into d1 (ts, nocol) values (1735689600000, 1)",
     "table 'd1' has no column 'nocol'"),
    ("insert into d1 values (1735689600000, 1.5, 220)",
     "row 1 has 3 values, expected 5"),
    ("insert into d9 using meters tags ('" + "a" * 45 + "', 1) values (1735689600000, 1.5, 220, 0.5, 'a')",
     "value 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' is too long for tag 'location' VARCHAR(32)"),
    ("select nocol from meters", "unknown column 'nocol' in table 'meters'"),
    ("select * from nosuch", "table 'nosuch' does not exist in database 'db'"),
    ("delete from nosuch where ts < 1", "table 'nosuch' does not exist in database 'db'"),
]


def test_bad_input_through_cli(cluster, bin_dir):
    c = cluster
    sluice(bin_dir, c.mport, "create database db vgroups 4; use db; " + SCHEMA +
           "; create table d1 using meters tags ('a', 1) d2 using meters tags ('b', 2)")
    sluice(bin_dir, c.mport, "use db; insert into d1 values (1735689500000, 1.25, 221, 0.5, 'ok')")

    def state():
        hdr, rows = query(bin_dir, c.mport, "select tbname, ts, current, voltage, phase, note "
                                            "from meters order by tbname, ts")
        hdr, tabs = query(bin_dir, c.mport, "show tables")
        return rows, sorted(t[0] for t in tabs)

    before = state()
    assert before == ([["d1", fmt_ts(1735689500000), "1.25", "221", "0.5", "ok"]], ["d1", "d2"])
    for sql, msg in BAD:
        r = sluice(bin_dir, c.mport, "use db; " + sql, check=False)
        assert r.returncode == 1, sql
        assert f"ERROR: {msg}\n" in r.stderr, f"{sql}: {r.stderr}"
        assert state() == before, sql
