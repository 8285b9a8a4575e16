"""Where gridbench finds the code it reuses: the other benchmarks (bench/*.py) and the test
helpers (tests/support/: the server harness, the throwaway PKI, the WAN emulator driver).
Installed, the same two folders sit in the same places relative to this package
(CMakeLists.txt), so one rule serves the tree and the package."""

from __future__ import annotations

import os
import sys

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
BENCH_DIR = os.path.dirname(PACKAGE_DIR)
TOP_DIR = os.path.dirname(BENCH_DIR)
SUPPORT_DIR = os.path.join(TOP_DIR, "tests", "support")
STUDIES_DIR = os.path.join(BENCH_DIR, "studies")

for _path in (SUPPORT_DIR, BENCH_DIR):
    if _path not in sys.path:
        sys.path.insert(0, _path)
