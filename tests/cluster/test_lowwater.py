"""Change-log retention driven by stream checkpoints (DESIGN.md section 3, "Checkpoints"; issue
6): a real cluster (mnode, one vnode, one snode) whose vnode keeps a change-log cap far above
what the test writes (--changelog-max-entries), so only the low-water mark the mnode hands out
in heartbeat replies can trim the log. VNODE_STATUS (sluice-rpc status: first_retained) shows
what the vnode still keeps.

The expected marks are worked out from the protocol, not read from the mnode: a task that
starts on a vgroup whose change log ends at version L writes a checkpoint of every slot it
owns at L (stask.c setup); a slot that receives rows checkpoints the reader's version after
them, and every tenth checkpoint round (about 10 s) the slots that got nothing are
checkpointed again at the reader's version, so a running stream's mark reaches the newest
version it has read; a stopped stream keeps the mark of its last checkpoints. A vnode trims the
versions at or below the mark, except the newest one, which the vstore always keeps
(vstore.h, sl_vstore_set_low_water), so:
    first_retained == min(mark, last_version - 1) + 1.
"""
import re

import pytest

from conftest import Cluster
from helpers import B, running, snode_log_count, wait_equal, wait_for

DB = "lw"
OUT = "lwo"                  # output tables: their writes must not add versions to DB's log
BIG_CAP = 10_000_000         # change-log entries: never reached here
SETTLE = 3.5                 # s: more than three vnode heartbeats (one a second)


def status(c, vg):
    """(last_version, first_retained) of vgroup vg on the vnode."""
    out = c.rpc("status", c.vaddr(0), vg).stdout
    m = re.search(r"last_version=(\d+) first_retained=(\d+)", out)
    assert m, out
    return int(m.group(1)), int(m.group(2))


def insert(sql, sec, n):
    """n rows, one INSERT (one change-log version) each, at sec, sec+1, ... seconds."""
    for i in range(n):
        sql.run(f"INSERT INTO n VALUES ({B + (sec + i) * 1000}, {i})", DB)


def setup_logged(c, name):
    """How often the snode log says the task of stream `name` finished its setup (its
    checkpoints are in the mnode by then)."""
    return snode_log_count(c, f"stream {DB}.{name} running on", 0)


def create_stream(c, sql, name, into):
    before = setup_logged(c, name)
    sql.run(f"CREATE STREAM {name} INTERVAL(10s) SLIDING(10s) FROM n INTO {OUT}.{into} AS "
            f"SELECT _twstart, COUNT(*) FROM %%trows", DB)
    wait_for(lambda: setup_logged(c, name) > before, 30, f"stream {name} was not set up")


def wait_first_retained(c, vg, want, what, timeout=20):
    """Waits until first_retained == want, then checks it stays so (not trimmed further)."""
    wait_equal(lambda: status(c, vg)[1], want, f"{what}: first_retained", timeout=timeout,
               settle=SETTLE)


@pytest.fixture
def cl(bin_dir, tmp_path):
    c = Cluster(bin_dir, tmp_path, 1, vnode_args=["--changelog-max-entries", str(BIG_CAP)],
                nsnodes=1, snode_args=["--heartbeat-ms", "200"])
    with running(c) as cs:
        yield cs


def test_checkpoints_drive_change_log_trimming(cl):
    c, sql = cl
    sql.run(f"CREATE DATABASE {DB} VGROUPS 1")
    sql.run(f"CREATE DATABASE {OUT} VGROUPS 1")
    sql.run("CREATE TABLE n (ts TIMESTAMP, v INT)", DB)
    vgs = [r for r in sql.dicts("SELECT vgroup_id, db_name FROM information_schema.ins_vgroups")
           if r["db_name"] == DB]
    assert len(vgs) == 1
    vg = int(vgs[0]["vgroup_id"])
    c.wait_serving(c.vaddr(0), vg)

    # No stream reads the vgroup: the mnode names no mark, the cap is never reached, the
    # log keeps everything.
    insert(sql, 0, 5)
    l0, _ = status(c, vg)
    assert l0 >= 5
    wait_first_retained(c, vg, 1, "no stream")

    # Stream a starts at l0: every slot checkpoints l0, the vnode trims up to l0 - all but
    # the newest version, which is l0 itself.
    create_stream(c, sql, "a", "oa")
    assert status(c, vg)[0] == l0
    wait_first_retained(c, vg, l0, "stream a set up at l0")

    # Rows after it: the slot that gets them checkpoints l1 at once, the other slots at the
    # next refresh round - then everything up to l1 but the newest version is trimmed.
    insert(sql, 100, 4)
    l1, _ = status(c, vg)
    assert l1 == l0 + 4
    wait_first_retained(c, vg, l1, "stream a running", timeout=40)

    # A stopped stream keeps its hold (START resumes from its checkpoint): rows written
    # while it is stopped, and a second stream b starting at l2, trim nothing more.
    sql.run("STOP STREAM a", DB)
    insert(sql, 200, 3)
    l2, _ = status(c, vg)
    assert l2 == l1 + 3
    create_stream(c, sql, "b", "ob")
    insert(sql, 300, 2)
    l3, _ = status(c, vg)
    assert l3 == l2 + 2
    wait_first_retained(c, vg, l1 + 1, "a stopped, b running")

    # DROP STREAM a releases its hold: b's is the minimum now, which reaches l3 (b has read
    # everything) by its refresh round.
    sql.run("DROP STREAM a", DB)
    wait_first_retained(c, vg, l3, "a dropped", timeout=40)

    # DROP STREAM b: no stream reads the vgroup, the vnode keeps its mark (it only rises)
    # and its cap-based retention, which the writes below stay far from.
    sql.run("DROP STREAM b", DB)
    insert(sql, 400, 3)
    l4, _ = status(c, vg)
    assert l4 == l3 + 3
    wait_first_retained(c, vg, l3 + 1, "no stream left")
