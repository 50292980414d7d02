"""Helpers shared by the cluster tests: SQL through the sluice CLI (--csv) and through
`sluice-rpc exec`, waiting for a stream's tasks, polling with deadlines, inserting rows, and
a WebSocket receiver for stream notifications.

Times are seconds after 2025-01-01 00:00:00 UTC (B); the tables use millisecond precision.
"""
import asyncio
import contextlib
import csv
import io
import json
import os
import re
import subprocess
import threading
import time

import pytest

from conftest import Cluster

B = 1735689600000            # 2025-01-01 00:00:00 UTC in ms
NODE_TIMEOUT_MS = 3000
HEARTBEAT_MS = 200
WAIT = 20                    # deadline (s) for a result to appear

METERS = "CREATE STABLE meters (ts TIMESTAMP, v INT) TAGS (loc VARCHAR(16), gid INT)"


# ------------------------------------------------------------------------------ values

def ms(sec):
    return B + int(sec * 1000)


def sec(x):
    """An epoch-ms string from CAST(ts AS BIGINT) back to seconds after B."""
    v = (int(x) - B) / 1000
    return int(v) if v == int(v) else v


def num(x):
    if x == "":
        return None
    f = float(x)
    return int(f) if f == int(f) and "." not in x and "e" not in x.lower() else f


# ------------------------------------------------------------------------------ polling

def poll(get, done, timeout, interval=0.2):
    """Calls get() until done(value) holds or `timeout` seconds passed; returns the last
    value (the caller asserts on it)."""
    deadline = time.time() + timeout
    while True:
        v = get()
        if done(v) or time.time() >= deadline:
            return v
        time.sleep(interval)


def wait_for(cond, timeout, what, interval=0.1):
    """Waits until cond() is true; fails with `what` (a string or a function giving one)
    after `timeout` seconds."""
    deadline = time.time() + timeout
    while not cond():
        if time.time() >= deadline:
            raise AssertionError(what() if callable(what) else what)
        time.sleep(interval)


# ------------------------------------------------------------------------------ SQL

def parse_csv(text):
    """CSV output with a header line as a list of dicts keyed by column name."""
    out = list(csv.reader(io.StringIO(text)))
    if not out:
        return []
    return [dict(zip(out[0], row)) for row in out[1:]]


def exec_rows(c, sql, db=""):
    """Runs a query on the mnode through `sluice-rpc exec`; returns its rows as dicts keyed
    by column name."""
    lines = c.exec(sql, db).stdout.strip().splitlines()
    head = lines[0].split(",")
    return [dict(zip(head, line.split(","))) for line in lines[1:]]


class Sql:
    """The sluice CLI against one cluster."""

    def __init__(self, c):
        self.c = c
        self.exe = os.path.join(c.bin, "sluice")

    def run(self, stmts, db=None, check=True):
        text = (f"USE {db}; " if db else "") + stmts
        r = subprocess.run([self.exe, "-h", "127.0.0.1", "-P", str(self.c.mport), "--csv",
                            "-s", text], capture_output=True, text=True, timeout=60)
        if check and r.returncode != 0:
            raise AssertionError(f"sluice -s {text!r} failed: {r.stderr}{r.stdout}")
        return r

    def rows(self, query, db=None):
        """A SELECT's rows as lists of strings (header dropped)."""
        r = self.run(query, db, check=False)
        if r.returncode != 0:
            raise AssertionError(f"sluice -s {query!r} failed: {r.stderr}{r.stdout}")
        out = list(csv.reader(io.StringIO(r.stdout)))
        return out[1:]

    def dicts(self, query, db=None):
        return parse_csv(self.run(query, db).stdout)

    def insert(self, db, table, rows, using=""):
        """rows: (sec, v, ...) tuples; None is NULL. using: e.g. "USING meters TAGS ('x')"."""
        vals = " ".join("(" + ", ".join([str(ms(r[0]))] + ["NULL" if x is None else repr(x)
                                                            for x in r[1:]]) + ")"
                        for r in rows)
        self.run(f"INSERT INTO {table} {using + ' ' if using else ''}VALUES {vals}", db)


def make_db(sql, db, stmts):
    sql.run(f"CREATE DATABASE {db} VGROUPS 2")
    for s in stmts:
        sql.run(s, db)


def meters_db(sql, db, locs, first_gid=1):
    """Database db with METERS and child tables d0, d1, ... tagged (locs[i], first_gid + i);
    returns their names."""
    tables = [f"d{i}" for i in range(len(locs))]
    make_db(sql, db, [METERS] + [f"CREATE TABLE {t} USING meters TAGS ('{loc}', {first_gid + i})"
                                 for i, (t, loc) in enumerate(zip(tables, locs))])
    return tables


# ------------------------------------------------------------------------------ clusters

def stream_cluster(bin_dir, root, nvnodes=2, nsnodes=2):
    """A cluster for stream tests: snodes heartbeating every HEARTBEAT_MS, the mnode's node
    timeout NODE_TIMEOUT_MS. Not started."""
    return Cluster(bin_dir, root, nvnodes, nsnodes=nsnodes, node_timeout_ms=NODE_TIMEOUT_MS,
                   snode_args=["--heartbeat-ms", str(HEARTBEAT_MS)])


@contextlib.contextmanager
def running(c):
    """Starts cluster c and yields (c, Sql(c)); stops it on the way out."""
    c.start()
    try:
        yield c, Sql(c)
    finally:
        c.stop()


# ------------------------------------------------------------------------------ streams

def tasks(sql, db, name):
    return [t for t in sql.dicts("SELECT * FROM information_schema.ins_stream_tasks")
            if t["db_name"] == db and t["stream_name"] == name]


def stream_errors(sql, db, name):
    return sorted({t["error"] for t in tasks(sql, db, name) if t["error"]})


def snode_log_count(c, pat, i):
    """How often snode i's log holds pat (0 without a log)."""
    try:
        with open(os.path.join(c.root, f"snode{i}.log"), errors="replace") as f:
            return f.read().count(pat)
    except FileNotFoundError:
        return 0


def ready_marks(c, db, name):
    """Per snode index: how many times its log says the stream's task finished its setup
    ("stream DB.NAME running on N vgroup(s)" - the cursors are positioned from then on)."""
    pat = f"stream {db}.{name} running on"
    return {i: snode_log_count(c, pat, i) for i in range(len(c.sports))}


def wait_ready(c, sql, db, name, since=None, timeout=20):
    """Waits until ins_stream_tasks shows every task of the stream 'running' with a
    non-NULL rows column, every alive snode acked the current epoch, and each snode that
    owns slots of the stream logged its task's setup (more often than in `since`).

    Note: `rows` is reported for every assigned stream on the snode's heartbeat, even before
    the task's setup positioned its cursors, so it alone does not prove readiness; the
    setup line of the snode log does."""
    since = since or {}
    idx = {c.saddr(i): i for i in range(len(c.sports))}
    deadline = time.time() + timeout
    why = ""
    while time.time() < deadline:
        ts = tasks(sql, db, name)
        nodes = sql.dicts("SELECT endpoint, status, epoch FROM information_schema.ins_snodes")
        epoch = max((int(t["epoch"]) for t in ts), default=None)
        marks = ready_marks(c, db, name)
        owners = {t["snode_endpoint"] for t in ts}
        if not ts:
            why = "no tasks"
        elif any(t["status"] != "running" or t["rows"] == "" for t in ts):
            why = f"task states {sorted({(t['status'], t['rows']) for t in ts})}"
        elif any(n["status"] == "alive" and int(n["epoch"]) != epoch for n in nodes):
            why = f"snodes not at epoch {epoch}: {nodes}"
        elif any(marks.get(idx.get(o, -1), 0) <= since.get(idx.get(o, -1), 0) for o in owners):
            why = f"setup not logged yet: {marks} (owners {owners})"
        else:
            return
        time.sleep(0.1)
    raise AssertionError(f"stream {db}.{name} not ready in {timeout}s: {why}")


def wait_acked(sql, timeout=20):
    """Waits until every alive snode acts on the newest assignment epoch."""
    nodes = []

    def acked():
        nodes[:] = sql.dicts("SELECT endpoint, status, epoch FROM information_schema.ins_snodes")
        ts = sql.dicts("SELECT epoch FROM information_schema.ins_stream_tasks")
        epoch = max((int(t["epoch"]) for t in ts), default=0)
        return all(int(n["epoch"]) >= epoch for n in nodes if n["status"] == "alive")
    wait_for(acked, timeout, lambda: f"snodes did not ack the epoch: {nodes}")


def create_stream(c, sql, db, stmt):
    name = re.match(r"CREATE STREAM (\w+)", stmt).group(1)
    since = ready_marks(c, db, name)
    sql.run(stmt, db)
    wait_ready(c, sql, db, name, since)
    return name


def wait_equal(get, expected, what, sql=None, db=None, streams=(), timeout=WAIT, settle=1.0):
    """Polls get() until it returns expected, then checks it stays so for `settle` seconds
    (no late extra or doubled row). On failure shows the last value and the streams'
    errors from ins_stream_tasks."""
    deadline = time.time() + timeout
    got = None
    while True:
        got = get()
        if got == expected:
            break
        if time.time() > deadline:
            errs = {s: stream_errors(sql, db, s) for s in streams} if sql else {}
            raise AssertionError(f"{what}: expected {expected}\n got {got}\n errors {errs}")
        time.sleep(0.2)
    end = time.time() + settle
    while time.time() < end:
        time.sleep(0.25)
        got = get()
        assert got == expected, f"{what}: changed after settling to {got}, expected {expected}"
    return got


def busiest_snode(c, sql):
    """(index, ins_snodes row) of the snode holding the most groups."""
    nodes = sql.dicts("SELECT id, endpoint, groups FROM information_schema.ins_snodes")
    node = max(nodes, key=lambda n: int(n["groups"]))
    return next(i for i in range(len(c.sports)) if c.saddr(i) == node["endpoint"]), node


# ------------------------------------------------------------------------------ notifications

class Receiver:
    """A websockets server on its own thread and event loop; start() / stop() any time."""

    def __init__(self, port):
        self.websockets = pytest.importorskip("websockets")
        self.port = port
        self.messages = []
        self.lock = threading.Lock()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server = None

    async def _handler(self, ws, path=None):
        async for msg in ws:
            with self.lock:
                self.messages.append(json.loads(msg))

    def start(self):
        async def go():
            self.server = await self.websockets.serve(self._handler, "127.0.0.1", self.port)
        asyncio.run_coroutine_threadsafe(go(), self.loop).result(10)

    def stop(self):
        async def go():
            self.server.close()
            await self.server.wait_closed()
        asyncio.run_coroutine_threadsafe(go(), self.loop).result(10)

    def events(self):
        with self.lock:
            msgs = list(self.messages)
        out = []
        for m in msgs:
            assert isinstance(m["messageId"], str) and isinstance(m["timestamp"], int)
            for st in m["streams"]:
                for e in st["events"]:
                    out.append((st["streamName"], e))
        return out

    def close(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@contextlib.contextmanager
def receiving(port):
    """A started Receiver on port; stopped and closed on the way out."""
    recv = Receiver(port)
    recv.start()
    try:
        yield recv
    finally:
        recv.stop()
        recv.close()


# ------------------------------------------------------------------------------ placement

def stream_owners(sql, db):
    """{(stream name, slot): (snode endpoint, task status)} of db's streams from
    ins_stream_tasks."""
    out = {}
    for t in sql.dicts("SELECT * FROM information_schema.ins_stream_tasks"):
        if t["db_name"] == db:
            for s in range(int(t["slot_start"]), int(t["slot_end"]) + 1):
                out[(t["stream_name"], s)] = (t["snode_endpoint"], t["status"])
    return out


def placed_on(sql, db, alive, nstreams, slots=256):
    """Why db's streams do not all run on the snodes at `alive` endpoints yet ('' when they
    do): every (stream, slot) pair listed once, 'running' on one of them, and every alive
    snode acting on the newest epoch."""
    own = stream_owners(sql, db)
    if len(own) != nstreams * slots:
        return f"{len(own)} pairs listed, expected {nstreams * slots}"
    bad = {o for o in own.values() if o[0] not in alive or o[1] != "running"}
    if bad:
        return f"pairs on {sorted(bad)[:4]}"
    nodes = sql.dicts("SELECT endpoint, status, epoch FROM information_schema.ins_snodes")
    epoch = max(int(t["epoch"]) for t in sql.dicts(
        "SELECT epoch FROM information_schema.ins_stream_tasks"))
    lag = [n for n in nodes if n["endpoint"] in alive and
           (n["status"] != "alive" or int(n["epoch"]) != epoch)]
    return f"snodes not alive at epoch {epoch}: {lag}" if lag else ""


def wait_placed(sql, db, alive, nstreams, timeout):
    """Waits until placed_on() holds; returns the owners then."""
    why = [""]

    def ok():
        try:
            why[0] = placed_on(sql, db, set(alive), nstreams)
        except AssertionError as e:  # the mnode is restarting
            why[0] = str(e)
        return why[0] == ""
    wait_for(ok, timeout, lambda: f"streams of {db} not placed on {sorted(alive)}: {why[0]}",
             interval=0.2)
    return {k: o for k, (o, _) in stream_owners(sql, db).items()}


def snode_status(c, addr):
    """SNODE_STATUS of the snode at addr as a dict (None when it does not answer)."""
    r = c.rpc("snode-status", addr, check=False, timeout=20)
    return json.loads(r.stdout) if r.returncode == 0 else None


def log_count(c, name, pat):
    """How often the log of process `name` (mnode, vnode0, snode1, ...) holds pat."""
    try:
        with open(os.path.join(c.root, f"{name}.log"), errors="replace") as f:
            return f.read().count(pat)
    except FileNotFoundError:
        return 0
