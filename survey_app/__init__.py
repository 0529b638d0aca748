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


def create_app(test_config: dict | None = None) -> Flask:
    """Create and configure the app (the application factory)."""
    app = Flask(
        __name__,
        instance_relative_config=True,
        static_folder=_asset_dir("static"),
        template_folder=_asset_dir("templates"),
        instance_path=os.environ.get("SURVEY_APP_INSTANCE_PATH") or None,
    )
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
    config.check_secret_key(app.config["SECRET_KEY"])
    # A signed session cookie older than a session may live is refused outright.
    app.permanent_session_lifetime = app.config["SESSION_MAX_AGE"]

    from survey_app.database import protect_database_file
    from survey_app.extensions import csrf, db, login, migrate

    protect_database_file(app.config["SQLALCHEMY_DATABASE_URI"])

    db.init_app(app)
    migrate.init_app(app, db, directory=str(PACKAGE_DIR / "migrations"))
    csrf.init_app(app)
    login.init_app(app)
    from survey_app.accounts import load_session_analyst

    login.user_loader(load_session_analyst)
    from survey_app.database import configure_engine, is_sqlite

    with app.app_context():
        configure_engine(db.engine)
        on_sqlite = is_sqlite(db.engine)

    from survey_app import (
        analyst,
        api,
        assets,
        code_slips,
        errors,
        manage,
        models,  # noqa: F401  (registers the tables)
        projector,
        ratelimits,
        respondent,
        security,
    )
    from survey_app.presenters import (
        format_count,
        format_epsilon,
        format_number,
        format_points,
        format_upper_bound,
        numeric_words,
        percent,
        percent_high,
        percent_low,
        range_guarantee,
        shown_range,
        widest_shown_half_width,
    )

    if on_sqlite:
        from flask import request

        from survey_app.database import begin_session_writes

        @app.before_request
        def _writes_take_the_lock_first():
            # Submissions write on a connection of their own (database.write_transaction).
            if request.method not in ("GET", "HEAD", "OPTIONS") and request.endpoint not in (
                "api.submit_response",
                None,
            ):
                begin_session_writes()

    app.register_blueprint(respondent.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(analyst.bp)
    app.register_blueprint(code_slips.bp)
    app.register_blueprint(manage.bp)
    app.register_blueprint(projector.bp)
    ratelimits.register(app)

    app.add_template_filter(percent)
    app.add_template_filter(percent_low)
    app.add_template_filter(percent_high)
    app.add_template_filter(shown_range)
    app.add_template_filter(widest_shown_half_width)
    app.add_template_filter(range_guarantee)
    app.add_template_filter(format_epsilon, "epsilon")
    app.add_template_filter(format_upper_bound, "upper_bound")
    app.add_template_filter(format_points, "points")
    app.add_template_filter(format_count, "headcount")
    app.add_template_filter(format_number, "bound")
    app.add_template_filter(numeric_words)
    assets.register(app)
    errors.register(app)
    security.register(app)

    from survey_app.cli import register_commands

    register_commands(app)
    return app
