"""The secret key: generated and kept private by default; a published or short one is refused."""

from __future__ import annotations

import base64
import math
import os
import secrets
import stat
import subprocess
import sys

import pytest

from survey_app import config, create_app
from survey_app.config import ConfigurationError
from tests.conftest import TEST_SECRET_KEY

#: The characters of Django's get_random_secret_key().
DJANGO_KEY_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)"

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
        "deadbeef" * 8,
        "0" * 64,
        # Patterns said again, and keys typed by people: each under 128 bits.
        "1234123412341234",
        "abcdabcdabcdabcd",
        "deadbeefdeadbeef",
        "0123456789abcdef0123456789abcdef",
        "abcabcabcabcabcabcabcabcabcabcab",  # a pattern and a part of it
        "correcthorsebatterystaple",
        "Correct-Horse-Battery-Staple-42!",
        "qwertyuiopasdfghjkl",
        "abcdefghijklmnopqrstuvwxyz",
        # Many different characters, which the estimate from the characters credits in full,
        # but typed: keyboard rows, the alphabet and digits in order, pangrams, a placeholder
        # sentence, and the keys these tests used before (words and a run of digits).
        "1234567890qwertyuiopasdfghjklzxcvbnm",
        "abcdefghijklmnopqrstuvwxyz0123456789",
        "the quick brown fox jumps over the lazy dog",
        "The quick brown fox jumps over the lazy dog.",
        "the-quick-brown-fox-jumps-over-the-lazy-dog",
        "Pack my box with five dozen liquor jugs",
        "please change this secret key before deploying",
        "test-secret-key-not-for-production-0123456789",
        "csrf-test-secret-key-0123456789abcdef",
    ],
)
def test_a_weak_key_is_refused_saying_how_to_make_one(tmp_path, key):
    with pytest.raises(ConfigurationError, match="easy to guess") as refused:
        create_app({"SECRET_KEY": key, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/db"})
    assert "secrets.token_urlsafe(48)" in str(refused.value)
    assert key not in str(refused.value)  # start-up errors reach logs


@pytest.mark.parametrize(
    ("key", "bits"),
    [
        ("a" * 32, 0.0),
        ("ab" * 32, 64.0),  # one bit a character: which of two
        ("0123456789abcdef" * 2, 128.0),  # four bits a character, all 16 digits twice
        ("abcdefghijklmnopqrstuvwxyz", 26 * math.log2(26)),
    ],
)
def test_the_strength_is_the_length_times_the_entropy_of_the_characters(key, bits):
    assert config.estimated_strength_bits(key) == pytest.approx(bits)


@pytest.mark.parametrize(
    "make_key",
    [
        lambda: secrets.token_urlsafe(48),  # the instance key's kind
        lambda: secrets.token_urlsafe(32),
        lambda: secrets.token_hex(32),  # openssl rand -hex 32; Flask's secrets.token_hex()
        lambda: secrets.token_hex(24),
        lambda: base64.b64encode(os.urandom(32)).decode(),  # openssl rand -base64 32
        lambda: "".join(secrets.choice(DJANGO_KEY_CHARACTERS) for _ in range(50)),
    ],
)
def test_random_keys_of_every_usual_kind_pass(make_key):
    # Measured over 100,000 draws of each kind, none was refused, the lowest estimate 153 bits
    # (token_hex(24)) against a bar of 128: 300 draws would show a rule that refuses them.
    for _ in range(300):
        assert config.estimated_strength_bits(make_key()) >= config.SECRET_KEY_BITS_NEEDED
    # The typed-text estimate costs about 40 ms a key: over 2,000 draws none was refused, the
    # lowest 135 bits (token_urlsafe(32)); 20 draws would show a rule that refuses them often.
    for _ in range(20):
        config.check_secret_key(make_key())


@pytest.mark.parametrize(
    "make_key", [lambda: secrets.token_hex(16), lambda: secrets.token_urlsafe(16)]
)
def test_keys_of_16_random_bytes_are_refused_every_time(make_key):
    # Exactly 128 bits, which an estimate from the characters cannot credit in full: refused
    # always (not now and then), so that an operator learns it at the first start.
    for _ in range(100):
        with pytest.raises(ConfigurationError, match="easy to guess"):
            config.check_secret_key(make_key())


@pytest.mark.parametrize(
    "key",
    [
        TEST_SECRET_KEY,
        # tests/unit/respondents/test_submission_api.py
        "V7gEQWcpXKfGCkJblQqvQKC-NTi4vE_Ay87ny3N-kKa-i4hB",
        "IHUDcRams022S7NgDD5QccO3ZYwC2VVmilbXxqvBX41NHyk3",  # tests/unit/test_packaging.py
        # forges cookies in accounts/test_accounts.py
        "M4XnsjuGlRzZZLXgfoQqswlPjuE8U2hywNTVwl63klIa7UJ_",
    ],
)
def test_the_keys_the_tests_use_pass(key):
    config.check_secret_key(key)


def test_a_generated_instance_key_passes(tmp_path):
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
