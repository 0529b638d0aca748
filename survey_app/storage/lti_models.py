"""The tables of LTI 1.3 launches (survey_app.lti): the platforms an operator registered, their
deployments, and each login's state until its launch uses it.

Nothing here names a person: a platform is a learning platform (its issuer and the client id it
gave the tool); a login's state lives a few minutes at most and holds a random nonce, never who
logged in.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from survey_app.extensions import db
from survey_app.storage.models import utc_now

#: The longest URL, issuer or id a platform may give (RFC 7230 asks at least 8,000 of a server;
#: LMS URLs are far shorter).
MAX_LTI_TEXT = 2000


class LtiPlatform(db.Model):
    """A learning platform registered to launch the tool (``survey-app lti-add-platform``)."""

    __tablename__ = "lti_platforms"
    __table_args__ = (UniqueConstraint("issuer", "client_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    #: The platform's ``iss`` (an https URL), and the ``client_id`` it gave the tool (its ``aud``).
    issuer: Mapped[str] = mapped_column(String(MAX_LTI_TEXT))
    client_id: Mapped[str] = mapped_column(String(MAX_LTI_TEXT))
    #: Where logins go (OIDC authorization), where tokens come from, and its key set.
    auth_url: Mapped[str] = mapped_column(String(MAX_LTI_TEXT))
    token_url: Mapped[str] = mapped_column(String(MAX_LTI_TEXT))
    jwks_url: Mapped[str] = mapped_column(String(MAX_LTI_TEXT))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utc_now)

    deployments: Mapped[list[LtiDeployment]] = relationship(
        back_populates="platform",
        cascade="all, delete-orphan",
        order_by="LtiDeployment.deployment_id",
    )
    frame_origins: Mapped[list[LtiFrameOrigin]] = relationship(
        back_populates="platform",
        cascade="all, delete-orphan",
        order_by="LtiFrameOrigin.origin",
    )

    @property
    def deployment_ids(self) -> list[str]:
        return [deployment.deployment_id for deployment in self.deployments]

    @property
    def named_frame_origins(self) -> list[str]:
        """The origins the operator named (``--frame-origin``) beside the issuer's and the
        login's, whose pages may show the tool in a frame (survey_app.lti.framing)."""
        return [frame.origin for frame in self.frame_origins]


class LtiDeployment(db.Model):
    """One deployment of the tool on a platform (a platform may deploy it several times)."""

    __tablename__ = "lti_deployments"

    platform_id: Mapped[int] = mapped_column(
        ForeignKey("lti_platforms.id", ondelete="CASCADE"), primary_key=True
    )
    deployment_id: Mapped[str] = mapped_column(String(MAX_LTI_TEXT), primary_key=True)

    platform: Mapped[LtiPlatform] = relationship(back_populates="deployments")


class LtiFrameOrigin(db.Model):
    """An origin (``https://host[:port]``) whose pages may frame the tool for a platform: a
    course's pages may live at a school's own host (Canvas's ``school.instructure.com``), not
    at the platform's issuer."""

    __tablename__ = "lti_frame_origins"

    platform_id: Mapped[int] = mapped_column(
        ForeignKey("lti_platforms.id", ondelete="CASCADE"), primary_key=True
    )
    origin: Mapped[str] = mapped_column(String(MAX_LTI_TEXT), primary_key=True)

    platform: Mapped[LtiPlatform] = relationship(back_populates="frame_origins")


class LtiLogin(db.Model):
    """A login begun by a platform, until its launch arrives (deleted then) or it expires.

    Only the state's SHA-256 is kept (the browser holds the state itself, in a cookie and in the
    launch's form), with the nonce the platform must sign back: a launch whose state has no row
    here, or whose token's nonce is another, is refused; used once, it is gone.
    """

    __tablename__ = "lti_logins"

    state_sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    nonce: Mapped[str] = mapped_column(String(64))
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime, index=True)


class LtiInstructorLink(db.Model):
    """An instructor of a platform linked to the analyst account they sign in as from it.

    The platform's user id (``sub``) is kept only as a digest keyed by the app's secret key
    (lti.instructor_links.sub_digest): the row tells which account a course's instructor uses,
    never who the instructor is on the platform; no name or e-mail of theirs is kept. Learners
    are never linked.
    """

    __tablename__ = "lti_instructor_links"

    platform_id: Mapped[int] = mapped_column(
        ForeignKey("lti_platforms.id", ondelete="CASCADE"), primary_key=True
    )
    sub_digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    analyst_id: Mapped[int] = mapped_column(
        ForeignKey("analysts.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utc_now)
