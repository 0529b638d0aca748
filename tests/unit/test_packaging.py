"""`pip install .` gives a working app: the wheel carries the code, static/ and templates/."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy without build/: setuptools would otherwise pack stale files from it.
    source = tmp_path_factory.mktemp("source") / "survey-app"
    shutil.copytree(
        REPOSITORY,
        source,
        ignore=shutil.ignore_patterns(
            "build", "dist", "*.egg-info", ".git", "__pycache__", "instance", ".*_cache"
        ),
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--quiet",
            "--wheel-dir",
            str(out),
            str(source),
        ],
        check=True,
        cwd=out,
    )
    (built,) = out.glob("survey_app-*.whl")
    return built


def test_wheel_carries_static_files_and_templates(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in REPOSITORY.joinpath("static").rglob("*"):
        if path.is_file():
            assert f"survey_app/static/{path.relative_to(REPOSITORY / 'static')}" in names
    for path in REPOSITORY.joinpath("templates").rglob("*.html"):
        assert f"survey_app/templates/{path.relative_to(REPOSITORY / 'templates')}" in names
    # Every module of the package, in every domain's folder (a package left out of
    # pyproject.toml's list would be missing from the wheel).
    for path in REPOSITORY.joinpath("survey_app").rglob("*.py"):
        assert path.relative_to(REPOSITORY).as_posix() in names
    assert "survey_app/accounts/common-passwords.txt.gz" in names
    # Each language's catalog, compiled (what the app reads) and its source.
    catalogs = sorted(REPOSITORY.joinpath("survey_app", "translations").rglob("messages.*o"))
    assert len(catalogs) >= 4  # German and French, .po and .mo
    for path in catalogs:
        assert path.relative_to(REPOSITORY).as_posix() in names
    # The benchmark is a tool of the source tree, not part of the installed app.
    assert not [name for name in names if "bench" in name]
    assert "survey_app/storage/migrations/env.py" in names
    assert any(n.startswith("survey_app/storage/migrations/versions/") for n in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "survey-app = survey_app.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_installed_app_works_outside_the_source_tree(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--quiet",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
    )
    script = textwrap.dedent(
        f"""
        import survey_app, survey_app.privacy
        from survey_app import create_app
        from survey_app.extensions import db
        assert survey_app.__file__.startswith({str(target)!r}), survey_app.__file__
        app = create_app({{"SECRET_KEY": "IHUDcRams022S7NgDD5QccO3ZYwC2VVmilbXxqvBX41NHyk3",
                           "SQLALCHEMY_DATABASE_URI": "sqlite:///{tmp_path}/db.sqlite3"}})
        assert app.static_folder.startswith({str(target)!r}), app.static_folder
        with app.app_context():
            db.create_all()
        client = app.test_client()
        script = client.get("/static/js/randomized-response.js")
        assert script.status_code == 200 and b"getRandomValues" in script.data
        assert client.get("/s/unknown").status_code == 404
        german = client.get("/", headers={{"Accept-Language": "de"}}).get_data(as_text=True)
        assert '<html lang="de"' in german and "An einer Umfrage teilnehmen" in german, german
        print("installed app ok", survey_app.privacy.epsilon_from_flip_probability(0.25))
        """
    )
    # Run from an empty folder with only the installed copy on the path, not the source tree.
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "installed app ok 1.0986" in result.stdout
