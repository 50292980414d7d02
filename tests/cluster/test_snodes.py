"""snodes and the placement of (stream, slot) pairs (issue 4), end to end with real daemons.

One mnode, two vnodes and sluice-snode processes on loopback. The mnode places every
(stream, slot) pair on an alive snode by rendezvous hashing and bumps the assignment epoch
on every change; the snodes heartbeat, receive their whole assignment and report the epoch
they act on. What the mnode says (information_schema.ins_snodes / ins_stream_tasks) is
checked against what each snode says it holds (SNODE_STATUS through `sluice-rpc
snode-status`), and the properties of rendezvous hashing are checked independently of the
code under test: every pair has exactly one owner, a death moves only the dead node's
pairs, a join moves only the pairs the newcomer takes, and load is even.
"""
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import Cluster
from helpers import NODE_TIMEOUT_MS, exec_rows, running, stream_cluster

SLOTS = 256

SCHEMA = [
    "CREATE DATABASE sdb VGROUPS 2",
    "CREATE STABLE meters (ts TIMESTAMP, current FLOAT, voltage INT, phase FLOAT) "
    "TAGS (location VARCHAR(64), groupid INT)",
    "CREATE TABLE d0 USING meters TAGS ('north', 1)",
    "CREATE TABLE d1 USING meters TAGS ('south', 2)",
    "CREATE TABLE d2 USING meters TAGS ('east', 3)",
    "CREATE TABLE d3 USING meters TAGS ('west', 4)",
    "CREATE TABLE n1 (ts TIMESTAMP, v INT, s VARCHAR(8))",
]

# 20 streams: every trigger type, on the super table (grouped by tbname or a tag, or not)
# and on child and normal tables.
STREAMS = [
    "CREATE STREAM s_int_a INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname "
    "INTO o_int_a AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s_int_b INTERVAL(10s) SLIDING(5s) FROM meters INTO o_int_b "
    "AS SELECT _twstart, AVG(current) FROM %%trows",
    "CREATE STREAM s_int_c INTERVAL(1h) SLIDING(10m) FROM n1 INTO o_int_c "
    "AS SELECT _twstart, MAX(v) FROM %%trows",
    "CREATE STREAM s_int_d INTERVAL(5m) SLIDING(1m) FROM meters PARTITION BY location "
    "INTO o_int_d AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s_sl_a SLIDING(30s) FROM meters PARTITION BY tbname INTO o_sl_a "
    "AS SELECT _tcurrent_ts, COUNT(*) FROM meters",
    "CREATE STREAM s_sl_b SLIDING(1m) FROM n1 INTO o_sl_b "
    "AS SELECT _tcurrent_ts, COUNT(*) FROM n1",
    "CREATE STREAM s_ss_a SESSION(ts, 10s) FROM meters PARTITION BY tbname INTO o_ss_a "
    "AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s_ss_b SESSION(ts, 1m) FROM n1 INTO o_ss_b "
    "AS SELECT _twstart, SUM(v) FROM %%trows",
    "CREATE STREAM s_ss_c SESSION(ts, 5s) FROM d0 INTO o_ss_c "
    "AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s_st_a STATE_WINDOW(voltage) FROM meters PARTITION BY tbname INTO o_st_a "
    "AS SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows",
    "CREATE STREAM s_st_b STATE_WINDOW(voltage >= 220 + groupId) FROM meters PARTITION BY tbname "
    "INTO o_st_b AS SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows",
    "CREATE STREAM s_st_c STATE_WINDOW(v) FROM n1 INTO o_st_c "
    "AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s_ev_a EVENT_WINDOW(START WITH voltage >= 220 + groupId END WITH voltage < "
    "220 + groupId) FROM meters PARTITION BY tbname INTO o_ev_a "
    "AS SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows",
    "CREATE STREAM s_ev_b EVENT_WINDOW(START WITH v > 10 END WITH v <= 10) FROM n1 INTO o_ev_b "
    "AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s_ev_c EVENT_WINDOW(START WITH current > 10 END WITH current <= 10) "
    "TRUE_FOR(5s) FROM meters PARTITION BY tbname INTO o_ev_c "
    "AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s_cnt_a COUNT_WINDOW(10) FROM meters PARTITION BY tbname INTO o_cnt_a "
    "AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s_cnt_b COUNT_WINDOW(100) FROM n1 INTO o_cnt_b "
    "AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s_cnt_c COUNT_WINDOW(5, 2) FROM d1 INTO o_cnt_c "
    "AS SELECT _twstart, COUNT(*) FROM %%trows",
    "CREATE STREAM s_per_a PERIOD(10s) NOTIFY('ws://127.0.0.1:9999/a')",
    "CREATE STREAM s_per_b PERIOD(1h, 10m) NOTIFY('ws://127.0.0.1:9999/b')",
]
TRIGGERS = {"int": "INTERVAL", "sl": "SLIDING", "ss": "SESSION", "st": "STATE_WINDOW",
            "ev": "EVENT_WINDOW", "cnt": "COUNT_WINDOW", "per": "PERIOD"}


def snode_status(c, addr):
    r = c.rpc("snode-status", addr, check=False, timeout=20)
    if r.returncode != 0:
        return None
    return json.loads(r.stdout)


def held(st):
    """{(stream_id, slot): running} an snode status says it holds."""
    out = {}
    for s in st["streams"]:
        assert not s["failed"], f"stream {s['name']} failed on the snode: {s['error']}"
        n = 0
        for lo, hi in s["ranges"]:
            for slot in range(lo, hi + 1):
                out[(s["stream_id"], slot)] = s["running"]
                n += 1
        assert n == s["owned"]
    return out


class View:
    """One consistent look at the cluster: the mnode's placement and every snode's holdings."""

    def __init__(self, c, addrs):
        self.nodes = exec_rows(c, "SELECT * FROM information_schema.ins_snodes")
        self.tasks = exec_rows(c, "SELECT * FROM information_schema.ins_stream_tasks")
        self.status = {a: snode_status(c, a) for a in addrs}
        self.id_of = {n["endpoint"]: int(n["id"]) for n in self.nodes}
        self.node_status = {int(n["id"]): n["status"] for n in self.nodes}
        self.owner = {}   # (stream_id, slot) -> snode id, from ins_stream_tasks
        self.task_status = {}
        self.names = {}
        self.problems = []
        epochs = {int(t["epoch"]) for t in self.tasks}
        self.epoch = max(epochs) if epochs else None
        if len(epochs) > 1:
            self.problems.append(f"tasks at several epochs {epochs}")
        for t in self.tasks:
            sid = int(t["stream_id"])
            self.names[sid] = t["stream_name"]
            for slot in range(int(t["slot_start"]), int(t["slot_end"]) + 1):
                if (sid, slot) in self.owner:
                    self.problems.append(f"pair {(sid, slot)} listed twice")
                self.owner[(sid, slot)] = int(t["snode_id"])
                self.task_status[(sid, slot)] = t["status"]

    def settled(self, alive_addrs, nstreams):
        """Why the cluster has not settled on alive_addrs yet ([] when it has): every alive
        snode acks the current epoch, every pair of every stream is owned by exactly one of
        them, and each snode holds exactly the pairs the mnode gives it."""
        p = list(self.problems)
        alive_ids = set()
        for a in alive_addrs:
            if a not in self.id_of:
                p.append(f"{a} unknown to the mnode")
                continue
            alive_ids.add(self.id_of[a])
        for n in self.nodes:
            if int(n["id"]) in alive_ids:
                if n["status"] != "alive":
                    p.append(f"snode {n['id']} is {n['status']}")
                elif self.epoch is not None and int(n["epoch"]) != self.epoch:
                    p.append(f"snode {n['id']} acks epoch {n['epoch']}, current {self.epoch}")
            elif n["status"] == "alive":
                p.append(f"snode {n['id']} {n['endpoint']} still alive")
        if len(self.names) != nstreams:
            p.append(f"{len(self.names)} streams in ins_stream_tasks, expected {nstreams}")
        for sid in self.names:
            for slot in range(SLOTS):
                o = self.owner.get((sid, slot))
                if o not in alive_ids:
                    p.append(f"pair {(sid, slot)} owned by {o}")
                    break
        if any(s not in ("running", "stopped") for s in self.task_status.values()):
            p.append(f"task states {sorted(set(self.task_status.values()))}")
        if p:
            return p
        # The snodes really hold what the mnode says, each pair on exactly one of them.
        seen = {}
        for a in alive_addrs:
            st = self.status[a]
            if st is None:
                p.append(f"{a} does not answer SNODE_STATUS")
                continue
            if st["node_id"] != self.id_of[a] or st["epoch"] != self.epoch:
                p.append(f"{a} holds node {st['node_id']} epoch {st['epoch']}")
                continue
            for pair, running in held(st).items():
                if pair in seen:
                    p.append(f"pair {pair} held by {seen[pair]} and {a}")
                seen[pair] = a
                if self.owner.get(pair) != self.id_of[a]:
                    p.append(f"{a} holds {pair} owned by {self.owner.get(pair)}")
                if running != (self.task_status.get(pair) == "running"):
                    p.append(f"{a} holds {pair} running={running}")
        if len(seen) != len(self.owner):
            p.append(f"snodes hold {len(seen)} pairs, the mnode places {len(self.owner)}")
        return p[:5]


def wait_settled(c, alive_addrs, nstreams, timeout):
    deadline = time.time() + timeout
    while True:
        v = View(c, alive_addrs)
        why = v.settled(alive_addrs, nstreams)
        if not why:
            return v
        if time.time() > deadline:
            raise AssertionError(f"not settled on {alive_addrs} in {timeout}s: {why}")
        time.sleep(0.1)


def per_node(owner):
    out = {}
    for o in owner.values():
        out[o] = out.get(o, 0) + 1
    return out


def setup_streams(c):
    for sql in SCHEMA:
        c.exec(sql, "sdb" if not sql.startswith("CREATE DATABASE") else "")
    for sql in STREAMS:
        c.exec(sql, "sdb")


def wait_exit(p, timeout, log=None):
    """p's exit code; when it is not 0 and log (a path) is given, fails showing the log's
    end (a sanitizer report, an assertion)."""
    try:
        rc = p.wait(timeout=timeout)
    except Exception:
        p.kill()
        raise
    if rc != 0 and log is not None:
        with open(log, errors="replace") as f:
            tail = f.read()[-6000:]
        raise AssertionError(f"exit code {rc}; end of {log}:\n{tail}")
    return rc


@pytest.fixture
def scluster(bin_dir, tmp_path):
    with running(stream_cluster(bin_dir, tmp_path, nsnodes=3)) as (c, _):
        yield c


def test_placement_death_join_restart_leave_drop(scluster):
    c = scluster
    n = len(STREAMS)
    total = n * SLOTS
    setup_streams(c)
    a = [c.saddr(i) for i in range(3)]

    # -- 3 snodes: every pair on exactly one, load even, the snodes hold what the mnode says.
    v1 = wait_settled(c, a, n, 20)
    assert len(v1.owner) == total
    load = per_node(v1.owner)
    assert sorted(load) == sorted(v1.id_of[x] for x in a)
    for node, k in load.items():
        assert 0.25 * total <= k <= 0.42 * total, load
    for row in v1.nodes:  # ins_snodes counts agree with the pairs
        nid = int(row["id"])
        assert int(row["slots"]) == load[nid]
        assert int(row["streams"]) == len({s for (s, _), o in v1.owner.items() if o == nid})
    # The streams' texts parsed on the snodes, with the right trigger types.
    names = {s["name"]: s["trigger"] for st in v1.status.values() for s in st["streams"]}
    assert len(names) == n
    for name, trig in names.items():
        assert trig == TRIGGERS[name.split("_")[1]], (name, trig)
    assert {s["plan_db"] for st in v1.status.values() for s in st["streams"]} == {"sdb"}
    r = c.exec("SHOW SNODES")
    assert len(r.stdout.splitlines()) == 4 and all(x in r.stdout for x in a)

    # -- kill -9 one snode: within the node timeout its pairs are on the two survivors and
    # nothing else moved.
    victim = v1.id_of[a[0]]
    t0 = time.time()
    c.kill("snode0", signal.SIGKILL)
    # Settled means the mnode moved the pairs (after the node timeout) and every survivor
    # acknowledged the new epoch, which includes restarting its stream tasks: slack for
    # slow (sanitizer) builds.
    v2 = wait_settled(c, a[1:], n, NODE_TIMEOUT_MS / 1000 + 15)
    took = time.time() - t0
    assert v2.epoch > v1.epoch
    assert v2.node_status[victim] == "dead"
    for pair, o in v1.owner.items():
        if o != victim:
            assert v2.owner[pair] == o, f"{pair} moved from survivor {o} to {v2.owner[pair]}"
        else:
            assert v2.owner[pair] in (v1.id_of[a[1]], v1.id_of[a[2]])
    print(f"death: pairs moved {load[victim]} in {took:.1f}s, epoch {v1.epoch} -> {v2.epoch}")

    # -- the killed snode restarts at its address: same id, and it gets back exactly the
    # pairs it had (rendezvous hashing depends only on the set of alive snodes).
    c.start_snode(0)
    v2b = wait_settled(c, a, n, 20)
    assert v2b.id_of[a[0]] == victim
    assert v2b.epoch > v2.epoch
    assert v2b.owner == v1.owner

    # -- a 4th snode joins the 3: it takes about a quarter of the pairs, and only those move.
    i4 = c.add_snode()
    a4 = c.saddr(i4)
    v3 = wait_settled(c, a + [a4], n, 20)
    new = v3.id_of[a4]
    assert v3.epoch > v2b.epoch
    moved = [p for p in v2b.owner if v3.owner[p] != v2b.owner[p]]
    assert all(v3.owner[p] == new for p in moved)
    gained = per_node(v3.owner)[new]
    assert gained == len(moved)
    assert 0.18 * total <= gained <= 0.32 * total, gained
    print(f"join: {gained} of {total} pairs moved to the new snode (a quarter: {total // 4})")

    # -- the first snode dies again; the rest of the scenario runs on the other three.
    c.kill("snode0", signal.SIGKILL)
    alive = a[1:] + [a4]
    v3 = wait_settled(c, alive, n, NODE_TIMEOUT_MS / 1000 + 15)

    # -- STOP / START / DROP STREAM reach the snodes and persist across an mnode kill -9;
    # the snodes keep their assignment while the mnode is down.
    c.exec("STOP STREAM s_int_a", "sdb")
    c.exec("STOP STREAM s_ev_b", "sdb")
    c.exec("START STREAM s_ev_b", "sdb")
    c.exec("STOP STREAM s_per_b", "sdb")
    c.exec("DROP STREAM s_cnt_b", "sdb")
    n -= 1
    v4 = wait_settled(c, alive, n, 20)
    sid = {name: s for s, name in v4.names.items()}
    assert "s_cnt_b" not in sid
    stopped = {s for (s, _), st in v4.task_status.items() if st == "stopped"}
    assert stopped == {sid["s_int_a"], sid["s_per_b"]}
    assert {p: o for p, o in v4.owner.items()} == {p: o for p, o in v3.owner.items()
                                                   if p[0] in v4.names}
    before = {x: v4.status[x] for x in alive}
    c.kill("mnode", signal.SIGKILL)
    time.sleep(1.5)  # several missed heartbeats (each call times out after 1 s at most)
    for x in alive:
        st = snode_status(c, x)
        assert st["epoch"] == v4.epoch and held(st) == held(before[x])
        assert st["mnode_ok"] is False
    assert all(p.poll() is None for name, p in c.procs.items() if name.startswith("snode"))
    c.start_mnode()
    v5 = wait_settled(c, alive, n, 30)
    assert v5.owner == v4.owner
    assert v5.epoch >= v4.epoch
    rows = {r["stream_name"]: r["status"] for r in
            exec_rows(c, "SELECT stream_name, status FROM information_schema.ins_streams")}
    assert len(rows) == n and "s_cnt_b" not in rows
    assert {k for k, s in rows.items() if s == "stopped"} == {"s_int_a", "s_per_b"}
    for x in alive:
        assert snode_status(c, x)["mnode_ok"] is True

    # -- SIGTERM: the snode leaves at once; its pairs move without waiting for the timeout.
    leaver = v5.id_of[alive[0]]
    t0 = time.time()
    rc = c.kill("snode1", signal.SIGTERM)
    assert rc == 0
    alive = alive[1:]
    v6 = wait_settled(c, alive, n, NODE_TIMEOUT_MS / 1000)
    took = time.time() - t0
    assert took < NODE_TIMEOUT_MS / 1000, took
    assert v6.epoch > v5.epoch
    assert v6.node_status[leaver] == "dead"
    for pair, o in v5.owner.items():
        if o != leaver:
            assert v6.owner[pair] == o
    print(f"leave: settled {took:.1f}s after SIGTERM")

    # -- DROP SNODE: the snode drains, leaves and exits 0; its pairs move.
    dropped = v6.id_of[alive[0]]
    c.exec(f"DROP SNODE {dropped}")
    assert wait_exit(c.procs.pop("snode2"), 10, os.path.join(c.root, "snode2.log")) == 0
    alive = alive[1:]
    v7 = wait_settled(c, alive, n, 10)
    assert v7.node_status[dropped] == "dropped"
    assert set(v7.owner.values()) == {new}
    assert v7.epoch > v6.epoch
    r = c.exec("SELECT id, status FROM information_schema.ins_snodes ORDER BY id")
    got = {int(x.split(",")[0]): x.split(",")[1] for x in r.stdout.splitlines()[1:]}
    assert got == {victim: "dead", leaver: "dead", dropped: "dropped", new: "alive"}


def test_fenced_write_and_checkpoint(bin_dir, tmp_path):
    """Fencing: a vnode refuses a write or delete whose envelope epoch is older than the newest
    it knows (SL_ESTALE, -18) and stores nothing; epoch 0 (a client) and the current epoch
    pass. The checkpoint store refuses a stale epoch and a node that does not own the slot,
    and returns what a valid put stored."""
    with running(stream_cluster(bin_dir, tmp_path, nvnodes=1)) as (c, _):
        setup_streams(c)
        a = [c.saddr(0), c.saddr(1)]
        v = wait_settled(c, a, len(STREAMS), 20)
        old = v.epoch
        c.exec("STOP STREAM s_int_a", "sdb")  # a new epoch
        v = wait_settled(c, a, len(STREAMS), 20)
        cur = v.epoch
        assert cur > old
        # The current epoch and epoch 0 are accepted; the vnode now knows cur.
        c.rpc("--epoch", cur, "write", c.maddr, "sdb", "n1", stdin="1000,1,cur\n")
        c.rpc("write", c.maddr, "sdb", "n1", stdin="2000,2,zero\n")
        r = c.rpc("--epoch", old, "write", c.maddr, "sdb", "n1", stdin="3000,3,stale\n",
                  check=False)
        assert r.returncode != 0
        assert "error -18" in r.stderr and "stale placement epoch" in r.stderr, r.stderr
        r = c.rpc("--epoch", old, "delete", c.maddr, "sdb", "n1", 0, 5000, check=False)
        assert r.returncode != 0 and "error -18" in r.stderr, r.stderr
        rows = c.rpc("query", c.maddr, "sdb", "SELECT ts, v, s FROM n1").stdout.split()
        assert rows == ["1000,1,cur", "2000,2,zero"]

        # A stopped stream: its task is gone, so nothing but this test writes its checkpoints
        # (the task may have stored its starting point before STOP).
        sid = {name: s for s, name in v.names.items()}["s_int_a"]
        owner = v.owner[(sid, 7)]
        other = next(n for n in v.owner.values() if n != owner)
        assert c.rpc("checkpoint-get", c.maddr, sid, 7).stdout.strip() != "found=1 state-one"
        r = c.rpc("checkpoint-put", c.maddr, owner, cur, sid, 7, "state-one")
        assert r.stdout.strip() == f"epoch={cur}"
        r = c.rpc("checkpoint-put", c.maddr, owner, old, sid, 7, "stale", check=False)
        assert r.returncode != 0 and "error -18" in r.stderr, r.stderr
        r = c.rpc("checkpoint-put", c.maddr, other, cur, sid, 7, "not-owner", check=False)
        assert r.returncode != 0 and "error -18" in r.stderr, r.stderr
        r = c.rpc("checkpoint-get", c.maddr, sid, 7)
        assert r.stdout.strip() == f"found=1 epoch={cur} node_id={owner} state=state-one"


def test_snode_flags_and_garbage(bin_dir, tmp_path):
    """The daemon's flags, its config file, and garbage on its port."""
    exe = os.path.join(bin_dir, "sluice-snode")
    r = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0 and "--heartbeat-ms" in r.stdout and "--mnode" in r.stdout
    r = subprocess.run([exe, "--port", "0"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 2 and "bad port" in r.stderr
    cfg = tmp_path / "snode.conf"
    cfg.write_text("heartbeat-ms = 5\n")
    r = subprocess.run([exe, "--config", str(cfg)], capture_output=True, text=True, timeout=10)
    assert r.returncode == 2 and "bad heartbeat-ms" in r.stderr
    for bad in ("20", "-1", "x"):
        r = subprocess.run([exe, "--nice", bad], capture_output=True, text=True, timeout=10)
        assert r.returncode == 2 and "bad nice" in r.stderr, (bad, r.stderr)
    c = Cluster(bin_dir, tmp_path, 0, nsnodes=1,
                snode_args=["--heartbeat-ms", "100", "--nice", "7"])
    c.start()
    try:
        url = c.saddr(0)
        # --nice: every thread of the process (nng's, libuv's, the tasks') runs at nice 7
        # (field 19 of /proc/PID/task/TID/stat, counted after the ")" that ends the name).
        pid = c.procs["snode0"].pid
        tids = os.listdir(f"/proc/{pid}/task")
        assert len(tids) > 1
        for tid in tids:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            assert int(fields[16]) == 7, (tid, fields[16])
        st = snode_status(c, url)
        assert st["epoch"] > 0 and st["streams"] == [] and st["address"] == url
        for hexs in ("0801100118073206" + "0aff" * 3, "08011001180732020802", "08011063"):
            r = c.rpc("raw", url, "hex:" + hexs, check=False)
            assert r.returncode == 0 and r.stdout.startswith("reply "), r.stderr
        c.rpc("raw", url, "random:3000")
        c.rpc("raw", url, "random:2000000", check=False)  # above its frame bound: dropped
        assert snode_status(c, url)["node_id"] == st["node_id"]
        # Restarted on the same address: the same node id.
        c.kill("snode0", signal.SIGKILL)
        c.start_snode(0)
        deadline = time.time() + 15
        while True:
            st2 = snode_status(c, url)
            if st2 and st2["mnode_ok"] and st2["epoch"] > 0:
                break
            assert time.time() < deadline
            time.sleep(0.1)
        assert st2["node_id"] == st["node_id"]
        assert c.procs["snode0"].poll() is None
    finally:
        c.stop()
