"""CI runs every test: under CI=true a test that skips fails (tests/conftest.py's hook)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_skipping_test(tmp_path, ci: str) -> subprocess.CompletedProcess:
    test = tmp_path / "test_skips.py"
    test.write_text("import pytest\n\n\ndef test_skips():\n    pytest.skip('no server here')\n")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest", "-c", os.devnull, str(test)],
        cwd=ROOT,
        env={**os.environ, "CI": ci},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_skip_fails_in_ci(tmp_path):
    result = run_skipping_test(tmp_path, "true")
    assert result.returncode == 1, result.stdout
    assert "skipped in CI, which must run every test" in result.stdout


def test_a_skip_stays_a_skip_elsewhere(tmp_path):
    result = run_skipping_test(tmp_path, "")
    assert result.returncode == 0, result.stdout
    assert "1 skipped" in result.stdout
