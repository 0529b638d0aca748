"""The secret key: generated and kept private by default; a published or short one is refused."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from survey_app import create_app
from survey_app.config import ConfigurationError

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("key", ["dev", "DEV", "secret", "changeme", "", "short-key"])
def test_a_published_or_short_key_is_refused(tmp_path, key):
    with pytest.raises(ConfigurationError, match="SECRET_KEY"):
        create_app({"SECRET_KEY": key, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/db"})


def test_without_a_key_one_is_generated_once_and_kept_private(tmp_path, monkeypatch):
    monkeypatch.delenv("SURVEY_APP_SECRET_KEY", raising=False)
    monkeypatch.setenv("SURVEY_APP_INSTANCE_PATH", str(tmp_path / "instance"))
    monkeypatch.setenv("SURVEY_APP_DATABASE_URL", f"sqlite:///{tmp_path}/db.sqlite3")
    first = create_app().config["SECRET_KEY"]
    second = create_app().config["SECRET_KEY"]
    key_file = tmp_path / "instance" / "secret_key"
    assert first == second == key_file.read_text().strip()
    assert len(first) >= 32
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600


def test_the_production_server_refuses_to_start_with_a_published_key(tmp_path):
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": REPOSITORY,
        "HOME": str(tmp_path),
        "SURVEY_APP_SECRET_KEY": "dev",
        "SURVEY_APP_INSTANCE_PATH": str(tmp_path / "instance"),
        "SURVEY_APP_DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3",
    }
    result = subprocess.run(
        [sys.executable, "-c", "from survey_app.cli import main; main()", "serve", "--port", "0"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "refusing to start" in lines[0], result.stderr
    assert "Listening at" not in result.stderr + result.stdout
