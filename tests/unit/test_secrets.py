"""The secret key: generated and kept private by default; a published or short one is refused."""

from __future__ import annotations

import os
import secrets
import stat
import string
import subprocess
import sys

import pytest

from survey_app import config, create_app
from survey_app.config import ConfigurationError
from tests.conftest import TEST_SECRET_KEY

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("key", ["dev", "DEV", "secret", "changeme", "", "short-key"])
def test_a_published_or_short_key_is_refused(tmp_path, key):
    with pytest.raises(ConfigurationError, match="SECRET_KEY"):
        create_app({"SECRET_KEY": key, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/db"})


@pytest.mark.parametrize(
    "key",
    [
        "a" * 32,
        "ab" * 32,
        "passwordpassword",
        "password-password-password-1234",
        "deadbeef" * 8,  # hex digits alone, but only five of them
        "0" * 64,
    ],
)
def test_a_key_of_few_different_characters_is_refused_saying_how_to_make_one(tmp_path, key):
    with pytest.raises(ConfigurationError, match="easy to guess") as refused:
        create_app({"SECRET_KEY": key, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/db"})
    assert "secrets.token_urlsafe" in str(refused.value)


@pytest.mark.parametrize(
    "make_key",
    [
        lambda: secrets.token_urlsafe(48),  # the instance key's kind
        lambda: secrets.token_urlsafe(16),
        lambda: secrets.token_hex(32),  # openssl rand -hex 32
        lambda: secrets.token_hex(16),
        lambda: "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(16)),
    ],
)
def test_random_keys_of_every_usual_kind_pass(make_key):
    # Each kind falls under the bar with a chance below one in 100,000; 200 draws of each
    # would show a rule that refuses random keys.
    for _ in range(200):
        config.check_secret_key(make_key())


def test_the_test_key_and_a_generated_instance_key_pass(tmp_path):
    config.check_secret_key(TEST_SECRET_KEY)
    config.check_secret_key(config.instance_secret_key(str(tmp_path)))


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
