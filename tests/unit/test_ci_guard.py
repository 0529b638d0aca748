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


def test_ci_runs_ruff_before_the_suite():
    """CI lints and checks formatting before the tests, so a style slip fails the run early."""
    script = (ROOT / ".ci" / "run").read_text()
    first_pytest = script.index("-m pytest")
    for command in ("ruff check .", "ruff format --check ."):
        assert command in script, command
        assert script.index(command) < first_pytest, command


def test_the_repository_passes_ruff():
    """The same checks CI runs, so the suite alone also catches a lint or format slip."""
    for command in (["check", "."], ["format", "--check", "."]):
        result = subprocess.run(
            [sys.executable, "-m", "ruff", *command],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stdout + result.stderr
