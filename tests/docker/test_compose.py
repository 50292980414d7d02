"""The docker-compose deployment end to end (docs/operations.md, "Deploy with docker-compose").

Builds the image (docker/build-image.sh: the base image first when the engine has none),
brings docker/docker-compose.yml up under its own project name (one mnode, two vnodes,
three snodes, healthchecks), and through the sluice CLI inside the mnode container
(`docker-compose exec`) creates a database, a super table, eight child tables and a stream
`INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname INTO out`, then loads five
batches of rows while it:

  - kills one snode container (`docker kill`, SIGKILL): its slots move after the node
    timeout and the survivors resume from its checkpoints;
  - cuts another off the network (`docker network disconnect`) for longer than the node
    timeout, then reconnects it: it comes back as the same node;
  - scales the snodes from 3 to 5 (`docker-compose up -d --scale snode=5`), which also
    restarts the killed container: it registers under the node id it had (its hostname and
    data directory survive).

After each batch every output row is compared with the windows computed here from the rows
the test wrote: each closed window of each table exactly once, with its count and sum - no
window missing, none doubled. At the end: every container healthy, `docker-compose stop`
stops every daemon with exit code 0 (SIGTERM, clean shutdown), then `down -v`.

Run: python3 -m pytest -q tests/docker/test_compose.py (needs a Docker engine and
docker-compose; SLUICE_COMPOSE may name another compose command, e.g. "docker compose").
SLUICE_DOCKER_SKIP_BUILD=1 uses the image sluice:latest as it is (it must exist).
"""
import csv
import io
import os
import shlex
import subprocess
import time
import uuid

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPOSE_FILE = os.path.join(ROOT, "docker", "docker-compose.yml")
IMAGE = os.environ.get("SLUICE_IMAGE", "sluice:latest")
NODE_TIMEOUT_MS = 3000
B = 1735689600000          # 2025-01-01 00:00:00 UTC in ms
TABLES = [f"d{i}" for i in range(8)]
BATCH_SECONDS = 60         # each batch covers one more minute of every table
STEP = 2                   # one row every 2 s
WAIT = 90                  # deadline (s) for results after a batch
DEADLINE = time.time() + 20 * 60   # the whole module, image build included


def sh(cmd, check=True, timeout=300, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if check and r.returncode != 0:
        raise AssertionError(f"{' '.join(map(shlex.quote, cmd))} failed ({r.returncode}):\n"
                             f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r


def wait_for(pred, timeout, what):
    end = min(time.time() + timeout, DEADLINE)
    last = None
    while time.time() < end:
        last = pred()
        if last:
            return last
        time.sleep(1)
    raise AssertionError(f"timed out waiting for {what}: {last!r}")


# ------------------------------------------------------------------------------ compose

class Compose:
    """docker-compose on docker/docker-compose.yml under one project name."""

    def __init__(self, project):
        self.project = project
        self.cmd = shlex.split(os.environ.get("SLUICE_COMPOSE", "docker-compose"))
        self.env = dict(os.environ, SLUICE_IMAGE=IMAGE, SLUICE_RESTART="no",
                        SLUICE_NODE_TIMEOUT_MS=str(NODE_TIMEOUT_MS),
                        SLUICE_HEARTBEAT_MS="200")

    def run(self, *args, check=True, timeout=300, input=None):
        return sh(self.cmd + ["-f", COMPOSE_FILE, "-p", self.project, *args], check=check,
                  timeout=timeout, env=self.env, input=input)

    def ids(self, service):
        return self.run("ps", "-q", service).stdout.split()

    def mnode(self):
        return self.ids("mnode")[0]

    def network(self):
        nets = sh(["docker", "inspect", "-f",
                   "{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}",
                   self.mnode()]).stdout.split()
        assert len(nets) == 1, nets
        return nets[0]


def inspect(cid, fmt):
    return sh(["docker", "inspect", "-f", fmt, cid]).stdout.strip()


def hostname(cid):
    return inspect(cid, "{{.Config.Hostname}}")


class Cli:
    """The sluice CLI inside the mnode container. `compose exec` is what the docs show;
    polls use plain `docker exec` on the same container, which starts faster."""

    def __init__(self, compose):
        self.c = compose
        self.mnode = compose.mnode()

    def exec_compose(self, text):
        return self.c.run("exec", "-T", "mnode", "sluice", "-h", "mnode", "--csv", "-s", text)

    def run(self, text, db=None, check=True, stdin=None):
        """Runs text (-s), or the statements stdin (-f - through `docker-compose exec -T`,
        as the docs show for scripts)."""
        if db:
            text = f"USE {db}; {text}"
        if stdin is not None:
            r = self.c.run("exec", "-T", "mnode", "sluice", "-h", "mnode", "-f", "-",
                           check=False, timeout=120,
                           input=(f"USE {db};\n" if db else "") + stdin)
        else:
            r = sh(["docker", "exec", self.mnode, "sluice", "-h", "mnode", "--csv", "-s", text],
                   check=False, timeout=120)
        if check and r.returncode != 0:
            raise AssertionError(f"sluice {text[:200]!r} failed: {r.stderr}{r.stdout}")
        return r

    def dicts(self, query, db=None):
        r = self.run(query, db, check=False)
        if r.returncode != 0:
            if "does not exist" in r.stderr:
                return []
            raise AssertionError(f"sluice {query!r} failed: {r.stderr}{r.stdout}")
        return list(csv.DictReader(io.StringIO(r.stdout)))


# ------------------------------------------------------------------------------ data

def value(t, i, s):
    """The v of table i's row at second s: any function the test can recompute."""
    return (s * 7 + i * 13) % 101


def batch_rows(k):
    """(table index, second) of batch k: every STEP seconds of minute k."""
    return [(i, s) for i in range(len(TABLES))
            for s in range(k * BATCH_SECONDS, (k + 1) * BATCH_SECONDS, STEP)]


def expected_windows(nbatches):
    """Per table, the windows [w, w+10) closed once the first nbatches batches are in: a
    group's window closes when a row at or past its end arrives (WATERMARK 0,
    spec/semantics.md), so all but the last, still open, window of the data written.
    Returns sorted (table, window start s, count, sum)."""
    rows = [r for k in range(nbatches) for r in batch_rows(k)]
    out = []
    for i, t in enumerate(TABLES):
        secs = sorted(s for j, s in rows if j == i)
        last = secs[-1]
        wins = {}
        for s in secs:
            w = s - s % 10
            if w + 10 <= last:
                c, v = wins.get(w, (0, 0))
                wins[w] = (c + 1, v + value(t, i, s))
        out += [(t, w, c, v) for w, (c, v) in wins.items()]
    return sorted(out)


def insert_batch(cli, db, k):
    stmts = []
    for i, t in enumerate(TABLES):
        vals = " ".join(f"({B + s * 1000}, {value(t, i, s)})"
                        for j, s in batch_rows(k) if j == i)
        stmts.append(f"INSERT INTO {t} VALUES {vals};")
    cli.run("", db, stdin="\n".join(stmts) + "\n")


def output(cli, db):
    return sorted((r["tag_tbname"], (int(r["ws"]) - B) // 1000, int(r["cnt"]), int(r["total"]))
                  for r in cli.dicts("SELECT tag_tbname, CAST(ws AS BIGINT) AS ws, cnt, total "
                                     "FROM out", db))


def check_output(cli, db, nbatches, what):
    """Waits until the output is exactly the expected windows, then checks that it stays so
    for a few seconds (no late doubled row)."""
    want = expected_windows(nbatches)
    got = []

    def same():
        got[:] = [output(cli, db)]
        return got[0] == want
    try:
        wait_for(same, WAIT, what)
    except AssertionError:
        have = got[0] if got else []
        missing = sorted(set(want) - set(have))
        extra = sorted(set(have) - set(want))
        doubled = sorted({r for r in have if have.count(r) > 1})
        raise AssertionError(f"{what}: {len(have)} rows, want {len(want)}; missing "
                             f"{missing[:10]}, unexpected {extra[:10]}, doubled {doubled[:10]}; "
                             f"tasks {tasks(cli, db)[:4]}")
    time.sleep(3)
    assert output(cli, db) == want, f"{what}: output changed after it was complete"


def tasks(cli, db):
    return [t for t in cli.dicts("SELECT * FROM information_schema.ins_stream_tasks")
            if t["db_name"] == db]


def snodes(cli):
    return cli.dicts("SELECT id, endpoint, status, epoch FROM information_schema.ins_snodes")


def alive_snodes(cli):
    return {n["endpoint"]: n["id"] for n in snodes(cli) if n["status"] == "alive"}


def endpoint(cid):
    return f"tcp://{hostname(cid)}:6200"


def wait_stream_ready(c, cli, db, name):
    """Every task running and acked by every alive snode, and each owning snode's log says
    the task positioned its cursors ("stream DB.NAME running on N vgroup(s)")."""
    by_ep = {endpoint(cid): cid for cid in c.ids("snode")}

    def ready():
        ts = tasks(cli, db)
        if not ts or any(t["status"] != "running" or t["rows"] == "" for t in ts):
            return False
        epoch = max(int(t["epoch"]) for t in ts)
        if any(n["status"] == "alive" and int(n["epoch"]) != epoch for n in snodes(cli)):
            return False
        for ep in {t["snode_endpoint"] for t in ts}:
            logs = sh(["docker", "logs", by_ep[ep]]).stderr
            if f"stream {db}.{name} running on" not in logs:
                return False
        return True
    wait_for(ready, 60, f"stream {name} ready")


def healthy(cid):
    return inspect(cid, "{{if .State.Health}}{{.State.Health.Status}}{{end}}") == "healthy"


# ------------------------------------------------------------------------------ the test

COMPOSE_SPEC = "/usr/lib/python3/dist-packages/compose/config/compose_spec.json"


def compose_doc(text):
    """The compose file as Compose reads it: ${NAME:-default} / ${NAME} interpolated with
    the defaults (no environment), then `scale` cast to an integer, as both docker-compose
    1.29 and Compose v2 do before validating."""
    import re
    import yaml

    def interp(v):
        if isinstance(v, str):
            return re.sub(r"\$\{(\w+)(?::?-([^}]*))?\}", lambda m: m.group(2) or "", v)
        if isinstance(v, dict):
            return {k: interp(x) for k, x in v.items()}
        if isinstance(v, list):
            return [interp(x) for x in v]
        return v
    doc = interp(yaml.safe_load(text))
    for svc in doc.get("services", {}).values():
        if isinstance(svc.get("scale"), str) and svc["scale"].isdigit():
            svc["scale"] = int(svc["scale"])
    return doc


def spec_errors(doc):
    import json
    import jsonschema
    with open(COMPOSE_SPEC) as f:
        schema = json.load(f)
    # The schema names draft 2019-09 by an address jsonschema does not know.
    v = getattr(jsonschema, "Draft201909Validator", jsonschema.Draft7Validator)(schema)
    return sorted(e.message for e in v.iter_errors(doc))


def test_compose_file_follows_the_compose_specification():
    """Compose v2 (`docker compose`) reads the Compose Specification; this machine has no v2
    (Debian 12 ships docker-compose 1.29 only, and no registry it can reach carries v2), so
    the file is checked against the specification's JSON schema that docker-compose 1.29
    itself ships, plus the rules v2 adds for a scaled service. A broken file is refused."""
    if not os.path.exists(COMPOSE_SPEC):
        pytest.skip(f"SKIPPED: {COMPOSE_SPEC} is missing (docker-compose 1.29 not installed)")
    with open(COMPOSE_FILE) as f:
        text = f.read()
    doc = compose_doc(text)
    assert spec_errors(doc) == []
    snode = doc["services"]["snode"]
    # Scaling (up --scale snode=N) needs containers Compose names itself.
    assert "container_name" not in snode
    for name, svc in doc["services"].items():
        assert "healthcheck" in svc or "healthcheck" in doc.get("x-sluice", {}), name
        for vol in svc.get("volumes", []):
            src = vol.split(":")[0] if isinstance(vol, str) else vol.get("source")
            assert src.startswith(("/", ".")) or src in doc.get("volumes", {}), (name, vol)
    # The check can fail: a misspelt key and a non-numeric scale are refused.
    bad = compose_doc(text)
    bad["services"]["snode"]["scael"] = 3
    bad["services"]["vnode1" if "vnode1" in bad["services"] else "mnode"]["scale"] = "three"
    errs = spec_errors(bad)
    assert any("scael" in e for e in errs) and any("'three'" in e for e in errs), errs


@pytest.fixture(scope="module")
def image():
    if sh(["docker", "info"], check=False, timeout=60).returncode != 0:
        pytest.skip("no Docker engine answers (docker info failed)")
    if os.environ.get("SLUICE_DOCKER_SKIP_BUILD") == "1":
        sh(["docker", "image", "inspect", IMAGE])
    else:
        t0 = time.time()
        sh([os.path.join(ROOT, "docker", "build-image.sh"), IMAGE], timeout=3600)
        print(f"image build: {time.time() - t0:.0f} s")
    return IMAGE


def test_settings_precedence(image):
    """Flags > environment > config file > defaults, as the daemons' --help says; a bad
    value names the variable it came from. --health reports the port it was aimed at."""
    r = sh(["docker", "run", "--rm", "-e", "SLUICE_PORT=70000", image, "mnode"], check=False)
    assert r.returncode == 2 and "bad port '70000' (from SLUICE_PORT)" in r.stderr, r
    script = ("echo 'port = 7001' > /tmp/c.conf; export SLUICE_CONFIG=/tmp/c.conf; "
              "sluice-mnode --health; SLUICE_PORT=7002 sluice-mnode --health; "
              "SLUICE_PORT=7002 sluice-mnode --port 7003 --health; "
              "unset SLUICE_CONFIG; sluice-mnode --health; sluice-mnode --help")
    r = sh(["docker", "run", "--rm", "-e", "SLUICE_HOST=", image, "sh", "-c", script],
           check=False)
    ports = [ln.split("tcp://127.0.0.1:")[1].split(":")[0] for ln in r.stdout.splitlines()
             if ln.startswith("unhealthy: mnode")]
    assert ports == ["7001", "7002", "7003", "6030"], r.stdout
    assert "SLUICE_DATA=VALUE" in r.stdout and "--node-timeout-ms" in r.stdout, r.stdout


@pytest.fixture(scope="module")
def compose(image):
    c = Compose("sluicetest" + uuid.uuid4().hex[:8])
    try:
        yield c
    finally:
        for s in ("mnode", "vnode1", "vnode2", "snode"):
            r = c.run("logs", "--no-color", "--tail", "40", s, check=False, timeout=120)
            print(f"--- {s} logs (tail)\n{r.stdout[-6000:]}")
        c.run("down", "-v", "--remove-orphans", "-t", "20", check=False, timeout=300)


def test_compose_cluster(compose):
    c = compose
    t0 = time.time()
    c.run("up", "-d", timeout=600)
    # depends_on waits for the mnode and vnodes to be healthy; wait for the snodes too.
    wait_for(lambda: len(c.ids("snode")) == 3 and all(
        healthy(x) for x in c.ids("mnode") + c.ids("vnode1") + c.ids("vnode2") + c.ids("snode")),
        120, "every container healthy")
    print(f"cluster up and healthy in {time.time() - t0:.0f} s")
    cli = Cli(c)
    dn = cli.exec_compose("SHOW DNODES").stdout
    assert dn.count(",vnode,alive,") == 2, dn
    # Three snodes, three distinct ids, each advertising its own container's hostname.
    eps = {endpoint(x) for x in c.ids("snode")}
    alive = wait_for(lambda: (lambda a: a if set(a) == eps else None)(alive_snodes(cli)), 30,
                     "the three snodes registered")
    assert len(set(alive.values())) == 3, alive

    db = "dk"
    cli.run("CREATE DATABASE dk VGROUPS 4")
    cli.run("CREATE STABLE meters (ts TIMESTAMP, v INT) TAGS (loc VARCHAR(16), gid INT)", db)
    cli.run(" ".join(f"CREATE TABLE {t} USING meters TAGS ('l{i % 3}', {i});"
                     for i, t in enumerate(TABLES)), db)
    cli.run("CREATE STREAM s INTERVAL(10s) SLIDING(10s) FROM meters PARTITION BY tbname "
            "INTO out AS SELECT _twstart AS ws, COUNT(*) AS cnt, SUM(v) AS total FROM %%trows", db)
    wait_stream_ready(c, cli, db, "s")

    insert_batch(cli, db, 0)
    check_output(cli, db, 1, "batch 0")
    # Through `docker-compose exec`, as the docs show.
    r = cli.exec_compose("USE dk; SELECT count(*) AS n FROM out")
    assert list(csv.DictReader(io.StringIO(r.stdout)))[0]["n"] == str(len(expected_windows(1)))

    # 1. docker kill: the node dies without leaving; after the node timeout its pairs move.
    ids = c.ids("snode")
    killed, cut = ids[0], ids[1]
    killed_ep, cut_ep = endpoint(killed), endpoint(cut)
    killed_id = alive[killed_ep]
    sh(["docker", "kill", killed])
    insert_batch(cli, db, 1)
    wait_for(lambda: killed_ep not in alive_snodes(cli), 30, "the killed snode marked dead")
    check_output(cli, db, 2, "batch 1 after docker kill")
    assert not any(t["snode_endpoint"] == killed_ep for t in tasks(cli, db))

    # 2. docker network disconnect, longer than the node timeout, then reconnect.
    net = c.network()
    sh(["docker", "network", "disconnect", net, cut])
    insert_batch(cli, db, 2)
    wait_for(lambda: cut_ep not in alive_snodes(cli), 30, "the cut-off snode marked dead")
    check_output(cli, db, 3, "batch 2 with an snode cut off")
    time.sleep(NODE_TIMEOUT_MS / 1000)
    sh(["docker", "network", "connect", net, cut])
    back = wait_for(lambda: alive_snodes(cli).get(cut_ep), 120, "the cut-off snode back")
    assert back == alive[cut_ep], f"reconnected snode changed id: {back} != {alive[cut_ep]}"

    # 3. Scale 3 -> 5: `up` also starts the killed container again, under its old id.
    c.run("up", "-d", "--scale", "snode=5", timeout=600)
    assert len(c.ids("snode")) == 5
    eps = {endpoint(x) for x in c.ids("snode")}
    now = wait_for(lambda: (lambda a: a if set(a) == eps else None)(alive_snodes(cli)), 60,
                   "five snodes alive")
    assert now[killed_ep] == killed_id, "the restarted snode registered under a new id"
    assert len(set(now.values())) == 5, now
    insert_batch(cli, db, 3)
    insert_batch(cli, db, 4)
    check_output(cli, db, 5, "batches 3-4 after scaling to 5 snodes")
    owners = {t["snode_endpoint"] for t in tasks(cli, db)}
    assert owners <= eps and len(owners) >= 3, owners

    # Health: every container healthy again, and the health command by hand.
    wait_for(lambda: all(healthy(x) for x in c.ids("snode") + [c.mnode()]), 60,
             "every snode healthy")
    r = c.run("exec", "-T", "mnode", "sluice-entrypoint", "health")
    assert r.stdout.startswith("healthy"), r.stdout
    r = c.run("exec", "-T", "--index", "2", "snode", "sluice-entrypoint", "health")
    assert r.stdout.startswith("healthy: snode"), r.stdout

    # SIGTERM (docker-compose stop): every daemon exits 0 and logs that it stopped.
    every = c.ids("snode") + c.ids("vnode1") + c.ids("vnode2") + c.ids("mnode")
    c.run("stop", "-t", "20", timeout=300)
    for x in every:
        assert inspect(x, "{{.State.ExitCode}}") == "0", (x, sh(["docker", "logs", x]).stderr[-2000:])
        assert " INFO " in sh(["docker", "logs", x]).stderr
        assert "stopped" in sh(["docker", "logs", "--tail", "3", x]).stderr
    print(f"scenario done in {time.time() - t0:.0f} s")
