"""What a survey's results hold while they change in releases (survey_app.results.releases), as
the dashboard says it: each case one whole sentence of the catalog. results.words.release_words
chooses among them.
"""

from __future__ import annotations

from flask_babel import gettext, ngettext

from survey_app.words import grouped


def held_words(respondents: int, batch: int) -> str:
    """What a survey reopened and closed again before a batch of new answers came in shows:
    the results of the ``respondents`` before, until ``batch`` new answers come in."""
    figures = {"count": grouped(respondents), "batch": grouped(batch)}
    if batch == 1:
        before = ngettext(
            "You reopened this survey and closed it again before 1 new answer came in: so that "
            "nobody’s answers can be picked out by watching them arrive, the results still show "
            "the %(count)s person who had answered before.",
            "You reopened this survey and closed it again before 1 new answer came in: so that "
            "nobody’s answers can be picked out by watching them arrive, the results still show "
            "the %(count)s people who had answered before.",
            respondents,
            **figures,
        )
    else:
        before = ngettext(
            "You reopened this survey and closed it again before %(batch)s new answers came in: "
            "so that nobody’s answers can be picked out by watching them arrive, the results "
            "still show the %(count)s person who had answered before.",
            "You reopened this survey and closed it again before %(batch)s new answers came in: "
            "so that nobody’s answers can be picked out by watching them arrive, the results "
            "still show the %(count)s people who had answered before.",
            respondents,
            **figures,
        )
    newer = ngettext(
        "The newer answers show once at least %(batch)s has come in: reopen the survey to "
        "collect them.",
        "The newer answers show once at least %(batch)s have come in: reopen the survey to "
        "collect them.",
        batch,
        **figures,
    )
    return f"{before} {newer}"


def included_words(held: int, answered: int, batch: int) -> str:
    """What an open survey's results hold (``held`` of ``answered``) and how often they change
    (every ``batch`` new answers), as the dashboard says it; each case one whole sentence."""
    figures = {"held": grouped(held), "count": grouped(answered), "batch": grouped(batch)}
    if held >= answered:
        if batch == 1:
            return gettext(
                "The results below include everyone who has answered; they update with every "
                "new answer, and show everyone when you close the survey."
            )
        return ngettext(
            "The results below include everyone who has answered; they update with every "
            "%(batch)s new answer, so that nobody’s answers can be picked out by watching them "
            "arrive, and show everyone when you close the survey.",
            "The results below include everyone who has answered; they update with every "
            "%(batch)s new answers, so that nobody’s answers can be picked out by watching them "
            "arrive, and show everyone when you close the survey.",
            batch,
            **figures,
        )
    if batch == 1:
        return ngettext(
            "The results below include %(held)s of the %(count)s person who has answered; they "
            "update with every new answer, and show everyone when you close the survey.",
            "The results below include %(held)s of the %(count)s people who have answered; they "
            "update with every new answer, and show everyone when you close the survey.",
            answered,
            **figures,
        )
    return ngettext(
        "The results below include %(held)s of the %(count)s person who has answered; they "
        "update with every %(batch)s new answers, so that nobody’s answers can be picked out by "
        "watching them arrive, and show everyone when you close the survey.",
        "The results below include %(held)s of the %(count)s people who have answered; they "
        "update with every %(batch)s new answers, so that nobody’s answers can be picked out by "
        "watching them arrive, and show everyone when you close the survey.",
        answered,
        **figures,
    )
