"""GET /api/v1/surveys/<slug>/results: figures exactly as survey_app.privacy computes them;
access rules.

The expected figures are computed here from the noisy counts with the same privacy functions and
the same browser-adjusted probabilities the issue names, so the comparison is equality.
"""

from __future__ import annotations

import hashlib
import math
import uuid

import pytest
import sqlalchemy as sa
from sqlalchemy import func, select

from survey_app import privacy
from survey_app.accounts.services import create_analyst, create_token, find_analyst
from survey_app.cli import main as survey_app_command
from survey_app.extensions import db
from survey_app.respondents.submissions import record_submission
from survey_app.storage.models import ApiToken
from survey_app.surveys.services import close_survey, find_survey
from tests.conftest import SAMPLE_DEFINITION

OTHER_EMAIL = "other@example.edu"

THREE_QUESTIONS = {
    "title": "Lab habits",
    "flip_probability": 0.2,
    "questions": [
        {"text": "Skipped the goggles?", "type": "yes_no"},
        {"text": "Which lab?", "type": "choice", "options": ["Chemistry", "Physics", "Biology"]},
        {"text": "Eaten in the lab?", "type": "yes_no"},
    ],
}

#: Randomized answers to THREE_QUESTIONS, as browsers would send them.
THREE_QUESTION_ROWS = [
    (1, 0, 0),
    (0, 2, 1),
    (1, 1, 0),
    (1, 2, 1),
    (0, 0, 0),
    (1, 2, 0),
    (0, 1, 1),
    (1, 0, 0),
    (0, 2, 0),
    (1, 2, 1),
    (1, 1, 0),
]


# --------------------------------------------------------------------------- helpers


def submit(app, slug: str, rows) -> None:
    """Record randomized submissions through the code the submission API runs."""
    with app.app_context():
        question_ids = [q.id for q in find_survey(slug).questions]
    for values in rows:
        with app.app_context():
            answers = {str(q): v for q, v in zip(question_ids, values, strict=True)}
            record_submission(slug, {"submission_id": str(uuid.uuid4()), "answers": answers})


def submit_and_close(app, slug: str, rows) -> None:
    """Submit, then close the survey, so that its results hold every answer (while a survey
    is open they change in releases of several: test_releases)."""
    submit(app, slug, rows)
    with app.app_context():
        close_survey(find_survey(slug))
        db.session.commit()


def results_url(slug: str, confidence: object = None) -> str:
    url = f"/api/v1/surveys/{slug}/results"
    return url if confidence is None else f"{url}?confidence={confidence}"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_token(app, email: str) -> str:
    with app.app_context():
        token = create_token(find_analyst(email))
        db.session.commit()
        return token


def expected_document(app, slug: str, rows, confidence: float) -> dict:
    """The results document computed from the submitted rows with survey_app.privacy alone."""
    with app.app_context():
        survey = find_survey(slug)
        p = survey.flip_probability
        epsilon = privacy.epsilon_from_flip_probability(p)
        questions = []
        for index, question in enumerate(survey.questions):
            k = question.option_count
            counts = [sum(1 for row in rows if row[index] == value) for value in range(k)]
            n = len(rows)
            if question.kind == "yes_no":
                estimates = privacy.estimates._estimate_yes_no(
                    counts[1], n, privacy.browser_flip_probability(p), confidence
                )
            else:
                estimates = privacy.estimates._estimate_browser_frequencies(counts, p, confidence)
            questions.append(
                {
                    "id": question.id,
                    "text": question.text,
                    "type": question.kind,
                    "n": n,
                    "options": [
                        {
                            "value": value,
                            "label": label,
                            "noisy_count": counts[value],
                            "estimate": estimates[value].estimate,
                            "ci_low": estimates[value].ci_low,
                            "ci_high": estimates[value].ci_high,
                            "half_width": estimates[value].half_width,
                        }
                        for value, label in enumerate(question.option_labels)
                    ],
                }
            )
        return {
            "survey": slug,
            "title": survey.title,
            "status": survey.status.value,
            "respondents": len(rows),
            "answered": len(rows),
            "flip_probability": p,
            "epsilon_per_question": epsilon,
            "epsilon_total": privacy.total_epsilon([epsilon] * len(survey.questions)),
            "confidence": confidence,
            "questions": questions,
        }


def without_extras(document: dict) -> dict:
    """The document with only the fields the issue names (the API may add more)."""
    option_keys = {"value", "label", "noisy_count", "estimate", "ci_low", "ci_high", "half_width"}
    question_keys = {"id", "text", "type", "n", "options"}
    survey_keys = {
        "survey",
        "title",
        "status",
        "respondents",
        "answered",
        "flip_probability",
        "epsilon_per_question",
        "epsilon_total",
        "confidence",
    }
    return {
        **{key: document[key] for key in survey_keys},
        "questions": [
            {
                **{key: q[key] for key in question_keys if key != "options"},
                "options": [{key: o[key] for key in option_keys} for o in q["options"]],
            }
            for q in document["questions"]
        ],
    }


@pytest.fixture
def token(app, analyst) -> str:
    return new_token(app, analyst)


@pytest.fixture
def other_token(app) -> str:
    with app.app_context():
        create_analyst(OTHER_EMAIL, "another long passphrase")
        db.session.commit()
    return new_token(app, OTHER_EMAIL)


# --------------------------------------------------------------------------- the document


@pytest.mark.parametrize("flip_probability", [0.1, 0.2, 1 / 3, 0.45])
@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.99])
def test_document_equals_the_privacy_functions(
    app, client, make_survey, token, flip_probability, confidence
):
    slug, _ = make_survey({**THREE_QUESTIONS, "flip_probability": flip_probability})
    submit_and_close(app, slug, THREE_QUESTION_ROWS)

    response = client.get(results_url(slug, confidence), headers=bearer(token))

    assert response.status_code == 200
    assert response.mimetype == "application/json"
    document = response.get_json()
    expected = expected_document(app, slug, THREE_QUESTION_ROWS, confidence)
    # Floats survive JSON exactly (shortest repr), so equality is the right comparison.
    assert without_extras(document) == expected
    assert set(document) == set(expected) | {"surveys", "headline_range", "live_carried"}
    # Closed: the headline figure is each estimate kept within 0–1 (inside its exact range).
    assert document["headline_range"] == "exact"
    for option in (o for q in document["questions"] for o in q["options"]):
        assert option["headline"] == min(1.0, max(0.0, option["estimate"]))
        assert option["exact_ci_low"] <= option["headline"] <= option["exact_ci_high"]
    assert document["surveys"] == [slug]
    # The exact interval of each option, as the question's mechanism computes it.
    for index, question in enumerate(document["questions"]):
        counts = [option["noisy_count"] for option in question["options"]]
        mechanism = privacy.RandomizedResponse(flip_probability, len(counts))
        for option, estimate in zip(
            question["options"], mechanism.estimate(counts, confidence), strict=True
        ):
            assert (option["exact_ci_low"], option["exact_ci_high"]) == (
                estimate.exact_low,
                estimate.exact_high,
            ), index
    assert document["epsilon_per_question"] == privacy.epsilon_from_flip_probability(
        flip_probability
    )
    estimates = [o["estimate"] for q in document["questions"] for o in q["options"]]
    intervals = [(o["ci_low"], o["ci_high"]) for q in document["questions"] for o in q["options"]]
    assert all(0.0 <= low <= high <= 1.0 for low, high in intervals)
    assert all(isinstance(e, float) for e in estimates)


def test_a_negative_estimate_is_kept_as_it_is(app, client, make_survey, token):
    slug, _ = make_survey(THREE_QUESTIONS)
    rows = [(0, 0, 0)] * 6  # every randomized "yes" count is 0: (0 - p) / (1 - 2p) < 0
    submit_and_close(app, slug, rows)
    document = client.get(results_url(slug), headers=bearer(token)).get_json()
    yes = document["questions"][0]["options"][1]
    flip = privacy.browser_flip_probability(0.2)
    assert yes["estimate"] == (0 - flip) / (1 - 2 * flip) < 0
    assert yes["ci_low"] == 0.0
    assert without_extras(document) == expected_document(app, slug, rows, 0.95)


def test_yes_no_options_are_no_then_yes(app, client, survey, token):
    slug, (yes_no_id, choice_id) = survey
    submit_and_close(app, slug, [(1, 0), (1, 2), (0, 2)])
    document = client.get(results_url(slug), headers=bearer(token)).get_json()
    first, second = document["questions"]
    assert (first["id"], first["type"], first["text"]) == (
        yes_no_id,
        "yes_no",
        "Have you ever copied homework?",
    )
    assert [(o["value"], o["label"], o["noisy_count"]) for o in first["options"]] == [
        (0, "No", 1),
        (1, "Yes", 2),
    ]
    assert (second["id"], second["type"]) == (choice_id, "choice")
    assert [(o["value"], o["label"], o["noisy_count"]) for o in second["options"]] == [
        (0, "Never", 1),
        (1, "Once", 0),
        (2, "Often", 2),
    ]
    assert document["respondents"] == first["n"] == second["n"] == 3
    assert document["title"] == SAMPLE_DEFINITION["title"]
    assert document["status"] == "closed"
    assert document["epsilon_total"] == pytest.approx(2 * math.log(3), rel=1e-12)


def test_no_answers_gives_null_estimates(client, survey, token):
    document = client.get(results_url(survey[0]), headers=bearer(token)).get_json()
    assert document["respondents"] == 0
    for question in document["questions"]:
        assert question["n"] == 0
        for option in question["options"]:
            assert option["noisy_count"] == 0
            for key in ("estimate", "ci_low", "ci_high", "half_width"):
                assert option[key] is None


@pytest.mark.parametrize("status", ["draft", "closed"])
def test_results_of_a_draft_or_closed_survey(app, client, make_survey, token, status):
    slug, _ = make_survey(status="open" if status == "closed" else status)
    if status == "closed":
        submit_and_close(app, slug, [(1, 1)])
        with app.app_context():
            close_survey(find_survey(slug))
            db.session.commit()
    document = client.get(results_url(slug), headers=bearer(token)).get_json()
    assert document["status"] == status
    assert document["respondents"] == (1 if status == "closed" else 0)


def test_results_are_not_cached(client, survey, token):
    response = client.get(results_url(survey[0]), headers=bearer(token))
    assert "no-store" in response.headers["Cache-Control"]


def test_answers_not_consistent_with_the_randomization_are_flagged(app, client, make_survey, token):
    # 100 randomized "yes" out of 100 at p = 1/4: (1 - 0.25) / 0.5 = 1.5, and at 95 % the
    # half-width is sqrt(0.1875 / (100 * 0.05)) / 0.5 = 0.387, so 1.5 -/+ 0.387 misses [0, 1].
    definition = {
        "title": "All yes",
        "flip_probability": 0.25,
        "questions": [{"text": "Did you?", "type": "yes_no"}],
    }
    slug, _ = make_survey(definition)
    submit_and_close(app, slug, [(1,)] * 100)
    document = client.get(results_url(slug), headers=bearer(token)).get_json()
    no, yes = document["questions"][0]["options"]
    assert yes["estimate"] == pytest.approx(1.5)
    assert yes["half_width"] == pytest.approx(math.sqrt(0.1875 / 5) / 0.5)
    assert (no["consistent"], yes["consistent"]) == (False, False)
    # The interval fields keep their meaning (the contract): clipped, here to a point.
    assert yes["ci_low"] == yes["ci_high"] == 1.0
    assert no["ci_low"] == no["ci_high"] == 0.0
    # The exact interval is never empty: it holds the bound the counts point to.
    assert (yes["exact_ci_low"], yes["exact_ci_high"]) == (0.99, 1.0)
    # At 99 % the Chebyshev half-width is 0.866 (1.5 - 0.866 < 1): not flagged.
    document = client.get(results_url(slug, 0.99), headers=bearer(token)).get_json()
    no, yes = document["questions"][0]["options"]
    assert (no["consistent"], yes["consistent"]) == (True, True)
    assert (yes["exact_ci_low"], yes["exact_ci_high"]) == (0.98, 1.0)
    # 85 "yes" of 100 can come from randomized answers (75 expected when all truly said yes,
    # give or take 4.3): consistent, with an exact interval that reaches 100 %.
    slug, _ = make_survey(definition)
    submit_and_close(app, slug, [(1,)] * 85 + [(0,)] * 15)
    document = client.get(results_url(slug, 0.99), headers=bearer(token)).get_json()
    no, yes = document["questions"][0]["options"]
    assert (no["consistent"], yes["consistent"]) == (True, True)
    assert yes["exact_ci_high"] == 1.0


def test_ordinary_answers_are_consistent(app, client, survey, token):
    slug, _ = survey
    submit_and_close(app, slug, [(1, 0), (1, 2), (0, 2), (0, 1)])
    document = client.get(results_url(slug), headers=bearer(token)).get_json()
    options = [o for q in document["questions"] for o in q["options"]]
    assert len(options) == 5
    assert all(o["consistent"] is True for o in options)


# --------------------------------------------------------------------------- confidence


def test_confidence_defaults_to_95_percent(app, client, survey, token):
    submit_and_close(app, survey[0], [(1, 0), (0, 1)])
    default = client.get(results_url(survey[0]), headers=bearer(token)).get_json()
    explicit = client.get(results_url(survey[0], 0.95), headers=bearer(token)).get_json()
    assert default["confidence"] == 0.95
    assert default == explicit
    assert default["live_carried"] is True  # a confidence the dashboard offers


@pytest.mark.parametrize("confidence", [0.001, 0.5, 0.8, 0.999999])
def test_any_confidence_inside_zero_one_is_used(app, client, survey, token, confidence):
    rows = [(1, 0), (0, 1), (1, 2), (1, 2)]
    submit_and_close(app, survey[0], rows)
    document = client.get(results_url(survey[0], confidence), headers=bearer(token)).get_json()
    assert document["confidence"] == confidence
    assert without_extras(document) == expected_document(app, survey[0], rows, confidence)
    # Only the confidences the dashboard offers carry their live ranges from look to look.
    assert document["live_carried"] is False


def test_higher_confidence_gives_wider_intervals(app, client, survey, token):
    submit_and_close(app, survey[0], [(1, 0), (0, 1), (1, 2)] * 10)
    widths = [
        client.get(results_url(survey[0], c), headers=bearer(token)).get_json()["questions"][0][
            "options"
        ][1]["half_width"]
        for c in (0.9, 0.95, 0.99)
    ]
    assert widths[0] < widths[1] < widths[2]


@pytest.mark.parametrize(
    "confidence",
    ["0", "1", "1.0", "1.5", "-0.5", "abc", "", "nan", "NaN", "inf", "-inf", "95%", "0,95", "1e9"],
)
def test_bad_confidence_is_400(client, survey, token, confidence):
    response = client.get(
        f"/api/v1/surveys/{survey[0]}/results",
        query_string={"confidence": confidence},
        headers=bearer(token),
    )
    assert response.status_code == 400
    assert response.mimetype == "application/json"
    assert "confidence" in response.get_json()["error"]


def test_bad_confidence_on_someone_elses_survey_is_still_404(client, survey, other_token):
    # Ownership is checked first: the error must not confirm that the survey exists.
    response = client.get(results_url(survey[0], "abc"), headers=bearer(other_token))
    assert response.status_code == 404


# --------------------------------------------------------------------------- who may ask


def assert_401(response) -> None:
    assert response.status_code == 401
    assert response.mimetype == "application/json"
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert response.get_json()["error"]
    assert "Academic integrity" not in response.get_data(as_text=True)


def test_no_credentials_is_401(client, survey):
    assert_401(client.get(results_url(survey[0])))


@pytest.mark.parametrize(
    "header",
    [
        "Bearer sat_not-a-real-token",
        "Bearer ",
        "Bearer",
        "Basic cHJvZkBleGFtcGxlLmVkdTpjb3JyZWN0IGhvcnNlIGJhdHRlcnk=",
        "Token TOKEN",
        "TOKEN",
        "Bearer TOKEN-but-longer",
        "Bearer TOKEN TOKEN",
        "Bearer " + "sat_" + "x" * 300,
    ],
)
def test_bad_authorization_is_401(client, survey, token, header):
    assert_401(
        client.get(
            results_url(survey[0]), headers={"Authorization": header.replace("TOKEN", token)}
        )
    )


def test_bad_token_is_401_even_with_a_session(app, client, survey, analyst, sign_in_as):
    sign_in_as(client, analyst)
    assert client.get(results_url(survey[0])).status_code == 200
    assert_401(client.get(results_url(survey[0]), headers=bearer("sat_forged")))


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_token_opens_the_owners_results(client, survey, token, scheme):
    response = client.get(results_url(survey[0]), headers={"Authorization": f"{scheme} {token}"})
    assert response.status_code == 200
    assert response.get_json()["survey"] == survey[0]


def test_session_opens_the_owners_results(app, client, survey, analyst, sign_in_as):
    sign_in_as(client, analyst)
    response = client.get(results_url(survey[0]))
    assert response.status_code == 200
    assert response.get_json()["title"] == SAMPLE_DEFINITION["title"]


def test_every_token_of_an_analyst_works(app, client, survey, analyst):
    first, second = new_token(app, analyst), new_token(app, analyst)
    assert first != second
    for token in (first, second):
        assert client.get(results_url(survey[0]), headers=bearer(token)).status_code == 200


def test_someone_elses_survey_is_404_by_token(client, survey, other_token):
    response = client.get(results_url(survey[0]), headers=bearer(other_token))
    missing = client.get(results_url("no-such-survey"), headers=bearer(other_token))
    assert response.status_code == missing.status_code == 404
    assert response.get_json() == missing.get_json()
    assert "Academic integrity" not in response.get_data(as_text=True)


def test_someone_elses_survey_is_404_by_session(app, client, survey, other_token, sign_in_as):
    sign_in_as(client, OTHER_EMAIL)
    response = client.get(results_url(survey[0]))
    assert response.status_code == 404
    assert "copied homework" not in response.get_data(as_text=True)


# --------------------------------------------------------------------------- tokens


def test_tokens_are_stored_hashed(app, token):
    assert token.startswith("sat_") and len(token) >= 40
    with app.app_context():
        stored = db.session.execute(select(ApiToken.token_sha256)).scalars().all()
        assert stored == [hashlib.sha256(token.encode()).hexdigest()]
        # The token itself is nowhere in the database.
        secret_part = token.removeprefix("sat_")
        for table in db.metadata.sorted_tables:
            for row in db.session.execute(sa.select(table)).all():
                assert secret_part not in repr(tuple(row))


def test_create_token_command_prints_a_working_token_last(app, runner, client, survey, analyst):
    # The CLI runner does not push an app context by itself; see the test below.
    with app.app_context():
        result = runner.invoke(args=["create-token", analyst])
    assert result.exit_code == 0, result.output
    token = result.output.strip().splitlines()[-1]
    assert token.startswith("sat_")
    assert client.get(results_url(survey[0]), headers=bearer(token)).status_code == 200
    with app.app_context():
        stored = db.session.execute(select(ApiToken.token_sha256)).scalar_one()
    assert stored == hashlib.sha256(token.encode()).hexdigest()
    assert token not in stored


def test_create_token_command_runs_like_the_other_commands(runner, analyst):
    result = runner.invoke(args=["create-token", analyst])
    assert result.exit_code == 0, result.output


def test_create_token_through_the_installed_command(
    app, client, survey, analyst, database_url, tmp_path, monkeypatch
):
    from click.testing import CliRunner

    monkeypatch.setenv("SURVEY_APP_DATABASE_URL", database_url)
    monkeypatch.setenv("SURVEY_APP_INSTANCE_PATH", str(tmp_path / "cli-instance"))
    result = CliRunner().invoke(survey_app_command, ["create-token", analyst])
    assert result.exit_code == 0, result.output
    token = result.output.strip().splitlines()[-1]
    assert client.get(results_url(survey[0]), headers=bearer(token)).status_code == 200


def test_create_token_for_an_unknown_analyst_fails(app, runner):
    with app.app_context():
        result = runner.invoke(args=["create-token", "nobody@example.edu"])
        count = db.session.execute(select(func.count()).select_from(ApiToken)).scalar_one()
    assert result.exit_code == 2
    assert "nobody@example.edu" in result.output
    assert "sat_" not in result.output
    assert count == 0


@pytest.mark.parametrize("status", ["open", "closed"])
def test_every_option_has_its_live_and_simultaneous_ranges(app, client, make_survey, token, status):
    slug, _ = make_survey(THREE_QUESTIONS)
    submit(app, slug, THREE_QUESTION_ROWS * 2)  # 22 answers: a release of them all when read
    if status == "closed":
        with app.app_context():
            close_survey(find_survey(slug))
            db.session.commit()
    document = client.get(results_url(slug, 0.9), headers=bearer(token)).get_json()
    assert document["respondents"] == 2 * len(THREE_QUESTION_ROWS)
    for question in document["questions"]:
        counts = [option["noisy_count"] for option in question["options"]]
        k, n = len(counts), sum(counts)
        mechanism = privacy.RandomizedResponse(document["flip_probability"], k)
        keep, other = mechanism.probabilities
        for option in question["options"]:
            live = privacy.live.live_share_interval(option["noisy_count"], n, keep, other, 0.9)
            assert (option["live_ci_low"], option["live_ci_high"]) == live
            # All k ranges at once at 90%: each at 1 - 0.1 / k (two options: one range).
            level = 0.9 if k == 2 else 1 - 0.1 / k
            both = privacy.exact.exact_interval(option["noisy_count"], n, keep, other, level)
            assert (option["simultaneous_ci_low"], option["simultaneous_ci_high"]) == both
            assert option["simultaneous_ci_low"] <= option["exact_ci_low"]
            assert option["exact_ci_high"] <= option["simultaneous_ci_high"]
