"""Flask extensions, created once and bound to the app in :func:`survey_app.create_app`."""

from flask_login import LoginManager
from flask_sqlalchemy import SQLAlchemy
from flask_wtf import CSRFProtect
from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    """Declarative base of every model."""


db = SQLAlchemy(model_class=Base)
csrf = CSRFProtect()
login = LoginManager()
