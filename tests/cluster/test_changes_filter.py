"""Filtered change-log reads on a real vnode (VNODE_CHANGES with a ChangesFilter): the trigger
readers' path of DESIGN.md section 3. Rows are written through the mnode and the owning vnode
with tools/sluice-rpc, then read back filtered by slot, projected and PRE_FILTERed with
`sluice-rpc fchanges`. Expected rows are computed here from the data written.
"""
import os
import subprocess
import time

NAMES = [f"t{k}" for k in range(1, 7)]


def kv(line):
    return dict(p.split("=", 1) for p in line.split() if "=" in p)


def fchanges(c, vnode, vg, after, uid, group, nslots, slots, proj, pre="", wait=None,
             max_entries=None, check=True):
    args = ["fchanges", vnode, vg, after, uid, group, nslots, slots, proj, pre]
    if wait is not None or max_entries is not None:
        args.append(wait or 0)
    if max_entries is not None:
        args.append(max_entries)
    return c.rpc(*args, check=check)


def parse(out):
    """Returns (head fields, [(change fields, [row lists])])."""
    lines = out.splitlines()
    head = kv(lines[0])
    changes = []
    for ln in lines[1:]:
        if ln.startswith("change "):
            changes.append((kv(ln), []))
        else:
            changes[-1][1].append(ln.split(","))
    assert int(head["changes"]) == len(changes)
    return head, changes


def make_schema(c):
    c.exec("CREATE DATABASE db VGROUPS 1")
    c.exec("CREATE STABLE st (ts TIMESTAMP, v BIGINT, s VARCHAR(16)) TAGS (loc VARCHAR(8), g INT)",
           "db")
    for k in range(1, 7):
        c.exec(f"CREATE TABLE t{k} USING st TAGS ('{'n' if k % 2 else 's'}', {k})", "db")
    c.exec("CREATE TABLE n1 (ts TIMESTAMP, x BIGINT)", "db")
    rows = {}
    for k in range(1, 7):
        rows[f"t{k}"] = [(1000 + i, 10 * k + i, f"r{i}") for i in range(5)]
        csv = "".join(f"{t},{v},{s}\n" for t, v, s in rows[f"t{k}"])
        c.rpc("write", c.maddr, "db", f"t{k}", stdin=csv)
    st = kv(c.rpc("meta", c.maddr, "db", "st").stdout)
    t1 = kv(c.rpc("meta", c.maddr, "db", "t1").stdout)
    return rows, st["uid"], t1["vgroup"], t1["vnode"]


def last_version(c, vnode, vg):
    return int(kv(c.rpc("status", vnode, vg).stdout)["last_version"])


def test_complementary_slots_get_every_row_once(cluster):
    c = cluster
    rows, suid, vg, vnode = make_schema(c)
    last = last_version(c, vnode, vg)
    got = {}
    slot_of = {}
    for slot in (0, 1):
        head, changes = parse(fchanges(c, vnode, vg, 0, suid, "-1", 2, str(slot), "-").stdout)
        assert int(head["last_version"]) == last
        for ch, rws in changes:
            assert ch["kind"] == "1"
            name = ch["name"]
            assert int(ch["group"]) % 2 == slot
            assert slot_of.setdefault(name, slot) == slot  # a table's rows in one slot
            assert int(ch["count"]) == len(rws)
            for r in rws:
                # every column of the table, then the row kind (1 insert)
                assert len(r) == 4 and r[3] == "1"
                got.setdefault(name, []).append((int(r[0]), int(r[1]), r[2]))
    assert got == rows  # every row exactly once, in order, over the two readers
    # With both slots owned one reader sees everything; with none, nothing (cursor moves).
    _, both = parse(fchanges(c, vnode, vg, 0, suid, "-1", 2, "0,1", "-").stdout)
    assert sum(int(ch["count"]) for ch, _ in both) == 30
    head, none = parse(fchanges(c, vnode, vg, 0, suid, "-1", 2, "-", "-").stdout)
    assert none == [] and int(head["last_version"]) == last


def test_projection_and_pre_filter(cluster):
    c = cluster
    rows, suid, vg, vnode = make_schema(c)
    # v, tag loc (ncols 3 + 0), tbname; even v of tables with g > 3.
    head, changes = parse(fchanges(c, vnode, vg, 0, suid, "-", 0, "-", "1,3,-1",
                                   "v % 2 = 0 AND g > 3").stdout)
    got = sorted((r[2], int(r[0]), r[1], r[3]) for _, rws in changes for r in rws)
    exp = sorted((f"t{k}", v, "n" if k % 2 else "s", "1")
                 for k in range(4, 7) for _, v, _ in rows[f"t{k}"] if v % 2 == 0)
    assert got == exp
    # tbname and a string column.
    _, changes = parse(fchanges(c, vnode, vg, 0, suid, "-", 0, "-", "0,2",
                                "tbname = 't2' AND s <> 'r3'").stdout)
    assert [(ch["name"], rws) for ch, rws in changes] == \
        [("t2", [["1000", "r0", "1"], ["1001", "r1", "1"], ["1002", "r2", "1"],
                 ["1004", "r4", "1"]])]


def test_updates_deletes_cursor_and_long_poll(cluster):
    c = cluster
    rows, suid, vg, vnode = make_schema(c)
    c.rpc("write", c.maddr, "db", "n1", stdin="1,1\n")
    base = last_version(c, vnode, vg)
    # Only changes of other tables after `before`: nothing, the cursor moves on.
    head, changes = parse(fchanges(c, vnode, vg, base - 1, suid, "-1", 2, "0,1", "-").stdout)
    assert changes == [] and int(head["last_version"]) == base
    # An update of t1 (ts 1001) and a delete in t2 reach only their tables' slot readers.
    c.rpc("write", c.maddr, "db", "t1", stdin="1001,99,u\n")
    r = c.rpc("delete", c.maddr, "db", "t2", 1000, 1001)
    assert r.stdout.split()[1] == "2"
    seen = []
    for slot in (0, 1):
        _, changes = parse(fchanges(c, vnode, vg, base, suid, "-1", 2, str(slot), "1").stdout)
        for ch, rws in changes:
            assert int(ch["group"]) % 2 == slot
            seen.append((ch["name"], ch["kind"], rws, ch.get("lo"), ch.get("hi"), ch["count"]))
    assert sorted(seen) == [("t1", "1", [["99", "2"]], None, None, "1"),
                            ("t2", "2", [], "1000", "1001", "2")]
    # A filtered long poll ignores writes of other tables and answers the first matching one.
    now = last_version(c, vnode, vg)
    p = subprocess.Popen([os.path.join(c.bin, "sluice-rpc"), "fchanges", vnode, vg, str(now),
                          suid, "-", "0", "-", "1", "", "20000"], stdout=subprocess.PIPE,
                         text=True)
    time.sleep(0.5)
    c.rpc("write", c.maddr, "db", "n1", stdin="2,2\n")
    time.sleep(0.7)
    assert p.poll() is None  # parked: the n1 write was filtered out
    t0 = time.time()
    c.rpc("write", c.maddr, "db", "t5", stdin="5000,555,x\n")
    out, _ = p.communicate(timeout=10)
    assert time.time() - t0 < 5
    head, changes = parse(out)
    assert int(head["last_version"]) == now + 2
    assert [(ch["name"], rws) for ch, rws in changes] == [("t5", [["555", "1"]])]
    # A short filtered poll that only sees other tables' writes times out with the cursor
    # past them.
    c.rpc("write", c.maddr, "db", "n1", stdin="3,3\n")
    head, changes = parse(fchanges(c, vnode, vg, now + 2, suid, "-", 0, "-", "1", "",
                                   wait=300).stdout)
    assert changes == [] and int(head["last_version"]) == now + 3


def test_bad_filters_refused(cluster):
    c = cluster
    _, suid, vg, vnode = make_schema(c)
    r = fchanges(c, vnode, vg, 0, suid, "-", 0, "-", "-", "v >", check=False)
    assert r.returncode != 0 and "PRE_FILTER 1:4" in r.stderr
    r = fchanges(c, vnode, vg, 0, suid, "-", 0, "-", "-", "nosuch = 1", check=False)
    assert r.returncode != 0 and "nosuch" in r.stderr
    r = fchanges(c, vnode, vg, 0, suid, "-", 0, "-", "-", "v + 1", check=False)
    assert r.returncode != 0 and "boolean" in r.stderr
    r = fchanges(c, vnode, vg, 0, suid, "-", 9, "x:01", "-", check=False)
    assert r.returncode != 0 and "slot bitmap" in r.stderr
    r = fchanges(c, vnode, vg, 0, suid, "-", 70000, "-", "-", check=False)
    assert r.returncode != 0 and "slots" in r.stderr
    r = fchanges(c, vnode, vg, 0, suid, "7", 0, "-", "-", check=False)
    assert r.returncode != 0 and "group item" in r.stderr
    r = fchanges(c, vnode, vg, 0, suid, "-", 0, "-", "9", check=False)
    assert r.returncode != 0 and "projection" in r.stderr
    r = fchanges(c, vnode, vg, 0, 987654321, "-", 0, "-", "-", check=False)
    assert r.returncode != 0 and "not a table" in r.stderr
    # The vnode still serves afterwards, unfiltered reads unchanged.
    r = c.rpc("changes", vnode, vg, 0)
    assert r.stdout.splitlines()[0].startswith("last_version=")
