"""libsluice and the sluice shell against real daemons: mnode + 2 vnodes on loopback.

Statements go through `sluice -h 127.0.0.1 -P port` (the network backend over libsluice):
DDL and SHOW to the mnode, INSERT rows straight to the vnodes, SELECTs fanned out to every
vgroup and merged in the client. Expected values are computed here in Python from the
generated rows, never read back from the code under test.
"""
import csv
import io
import os
import random
import signal
import socket
import subprocess
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
T0 = 1735689600000  # 2025-01-01 00:00:00 UTC, ms


def sluice(bin_dir, port, sql, *extra, check=True):
    r = subprocess.run([os.path.join(bin_dir, "sluice"), "-h", "127.0.0.1", "-P", str(port),
                        *extra, "-s", sql], capture_output=True, text=True, timeout=120)
    if check and r.returncode != 0:
        raise AssertionError(f"sluice failed ({r.returncode}): {r.stderr}")
    return r


def query(bin_dir, port, sql):
    r = sluice(bin_dir, port, "use db; " + sql, "--csv")
    rows = list(csv.reader(io.StringIO(r.stdout)))
    return rows[0], rows[1:]


def gen_rows(ntables=20, nrows=150, seed=7):
    rnd = random.Random(seed)
    data = {}
    for t in range(ntables):
        rows = []
        for i in range(nrows):
            ts = T0 + i * 5000 + t
            v = None if rnd.random() < 0.1 else rnd.randint(-100, 100)
            rows.append((ts, v))
        data[f"d{t}"] = rows
    return data


def load(bin_dir, port, data):
    sluice(bin_dir, port, "create database db vgroups 4; use db; "
           "create stable m (ts timestamp, v int) tags (loc varchar(8), g int)")
    stmts = []
    for name, rows in data.items():
        t = int(name[1:])
        vals = " ".join(f"({ts}, {'NULL' if v is None else v})" for ts, v in rows)
        stmts.append(f"{name} using m tags ('L{t % 3}', {t % 4}) values {vals}")
    # One INSERT over every table: the client batches it per vgroup.
    r = sluice(bin_dir, port, "use db; insert into " + " ".join(stmts))
    assert f"Query OK, {sum(len(r) for r in data.values())} row(s) affected" in r.stdout


def test_cluster_queries_match_independent_computation(cluster, bin_dir):
    port = cluster.mport
    data = gen_rows()
    load(bin_dir, port, data)
    allrows = [(name, ts, v) for name, rows in data.items() for ts, v in rows]
    vals = [v for _, _, v in allrows if v is not None]

    hdr, rows = query(bin_dir, port, "select count(*), count(v), sum(v), min(v), max(v) from m")
    assert rows == [[str(len(allrows)), str(len(vals)), str(sum(vals)), str(min(vals)),
                     str(max(vals))]]

    hdr, rows = query(bin_dir, port, "select tbname, count(v), sum(v) from m partition by tbname")
    want = sorted([name, str(sum(v is not None for _, v in r)),
                   str(sum(v for _, v in r if v is not None))] for name, r in data.items())
    assert sorted(rows) == want

    hdr, rows = query(bin_dir, port, "select loc, count(*) from m group by loc order by loc")
    want = {}
    for name, r in data.items():
        loc = f"L{int(name[1:]) % 3}"
        want[loc] = want.get(loc, 0) + len(r)
    assert rows == [[k, str(want[k])] for k in sorted(want)]

    # INTERVAL(1m) over the super table: windows by ts // 60000.
    hdr, rows = query(bin_dir, port,
                      "select _wstart, count(*), max(v) from m interval(1m) order by _wstart")
    win = {}
    for _, ts, v in allrows:
        w = (ts - T0) // 60000
        c, mx = win.get(w, (0, None))
        win[w] = (c + 1, mx if v is None or (mx is not None and mx >= v) else v)
    assert len(rows) == len(win)
    assert [r[1] for r in rows] == [str(win[w][0]) for w in sorted(win)]
    assert [r[2] for r in rows] == ["NULL" if win[w][1] is None else str(win[w][1])
                                    for w in sorted(win)]

    # DELETE over the super table reaches every vgroup.
    r = sluice(bin_dir, port, f"use db; delete from m where ts < {T0 + 100000}")
    gone = sum(1 for _, ts, _ in allrows if ts < T0 + 100000)
    assert f"Query OK, {gone} row(s) affected" in r.stdout
    hdr, rows = query(bin_dir, port, "select count(*) from m")
    assert rows == [[str(len(allrows) - gone)]]

    # Catalog statements answered by the mnode.
    hdr, rows = query(bin_dir, port, "show stables")
    assert rows[0][0] == "m"
    hdr, rows = query(bin_dir, port,
                      "select count(*) from information_schema.ins_tables where db_name = 'db'")
    assert rows == [[str(len(data))]]


def test_cluster_errors_have_positions(cluster, bin_dir):
    port = cluster.mport
    sluice(bin_dir, port, "create database db; use db; "
           "create stable m (ts timestamp, v int) tags (g int)")
    r = sluice(bin_dir, port, "use db; insert into d1 using m tags (1) values (now, 'abc')",
               check=False)
    assert r.returncode == 1
    assert "column 'v' expects INT, got 'abc'" in r.stderr
    assert r.stderr.splitlines()[-1].index("^") == len("insert into d1 using m tags (1) values (now, ")
    r = sluice(bin_dir, port, "use db; select nope from m", check=False)
    assert r.returncode == 1 and "nope" in r.stderr
    hdr, rows = query(bin_dir, port, "select count(*) from m")
    assert rows == [["0"]]


def served(log_path, who):
    """{METHOD: count} from the "requests served" line a daemon logs when it stops."""
    with open(log_path, errors="replace") as f:
        lines = [ln for ln in f if f"{who}: requests served:" in ln]
    assert lines, f"no 'requests served' line in {log_path}"
    return {k: int(v) for k, v in
            (kv.split("=") for kv in lines[-1].split("requests served:")[1].split())}


def test_created_tables_need_no_lookup(cluster, bin_dir):
    """The mnode answers CREATE TABLE with the metadata of the tables it names
    (ExecReply.created) and libsluice caches it: writing to three new tables right after
    creating them asks no TABLE_META (without it: one per table). The rows land; a failed
    CREATE caches nothing."""
    port = cluster.mport
    sluice(bin_dir, port, "create database db; use db; "
           "create stable st (ts timestamp, v int) tags (g int); "
           "create table n1 (ts timestamp, x int); "
           "insert into n1 values (1000, 7); "
           "create table if not exists c1 using st tags (1) c2 using st tags (2); "
           "insert into c1 values (1000, 1); insert into c2 values (2000, 2) (3000, 3)")
    cluster.kill("mnode", signal.SIGTERM)
    counts = served(os.path.join(cluster.root, "mnode.log"), "mnode")
    assert counts["EXEC"] >= 5 and counts.get("TABLE_META", 0) == 0, counts
    cluster.start_mnode()
    deadline = time.time() + 30
    while True:
        r = sluice(bin_dir, port, "use db; select count(*), sum(v) from st", "--csv",
                   check=False)
        if r.returncode == 0 or time.time() > deadline:
            break
        time.sleep(0.3)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1:] == ["3,6"]
    hdr, rows = query(bin_dir, port, "select x from n1")
    assert rows == [["7"]]
    r = sluice(bin_dir, port, "use db; create table n1 (ts timestamp, x int); "
               "insert into n9 values (1000, 1)", "--continue", check=False)
    assert r.returncode == 1 and "n9" in r.stderr


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_free(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_base(nvnodes=2, nsnodes=2):
    """A base port P with P, every vnode port P+70+i, every snode port P+170+i and the
    demo's notification port P+269 free, below the kernel's ephemeral range (32768+) so
    outgoing connections of other tests cannot take them meanwhile."""
    import random
    for _ in range(500):
        base = random.randrange(20000, 32000)
        ports = ([base, base + 269] + [base + 70 + i for i in range(1, nvnodes + 1)]
                 + [base + 170 + i for i in range(1, nsnodes + 1)])
        if all(port_free(p) for p in ports):
            return base
    raise AssertionError("no free base port")


def test_sluice_local_quickstart(bin_dir, tmp_path):
    script = os.path.join(ROOT, "scripts", "sluice-local")
    base = free_base()
    env = dict(os.environ, SLUICE_BIN=bin_dir)
    d = str(tmp_path / "local")
    # The daemons it starts inherit its stdout: send that to a file, not a pipe we wait on.
    out = tmp_path / "up.out"
    with open(out, "w") as f:
        up = subprocess.run([script, "up", "--dir", d, "--base-port", str(base)], env=env,
                            stdout=f, stderr=subprocess.STDOUT, timeout=60,
                            stdin=subprocess.DEVNULL)
    try:
        assert up.returncode == 0, out.read_text()
        assert f"-P {base}" in out.read_text()
        r = sluice(bin_dir, base, "create database q; use q; create table t (ts timestamp, x int); "
                   "insert into t values (1, 10) (2, 20) (3, 30); select sum(x) from t", "--csv")
        assert r.stdout.strip().splitlines()[-2:] == ["sum(x)", "60"]
        # The quick start's stream demo: a per-minute stream over 5 minutes of readings of 3
        # meters (one every 10 s) closes minutes 0-3 of each meter: 12 output rows of 6
        # readings each, and 12 WINDOW_CLOSE notifications at the receiver.
        with open(tmp_path / "demo.out", "w") as f:
            demo = subprocess.run([os.path.join(ROOT, "scripts", "demo-stream.sh"), "--dir", d,
                                   "--port", str(base), "--notify-port", str(base + 269)],
                                  env=env, stdout=f, stderr=subprocess.STDOUT, timeout=120,
                                  stdin=subprocess.DEVNULL)
        text = (tmp_path / "demo.out").read_text()
        assert demo.returncode == 0, text
        assert "12 output rows; 12 notification events" in text, text
        r = sluice(bin_dir, base, "select count(*), min(readings), max(readings) "
                   "from demo.meters_1m", "--csv")
        assert r.stdout.strip().splitlines()[-1] == "12,6,6"
        import json
        events = []
        for line in open(os.path.join(d, "notifications.jsonl")):
            for st in json.loads(line)["streams"]:
                assert st["streamName"] == "meters_1m"
                events += st["events"]
        assert len(events) == 12 and {e["eventType"] for e in events} == {"WINDOW_CLOSE"}
        assert sorted({e["windowStart"] for e in events}) == [
            1735689600000 + 60000 * k for k in range(4)]
        assert all(e["result"]["count(*)"] == 6 for e in events)
    finally:
        with open(tmp_path / "down.out", "w") as f:
            subprocess.run([script, "down", "--dir", d], env=env, stdout=f,
                           stderr=subprocess.STDOUT, timeout=60)
