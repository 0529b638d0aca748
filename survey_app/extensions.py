"""Flask extensions, created once and bound to the app in :func:`survey_app.create_app`."""

from __future__ import annotations

from flask_babel import lazy_gettext
from flask_login import LoginManager
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf import CSRFProtect
from sqlalchemy import MetaData
from sqlalchemy.orm import DeclarativeBase

from survey_app.web.languages import for_a_translated_page

#: Named constraints, so that migrations can refer to them on every database.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base of every model."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


db = SQLAlchemy(model_class=Base)
csrf = CSRFProtect()
migrate = Migrate()
login = LoginManager()
login.login_view = "sign_in.login"
login.login_message = lazy_gettext("Please sign in to see that page.")
# Said on the page asked for, shown on the sign-in page: in the sign-in page's language.
login.localize_callback = for_a_translated_page
login.session_protection = "strong"
