"""pytest options and fixtures for the sluice shell tests.

The binary under test comes from --sluice-bin (ctest passes it), else $SLUICE_BIN, else
build/bin/sluice in the source tree.
"""
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pytest_addoption(parser):
    parser.addoption("--sluice-bin", default=None, help="path of the sluice binary to test")


@pytest.fixture(scope="session")
def sluice_bin(request):
    path = (request.config.getoption("--sluice-bin") or os.environ.get("SLUICE_BIN")
            or os.path.join(ROOT, "build", "bin", "sluice"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"sluice binary not found at {path}: build it or pass --sluice-bin")
    return path
