"""Every example in docs/*.md runs (the docs issue: "Every example in the docs is run by a
test"). The conventions are described at the top of docs/sql.md, "Examples":

- ```sql-example blocks are run, statement by statement, through the `sluice` CLI
  (`--csv`), in document order, the files one after the other (docs/*.md sorted by name),
  on one cluster: an mnode, 2 vnodes and 2 snodes. ```sql blocks are synopses and are not
  run. `USE db` carries over to the following statements (as in one shell session) until
  the end of the file.
- An ```output block right after a sql-example block holds the CSV (`sluice --csv`) that
  the block's last statement (or last `-- wait:`) prints; it is compared line by line.
- Markers in a trailing comment of a statement (on the line where the statement ends):
  `-- error: <text>` the statement must fail with <text> in its message;
  `-- expect: <n> rows` it must return n rows.
- A comment line `-- wait: <SELECT ...> returns [at least] <n> rows` polls the SELECT for up
  to 20 s; `-- wait: <n> notifications` waits until the test's WebSocket receiver holds at
  least n events.
- `${NOTIFY_PORT}` in an example is replaced by the port of that receiver (127.0.0.1).
- ```sh-example blocks (docs/operations.md) are shell commands, run by
  test_operations_commands below with bash from the repository root, with SLUICE_BIN, DIR,
  BACKUP and P (the base port) set; an ```output block after one is compared with its
  standard output.

A failure names the file and line of the statement.
"""
import os
import re
import shutil
import socket
import subprocess
import time

import pytest

from conftest import ROOT
from helpers import Receiver, parse_csv, stream_cluster

DOCS = os.path.join(ROOT, "docs")
WAIT = 20


# ------------------------------------------------------------------------------ parsing

class Block:
    def __init__(self, path, line, kind, text):
        self.path, self.line, self.kind, self.text = path, line, kind, text
        self.output = None     # the following ```output block's lines, if any

    def where(self, line):
        return f"{os.path.relpath(self.path, ROOT)}:{line}"


def blocks(path):
    """The fenced blocks of a markdown file: Block(path, first content line, info, text),
    with .output set from an ```output block that follows (only blank lines between)."""
    out = []
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    last_end = None
    while i < len(lines):
        m = re.match(r"^\s*```(\S*)", lines[i])
        if not m:
            if lines[i].strip():
                last_end = None
            i += 1
            continue
        kind = m.group(1)
        start = i + 1
        j = start
        while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
            j += 1
        text = "\n".join(lines[start:j])
        if kind == "output" and last_end is not None and out:
            out[-1].output = [ln.rstrip() for ln in text.split("\n")]
        else:
            out.append(Block(path, start + 1, kind, text))
        last_end = j
        i = j + 1
    return out


MARK = re.compile(r"--\s*(error|expect):\s*(.*?)\s*$")


def actions(block):
    """The block's steps in order: ("sql", line, text, marker) or ("wait", line, spec)."""
    steps = []
    cur, cur_line = [], None
    quote = None
    in_block_comment = False
    for n, line in enumerate(block.text.split("\n"), start=block.line):
        if not "".join(cur).strip() and not in_block_comment and line.strip().startswith("-- wait:"):
            steps.append(("wait", n, line.strip()[len("-- wait:"):].strip()))
            continue
        k = 0
        ended = False
        while k < len(line):
            ch = line[k]
            if in_block_comment:
                if line.startswith("*/", k):
                    in_block_comment = False
                    cur.append("*/")
                    k += 2
                    continue
                cur.append(ch)
                k += 1
                continue
            if quote:
                cur.append(ch)
                if ch == "\\" and k + 1 < len(line):
                    cur.append(line[k + 1])
                    k += 2
                    continue
                if ch == quote:
                    quote = None
                k += 1
                continue
            if ch in "'\"`":
                quote = ch
            elif line.startswith("--", k):
                comment = line[k:]
                m = MARK.match(comment)
                if m and ended:
                    kind, arg = m.groups()
                    steps[-1] = steps[-1][:3] + ((kind, arg),)
                break
            elif line.startswith("/*", k):
                in_block_comment = True
                cur.append("/*")
                k += 2
                continue
            elif ch == ";":
                stmt = "".join(cur).strip()
                if stmt:
                    steps.append(("sql", cur_line, stmt, None))
                cur, cur_line = [], None
                ended = True
                k += 1
                continue
            if cur_line is None and not ch.isspace():
                cur_line = n
            cur.append(ch)
            k += 1
        cur.append("\n")
    rest = "".join(cur).strip()
    if rest:
        steps.append(("sql", cur_line, rest, None))
    return steps


def doc_files():
    return sorted(os.path.join(DOCS, f) for f in os.listdir(DOCS) if f.endswith(".md"))


# ------------------------------------------------------------------------------ running

class Runner:
    def __init__(self, c, notify_port, recv):
        self.c = c
        self.exe = os.path.join(c.bin, "sluice")
        self.notify_port = notify_port
        self.recv = recv
        self.db = None
        self.failures = []

    def subst(self, text):
        return text.replace("${NOTIFY_PORT}", str(self.notify_port))

    def cli(self, stmt):
        text = (f"USE {self.db}; " if self.db else "") + self.subst(stmt)
        return subprocess.run([self.exe, "-h", "127.0.0.1", "-P", str(self.c.mport), "--csv",
                               "-s", text], capture_output=True, text=True, timeout=60)

    def fail(self, where, stmt, why):
        self.failures.append(f"{where}: {stmt!r}: {why}")

    def run_sql(self, block, line, stmt, marker):
        where = block.where(line)
        r = self.cli(stmt)
        out = r.stdout
        if marker and marker[0] == "error":
            if r.returncode == 0:
                self.fail(where, stmt, f"expected an error with {marker[1]!r}, it succeeded")
            elif marker[1] not in r.stderr + r.stdout:
                self.fail(where, stmt, f"expected an error with {marker[1]!r}, got "
                                       f"{(r.stderr + r.stdout).strip()!r}")
            return None
        if r.returncode != 0:
            self.fail(where, stmt, f"failed: {(r.stderr + r.stdout).strip()}")
            return None
        m = re.match(r"USE\s+`?(\w+)`?\s*$", stmt, re.I)
        if m:
            self.db = m.group(1)
        if marker and marker[0] == "expect":
            want = int(re.match(r"(\d+)\s+rows?", marker[1]).group(1))
            got = len(parse_csv(out))
            if got != want:
                self.fail(where, stmt, f"expected {want} rows, got {got}:\n{out}")
        return out

    def run_wait(self, block, line, spec):
        where = block.where(line)
        m = re.match(r"(\d+)\s+notifications?$", spec)
        if m:
            want = int(m.group(1))
            deadline = time.time() + WAIT
            while len(self.recv.events()) < want and time.time() < deadline:
                time.sleep(0.2)
            got = len(self.recv.events())
            if got < want:
                self.fail(where, spec, f"{got} notification events after {WAIT}s")
            return None
        m = re.match(r"(.*\S)\s+returns\s+(at least\s+)?(\d+)\s+rows?$", spec, re.S)
        if not m:
            self.fail(where, spec, "a wait marker is '<SELECT> returns [at least] <n> rows' "
                                   "or '<n> notifications'")
            return None
        query, at_least, want = m.group(1), bool(m.group(2)), int(m.group(3))
        deadline = time.time() + WAIT
        out, n = "", -1
        while True:
            r = self.cli(query)
            if r.returncode == 0:
                out = r.stdout
                n = len(parse_csv(out))
                if n == want or (at_least and n >= want):
                    # A stream result is complete: let it settle a moment, then read again.
                    time.sleep(0.3)
                    r2 = self.cli(query)
                    if r2.returncode == 0 and (len(parse_csv(r2.stdout)) == n or at_least):
                        return r2.stdout
            if time.time() > deadline:
                errs = self.cli("SELECT stream_name, error FROM information_schema.ins_streams "
                                "WHERE error IS NOT NULL").stdout
                self.fail(where, query, f"expected {'at least ' if at_least else ''}{want} "
                                        f"rows within {WAIT}s, got {n}:\n{out}\n"
                                        f"{r.stderr}\nstream errors: {errs}")
                return None
            time.sleep(0.3)

    def run_block(self, block):
        last, last_line = None, block.line
        for step in actions(block):
            if step[0] == "sql":
                _, line, stmt, marker = step
                last = self.run_sql(block, line, stmt, marker)
            else:
                _, line, spec = step
                last = self.run_wait(block, line, spec)
            last_line = line
        if block.output is not None:
            want = [ln for ln in block.output if ln.strip()]
            got = [ln.rstrip() for ln in (last or "").split("\n") if ln.strip()]
            if got != want:
                self.fail(block.where(last_line), "output",
                          "expected\n  " + "\n  ".join(want) + "\ngot\n  " + "\n  ".join(got))


def test_doc_examples(bin_dir, tmp_path):
    """Every sql-example block of docs/*.md, in order, on one cluster."""
    files = doc_files()
    assert any(b.kind == "sql-example" for f in files for b in blocks(f))
    port = _free_port()
    recv = Receiver(port)
    recv.start()
    try:
        c = stream_cluster(bin_dir, tmp_path)
        try:
            # vnodes first, then snodes, so that node ids are stable (vnodes 1 and 2, snodes
            # 3 and 4) and the examples may name them (SHOW VNODES ON DNODE 1).
            c.start_mnode()
            for i in range(len(c.vports)):
                c.start_vnode(i)
            c.wait_registered([c.vaddr(i) for i in range(len(c.vports))])
            for i in range(len(c.sports)):
                c.start_snode(i)
                c.wait_snodes([c.saddr(i)])
            runner = Runner(c, port, recv)
            t0 = time.time()
            for f in files:
                runner.db = None
                for b in blocks(f):
                    if b.kind == "sql-example":
                        runner.run_block(b)
            print(f"doc examples ran in {time.time() - t0:.1f}s")
            assert not runner.failures, "\n\n".join(runner.failures)
        finally:
            c.stop()
    finally:
        recv.stop()
        recv.close()


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_parser_of_examples():
    """The block and marker parser itself (no cluster)."""
    b = Block("x.md", 10, "sql-example",
              "SELECT 'a;b' FROM t; -- expect: 1 rows\n"
              "-- wait: SELECT * FROM o returns 2 rows\n"
              "DROP SNODE 99;  -- error: does not exist\n"
              "CREATE TABLE t2\n  (ts TIMESTAMP, v INT);")
    assert actions(b) == [("sql", 10, "SELECT 'a;b' FROM t", ("expect", "1 rows")),
                          ("wait", 11, "SELECT * FROM o returns 2 rows"),
                          ("sql", 12, "DROP SNODE 99", ("error", "does not exist")),
                          ("sql", 13, "CREATE TABLE t2\n  (ts TIMESTAMP, v INT)", None)]


# ------------------------------------------------------------------------------ operations

def _free_base():
    """A base port P with P, P+71..P+79 and P+171..P+179 free (sluice-local's layout)."""
    for _ in range(200):
        p = 20000 + int.from_bytes(os.urandom(2), "big") % 30000
        ports = [p] + [p + 70 + i for i in range(1, 10)] + [p + 170 + i for i in range(1, 10)]
        ok = True
        for q in ports:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                try:
                    s.bind(("127.0.0.1", q))
                except OSError:
                    ok = False
                    break
        if ok:
            return p
    raise AssertionError("no free port range")


def test_operations_commands(bin_dir, tmp_path):
    """The sh-example blocks of docs/operations.md ("Scale out", "Back up and restore"), in
    document order: a local cluster through scripts/sluice-local, an snode added, drained
    with SIGTERM and dropped, then the cluster stopped, its data folders copied, and a
    cluster started from the copy with its rows and streams intact."""
    path = os.path.join(DOCS, "operations.md")
    sh = [b for b in blocks(path) if b.kind == "sh-example"]
    assert sh, "docs/operations.md has no sh-example block"
    base = _free_base()
    env = dict(os.environ, SLUICE_BIN=bin_dir, DIR=str(tmp_path / "sluice-local"),
               BACKUP=str(tmp_path / "backup"), P=str(base),
               ASAN_OPTIONS="detect_leaks=0")
    dirs = [env["DIR"], str(tmp_path / "restored")]
    try:
        for b in sh:
            r = subprocess.run(["bash", "-euo", "pipefail", "-c", b.text], cwd=ROOT, env=env,
                               capture_output=True, text=True, timeout=120)
            assert r.returncode == 0, \
                f"{b.where(b.line)}: exit {r.returncode}\n{r.stdout}\n{r.stderr}"
            if b.output is not None:
                want = [ln for ln in b.output if ln.strip()]
                got = [ln.rstrip() for ln in r.stdout.split("\n") if ln.strip()]
                assert got == want, f"{b.where(b.line)}: expected {want}\n got {got}\n{r.stderr}"
    finally:
        for d in dirs + [env["DIR"] + "-restored"]:
            if os.path.isdir(d):
                subprocess.run([os.path.join(ROOT, "scripts", "sluice-local"), "down",
                                "--dir", d], env=env, capture_output=True, timeout=60)
