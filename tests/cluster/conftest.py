"""Fixtures for the cluster tests: real sluice-mnode / sluice-vnode / sluice-snode processes on
loopback.

Binaries come from --sluice-bin-dir (ctest passes it), else $SLUICE_BIN_DIR, else build/bin
in the source tree. Each cluster lives in a pytest temporary directory with free ports.
"""
import os
import socket
import subprocess
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pytest_addoption(parser):
    parser.addoption("--sluice-bin-dir", default=None,
                     help="folder holding sluice-mnode, sluice-vnode, sluice-snode and sluice-rpc")


@pytest.fixture(scope="session")
def bin_dir(request):
    d = (request.config.getoption("--sluice-bin-dir") or os.environ.get("SLUICE_BIN_DIR")
         or os.path.join(ROOT, "build", "bin"))
    for b in ("sluice-mnode", "sluice-vnode", "sluice-snode", "sluice-rpc"):
        if not os.access(os.path.join(d, b), os.X_OK):
            pytest.fail(f"{b} not found in {d}: build it or pass --sluice-bin-dir")
    return d


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """One mnode, n vnodes and m snodes; every process can be killed and restarted.

    Processes are named "mnode", "vnode<i>" and "snode<i>" in procs; snodes can be added
    (add_snode) after start. node_timeout_ms is the mnode's --node-timeout-ms."""

    def __init__(self, bin_dir, root, nvnodes, vnode_args=(), nsnodes=0, snode_args=(),
                 node_timeout_ms=3000):
        self.bin = bin_dir
        self.vnode_args = list(vnode_args)
        self.snode_args = list(snode_args)
        self.node_timeout_ms = node_timeout_ms
        self.root = str(root)
        self.mport = free_port()
        self.maddr = f"tcp://127.0.0.1:{self.mport}"
        self.vports = [free_port() for _ in range(nvnodes)]
        self.sports = [free_port() for _ in range(nsnodes)]
        self.procs = {}

    def rpc(self, *args, check=True, stdin=None, timeout=60):
        # The tool exits through error paths on purpose (a killed vnode): its leaks at exit
        # are not the daemons' and do not count under AddressSanitizer builds.
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
        r = subprocess.run([os.path.join(self.bin, "sluice-rpc"), *map(str, args)],
                           input=stdin, capture_output=True, text=True, errors="replace",
                           timeout=timeout, env=env)
        if check and r.returncode != 0:
            raise AssertionError(f"sluice-rpc {args} failed: {r.stderr}")
        return r

    def rpc_async(self, *args):
        """sluice-rpc started in the background (a long poll): the caller communicate()s."""
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
        return subprocess.Popen([os.path.join(self.bin, "sluice-rpc"), *map(str, args)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                errors="replace", env=env)

    def exec(self, sql, db="", check=True):
        return self.rpc("exec", self.maddr, sql, db, check=check)

    def start_mnode(self):
        log = open(os.path.join(self.root, "mnode.log"), "ab")
        self.procs["mnode"] = subprocess.Popen(
            [os.path.join(self.bin, "sluice-mnode"), "--data", os.path.join(self.root, "mnode"),
             "--port", str(self.mport), "--node-timeout-ms", str(self.node_timeout_ms)],
            stdout=log, stderr=log)

    def vaddr(self, i):
        return f"tcp://127.0.0.1:{self.vports[i]}"

    def start_vnode(self, i):
        log = open(os.path.join(self.root, f"vnode{i}.log"), "ab")
        self.procs[f"vnode{i}"] = subprocess.Popen(
            [os.path.join(self.bin, "sluice-vnode"), "--data",
             os.path.join(self.root, f"vnode{i}"), "--port", str(self.vports[i]),
             "--mnode", self.maddr, *self.vnode_args],
            stdout=log, stderr=log)

    def alive_vnodes(self):
        r = self.exec("SHOW DNODES", check=False)
        if r.returncode != 0:
            return set()
        out = set()
        for line in r.stdout.splitlines()[1:]:
            f = line.split(",")
            if len(f) > 3 and f[2] == "vnode" and f[3] == "alive":
                out.add(f[1])
        return out

    def wait_registered(self, addrs, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if set(addrs) <= self.alive_vnodes():
                return
            time.sleep(0.1)
        raise AssertionError(f"vnodes {addrs} did not register: {self.alive_vnodes()}")

    def wait_serving(self, vaddr, vgroup, timeout=20):
        """Waits until the vnode at vaddr serves vgroup (registered, vgroup open, synced)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.rpc("status", vaddr, vgroup, check=False).returncode == 0:
                return
            time.sleep(0.1)
        raise AssertionError(f"{vaddr} does not serve vgroup {vgroup}")

    def saddr(self, i):
        return f"tcp://127.0.0.1:{self.sports[i]}"

    def start_snode(self, i):
        log = open(os.path.join(self.root, f"snode{i}.log"), "ab")
        self.procs[f"snode{i}"] = subprocess.Popen(
            [os.path.join(self.bin, "sluice-snode"), "--data",
             os.path.join(self.root, f"snode{i}"), "--port", str(self.sports[i]),
             "--mnode", self.maddr, *self.snode_args],
            stdout=log, stderr=log)

    def add_snode(self):
        """Starts one more snode on a new port; returns its index."""
        self.sports.append(free_port())
        i = len(self.sports) - 1
        self.start_snode(i)
        return i

    def snodes(self):
        """SHOW SNODES as {endpoint: (id, status)}; {} when the mnode does not answer."""
        r = self.exec("SHOW SNODES", check=False)
        if r.returncode != 0:
            return {}
        lines = r.stdout.splitlines()
        if not lines:
            return {}
        head = lines[0].split(",")
        ie, ii, ist = head.index("endpoint"), head.index("id"), head.index("status")
        out = {}
        for line in lines[1:]:
            f = line.split(",")
            if len(f) == len(head):
                out[f[ie]] = (int(f[ii]), f[ist])
        return out

    def alive_snodes(self):
        return {a for a, (_, st) in self.snodes().items() if st == "alive"}

    def wait_snodes(self, addrs, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if set(addrs) <= self.alive_snodes():
                return
            time.sleep(0.1)
        raise AssertionError(f"snodes {addrs} did not register: {self.snodes()}")

    def start(self):
        self.start_mnode()
        for i in range(len(self.vports)):
            self.start_vnode(i)
        for i in range(len(self.sports)):
            self.start_snode(i)
        self.wait_registered([self.vaddr(i) for i in range(len(self.vports))])
        if self.sports:
            self.wait_snodes([self.saddr(i) for i in range(len(self.sports))])

    def kill(self, name, sig=9):
        p = self.procs.pop(name)
        p.send_signal(sig)
        rc = p.wait(timeout=15)
        if rc not in (0, -sig):  # a crash on the way out: show why (pytest prints it)
            try:
                with open(os.path.join(self.root, f"{name}.log"), errors="replace") as f:
                    print(f"{name} exited {rc}; end of its log:\n{f.read()[-6000:]}")
            except OSError:
                pass
        return rc

    def stop(self):
        # snodes first: they leave through the mnode while it is still up.
        for name in sorted(self.procs, key=lambda n: not n.startswith("snode")):
            p = self.procs.pop(name)
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


@pytest.fixture
def cluster(bin_dir, tmp_path):
    c = Cluster(bin_dir, tmp_path, 2)
    c.start()
    yield c
    c.stop()
