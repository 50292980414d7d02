"""Reference computations of stream windows, and a deterministic load to feed them.

The expected output rows and notifications of the failover tests come from here, never from
the system under test. Each function takes the rows of one trigger group in time order as
(t, v, st) tuples (t in seconds after helpers.B, WATERMARK 0) and follows spec/semantics.md
(rule numbers below) and docs/triggers.md ("docs N"):

- interval_windows: INTERVAL(size) SLIDING(step) (rules 1, 3, 8; docs 4)
- sliding_points:   plain SLIDING(step), ON_TIME points (docs 5)
- count_windows:    COUNT_WINDOW(n[, slide]) (rule 7)
- state_windows:    STATE_WINDOW(st) (rules 3, 4)
- session_windows:  SESSION(ts, gap) (rule 6)
- event_windows:    EVENT_WINDOW(START WITH p END WITH q) (rule 5)

Window results are (cnt, sum of v). Windows whose bounds are their rows (rule 3) map their
start to (end, cnt, sum).
"""
import threading
import time

from helpers import ms


# ------------------------------------------------------------------------------ windows

def summary(rows):
    return len(rows), sum(v for _, v, _ in rows)


def interval_windows(rows, size, step):
    """INTERVAL(size) SLIDING(step): windows [ws, ws + size) at ws = k * step. The group's
    first window is the first (lowest start) containing its first row (docs 4); a window
    closes when the watermark - the newest row - reaches its end (rule 8), also without
    rows (then it is notified but writes nothing, rule 10). Returns ({ws: (cnt, sum)} of the
    closed windows with rows, [ws of every closed window])."""
    wm = rows[-1][0]
    first = ((rows[0][0] - size) // step + 1) * step
    closed = list(range(first, wm - size + 1, step))
    out = {}
    for ws in closed:
        inside = [r for r in rows if ws <= r[0] < ws + size]
        if inside:
            out[ws] = summary(inside)
    return out, closed


def sliding_points(rows, step):
    """Plain SLIDING(step): points k * step; the first is the first point after the group's
    first row, each covers [point - step, point) and fires when the watermark reaches it
    (docs 5). Returns ({point: (cnt, sum)} of the points with rows, [every fired point])."""
    wm = rows[-1][0]
    first = rows[0][0] - rows[0][0] % step + step
    fired = list(range(first, wm + 1, step))
    out = {}
    for p in fired:
        inside = [r for r in rows if p - step <= r[0] < p]
        if inside:
            out[p] = summary(inside)
    return out, fired


def count_windows(rows, n, slide=None):
    """COUNT_WINDOW(n, slide): windows start at rows 0, slide, 2 slide, ... and close when
    they hold n rows (rule 7)."""
    slide = slide or n
    out = {}
    for j in range(0, len(rows) - n + 1, slide):
        w = rows[j:j + n]
        out[w[0][0]] = (w[-1][0],) + summary(w)
    return out


def runs(rows, same):
    """Consecutive rows grouped while same(previous, row) holds; every group but the last
    (still open) as {start: (end, cnt, sum)}."""
    groups = [[rows[0]]]
    for prev, r in zip(rows, rows[1:]):
        if same(prev, r):
            groups[-1].append(r)
        else:
            groups.append([r])
    return {g[0][0]: (g[-1][0],) + summary(g) for g in groups[:-1]}


def state_windows(rows):
    """STATE_WINDOW(st): runs of one state, closed by a row of another (rules 3, 4; no
    NULL states in the load)."""
    return runs(rows, lambda a, b: a[2] == b[2])


def session_windows(rows, gap):
    """SESSION(ts, gap): a row more than gap after the previous one starts a new session
    and closes the old one (rule 6)."""
    return runs(rows, lambda a, b: b[0] - a[0] <= gap)


def event_windows(rows, start, end):
    """EVENT_WINDOW(START WITH start END WITH end): opens on a row meeting start while no
    window is open, closes on the first row from the opening one on meeting end (rule 5)."""
    out = {}
    cur = None
    for r in rows:
        if cur is None and start(r):
            cur = []
        if cur is not None:
            cur.append(r)
            if end(r):
                out[cur[0][0]] = (cur[-1][0],) + summary(cur)
                cur = None
    return out


def merged(tables_rows):
    """The rows of a group spanning several tables (tag grouping), in time order."""
    return sorted(r for rows in tables_rows for r in rows)


# ------------------------------------------------------------------------------ the load

class Load:
    """A deterministic load over `ntables` child tables t0.. of super table m (ts, v, st)
    tagged (loc 'l<i>', gid i // 2: two tables per gid). Table i has a row every second t
    except where (t + 7 i) % 29 < 5 (5-second gaps split sessions and leave INTERVAL windows
    empty), v = 1000 i + t, st = ((t + 3 i) // 7) % 3. After the load, one final row per
    table `final_gap` seconds after the last step closes what can close; its state differs
    from the table's last state."""

    STABLE = "CREATE STABLE m (ts TIMESTAMP, v INT, st INT) TAGS (loc VARCHAR(8), gid INT)"

    def __init__(self, ntables=8, final_gap=30):
        self.ntables = ntables
        self.final_gap = final_gap
        self.tables = [f"t{i}" for i in range(ntables)]

    def ddl(self):
        return [self.STABLE] + [f"CREATE TABLE t{i} USING m TAGS ('l{i}', {i // 2})"
                                for i in range(self.ntables)]

    @staticmethod
    def has_row(i, t):
        return (t + 7 * i) % 29 >= 5

    @staticmethod
    def row(i, t):
        return (t, 1000 * i + t, ((t + 3 * i) // 7) % 3)

    def rows(self, i, lo, hi):
        """Rows of table i with lo <= t < hi."""
        return [self.row(i, t) for t in range(lo, hi) if self.has_row(i, t)]

    def final_row(self, i, upto):
        last = self.rows(i, 0, upto)[-1]
        t = upto - 1 + self.final_gap
        return (t, 1000 * i + t, (last[2] + 1) % 3)

    def table_rows(self, i, upto):
        """Every row of table i after a load of seconds 0 .. upto-1, the final row included."""
        return self.rows(i, 0, upto) + [self.final_row(i, upto)]

    def insert_sql(self, rows_by_table):
        parts = [f"t{i} VALUES " + " ".join(f"({ms(t)}, {v}, {s})" for t, v, s in rows)
                 for i, rows in rows_by_table.items() if rows]
        return "INSERT INTO " + " ".join(parts)

    def chunk_sql(self, lo, hi):
        return self.insert_sql({i: self.rows(i, lo, hi) for i in range(self.ntables)})

    def final_sql(self, upto):
        return self.insert_sql({i: [self.final_row(i, upto)] for i in range(self.ntables)})


class Loader(threading.Thread):
    """Inserts `per_call` seconds of every table per INSERT statement, in time order, about
    every `pause` seconds, until stop() (or `max_steps` seconds of data). A failed statement
    (a vnode or the mnode down) is retried as a whole until it passes, for at most
    `retry_for` seconds: rows written twice are updates with the same values."""

    def __init__(self, sql, db, load, per_call=4, pause=0.1, max_steps=100000, retry_for=60):
        super().__init__(daemon=True)
        self.sql, self.db, self.load = sql, db, load
        self.per_call, self.pause, self.max_steps, self.retry_for = (per_call, pause,
                                                                     max_steps, retry_for)
        self.done = 0          # seconds of data inserted: rows with t < done are stored
        self.retries = 0
        self.failure = None
        self._halt = threading.Event()

    def run(self):
        try:
            while not self._halt.is_set() and self.done < self.max_steps:
                self._insert(self.load.chunk_sql(self.done, self.done + self.per_call))
                self.done += self.per_call
                time.sleep(self.pause)
        except Exception as e:  # reported by finish()
            self.failure = e

    def _insert(self, stmt):
        deadline = time.time() + self.retry_for
        while True:
            r = self.sql.run(stmt, self.db, check=False)
            if r.returncode == 0:
                return
            if time.time() > deadline:
                raise AssertionError(f"insert failing for {self.retry_for}s: {r.stderr}")
            self.retries += 1
            time.sleep(0.3)

    def wait_loaded(self, upto, timeout=120):
        deadline = time.time() + timeout
        while self.done < upto and self.is_alive() and time.time() < deadline:
            time.sleep(0.05)
        assert self.done >= upto, f"loader at {self.done}, wanted {upto}: {self.failure}"

    def finish(self):
        """Stops the load, writes the final rows; returns `upto` (seconds loaded)."""
        self._halt.set()
        self.join(120)
        assert not self.is_alive() and self.failure is None, self.failure
        self._insert(self.load.final_sql(self.done))
        return self.done


# ------------------------------------------------------------------------------ a stream set

Q_WIN = ("AS SELECT _twstart AS ws, _twend AS we, COUNT(*) AS cnt, SUM(v) AS total "
         "FROM %%trows")
Q_SLIDE = ("AS SELECT _tcurrent_ts AS ws, _tprev_ts AS we, COUNT(*) AS cnt, SUM(v) AS total "
           "FROM %%trows")


class StreamDef:
    """One stream of the standard set: its trigger clause and the reference of one group.

    ref(rows) -> ({ws: (we, cnt, sum)} of the output rows, [ws of every notified event]);
    group: 'tbname', a tag name, or a table name (the stream reads that one table, no
    grouping); late: True when the group's rows can reach the engine out of time order
    (a group spanning tables of two vgroups), so a window may be recomputed and notified
    again with another result (same triggerId); periodic: wall-clock, checked for liveness
    only."""

    def __init__(self, name, trigger, group, ref=None, late=False, periodic=False):
        self.name, self.trigger, self.group, self.ref = name, trigger, group, ref
        self.late, self.periodic = late, periodic

    def sql(self, url):
        if self.periodic:
            return (f"CREATE STREAM {self.name} {self.trigger} NOTIFY('{url}') INTO "
                    f"o_{self.name} AS SELECT _tlocaltime AS ws, COUNT(*) AS cnt FROM m")
        src = "m PARTITION BY " + self.group if self.group in ("tbname", "gid") else self.group
        on = "" if self.trigger.startswith("SLIDING") else " ON (WINDOW_CLOSE)"
        q = Q_SLIDE if self.trigger.startswith("SLIDING") else Q_WIN
        return (f"CREATE STREAM {self.name} {self.trigger} FROM {src} NOTIFY('{url}'){on} "
                f"INTO o_{self.name} {q}")

    def groups(self, load, upto):
        """{group key as the output's tag value (or the table for no grouping): rows}."""
        per = {f"t{i}": load.table_rows(i, upto) for i in range(load.ntables)}
        if self.group == "tbname":
            return per
        if self.group == "gid":
            return {str(g): merged(per[f"t{i}"] for i in range(load.ntables) if i // 2 == g)
                    for g in range(load.ntables // 2)}
        return {self.group: per[self.group]}

    def expected(self, load, upto):
        """({(group, ws, we, cnt, sum)} output rows, {(group, ws)} notified events)."""
        rows, events = set(), set()
        for g, grows in self.groups(load, upto).items():
            out, notified = self.ref(grows)
            rows |= {(g, ws) + tuple(r) for ws, r in out.items()}
            events |= {(g, ws) for ws in notified}
        return rows, events


def interval_ref(size, step):
    def ref(rows):
        out, closed = interval_windows(rows, size, step)
        return {ws: (ws + size, c, s) for ws, (c, s) in out.items()}, closed
    return ref


def sliding_ref(step):
    def ref(rows):
        out, fired = sliding_points(rows, step)
        return {p: (p - step, c, s) for p, (c, s) in out.items()}, fired
    return ref


def closed_ref(f):
    def ref(rows):
        out = f(rows)
        return out, list(out)
    return ref


def _ev_start(r):
    return r[2] == 0 and r[1] % 2 == 0


def _ev_end(r):
    return r[2] == 2 or r[1] % 11 == 0


STREAM_SET = [
    StreamDef("s_int_tb", "INTERVAL(4s) SLIDING(2s)", "tbname", interval_ref(4, 2)),
    StreamDef("s_int_tag", "INTERVAL(10s) SLIDING(5s)", "gid", interval_ref(10, 5), late=True),
    StreamDef("s_int_one", "INTERVAL(10s) SLIDING(10s)", "t1", interval_ref(10, 10)),
    StreamDef("s_sl", "SLIDING(5s)", "tbname", sliding_ref(5)),
    StreamDef("s_ses", "SESSION(ts, 3s)", "tbname", closed_ref(lambda r: session_windows(r, 3))),
    StreamDef("s_st", "STATE_WINDOW(st)", "tbname", closed_ref(state_windows)),
    StreamDef("s_ev", "EVENT_WINDOW(START WITH st = 0 AND v % 2 = 0 END WITH st = 2 OR "
              "v % 11 = 0)", "tbname",
              closed_ref(lambda r: event_windows(r, _ev_start, _ev_end))),
    StreamDef("s_cnt", "COUNT_WINDOW(5)", "tbname", closed_ref(lambda r: count_windows(r, 5))),
    StreamDef("s_cnts", "COUNT_WINDOW(5, 3)", "tbname",
              closed_ref(lambda r: count_windows(r, 5, 3))),
    StreamDef("s_per", "PERIOD(2s)", None, periodic=True),
]


# ------------------------------------------------------------------------------ checks

def create_stream_set(c, sql, db, url, defs=STREAM_SET):
    from helpers import create_stream
    for sd in defs:
        create_stream(c, sql, db, sd.sql(url))


def subtable_groups(sql, db):
    """{output subtable: its tag value} of every output super table of db."""
    return {r["table_name"]: r["tag_value"] for r in sql.dicts(
        "SELECT table_name, tag_value FROM information_schema.ins_tags "
        f"WHERE db_name = '{db}'")}


def output_rows(sql, db, sd, subtables):
    from helpers import num, sec
    cols = "CAST(ws AS BIGINT), CAST(we AS BIGINT), cnt, total"
    if sd.group in ("tbname", "gid"):
        got = sql.rows(f"SELECT tbname, {cols} FROM o_{sd.name}", db)
        return sorted((subtables.get(r[0], r[0]), sec(r[1]), sec(r[2]), num(r[3]), num(r[4]))
                      for r in got)
    return sorted((sd.group, sec(r[0]), sec(r[1]), num(r[2]), num(r[3]))
                  for r in sql.rows(f"SELECT {cols} FROM o_{sd.name}", db))


def check_outputs(sql, db, load, upto, defs=STREAM_SET, timeout=120):
    """Every output table of the set ends exactly as the reference (no missing, extra or
    doubled row; each stays so for a moment), and no stream reports an error. Waits up to
    `timeout` seconds for all of them; a failure names every stream that differs."""
    import time as _time
    from helpers import stream_errors
    want = {sd.name: sorted(sd.expected(load, upto)[0]) for sd in defs if not sd.periodic}

    def get(name):
        return output_rows(sql, db, next(sd for sd in defs if sd.name == name),
                           subtable_groups(sql, db))
    deadline = _time.time() + timeout
    pending = set(want)
    while pending and _time.time() < deadline:
        pending = {n for n in pending if get(n) != want[n]}
        if pending:
            _time.sleep(0.5)
    _time.sleep(0.5)  # settled: no late extra or doubled row
    problems = []
    for name in sorted(want):
        got = get(name)
        if got == want[name]:
            continue
        missing = sorted(set(want[name]) - set(got))
        extra = sorted(set(got) - set(want[name]))
        problems.append(f"{name}: {len(missing)} rows missing {missing[:8]}, {len(extra)} "
                        f"extra {extra[:8]}, {len(got) - len(set(got))} doubled; errors "
                        f"{stream_errors(sql, db, name)}")
    assert not problems, f"output tables after {timeout}s:\n  " + "\n  ".join(problems)
    errors = {sd.name: stream_errors(sql, db, sd.name) for sd in defs}
    assert not any(errors.values()), (
        f"outputs complete, but streams still report errors: "
        f"{ {k: v for k, v in errors.items() if v} }")


def notified(recv, sql, db, defs=STREAM_SET):
    """The WINDOW_CLOSE / ON_TIME events received, de-duplicated by triggerId: {stream:
    {(group, window start or triggerId): result}}. Repeats of a triggerId must carry the
    same window and result, except for streams with late rows (a recomputed window)."""
    from helpers import B
    subtables = subtable_groups(sql, db)
    by_name = {sd.name: sd for sd in defs}
    by_id = {}
    for name, e in recv.events():
        sd = by_name.get(name)
        if sd is None or e["eventType"] not in ("WINDOW_CLOSE", "ON_TIME"):
            continue
        body = (e.get("windowStart"), e.get("windowEnd"), e.get("tableName"),
                tuple(sorted(e.get("result", {}).items())))
        first = by_id.setdefault((name, e["triggerId"]), body)
        if not sd.late:
            assert first == body, ("triggerId repeated with another body", name, first, body)
    out = {sd.name: {} for sd in defs}
    for (name, tid), (ws, _, tname, res) in by_id.items():
        sd = by_name[name]
        group = subtables.get(tname, tname) if sd.group in ("tbname", "gid") else sd.group
        key = tid if ws is None else (ws - B) // 1000
        # Two trigger ids for one window would be a doubled event.
        assert (group, key) not in out[name], ("two triggerIds for one window", name, group, key)
        out[name][(group, key)] = dict(res)
    return out


def check_events(recv, sql, db, load, upto, defs=STREAM_SET, timeout=90):
    """Every closed window (fired SLIDING point) of every stream notified exactly once after
    de-duplication by triggerId - windows by (group, start), SLIDING points by their count
    per group - and each result equal to the window's output row."""
    import time as _time
    defs = [sd for sd in defs if not sd.periodic]
    want = {sd.name: sd.expected(load, upto) for sd in defs}

    def keys(sd, got):
        if sd.trigger.startswith("SLIDING"):
            per = {}
            for g, _ in got:
                per[g] = per.get(g, 0) + 1
            return per
        return set(got)

    def expect(sd):
        ev = want[sd.name][1]
        if sd.trigger.startswith("SLIDING"):
            per = {}
            for g, _ in ev:
                per[g] = per.get(g, 0) + 1
            return per
        return ev
    deadline = _time.time() + timeout
    while True:
        got = notified(recv, sql, db, defs)
        bad = [sd for sd in defs if keys(sd, got[sd.name]) != expect(sd)]
        if not bad or _time.time() > deadline:
            break
        _time.sleep(0.5)
    for sd in bad:
        g, e = keys(sd, got[sd.name]), expect(sd)
        if isinstance(e, set):
            detail = (sorted(g - e, key=str)[:10], sorted(e - g, key=str)[:10])
        else:
            detail = {k: (g.get(k), e.get(k)) for k in set(g) | set(e) if g.get(k) != e.get(k)}
        raise AssertionError(f"notifications of {sd.name} (extra, missing): {detail}")
    for sd in defs:
        if sd.late:
            continue
        rows = {(r[0], r[3], r[4]) for r in want[sd.name][0]}
        for (g, _), res in got[sd.name].items():
            if res:
                assert (g, int(res["cnt"]), int(res["total"])) in rows, (sd.name, g, res)


def period_live(sql, db, since_ms, name="s_per"):
    """Whether the PERIOD stream wrote a row for a point after since_ms (wall clock)."""
    r = sql.rows(f"SELECT MAX(CAST(ws AS BIGINT)) FROM o_{name}", db)
    return bool(r) and r[0][0] != "" and int(r[0][0]) > since_ms
