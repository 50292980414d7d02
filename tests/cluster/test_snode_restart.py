"""kill -9 of snodes during a continuous insert load (issue 6, Checkpoints): the output tables
and the notifications end exactly as a run that never stopped would make them.

A real cluster (mnode, 2 vnodes, 2 snodes, a WebSocket receiver in the test) runs four
streams - INTERVAL, COUNT_WINDOW, STATE_WINDOW and SESSION, PARTITION BY tbname, NOTIFY ON
WINDOW_CLOSE - while a loader thread inserts rows. During the load one snode is killed with
SIGKILL and restarted at once (it resumes from its own checkpoints: its slots never moved),
later the other one is killed and restarted only after its slots moved to the survivor
(which restores them from the checkpoints and replays the change log; the restarted snode
takes them back). The expected rows and events come from a simple reference implementation
of the window rules in this file (spec/semantics.md rules 3, 4, 6, 7, 8, 10), not from the
engine: every closed window has exactly one output row with the right count and sum, and
every closed window is notified (after de-duplicating by triggerId; repeats of a triggerId
carry the same window and result).
"""
import signal
import threading
import time

from conftest import free_port
from helpers import (B, NODE_TIMEOUT_MS, busiest_snode, create_stream, make_db, ms, num,
                     ready_marks, receiving, running, sec, stream_cluster, stream_errors,
                     wait_equal, wait_ready)

TABLES = 8
STEPS = 240          # data seconds 0 .. STEPS-1 (a row per table and second, minus gaps)
PER_CALL = 4         # seconds of data per INSERT statement
FINAL = STEPS + 100  # one last row per table, far ahead: closes what can close


def has_row(i, t):
    """Table i has no rows where (t + 7 i) % 29 < 5: 5-second gaps split sessions."""
    return (t + 7 * i) % 29 >= 5


def value(i, t):
    return 1000 * i + t


def state(i, t):
    return ((t + 3 * i) // 7) % 3


def table_rows(i):
    """(t, v, st) of table i in time order, the final row included (its state differs from
    the last one, so it closes the last state window)."""
    rows = [(t, value(i, t), state(i, t)) for t in range(STEPS) if has_row(i, t)]
    rows.append((FINAL, value(i, FINAL), (rows[-1][2] + 1) % 3))
    return rows


# ------------------------------------------------------------------------------ reference

def ref_interval(rows):
    """INTERVAL(10s) SLIDING(10s), watermark = newest row (rule 8): {ws: (cnt, sum)} of the
    closed windows with rows, and every closed window start (empty ones are notified)."""
    wm = rows[-1][0]
    out = {}
    for t, v, _ in rows:
        ws = t - t % 10
        if ws + 10 <= wm:
            c, s = out.get(ws, (0, 0))
            out[ws] = (c + 1, s + v)
    first = rows[0][0] - rows[0][0] % 10
    closed = set(range(first, wm - wm % 10, 10))
    return out, closed


def ref_count(rows, n=5):
    """COUNT_WINDOW(n) (rule 7): {ws: (we, cnt, sum)} of the full windows."""
    out = {}
    for j in range(0, len(rows) - n + 1, n):
        w = rows[j:j + n]
        out[w[0][0]] = (w[-1][0], n, sum(v for _, v, _ in w))
    return out


def runs(rows, same):
    """Consecutive rows grouped while same(previous, row) holds; the last group is open."""
    groups = [[rows[0]]]
    for prev, r in zip(rows, rows[1:]):
        if same(prev, r):
            groups[-1].append(r)
        else:
            groups.append([r])
    return {g[0][0]: (g[-1][0], len(g), sum(v for _, v, _ in g)) for g in groups[:-1]}


def ref_state(rows):
    """STATE_WINDOW(st) (rules 3, 4): runs of one state, closed by a row of another."""
    return runs(rows, lambda a, b: a[2] == b[2])


def ref_session(rows, gap=3):
    """SESSION(ts, 3s) (rule 6): a row more than 3 s after the previous starts a new one."""
    return runs(rows, lambda a, b: b[0] - a[0] <= gap)


# ------------------------------------------------------------------------------ the test

STREAMS = {
    "s_int": "INTERVAL(10s) SLIDING(10s)",
    "s_cnt": "COUNT_WINDOW(5)",
    "s_st": "STATE_WINDOW(st)",
    "s_ses": "SESSION(ts, 3s)",
}


def test_kill_snodes_during_load_same_output_and_events(bin_dir, tmp_path):
    port = free_port()
    url = f"ws://127.0.0.1:{port}/r"
    with receiving(port) as recv, running(stream_cluster(bin_dir, tmp_path)) as (c, sql):
        db = "r_load"
        tables = [f"t{i}" for i in range(TABLES)]
        make_db(sql, db, ["CREATE STABLE m (ts TIMESTAMP, v INT, st INT) TAGS (loc VARCHAR(8))"]
                + [f"CREATE TABLE {t} USING m TAGS ('l{i}')" for i, t in enumerate(tables)])
        for name, trig in STREAMS.items():
            create_stream(c, sql, db,
                          f"CREATE STREAM {name} {trig} FROM m PARTITION BY tbname "
                          f"NOTIFY('{url}') ON (WINDOW_CLOSE) INTO o_{name} AS SELECT "
                          "_twstart AS ws, _twend AS we, COUNT(*) AS cnt, SUM(v) AS total "
                          "FROM %%trows")
        rows = {t: table_rows(i) for i, t in enumerate(tables)}

        # The loader: PER_CALL seconds of every table per INSERT, in time order.
        done = [0]
        failure = []

        def load():
            try:
                for t0 in range(0, STEPS, PER_CALL):
                    parts = []
                    for tb in tables:
                        vals = " ".join(f"({ms(t)}, {v}, {s})" for t, v, s in rows[tb]
                                        if t0 <= t < t0 + PER_CALL)
                        if vals:
                            parts.append(f"{tb} VALUES {vals}")
                    sql.run("INSERT INTO " + " ".join(parts), db)
                    done[0] = t0 + PER_CALL
                    time.sleep(0.1)  # a steady load of about 5 statements a second
            except Exception as e:  # reported by the main thread
                failure.append(e)
        loader = threading.Thread(target=load)
        loader.start()

        def wait_loaded(upto):
            while done[0] < upto and loader.is_alive():
                time.sleep(0.05)

        # 1. kill -9 during the load, restarted at once: the slots never move (the node
        #    timeout has not passed); the snode resumes from its own checkpoints.
        wait_loaded(STEPS // 4)
        vi, node = busiest_snode(c, sql)
        assert int(node["groups"]) > 0
        since = ready_marks(c, db, "s_int")
        c.kill(f"snode{vi}", signal.SIGKILL)
        assert done[0] < STEPS, "the load ended before the first kill"
        time.sleep(0.5)
        c.start_snode(vi)
        wait_ready(c, sql, db, "s_int", {vi: since[vi]}, timeout=NODE_TIMEOUT_MS / 1000 + 20)
        # 2. kill -9 the other one and leave it dead past the node timeout: its slots move
        #    to the survivor; then it restarts and takes them back.
        wait_loaded(STEPS * 3 // 5)
        other = 1 - vi
        since = ready_marks(c, db, "s_int")
        c.kill(f"snode{other}", signal.SIGKILL)
        assert done[0] < STEPS, "the load ended before the second kill"
        wait_ready(c, sql, db, "s_int", {vi: since[vi]}, timeout=NODE_TIMEOUT_MS / 1000 + 20)
        since = ready_marks(c, db, "s_int")
        c.start_snode(other)
        wait_ready(c, sql, db, "s_int", {other: since[other]}, timeout=20)
        loader.join(120)
        assert not loader.is_alive() and not failure, failure
        sql.run("INSERT INTO " + " ".join(f"{tb} VALUES ({ms(FINAL)}, {v}, {s})"
                                          for tb in tables for t, v, s in rows[tb][-1:]), db)

        # Output tables: exactly the reference rows (one per closed window with rows).
        want = {name: set() for name in STREAMS}
        notified = {name: set() for name in STREAMS}
        for tb in tables:
            r = rows[tb]
            iv, closed = ref_interval(r)
            want["s_int"] |= {(tb, ws, ws + 10, c_, s_) for ws, (c_, s_) in iv.items()}
            notified["s_int"] |= {(tb, ws) for ws in closed}
            for name, ref in (("s_cnt", ref_count), ("s_st", ref_state),
                              ("s_ses", ref_session)):
                w = ref(r)
                want[name] |= {(tb, ws, we, c_, s_) for ws, (we, c_, s_) in w.items()}
                notified[name] |= {(tb, ws) for ws in w}
        for name in STREAMS:
            def get(name=name):
                return sorted((r[0], sec(r[1]), sec(r[2]), num(r[3]), num(r[4]))
                              for r in sql.rows("SELECT tag_tbname, CAST(ws AS BIGINT), "
                                                "CAST(we AS BIGINT), cnt, total "
                                                f"FROM o_{name}", db))
            wait_equal(get, sorted(want[name]), f"output of {name}", sql, db, [name],
                       timeout=90, settle=0.5)
            assert stream_errors(sql, db, name) == []

        # Notifications: every closed window once after de-duplication by triggerId, the
        # repeats equal; results equal the output rows.
        subtable = {}
        for name in STREAMS:
            for r in sql.dicts("SELECT table_name, tag_value FROM information_schema.ins_tags "
                               f"WHERE db_name = '{db}' AND stable_name = 'o_{name}'"):
                subtable[r["table_name"]] = r["tag_value"]

        def events():
            by_id = {}
            for name, e in recv.events():
                if name not in STREAMS or e["eventType"] != "WINDOW_CLOSE":
                    continue
                key = (name, e["triggerId"])
                body = (e["windowStart"], e["windowEnd"], e.get("tableName"),
                        tuple(sorted(e.get("result", {}).items())))
                assert by_id.setdefault(key, body) == body, (key, by_id[key], body)
            return by_id

        def closes(by_id):
            got = {name: set() for name in STREAMS}
            for (name, _), (ws, _, tname, _) in by_id.items():
                got[name].add((subtable.get(tname, tname), (ws - B) // 1000))
            return got
        deadline = time.time() + 60
        while closes(events()) != notified and time.time() < deadline:
            time.sleep(0.2)
        by_id = events()
        got = closes(by_id)
        for name in STREAMS:
            assert got[name] == notified[name], (name, sorted(got[name] - notified[name], key=str)[:10], sorted(notified[name] - got[name], key=str)[:10])
        # One event per window (two trigger ids for one window would be a double).
        assert len(by_id) == sum(len(v) for v in notified.values())
        for (name, _), (ws, we, tname, result) in by_id.items():
            res = dict(result)
            if res:
                tb = subtable[tname]
                row = ((ws - B) // 1000, num(str(res["cnt"])), num(str(res["total"])))
                assert row in {(w[1], w[3], w[4]) for w in want[name] if w[0] == tb}, (name, res)
