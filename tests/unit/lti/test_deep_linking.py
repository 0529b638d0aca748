"""Deep linking: an instructor launches from the course's "add content", signs in, picks one of
their surveys, and the platform receives a signed LtiDeepLinkingResponse it verifies against the
tool's key set, whose link then launches students into that survey."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from tests.lti_platform import CLAIM, DEPLOYMENT_ID, INSTRUCTOR, LEARNER
from tests.unit.lti.test_launches import begin, kept, platform, post_launch

__all__ = ["platform"]

CONTENT_ITEMS = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"


def test_an_instructor_picks_a_survey_and_the_platform_gets_a_link_that_opens_it(
    client, app, platform, make_survey, analyst, sign_in_as
):
    slug, _ = make_survey()
    query = begin(client, platform)
    # Anonymous (no sub), so not linked to an account (test_instructors.py links one).
    token = platform.deep_linking_request(query["nonce"], [INSTRUCTOR], drop=("sub",))
    landed = post_launch(client, token, query["state"])
    assert landed.status_code == 303
    chooser = urlsplit(landed.location).path
    assert chooser.startswith("/lti/deep-link/")
    # Not signed in yet: the sign-in page first, then back to the choice.
    assert client.get(chooser).status_code == 302
    sign_in_as(client, analyst)
    page = client.get(chooser)
    assert page.status_code == 200 and f'value="{slug}"' in page.text
    assert page.headers["Cache-Control"] == "no-store"
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    returned = client.post(chooser, data={"csrf_token": csrf, "survey": slug})
    assert returned.status_code == 200
    action = re.search(
        r'<form method="post" action="([^"]+)" id="return-to-course">', returned.text
    ).group(1)
    assert action == f"{platform.base}/deep-link-return"
    policy = returned.headers["Content-Security-Policy"]
    assert f"form-action 'self' {platform.base};" in policy
    signed = re.search(r'name="JWT" value="([^"]+)"', returned.text).group(1)

    # The platform verifies it with the tool's published key set.
    claims = platform.receive_deep_link(signed, client.get("/lti/jwks.json").get_json())
    assert claims[CLAIM + "message_type"] == "LtiDeepLinkingResponse"
    assert claims[CLAIM + "deployment_id"] == DEPLOYMENT_ID
    assert claims["https://purl.imsglobal.org/spec/lti-dl/claim/data"] == "opaque-42"
    (item,) = claims[CONTENT_ITEMS]
    assert item["type"] == "ltiResourceLink" and item["custom"] == {"survey": slug}

    # The link it made launches a learner into the survey.
    query = begin(client, platform)
    learner = platform.id_token(query["nonce"], {CLAIM + "custom": item["custom"]})
    launched = post_launch(client, learner, query["state"])
    assert urlsplit(launched.location).path == f"/s/{slug}"


def test_a_learner_cannot_choose_and_a_forged_ticket_is_refused(
    client, app, platform, analyst, sign_in_as
):
    query = begin(client, platform)
    token = platform.deep_linking_request(query["nonce"], [LEARNER])
    before = kept(app)
    refused = post_launch(client, token, query["state"])
    assert refused.status_code == 403 and "Only the course’s instructors" in refused.text
    assert kept(app) == before
    sign_in_as(client, analyst)
    forged = client.get("/lti/deep-link/eyJwbGF0Zm9ybSI6MX0.forged.signature")
    assert forged.status_code == 400 and "has expired or was changed" in forged.text
