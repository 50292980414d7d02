"""The storage-cluster daemons end to end: registration, DDL through MNODE_EXEC, writes and
queries through the vnode services, kill -9 durability, and garbage on every port.

The requests are sent by build/bin/sluice-rpc (tools/sluice-rpc.c), which speaks the
proto/*.proto contracts; expected values are generated here, never read back from the code
under test.
"""
import os
import signal
import socket
import subprocess
import time


def rows_of(out):
    return [line.split(",") for line in out.splitlines() if line]


def setup_schema(c, vgroups=4):
    c.exec(f"CREATE DATABASE db VGROUPS {vgroups}")
    c.exec("CREATE STABLE st (ts TIMESTAMP, v BIGINT, s VARCHAR(16)) TAGS (loc VARCHAR(8), g INT)",
           "db")


def test_register_and_ddl(cluster):
    c = cluster
    assert c.alive_vnodes() == {c.vaddr(0), c.vaddr(1)}
    setup_schema(c)
    r = c.exec("USE db")
    assert r.stdout.strip() == "OK affected=0 db=db"
    c.exec("CREATE TABLE t1 USING st TAGS ('north', 1)", "db")
    c.exec("CREATE TABLE n1 (ts TIMESTAMP, x DOUBLE)", "db")
    r = c.exec("SELECT table_name, stable_name FROM information_schema.ins_tables "
               "ORDER BY table_name")
    assert rows_of(r.stdout)[1:] == [["n1", "NULL"], ["t1", "st"]]
    r = c.exec("SHOW VNODES")
    vg = rows_of(r.stdout)[1:]
    assert len(vg) == 4
    # Two alive vnodes, fewest vgroups first: 2 each.
    assert sorted(sum(1 for v in vg if v[4] == a) for a in (c.vaddr(0), c.vaddr(1))) == [2, 2]
    r = c.exec("DESCRIBE st", "db")
    assert [row[0] for row in rows_of(r.stdout)[1:]] == ["ts", "v", "s", "loc", "g"]
    # Errors: duplicate, unknown type, bad SQL -> error, nothing changed.
    r = c.exec("CREATE TABLE t1 USING st TAGS ('x', 2)", "db", check=False)
    assert r.returncode != 0 and "exist" in r.stderr
    r = c.exec("CREATE TABLE bad (ts TIMESTAMP, x NOSUCHTYPE)", "db", check=False)
    assert r.returncode != 0
    r = c.exec("SELEC 1", check=False)
    assert r.returncode != 0 and "error -3" in r.stderr
    r = c.exec("INSERT INTO t1 VALUES (1, 2, 'a')", "db", check=False)
    assert r.returncode != 0 and "error -10" in r.stderr
    r = c.exec("SHOW TABLES", "db")
    assert sorted(row[0] for row in rows_of(r.stdout)[1:]) == ["n1", "t1"]


def test_write_query_delete_changes(cluster):
    c = cluster
    setup_schema(c)
    c.exec("CREATE TABLE t1 USING st TAGS ('north', 1)", "db")
    c.exec("CREATE TABLE t2 USING st TAGS ('south', 2)", "db")
    # Written right after CREATE TABLE: the vnode fetches the new definition itself.
    rows1 = [(1000 + i, i * 3 - 7, f"s{i}") for i in range(2500)]
    csv1 = "".join(f"{t},{v},{s}\n" for t, v, s in rows1)
    r = c.rpc("write", c.maddr, "db", "t1", 700, stdin=csv1)
    acks = [int(line.split()[1]) for line in r.stdout.splitlines()]
    assert acks == [700, 1400, 2100, 2500]
    c.rpc("write", c.maddr, "db", "t2", stdin="5,,NULL\n6,42,x\n")
    # Read back with small pages (cursors).
    r = c.rpc("query", c.maddr, "db", "SELECT ts, v, s FROM t1", 4096)
    assert rows_of(r.stdout) == [[str(t), str(v), s] for t, v, s in rows1]
    # PARTIAL output of a plain SELECT is the scanned columns (ts first); the client projects.
    r = c.rpc("query", c.maddr, "db", "SELECT ts, tbname, loc, g, v FROM st WHERE ts < 1002")
    got = sorted(rows_of(r.stdout))
    assert got == sorted([["1000", "t1", "north", "1", "-7"], ["1001", "t1", "north", "1", "-4"],
                          ["5", "t2", "south", "2", "NULL"], ["6", "t2", "south", "2", "42"]])
    # An update (same timestamp) and a delete range.
    c.rpc("write", c.maddr, "db", "t1", stdin="1000,99,upd\n")
    r = c.rpc("delete", c.maddr, "db", "t1", 1010, 1019)
    assert r.stdout.split()[1] == "10"
    r = c.rpc("query", c.maddr, "db", "SELECT ts, v, s FROM t1 WHERE ts <= 1020")
    exp = [["1000", "99", "upd"]] + [[str(t), str(v), s] for t, v, s in rows1[1:10]] + \
          [["1020", str(20 * 3 - 7), "s20"]]
    assert rows_of(r.stdout) == exp
    # The change log of t1's vgroup: 4 write batches, the update, the delete.
    meta = c.rpc("meta", c.maddr, "db", "t1").stdout
    fields = dict(kv.split("=", 1) for kv in meta.split())
    vg, vnode = fields["vgroup"], fields["vnode"]
    st = c.rpc("status", vnode, vg).stdout
    last = int(dict(kv.split("=") for kv in st.split())["last_version"])
    r = c.rpc("changes", vnode, vg, 0)
    lines = r.stdout.splitlines()
    assert lines[0] == f"last_version={last} changes={len(lines) - 1}"
    t1_changes = [ln for ln in lines[1:] if f"uid={fields['uid']} " in ln]
    kinds = [ln.split("kind=")[1].split()[0] for ln in t1_changes]
    assert kinds == ["1", "1", "1", "1", "1", "2"]
    # Long poll: returns as soon as a write lands.
    p = subprocess.Popen([os.path.join(c.bin, "sluice-rpc"), "changes", vnode, vg, str(last),
                          "20000"], stdout=subprocess.PIPE, text=True)
    time.sleep(0.5)
    assert p.poll() is None
    t0 = time.time()
    c.rpc("write", c.maddr, "db", "t1", stdin="999999,1,late\n")
    out, _ = p.communicate(timeout=10)
    assert time.time() - t0 < 5
    assert out.splitlines()[0] == f"last_version={last + 1} changes=1"


def test_kill9_vnode_keeps_acknowledged_rows(cluster):
    c = cluster
    setup_schema(c, vgroups=2)
    c.exec("CREATE TABLE k1 USING st TAGS ('k', 7)", "db")
    meta = c.rpc("meta", c.maddr, "db", "k1").stdout
    fields = dict(kv.split("=", 1) for kv in meta.split())
    victim = [i for i in range(2) if c.vaddr(i) == fields["vnode"]][0]
    total, batch = 400000, 500
    path = os.path.join(c.root, "load.csv")
    with open(path, "w") as f:
        for t in range(total):
            f.write(f"{t},{t * 2},r{t % 97}\n")
    with open(path) as f:
        loader = subprocess.Popen([os.path.join(c.bin, "sluice-rpc"), "write", c.maddr, "db",
                                   "k1", str(batch)], stdin=f, stdout=subprocess.PIPE, text=True,
                                  env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
        acked = 0
        for line in loader.stdout:
            acked = int(line.split()[1])
            if acked >= 20000:
                break
        c.kill(f"vnode{victim}", signal.SIGKILL)
        for line in loader.stdout:  # acks that arrived before the kill
            acked = int(line.split()[1])
        loader.wait(timeout=30)
    assert 20000 <= acked < total
    c.start_vnode(victim)
    c.wait_serving(c.vaddr(victim), fields["vgroup"])
    r = c.rpc("query", c.maddr, "db", "SELECT ts, v, s FROM k1")
    got = rows_of(r.stdout)
    # Every acknowledged row, and only whole batches beyond them.
    assert len(got) >= acked and len(got) % batch == 0
    assert got == [[str(t), str(t * 2), f"r{t % 97}"] for t in range(len(got))]


def envelope(method, payload):
    """A hand-encoded sluice.Envelope: version 1, method, request_id 7, payload."""
    def varint(n):
        out = bytearray()
        while True:
            b = n & 0x7F
            n >>= 7
            out.append(b | (0x80 if n else 0))
            if not n:
                return bytes(out)
    return (b"\x08\x01\x10" + varint(method) + b"\x18\x07\x32" + varint(len(payload))
            + payload)


def test_garbage_on_every_port(cluster):
    c = cluster
    setup_schema(c)
    c.exec("CREATE TABLE g1 USING st TAGS ('g', 1)", "db")
    c.rpc("write", c.maddr, "db", "g1", stdin="1,1,a\n")
    rnd = os.urandom(4096)
    for port in [c.mport] + c.vports:
        url = f"tcp://127.0.0.1:{port}"
        # Raw TCP garbage (not even an SP handshake), then a half-open connection.
        for chunk in (rnd, b"\x00SP\x00\x00\x30\x00\x00" + rnd[:100], b"\xff" * 64):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                try:
                    s.sendall(chunk)
                    s.settimeout(0.5)
                    s.recv(100)
                except OSError:
                    pass
        # nng frames with garbage: an undecodable envelope, and valid envelopes whose
        # payload is garbage for every method number.
        r = c.rpc("raw", url, "random:2000")
        assert r.stdout.startswith("reply ")
        for method in range(0, 10):
            for payload in (rnd[:300], b"\x0a\xff\xff\xff\xff\x0f", b"\x12\x05ab"):
                r = c.rpc("raw", url, "hex:" + envelope(method, payload).hex(), check=False)
                assert r.returncode == 0, r.stderr
        # An oversized frame is dropped, not buffered.
        c.rpc("raw", url, "random:20000000", check=False, timeout=60)
    # Everyone still serves.
    assert c.alive_vnodes() == {c.vaddr(0), c.vaddr(1)}
    r = c.rpc("query", c.maddr, "db", "SELECT ts, v, s FROM g1")
    assert rows_of(r.stdout) == [["1", "1", "a"]]
    for name, p in c.procs.items():
        assert p.poll() is None, f"{name} exited"


def test_many_tables_sync_and_drop(cluster):
    c = cluster
    setup_schema(c)
    n = 120
    for i in range(n):
        c.exec(f"CREATE TABLE m{i} USING st TAGS ('t{i % 5}', {i})", "db")
        # Each written at once: the owning vnode learns the table on demand.
        c.rpc("write", c.maddr, "db", f"m{i}", stdin=f"{i},{i * 10},x{i}\n")
    r = c.rpc("query", c.maddr, "db", "SELECT ts, tbname, g, v FROM st")
    assert sorted(rows_of(r.stdout)) == sorted([[str(i), f"m{i}", str(i), str(i * 10)]
                                                for i in range(n)])
    c.exec("DROP TABLE m7", "db")
    c.exec("DROP TABLE m8", "db")
    expect = sorted([[str(i), f"m{i}"] for i in range(n) if i not in (7, 8)])
    deadline = time.time() + 10
    while True:  # the vnodes learn drops through the heartbeat
        r = c.rpc("query", c.maddr, "db", "SELECT ts, tbname FROM st")
        if sorted(rows_of(r.stdout)) == expect or time.time() > deadline:
            break
        time.sleep(0.2)
    assert sorted(rows_of(r.stdout)) == expect
    # A re-created table with the same name is a new, empty table.
    c.exec("CREATE TABLE m7 USING st TAGS ('again', 700)", "db")
    c.rpc("write", c.maddr, "db", "m7", stdin="77,1,y\n")
    r = c.rpc("query", c.maddr, "db", "SELECT ts, g FROM m7")
    assert rows_of(r.stdout) == [["77", "700"]]


def test_kill9_mnode_keeps_catalog(cluster):
    c = cluster
    setup_schema(c)
    c.exec("CREATE TABLE a1 USING st TAGS ('a', 1)", "db")
    c.rpc("write", c.maddr, "db", "a1", stdin="1,1,a\n")
    before = c.exec("SELECT table_name, uid, vgroup_id FROM information_schema.ins_tables").stdout
    # SHOW VNODES up to `tables` is the catalog; the load columns after it are the vnodes'
    # heartbeat reports, kept in memory only (NULL until the restarted mnode hears again).
    def vnodes_catalog():
        return [",".join(line.split(",")[:7])
                for line in c.exec("SHOW VNODES").stdout.splitlines()]
    vnodes = vnodes_catalog()
    c.kill("mnode", signal.SIGKILL)
    c.start_mnode()
    c.wait_registered([c.vaddr(0), c.vaddr(1)])
    assert c.exec("SELECT table_name, uid, vgroup_id FROM information_schema.ins_tables"
                  ).stdout == before
    assert vnodes_catalog() == vnodes
    # The restarted mnode's tables reach the vnodes (a full sync: a new catalog version).
    c.exec("CREATE TABLE a2 USING st TAGS ('b', 2)", "db")
    c.rpc("write", c.maddr, "db", "a2", stdin="2,2,b\n")
    r = c.rpc("query", c.maddr, "db", "SELECT ts, tbname, v FROM st")
    assert sorted(rows_of(r.stdout)) == [["1", "a1", "1"], ["2", "a2", "2"]]


def test_stream_ddl_survives_mnode_restart(cluster):
    c = cluster
    setup_schema(c)
    sql = ("CREATE STREAM s1 INTERVAL(1m) SLIDING(1m) FROM st PARTITION BY tbname "
           "INTO o1 AS SELECT _twstart, COUNT(*) FROM %%trows")
    c.exec(sql, "db")
    r = c.exec("CREATE STREAM s1 PERIOD(1d) NOTIFY('ws://h:1')", "db", check=False)
    assert r.returncode != 0 and "stream 's1' already exists" in r.stderr
    r = c.exec("SHOW STREAMS", "db")
    rows = rows_of(r.stdout)[1:]
    assert [row[:4] for row in rows] == [["s1", "db", "running", "st"]]
    c.exec("STOP STREAM s1", "db")
    c.kill("mnode", signal.SIGKILL)
    c.start_mnode()
    c.wait_registered([c.vaddr(0), c.vaddr(1)])
    r = c.exec("SELECT stream_name, status FROM information_schema.ins_streams")
    assert rows_of(r.stdout)[1:] == [["s1", "stopped"]]
    r = c.exec("SHOW CREATE STREAM db.s1")
    assert sql in r.stdout
    c.exec("DROP STREAM db.s1")
    assert rows_of(c.exec("SHOW STREAMS", "db").stdout)[1:] == []


def test_auto_create(cluster):
    c = cluster
    setup_schema(c)
    r = c.rpc("autocreate", c.maddr, "db", "ac1", "st", "it's,5")
    f = dict(kv.split("=", 1) for kv in r.stdout.split())
    assert f["kind"] == "1" and f["stable"] == "st"
    # Again: the same table, not a new one.
    r2 = c.rpc("autocreate", c.maddr, "db", "ac1", "st", "it's,5")
    assert dict(kv.split("=", 1) for kv in r2.stdout.split())["uid"] == f["uid"]
    c.rpc("write", c.maddr, "db", "ac1", stdin="3,4,z\n")
    r = c.rpc("query", c.maddr, "db", "SELECT ts, loc, g, v FROM st")
    assert rows_of(r.stdout) == [["3", "it's", "5", "4"]]
    # A normal table of that name is not a child of st; a wrong tag type is refused.
    c.exec("CREATE TABLE plain (ts TIMESTAMP, x INT)", "db")
    r = c.rpc("autocreate", c.maddr, "db", "plain", "st", "a,1", check=False)
    assert r.returncode != 0
    r = c.rpc("autocreate", c.maddr, "db", "ac2", "st", "waytoolongvalue,1", check=False)
    assert r.returncode != 0


def test_changelog_cap(bin_dir, tmp_path):
    """A vnode started with --changelog-max-entries keeps only that many change-log entries:
    reading from before them is refused with the oldest retained version; reading the kept
    tail works and returns exactly the kept entries."""
    from conftest import Cluster
    c = Cluster(bin_dir, tmp_path, 1, vnode_args=["--changelog-max-entries", "5"])
    c.start()
    try:
        c.exec("CREATE DATABASE db VGROUPS 1")
        c.exec("CREATE TABLE t (ts TIMESTAMP, v BIGINT, s VARCHAR(8))", "db")
        for i in range(12):
            c.rpc("write", c.maddr, "db", "t", stdin=f"{1000 + i},{i},w{i}\n")
        fields = dict(kv.split("=", 1) for kv in c.rpc("meta", c.maddr, "db", "t").stdout.split())
        vg, vnode = fields["vgroup"], fields["vnode"]
        st = dict(kv.split("=") for kv in c.rpc("status", vnode, vg).stdout.split())
        last, first = int(st["last_version"]), int(st["first_retained"])
        assert last - first + 1 == 5
        r = c.rpc("changes", vnode, vg, 0, check=False)
        assert r.returncode != 0
        assert f"change log trimmed: oldest retained version is {first}" in r.stderr
        r = c.rpc("changes", vnode, vg, first - 1)
        lines = r.stdout.splitlines()
        assert lines[0] == f"last_version={last} changes=5"
        # The rows are still all there: the cap trims the log, not the data.
        rows = rows_of(c.rpc("query", c.maddr, "db", "SELECT ts, v FROM t").stdout)
        assert rows == [[str(1000 + i), str(i)] for i in range(12)]
    finally:
        c.stop()


def thread_stat(pid, field):
    """{thread name: [values]} of one field of /proc/PID/task/TID/stat for every thread of
    process pid (counted from 1, as proc(5) does; the fields after the ")" that ends the
    name start at 3): 19 the nice value, 41 the scheduling policy (0 SCHED_OTHER, 5
    SCHED_IDLE)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/comm") as f:
            name = f.read().strip()
        with open(f"/proc/{pid}/task/{tid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        out.setdefault(name, []).append(int(fields[field - 3]))
    return out


def thread_policy(pid):
    return thread_stat(pid, 41)


def thread_nice(pid):
    return thread_stat(pid, 19)


def test_idle_priority(bin_dir, tmp_path):
    """`idle` as a CPU priority: `sluice-snode --nice idle` runs every thread of the snode in
    the SCHED_IDLE class, `sluice-vnode --reader-nice idle` the change reader alone; the
    rest of the vnode stays SCHED_OTHER; "idle" is the only word taken."""
    from conftest import Cluster
    for exe, flag in (("sluice-snode", "--nice"), ("sluice-vnode", "--reader-nice")):
        r = subprocess.run([os.path.join(bin_dir, exe), flag, "idel"], capture_output=True,
                           text=True, timeout=10)
        assert r.returncode == 2 and "0..19 or idle" in r.stderr, r.stderr
    c = Cluster(bin_dir, tmp_path, 1, vnode_args=["--reader-nice", "idle"], nsnodes=1,
                snode_args=["--nice", "idle"])
    c.start()
    try:
        vp = thread_policy(c.procs["vnode0"].pid)
        assert vp.pop("vn-reader") == [5], vp
        assert all(p == 0 for ps in vp.values() for p in ps), vp
        sp = thread_policy(c.procs["snode0"].pid)
        assert sum(len(ps) for ps in sp.values()) > 1
        assert all(p == 5 for ps in sp.values() for p in ps), sp
        # Still serving: a write and its change-log read.
        c.exec("CREATE DATABASE db VGROUPS 1")
        c.exec("CREATE TABLE t (ts TIMESTAMP, v BIGINT)", "db")
        c.rpc("write", c.maddr, "db", "t", stdin="1000,5\n")
        fields = dict(kv.split("=", 1) for kv in c.rpc("meta", c.maddr, "db", "t").stdout.split())
        r = c.rpc("changes", fields["vnode"], fields["vgroup"], 0)
        assert "changes=" in r.stdout.splitlines()[0]
    finally:
        c.stop()


def test_select_right_after_create(bin_dir, tmp_path):
    """A SELECT in the same breath as the CREATE TABLE that made its table (one CLI call,
    about a millisecond apart, well inside the vnodes' once-a-second catalog sync) sees the
    table: the vnode that does not know it yet fetches its vgroup's tables from the mnode
    and plans again, as a write does. A table that exists nowhere is still refused, and a
    vgroup asked for a table of another vgroup still says it does not have it."""
    from conftest import Cluster
    from helpers import Sql
    c = Cluster(bin_dir, tmp_path, 2)
    os.makedirs(c.root, exist_ok=True)
    c.start()
    try:
        sql = Sql(c)
        sql.run("CREATE DATABASE q VGROUPS 4")
        for i in range(8):
            r = sql.run(f"CREATE TABLE t{i} (ts TIMESTAMP, v INT); "
                        f"SELECT count(*) AS n FROM t{i}", "q")
            assert r.stdout.strip().splitlines()[-2:] == ["n", "0"], r.stdout
        sql.run("CREATE STABLE m (ts TIMESTAMP, v INT) TAGS (g INT)", "q")
        r = sql.run("CREATE TABLE m1 USING m TAGS (1); INSERT INTO m1 VALUES (1000, 7); "
                    "SELECT v FROM m1", "q")
        assert r.stdout.strip().splitlines()[-2:] == ["v", "7"], r.stdout
        r = sql.run("SELECT count(*) FROM nosuch", "q", check=False)
        assert r.returncode != 0 and "nosuch" in r.stderr, r.stderr
        # Asked on every vgroup of q (sluice-rpc query), m1's answers and the three others
        # say they do not have it (the tool skips those), after fetching their tables.
        r = c.rpc("query", c.maddr, "q", "SELECT ts, v FROM m1")
        assert r.stdout.split() == ["1000,7"], r.stdout
    finally:
        c.stop()


def test_vnode_reader_and_sync_threads(bin_dir, tmp_path):
    """Change-log reads are answered by the vnode's change reader thread at --reader-nice,
    the group commit's log sync runs on a thread of its own at the daemon's priority;
    long polls parked on the reader are answered by the write that lands, in order, while
    writes go on; bad --reader-nice values are refused."""
    from conftest import Cluster
    exe = os.path.join(bin_dir, "sluice-vnode")
    r = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0 and "--reader-nice" in r.stdout
    for bad in ("20", "-1", "x"):
        r = subprocess.run([exe, "--reader-nice", bad], capture_output=True, text=True,
                           timeout=10)
        assert r.returncode == 2 and "bad reader-nice" in r.stderr, (bad, r.stderr)
    c = Cluster(bin_dir, tmp_path, 1, vnode_args=["--reader-nice", "13"])
    c.start()
    try:
        names = thread_nice(c.procs["vnode0"].pid)
        assert names.get("vn-reader") == [13], names
        assert names.get("vn-sync") == [0], names
        assert names["sluice-vnode"][0] == 0, names  # the loop thread
        c.exec("CREATE DATABASE db VGROUPS 1")
        c.exec("CREATE TABLE t (ts TIMESTAMP, v BIGINT, s VARCHAR(8))", "db")
        c.rpc("write", c.maddr, "db", "t", stdin="1000,0,w0\n")
        fields = dict(kv.split("=", 1) for kv in c.rpc("meta", c.maddr, "db", "t").stdout.split())
        vg, vnode = fields["vgroup"], fields["vnode"]
        last = int(dict(kv.split("=") for kv in
                        c.rpc("status", vnode, vg).stdout.split())["last_version"])
        # Eight polls parked after the last version, then 30 writes from another process:
        # every poll is answered with changes after its cursor (nothing older, nothing
        # lost), and every one-row write is acknowledged (rows counted 1..30).
        polls = [c.rpc_async("changes", vnode, vg, last, 20000) for _ in range(8)]
        time.sleep(0.5)
        assert all(p.poll() is None for p in polls)  # parked
        csv = "".join(f"{2000 + i},{i},x{i}\n" for i in range(30))
        w = c.rpc("write", c.maddr, "db", "t", 1, stdin=csv)
        acks = [int(line.split()[1]) for line in w.stdout.splitlines()]
        assert acks == list(range(1, 31))
        for p in polls:
            out, err = p.communicate(timeout=20)
            assert p.returncode == 0, err
            head = out.splitlines()[0]
            assert head.startswith("last_version=") and "changes=" in head, out
            got_last = int(head.split()[0].split("=")[1])
            assert last < got_last <= last + 30, out
        r = c.rpc("changes", vnode, vg, last)
        assert r.stdout.splitlines()[0] == f"last_version={last + 30} changes=30"
        # A poll that times out answers empty, with its cursor unchanged.
        r = c.rpc("changes", vnode, vg, last + 30, 300)
        assert r.stdout.splitlines()[0] == f"last_version={last + 30} changes=0"
        rows = rows_of(c.rpc("query", c.maddr, "db", "SELECT ts, v FROM t").stdout)
        assert rows == [["1000", "0"]] + [[str(2000 + i), str(i)] for i in range(30)]
    finally:
        c.stop()


def test_use_information_schema(cluster):
    """USE information_schema makes the system database current: its tables are then
    readable without qualification and it holds no streams."""
    c = cluster
    setup_schema(c)
    r = c.exec("USE information_schema")
    assert r.stdout.strip() == "OK affected=0 db=information_schema"
    r = c.exec("SELECT name FROM ins_databases ORDER BY name", "information_schema")
    assert rows_of(r.stdout)[1:] == [["db"]]
    r = c.exec("SHOW STREAMS", "information_schema")
    assert rows_of(r.stdout)[1:] == []
    r = c.exec("USE nosuchdb", check=False)
    assert r.returncode != 0 and "database 'nosuchdb' does not exist" in r.stderr


def test_stream_reads_yield_to_heavy_writes(bin_dir, tmp_path):
    """The vnode holds change-log reads while client writes keep it busy and short of CPU
    (--stream-yield-ms, -writes, -demand; docs/architecture.md "Stream reads yield to
    heavy writes"). With both thresholds at 0 every read counts as under heavy writes: a
    reader that does not yet yield is told so at once (an empty reply with writes_heavy,
    its cursor unchanged); a yielding read waits the whole hold (and the log counts it),
    then gets at most 64 changes (the trickle that keeps a stream moving under a sustained
    load); a stream's task thread moves to SCHED_IDLE while told, and the stream still
    computes every window. A light write load with the defaults never holds, cuts or
    flags a read, and no task thread yields. Bad values are refused."""
    from conftest import Cluster
    from helpers import (HEARTBEAT_MS, NODE_TIMEOUT_MS, Sql, create_stream, log_count,
                         make_db, num, sec, wait_equal, wait_for)
    exe = os.path.join(bin_dir, "sluice-vnode")
    r = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=10)
    for flag in ("--stream-yield-ms", "--stream-yield-writes", "--stream-yield-demand"):
        assert flag in r.stdout, flag
    for flag, bad in (("stream-yield-ms", "-1"), ("stream-yield-ms", "60001"),
                      ("stream-yield-ms", "x"), ("stream-yield-writes", "101"),
                      ("stream-yield-demand", "-5"), ("stream-yield-demand", "1.5")):
        r = subprocess.run([exe, f"--{flag}", bad], capture_output=True, text=True,
                           timeout=10)
        assert r.returncode == 2 and f"bad {flag}" in r.stderr, (flag, bad, r.stderr)

    held = "stream reads held for heavy client writes"
    q = "AS SELECT _twstart AS ws, COUNT(*) AS cnt, SUM(v) AS total FROM %%trows"
    # COUNT_WINDOW(3) over rows v = 1..7: rows 1-3 (6), 4-6 (15); row 7 stays open.
    want = [(0, 3, 6), (3, 3, 15)]

    def count_windows(sql, db):
        return [(sec(r[0]), num(r[1]), num(r[2])) for r in sql.rows(
            "SELECT CAST(ws AS BIGINT), cnt, total FROM out3 ORDER BY ws", db)]

    def write_100(sql):
        # 100 INSERTs, one change each, after the row at 1 s.
        sql.run(" ".join(f"INSERT INTO m VALUES ({2000 + i}, {i});" for i in range(100)), "y")

    def idle_threads(c):
        # The snode's threads in the SCHED_IDLE class (policy 5, field 41 of their stat).
        pid = c.procs["snode0"].pid
        n = 0
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue  # the thread ended meanwhile
            n += fields[38] == "5"  # field 41: after "pid (comm)", index 41 - 3
        return n

    def start(name, vnode_args):
        c = Cluster(bin_dir, tmp_path / name, 1, nsnodes=1, node_timeout_ms=NODE_TIMEOUT_MS,
                    snode_args=["--heartbeat-ms", str(HEARTBEAT_MS)], vnode_args=vnode_args)
        os.makedirs(c.root, exist_ok=True)
        c.start()
        sql = Sql(c)
        make_db(sql, "y", ["CREATE TABLE n (ts TIMESTAMP, v INT)",
                           "CREATE TABLE m (ts TIMESTAMP, v INT)"])
        c.rpc("write", c.maddr, "y", "m", stdin="1000,1\n")
        return c, sql

    hold_ms = 700
    c, sql = start("hold", ["--stream-yield-ms", str(hold_ms), "--stream-yield-writes", "0",
                            "--stream-yield-demand", "0"])
    try:
        fields = dict(kv.split("=", 1) for kv in c.rpc("meta", c.maddr, "y", "m").stdout.split())
        # Not yielding yet: told at once, nothing read, the cursor where it was.
        r = c.rpc("changes", fields["vnode"], fields["vgroup"], 0, 0, 0)
        assert r.stdout.splitlines()[0] == "last_version=0 changes=0 writes_heavy=1", r.stdout
        t0 = time.monotonic()
        r = c.rpc("changes", fields["vnode"], fields["vgroup"], 0, 0, 1)
        took = time.monotonic() - t0
        assert r.stdout.splitlines()[0] == "last_version=1 changes=1 writes_heavy=1", r.stdout
        assert took >= hold_ms / 1000 * 0.9, f"a read under heavy writes answered in {took:.3f} s"
        # The log counts both: the read told at once and the one held.
        wait_for(lambda: log_count(c, "vnode0", held) >= 1, 10, "the held reads' log line")
        wait_for(lambda: log_count(c, "vnode0", "told=0 ") == 0 and
                 log_count(c, "vnode0", " told=") >= 1, 10, "the told read in the log line")
        # ins_dnodes shows the vnode's totals (from its next heartbeats): at least this read
        # and the hold it waited (counted once the read ends).
        dn = []

        def shown():
            dn[:] = sql.dicts("SELECT reads_held, reads_held_ms FROM information_schema.ins_dnodes"
                              " WHERE kind = 'vnode'")
            return (dn and dn[0]["reads_held"] not in ("", "0")
                    and int(dn[0]["reads_held_ms"] or 0) >= hold_ms * 0.9)
        wait_for(shown, 10, lambda: f"held reads in ins_dnodes: {dn}")
        # The load goes on when the hold ends: the read gets a trickle (64 changes of 101).
        write_100(sql)
        r = c.rpc("changes", fields["vnode"], fields["vgroup"], 0, 0, 1)
        assert "changes=64" in r.stdout.splitlines()[0], r.stdout
        # A stream still gets every row, each read held: rows written in three steps. Its
        # task thread is told and works at idle priority meanwhile.
        assert idle_threads(c) == 0
        create_stream(c, sql, "y", f"CREATE STREAM s3 COUNT_WINDOW(3) FROM n INTO out3 {q}")
        wait_for(lambda: idle_threads(c) == 1, 30, "the stream task at SCHED_IDLE")
        for lo, hi in ((1, 4), (4, 7), (7, 8)):
            sql.insert("y", "n", [(i - 1, i) for i in range(lo, hi)])
        wait_equal(lambda: count_windows(sql, "y"), want, "COUNT_WINDOW(3) with held reads",
                   sql, "y", ["s3"], timeout=60)
        assert idle_threads(c) == 1
    finally:
        c.stop()

    # The defaults and a light load (a few rows at a time): no read is ever held or cut.
    c, sql = start("light", [])
    try:
        write_100(sql)
        fields = dict(kv.split("=", 1) for kv in c.rpc("meta", c.maddr, "y", "m").stdout.split())
        r = c.rpc("changes", fields["vnode"], fields["vgroup"], 0)
        assert r.stdout.splitlines()[0] == "last_version=101 changes=101", r.stdout
        # A reader still yielding is told the writes are no longer heavy (no flag).
        r = c.rpc("changes", fields["vnode"], fields["vgroup"], 0, 0, 1)
        assert r.stdout.splitlines()[0] == "last_version=101 changes=101", r.stdout
        create_stream(c, sql, "y", f"CREATE STREAM s3 COUNT_WINDOW(3) FROM n INTO out3 {q}")
        for lo, hi in ((1, 4), (4, 7), (7, 8)):
            sql.insert("y", "n", [(i - 1, i) for i in range(lo, hi)])
        wait_equal(lambda: count_windows(sql, "y"), want, "COUNT_WINDOW(3), light load",
                   sql, "y", ["s3"])
        time.sleep(1.5)  # past the vnode's next once-a-second report and heartbeat
        assert log_count(c, "vnode0", held) == 0
        assert idle_threads(c) == 0
        assert sql.dicts("SELECT reads_held, reads_held_ms FROM information_schema.ins_dnodes"
                         " WHERE kind = 'vnode'") == [{"reads_held": "0", "reads_held_ms": "0"}]
    finally:
        c.stop()

