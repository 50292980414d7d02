"""Fixtures for the cluster tests: real sluice-mnode / sluice-vnode processes on loopback.

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
                     help="folder holding sluice-mnode, sluice-vnode and sluice-rpc")


@pytest.fixture(scope="session")
def bin_dir(request):
    d = (request.config.getoption("--sluice-bin-dir") or os.environ.get("SLUICE_BIN_DIR")
         or os.path.join(ROOT, "build", "bin"))
    for b in ("sluice-mnode", "sluice-vnode", "sluice-rpc"):
        if not os.access(os.path.join(d, b), os.X_OK):
            pytest.fail(f"{b} not found in {d}: build it or pass --sluice-bin-dir")
    return d


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """One mnode and n vnodes; every process can be killed and restarted."""

    def __init__(self, bin_dir, root, nvnodes, vnode_args=()):
        self.bin = bin_dir
        self.vnode_args = list(vnode_args)
        self.root = str(root)
        self.mport = free_port()
        self.maddr = f"tcp://127.0.0.1:{self.mport}"
        self.vports = [free_port() for _ in range(nvnodes)]
        self.procs = {}

    def rpc(self, *args, check=True, stdin=None, timeout=60):
        # The tool exits through error paths on purpose (a killed vnode): its leaks at exit
        # are not the daemons' and do not count under AddressSanitizer builds.
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
        r = subprocess.run([os.path.join(self.bin, "sluice-rpc"), *map(str, args)],
                           input=stdin, capture_output=True, text=True, timeout=timeout, env=env)
        if check and r.returncode != 0:
            raise AssertionError(f"sluice-rpc {args} failed: {r.stderr}")
        return r

    def exec(self, sql, db="", check=True):
        return self.rpc("exec", self.maddr, sql, db, check=check)

    def start_mnode(self):
        log = open(os.path.join(self.root, "mnode.log"), "ab")
        self.procs["mnode"] = subprocess.Popen(
            [os.path.join(self.bin, "sluice-mnode"), "--data", os.path.join(self.root, "mnode"),
             "--port", str(self.mport), "--node-timeout-ms", "3000"],
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

    def start(self):
        self.start_mnode()
        for i in range(len(self.vports)):
            self.start_vnode(i)
        self.wait_registered([self.vaddr(i) for i in range(len(self.vports))])

    def kill(self, name, sig=9):
        p = self.procs.pop(name)
        p.send_signal(sig)
        return p.wait(timeout=15)

    def stop(self):
        for name in list(self.procs):
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
