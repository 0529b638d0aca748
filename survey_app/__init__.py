"""A survey app with local differential privacy: answers are randomized in the browser."""

from __future__ import annotations

import os
from pathlib import Path

from flask import Flask

PACKAGE_DIR = Path(__file__).resolve().parent


def _asset_dir(name: str) -> str:
    """static/ or templates/: inside the installed package, else at the top of the source tree."""
    installed = PACKAGE_DIR / name
    if installed.is_dir():
        return str(installed)
    return str(PACKAGE_DIR.parent / name)


def _base_config(app: Flask, test_config: dict | None) -> None:
    """The defaults, then the environment (or the instance's files), then the test config."""
    from survey_app import config

    app.config.from_mapping(
        MAX_CONTENT_LENGTH=config.MAX_CONTENT_LENGTH,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        REMEMBER_COOKIE_HTTPONLY=True,
        REMEMBER_COOKIE_SAMESITE="Lax",
        WTF_CSRF_TIME_LIMIT=None,
        # Pages send Referrer-Policy: no-referrer, so browsers post forms with no Referer;
        # the CSRF token and SameSite=Lax cookies protect forms without that header check.
        WTF_CSRF_SSL_STRICT=False,
    )
    # The instance folder holds the secret key and the database: its owner's alone.
    app.json.sort_keys = False  # documents keep the order they are built in
    Path(app.instance_path).mkdir(mode=0o700, parents=True, exist_ok=True)
    # The instance key is read (or made) only when the caller gives no key of its own.
    given_key = test_config is not None and "SECRET_KEY" in test_config
    app.config.from_mapping(config.from_environment(app.instance_path, not given_key))
    if test_config is not None:
        app.config.from_mapping(test_config)
    app.config.setdefault("SQLALCHEMY_ENGINE_OPTIONS", {})
    app.config["SQLALCHEMY_ENGINE_OPTIONS"] |= config.engine_options(
        app.config.get("DATABASE_POOL_MODE", "session")
    )
    config.check_secret_key(app.config["SECRET_KEY"])
    # A signed session cookie older than a session may live is refused outright.
    app.permanent_session_lifetime = app.config["SESSION_MAX_AGE"]


def _init_extensions(app: Flask) -> bool:
    """Bind the database, migrations, CSRF and logins to the app; True if it runs on SQLite."""
    from survey_app.accounts.services import load_session_analyst
    from survey_app.extensions import csrf, db, login, migrate
    from survey_app.storage.database import configure_engine, is_sqlite, protect_database_file

    protect_database_file(app.config["SQLALCHEMY_DATABASE_URI"])
    db.init_app(app)
    migrate.init_app(app, db, directory=str(PACKAGE_DIR / "storage" / "migrations"))
    csrf.init_app(app)
    login.init_app(app)
    login.user_loader(load_session_analyst)
    with app.app_context():
        configure_engine(db.engine)
        return is_sqlite(db.engine)


def _writes_take_the_lock_first(app: Flask) -> None:
    """On SQLite, a request that writes begins its write transaction before anything else."""
    from flask import request

    from survey_app.storage.database import begin_session_writes

    @app.before_request
    def _begin_writes():
        # Submissions write on a connection of their own (database.write_transaction).
        # An LTI launch may fetch its platform's key set first: it begins its writes itself,
        # once checked (no write lock waits on the network).
        if request.method not in ("GET", "HEAD", "OPTIONS") and request.endpoint not in (
            "api.submit_response",
            "lti.launch",
            None,
        ):
            begin_session_writes()


def _register_blueprints(app: Flask) -> None:
    """The pages and the API, each blueprint with its one job."""
    from survey_app.accounts import views as sign_in
    from survey_app.api import views as api
    from survey_app.builder import views as builder_pages
    from survey_app.classroom import code_slips, projector
    from survey_app.dashboard import views as dashboard_pages
    from survey_app.lesson import views as lesson
    from survey_app.lti import views as lti
    from survey_app.respondents import views as respondent
    from survey_app.storage import lti_models, models  # noqa: F401  (registers the tables)
    from survey_app.surveys import views as manage

    for blueprint_module in (
        respondent,
        api,
        sign_in,
        builder_pages,
        dashboard_pages,
        code_slips,
        manage,
        projector,
        lesson,
        lti,
    ):
        app.register_blueprint(blueprint_module.bp)


def create_app(test_config: dict | None = None) -> Flask:
    """Create and configure the app (the application factory)."""
    app = Flask(
        __name__,
        instance_relative_config=True,
        static_folder=_asset_dir("static"),
        template_folder=_asset_dir("templates"),
        instance_path=os.environ.get("SURVEY_APP_INSTANCE_PATH") or None,
    )
    _base_config(app, test_config)
    on_sqlite = _init_extensions(app)
    if on_sqlite:
        _writes_take_the_lock_first(app)
    _register_blueprints(app)

    from survey_app.cli import register_commands
    from survey_app.web import (
        assets,
        errors,
        languages,
        page_words,
        ratelimits,
        security,
        template_filters,
    )

    languages.register(app)
    page_words.register(app)
    ratelimits.register(app)
    template_filters.register(app)
    assets.register(app)
    errors.register(app)
    security.register(app)
    register_commands(app)
    return app
