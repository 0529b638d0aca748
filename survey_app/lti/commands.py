"""The operator's commands for LTI: register a learning platform, list them, remove one, and
undo its instructors' links to analyst accounts."""

from __future__ import annotations

import click
from flask.cli import with_appcontext

from survey_app.accounts.services import find_analyst
from survey_app.extensions import db
from survey_app.lti.framing import platform_origins
from survey_app.lti.instructor_links import unlink_instructors
from survey_app.lti.platforms import (
    PlatformError,
    add_platform,
    all_platforms,
    find_platform,
    remove_platform,
)
from survey_app.refusals import fail
from survey_app.web.links import external_url


def _tool_urls() -> list[tuple[str, str]]:
    """What a platform's administrator types into the platform, by its name there."""
    launch = external_url("lti.launch")
    return [
        ("Login initiation URL (OpenID Connect)", external_url("lti.login")),
        ("Launch (redirect) URL", launch),
        ("Deep linking URL", launch),
        ("Public key set URL (JWKS)", external_url("lti.key_set")),
    ]


@click.command("lti-add-platform", short_help="Let a learning platform launch the tool (LTI 1.3).")
@click.option("--issuer", required=True, help="The platform's issuer (iss), an https URL.")
@click.option("--client-id", required=True, help="The client id the platform gave the tool.")
@click.option("--deployment-id", "deployment_ids", multiple=True, required=True, help="Repeatable.")
@click.option("--auth-url", required=True, help="The platform's OIDC authorization URL.")
@click.option("--token-url", required=True, help="The platform's access token URL.")
@click.option("--jwks-url", required=True, help="The platform's public key set URL.")
@click.option(
    "--frame-origin",
    "frame_origins",
    multiple=True,
    help="An origin whose pages may show the tool in a frame, beside the issuer's and the "
    "auth URL's (Canvas: the school's own host, https://school.instructure.com). Repeatable.",
)
@with_appcontext
def add_platform_command(
    issuer, client_id, deployment_ids, auth_url, token_url, jwks_url, frame_origins
):
    """Register a platform (again: add deployment ids and frame origins, update its URLs);
    print the tool's URLs for the platform's administrator."""
    urls = {"auth_url": auth_url, "token_url": token_url, "jwks_url": jwks_url}
    try:
        platform = add_platform(issuer, client_id, list(deployment_ids), urls, list(frame_origins))
    except PlatformError as error:
        fail(str(error))
    db.session.commit()
    click.echo(f"Platform {platform.issuer} (client id {platform.client_id}) registered.")
    click.echo("Deployments: " + ", ".join(platform.deployment_ids))
    click.echo("May show the tool in a frame: " + ", ".join(sorted(platform_origins(platform))))
    click.echo("Type these into the platform:")
    for name, url in _tool_urls():
        click.echo(f"  {name}: {url}")


@click.command("lti-list-platforms", short_help="List the platforms that may launch the tool.")
@with_appcontext
def list_platforms_command():
    """List the registered platforms: issuer, client id, deployments."""
    platforms = all_platforms()
    if not platforms:
        click.echo("No platform is registered.")
    for platform in platforms:
        deployments = ", ".join(platform.deployment_ids)
        framing = ", ".join(sorted(platform_origins(platform)))
        click.echo(
            f"{platform.issuer}  client id {platform.client_id}  deployments {deployments}"
            f"  framed by {framing}"
        )


@click.command("lti-remove-platform", short_help="Stop a platform from launching the tool.")
@click.option("--issuer", required=True)
@click.option("--client-id", required=True)
@with_appcontext
def remove_platform_command(issuer, client_id):
    """Forget a platform: its launches are refused from then on."""
    try:
        remove_platform(issuer, client_id)
    except PlatformError as error:
        fail(str(error))
    db.session.commit()
    click.echo(f"Platform {issuer.strip()} (client id {client_id.strip()}) removed.")


@click.command(
    "lti-unlink-instructors",
    short_help="Undo the links of a platform's instructors to analyst accounts.",
)
@click.option("--issuer", required=True)
@click.option("--client-id", required=True)
@click.option("--email", default=None, help="Only the links to this analyst account.")
@with_appcontext
def unlink_instructors_command(issuer, client_id, email):
    """Undo the links of a platform's instructors to analyst accounts (or to one account): their
    next launch asks them to sign in once again, or to make an account."""
    platform = find_platform(issuer.strip(), client_id.strip())
    if platform is None:
        fail(f"no platform is registered as {issuer!r} with client id {client_id!r}")
    analyst = None
    if email is not None:
        analyst = find_analyst(email)
        if analyst is None:
            fail(f"no analyst account has the email {email!r}")
    count = unlink_instructors(platform.id, analyst)
    db.session.commit()
    noun = "instructor" if count == 1 else "instructors"
    click.echo(f"{count} {noun} of {platform.issuer} (client id {platform.client_id}) unlinked.")


COMMANDS = (
    add_platform_command,
    list_platforms_command,
    remove_platform_command,
    unlink_instructors_command,
)
