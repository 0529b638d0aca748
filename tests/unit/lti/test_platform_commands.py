"""The operator's LTI commands: register a platform (printing what its administrator types
into it), list, add a deployment, remove; bad input refused in one line, nothing changed."""

from __future__ import annotations

import pytest

PLATFORM = [
    "--issuer", "https://canvas.example.edu",
    "--client-id", "10000000000042",
    "--deployment-id", "7:abc",
    "--auth-url", "https://canvas.example.edu/api/lti/authorize_redirect",
    "--token-url", "https://canvas.example.edu/login/oauth2/token",
    "--jwks-url", "https://canvas.example.edu/api/lti/security/jwks",
]  # fmt: skip


def test_a_platform_is_registered_listed_extended_and_removed(runner):
    added = runner.invoke(args=["lti-add-platform", *PLATFORM])
    assert added.exit_code == 0, added.output
    assert "Deployments: 7:abc" in added.output
    for name, path in (
        ("Login initiation URL", "/lti/login"),
        ("Launch (redirect) URL", "/lti/launch"),
        ("Public key set URL (JWKS)", "/lti/jwks.json"),
    ):
        (line,) = [line for line in added.output.splitlines() if name in line]
        assert line.endswith(path), line
    # Registered again: one platform still, its URLs updated; a second deployment added.
    assert runner.invoke(args=["lti-add-platform", *PLATFORM]).exit_code == 0
    more = runner.invoke(
        args=["lti-add-platform", *PLATFORM[:4], "--deployment-id", "8:def", *PLATFORM[6:]]
    )
    assert "Deployments: 7:abc, 8:def" in more.output
    listed = runner.invoke(args=["lti-list-platforms"]).output
    (line,) = listed.splitlines()  # one platform
    assert line.startswith("https://canvas.example.edu ") and "7:abc, 8:def" in line
    removed = runner.invoke(args=["lti-remove-platform", *PLATFORM[:4]])
    assert removed.exit_code == 0, removed.output
    assert "No platform is registered." in runner.invoke(args=["lti-list-platforms"]).output


@pytest.mark.parametrize(
    ("position", "value", "words"),
    [
        (1, "http://canvas.example.edu", "--issuer must be an https URL"),
        (3, " ", "--client-id must be a non-empty line of text"),
        (7, "ftp://canvas.example.edu/authorize", "--auth-url must be an https URL"),
        (11, "canvas.example.edu/jwks", "--jwks-url must be an https URL"),
    ],
)
def test_bad_platform_details_are_refused_in_one_line_and_nothing_is_kept(
    runner, position, value, words
):
    args = list(PLATFORM)
    args[position] = value
    refused = runner.invoke(args=["lti-add-platform", *args])
    assert refused.exit_code == 2
    assert refused.output.strip().splitlines()[-1].startswith(f"Error: {words}")
    assert "No platform is registered." in runner.invoke(args=["lti-list-platforms"]).output


def test_removing_an_unknown_platform_says_so(runner):
    refused = runner.invoke(args=["lti-remove-platform", *PLATFORM[:4]])
    assert refused.exit_code == 2 and "no platform is registered" in refused.output


def test_frame_origins_are_named_listed_and_kept_once(runner):
    args = [*PLATFORM, "--frame-origin", "https://School.Example.edu/", "--frame-origin"]
    added = runner.invoke(args=["lti-add-platform", *args, "http://127.0.0.2:8443"])
    assert added.exit_code == 0, added.output
    framed = "http://127.0.0.2:8443, https://canvas.example.edu, https://school.example.edu"
    assert f"May show the tool in a frame: {framed}" in added.output
    again = runner.invoke(args=["lti-add-platform", *args, "https://school.example.edu"])
    assert again.exit_code == 0, again.output
    (line,) = runner.invoke(args=["lti-list-platforms"]).output.splitlines()
    assert line.endswith(f"framed by {framed}")


@pytest.mark.parametrize(
    "origin",
    [
        "*",
        "https://*.instructure.com",
        "http://school.example.edu",
        "https://school.example.edu/courses/7",
        "https://school.example.edu?x=1",
        "https://teacher@school.example.edu",
        "https://school.example.edu 'unsafe-inline'",
        "https://school.example.edu;script-src",
        "javascript:alert(1)",
        "",
    ],
)
def test_a_frame_origin_that_is_not_an_https_origin_is_refused_and_nothing_is_kept(runner, origin):
    refused = runner.invoke(args=["lti-add-platform", *PLATFORM, "--frame-origin", origin])
    assert refused.exit_code == 2, refused.output
    assert (
        refused.output.strip()
        .splitlines()[-1]
        .startswith("Error: --frame-origin must be an https origin")
    )
    assert "No platform is registered." in runner.invoke(args=["lti-list-platforms"]).output
