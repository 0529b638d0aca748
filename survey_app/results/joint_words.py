"""A paired question's results in words and as a cross-tabulation: what the dashboard, the
projector and the students' results page place for two questions randomized together
(privacy.JointShares). Rows are the first question's answers, columns the second's; each cell
is the shown share of the class with its exact range and its share of the row, and each
question's own shares (its margin) close the table. The figures are privacy's (joint.py): the
association's difference and its guaranteed range, the p-value of "unrelated" (approximate);
nothing here computes a statistic, it only words them.
"""

from __future__ import annotations

from flask_babel import gettext, ngettext, npgettext
from markupsafe import Markup, escape

from survey_app import kinds, privacy
from survey_app.results import rounding
from survey_app.results.question_words import share_sentence
from survey_app.results.tables import OptionResult, shown_range
from survey_app.web.languages import is_english
from survey_app.words import local_figure, percent, percent_high, percent_low

#: Below this p-value the answers are said to go together (a 5% test); below STRONG, strongly.
SIGNIFICANT, STRONG = 0.05, 0.01


def joint_view(told: privacy.JointShares, question, kind: str, confidence: float) -> dict:
    """A paired question's table, each question's own shares and the association, in words:
    ``joint`` for the table's template, ``said`` its sentences (the students' page's)."""
    first, second = question.parts
    label = kinds.kind_named(question.kind).shown_label
    rows = [label(text) for text in first.labels]
    columns = [label(text) for text in second.labels]
    margins = [
        margin_sentences(part, margin, kind, confidence, label)
        for part, margin in zip(question.parts, told.margins, strict=True)
    ]
    # Counts no randomized answers would give say nothing of how the answers go together.
    association = (
        association_words(told, (first, second), (rows, columns), confidence)
        if told.consistent_with_randomization
        else None
    )
    table = {
        "first": first.text,
        "second": second.text,
        "columns": columns,
        "rows": [
            {
                "label": rows[a],
                "cells": [cell_words(told, a, b) for b in range(told.shape[1])],
                "total": margin_cell(told.margins[0].estimates[a]),
            }
            for a in range(told.shape[0])
        ],
        "totals": [margin_cell(estimate) for estimate in told.margins[1].estimates],
        # Why "Any answer" need not be its row's or column's sum, said under the table.
        "totals_note": gettext(
            "Each “Any answer” is worked out from that question’s answers alone: it need not "
            "equal the sum of its row or column, and the cells need not add up to 100%."
        ),
        "caption": caption_words(question, confidence),
        "room_caption": room_caption_words(question, confidence, kind),
        # The projector's line above its table: which question the rows and columns are.
        "room_key": gettext(
            "Rows: “%(first)s”. Columns: “%(second)s”.", first=first.text, second=second.text
        ),
        "margins": margins,
        "association": association,
        # The projector's: each cell in the range the page leads with (live while open: it
        # redraws as answers arrive), and the approximate test alone (the difference's range,
        # for one look, stays on the dashboard).
        "room_rows": room_rows(told, kind),
        "room_association": p_value_words(told.association.p_value)
        if told.consistent_with_randomization and not one_answer_only(told)
        else None,
        "how": how_words(told.shape),
        # While open the page leads with live ranges; the table's hold for one look.
        "one_look": one_look_words() if kind == "live" else None,
        "chart": rows_chart(told, question, (rows, columns)),
    }
    said = [sentence for sentences in margins for sentence in sentences]
    return {"joint": table, "said": [*said, *([association] if association else [])]}


def cell_words(told: privacy.JointShares, a: int, b: int) -> dict:
    """One cell of the table: its shown share of the class, its exact range, and its share of
    the row (None where the row is empty, or the counts are not consistent)."""
    estimate = told.cells.estimates[a * told.shape[1] + b]
    if not estimate.consistent_with_randomization:
        return {"consistent": False}
    of_row = told.row_shares[a]
    return {
        "consistent": True,
        "share": percent(told.shown_table[a][b]),
        "low": percent_low(estimate.exact_low),
        "high": percent_high(estimate.exact_high),
        "of_row": None
        if of_row is None
        else gettext("%(share)s of the row", share=percent(of_row[b])),
    }


def room_rows(told: privacy.JointShares, kind: str) -> list[list[dict]]:
    """The projector's cells, row by row (room_cell)."""
    k1, k2 = told.shape
    return [
        [room_cell(told.cells.estimates[a * k2 + b], kind) for b in range(k2)] for a in range(k1)
    ]


def room_cell(estimate: privacy.Estimate, kind: str) -> dict:
    """One cell as the projector shows it: its share of the class inside its range of ``kind``
    (live while the survey is open, valid however often the screen redraws)."""
    if not estimate.consistent_with_randomization:
        return {"consistent": False}
    low, high = shown_range(estimate, kind)
    return {
        "consistent": True,
        "share": percent(estimate.headline(low, high)),
        "low": percent_low(low),
        "high": percent_high(high),
    }


def margin_cell(estimate: privacy.Estimate) -> dict:
    """A question's own share of one answer, as the table's last row or column gives it."""
    if not estimate.consistent_with_randomization:
        return {"consistent": False}
    return {
        "consistent": True,
        "share": percent(estimate.headline(estimate.exact_low, estimate.exact_high)),
        "low": percent_low(estimate.exact_low),
        "high": percent_high(estimate.exact_high),
    }


def margin_sentences(part, margin: privacy.Shares, kind: str, confidence: float, label) -> list:
    """One question's own shares, each worded answer's in one sentence naming the question
    (a yes/no question's "Yes" alone: its "No" is the rest)."""
    return [
        Markup(
            gettext(
                "On “%(question)s”: %(sentence)s",
                question=escape(part.text),
                sentence=share_sentence(
                    OptionResult(value, part.labels[value], margin.estimates[value]),
                    kind,
                    confidence,
                    label(part.labels[value]),
                ),
            )
        )
        for value in part.worded
    ]


def caption_words(question, confidence: float) -> str:
    """What the table shows, for those who hear it read."""
    first, second = question.parts
    return gettext(
        "Question %(number)s: the answers to “%(first)s” (rows) against the answers to "
        "“%(second)s” (columns); each cell is the share of the class who would give both "
        "answers, with its exact %(confidence)s range and its share of the row",
        number=question.number,
        first=first.text,
        second=second.text,
        confidence=percent(confidence),
    )


def room_caption_words(question, confidence: float, kind: str) -> str:
    """What the projector's table shows, for those who hear it read: its cells' ranges are of
    the kind the page leads with (live while the survey is open, exact once closed), and it has
    no share of the row."""
    first, second = question.parts
    figures = {
        "number": question.number,
        "first": first.text,
        "second": second.text,
        "confidence": percent(confidence),
    }
    if kind == "live":
        return gettext(
            "Question %(number)s: the answers to “%(first)s” (rows) against the answers to "
            "“%(second)s” (columns); each cell is the share of the class who would give both "
            "answers, with its live %(confidence)s range, which holds however often the screen "
            "redraws",
            **figures,
        )
    return gettext(
        "Question %(number)s: the answers to “%(first)s” (rows) against the answers to "
        "“%(second)s” (columns); each cell is the share of the class who would give both "
        "answers, with its exact %(confidence)s range",
        **figures,
    )


def signed_points(share: float, how) -> str:
    """A difference of shares in whole percentage points with its sign, rounded by ``how``
    (rounding.nearest, down or up): 0.4 -> "+40 points", -0.05 -> "−5 points"."""
    figure = how(share * 100, 1.0)
    size = rounding.text(abs(figure), 0) if is_english() else local_figure(abs(figure), 0)
    sign = "+" if figure > 0 else "−" if figure < 0 else ""
    # A context of its own: in German the difference's points follow "von" and "zwischen"
    # (Punkten), where the lesson's stand alone (Punkte).
    return npgettext(
        "a difference of, between",
        "%(figure)s point",
        "%(figure)s points",
        int(abs(figure)),
        figure=f"{sign}{size}",
    )


def association_words(told, parts, labels, confidence: float) -> Markup | None:
    """How the two answers go together: for a 2x2 table the difference with its guaranteed
    range (or why there is none), then for every table the approximate test, which is what
    the builder plans a pair for (planning.pairs: how often it sees a relation)."""
    tested = None if one_answer_only(told) else p_value_words(told.association.p_value)
    if told.shape != (2, 2):
        return tested
    difference = difference_words(told, parts, labels, confidence)
    return difference if tested is None else Markup(" ").join((difference, tested))


def one_answer_only(told: privacy.JointShares) -> bool:
    """Whether the table shows one question answered one way alone (fewer than two of its rows,
    or of its columns, with anyone in them): how the two answers go together cannot then be
    read, whatever the test's p-value (which, for reports piled in one cell, says they fit no
    truth well, not that the answers go together). A larger table with one empty row still
    compares the others."""
    table = told.shown_table
    rows = [sum(value or 0.0 for value in row) > 0.0 for row in table]
    columns = [sum(row[b] or 0.0 for row in table) > 0.0 for b in range(told.shape[1])]
    return sum(rows) < 2 or sum(columns) < 2


def difference_words(told, parts, labels, confidence: float) -> Markup | None:
    """The difference between the rows' shares of the second question's second answer, with
    its guaranteed range; why it cannot be given when a row of the table is empty."""
    association = told.association
    (first, second), (rows, columns) = parts, labels
    figures = {
        "first": escape(first.text),
        "second": escape(second.text),
        "row": escape(rows[1]),
        "other_row": escape(rows[0]),
        "column": escape(columns[1]),
    }
    if association.difference is None:
        empty = 1 if told.row_shares[1] is None else 0
        return Markup(
            gettext(
                "The table shows no one answering “%(row)s” to “%(first)s”, so the two groups "
                "can’t be compared yet: there is no difference to give.",
                first=figures["first"],
                row=escape(rows[empty]),
            )
        )
    figures["share"] = percent(told.row_shares[1][1])
    figures["other_share"] = percent(told.row_shares[0][1])
    figures["difference"] = signed_points(association.difference, rounding.nearest)
    if association.difference_low is None:
        return Markup(
            gettext(
                "Among those who would answer “%(row)s” to “%(first)s”, about "
                "<strong>%(share)s</strong> would answer “%(column)s” to “%(second)s”, against "
                "about <strong>%(other_share)s</strong> of those who would answer "
                "“%(other_row)s”: a difference of <strong>%(difference)s</strong>, with no "
                "guaranteed range yet (the cells’ ranges still allow a group with no one in it).",
                **figures,
            )
        )
    return Markup(
        gettext(
            "Among those who would answer “%(row)s” to “%(first)s”, about "
            "<strong>%(share)s</strong> would answer “%(column)s” to “%(second)s”, against "
            "about <strong>%(other_share)s</strong> of those who would answer “%(other_row)s”: "
            "a difference of <strong>%(difference)s</strong>, between %(low)s and %(high)s, "
            "guaranteed at least %(confidence)s of the time.",
            low=signed_points(association.difference_low, rounding.down),
            high=signed_points(association.difference_high, rounding.up),
            confidence=percent(confidence),
            **figures,
        )
    )


def p_value_words(p_value: float | None) -> Markup | None:
    """The approximate test of "the two answers are unrelated" in words: how often answers this
    far from unrelated would come if they were, and what that does and does not show."""
    if p_value is None:
        return None
    if p_value < STRONG:
        return Markup(
            gettext(
                "Answers this far from unrelated would come less than once in 100 times if the "
                "two answers were unrelated: a strong sign that they go together (an approximate "
                "test)."
            )
        )
    # Between 1 and 99 times in 100: a p-value of 1 is "about 99", not a certainty.
    count = min(99, max(1, round(p_value * 100)))
    if p_value < SIGNIFICANT:
        return Markup(
            ngettext(
                "Answers this far from unrelated would come about %(count)s time in 100 if the "
                "two answers were unrelated: a sign that they go together (an approximate test).",
                "Answers this far from unrelated would come about %(count)s times in 100 if the "
                "two answers were unrelated: a sign that they go together (an approximate test).",
                count,
                count=count,
            )
        )
    return Markup(
        ngettext(
            "Answers this far from unrelated would come about %(count)s time in 100 if the two "
            "answers were unrelated: no clear sign that they go together, which does not show "
            "that they are unrelated (an approximate test).",
            "Answers this far from unrelated would come about %(count)s times in 100 if the two "
            "answers were unrelated: no clear sign that they go together, which does not show "
            "that they are unrelated (an approximate test).",
            count,
            count=count,
        )
    )


def one_look_words() -> str:
    """Why the table's ranges, unlike the live ones, are for one look while the survey is open."""
    return gettext(
        "The table’s ranges and the difference’s hold for one look, not for reading again and "
        "again as answers arrive: read them once the survey closes, or use each pair’s live "
        "range in the table below."
    )


def how_words(shape: tuple[int, int]) -> str:
    """How the table's figures were worked out: which are guaranteed, which approximate."""
    said = gettext(
        "Each cell’s range is its exact range, guaranteed as every share’s is, for the people "
        "who answered; its share of the row comes from the shares shown. Each question’s own "
        "shares (“Any answer”) are worked out from its answers alone, with their own exact "
        "ranges."
    )
    if shape == (2, 2):
        more = gettext(
            "The difference’s range is guaranteed too: it runs from the smallest to the "
            "largest difference of every table that lies inside the four cells’ ranges for all "
            "the answers at once."
        )
    else:
        more = gettext(
            "The test of unrelated answers is approximate: it compares the randomized answers "
            "with thousands of classes drawn as if the two answers were unrelated (a parametric "
            "bootstrap); its level was measured close to what it says, but is not guaranteed."
        )
    return f"{said} {more}"


#: The chart of shares of rows, in the shares chart's SVG units (panel.CHART_LEFT, CHART_PLOT:
#: 320 across): a group for each of the first question's answers, its label on a line of its
#: own, then a bar for each of the second question's answers, its label and figure above it.
BAR_LEFT, BAR_PLOT, BAR_TOP = 16, 282, 4
GROUP_LABEL, BAR_ROW, BAR_HEIGHT, GROUP_GAP, CHART_FOOT = 22, 34, 12, 8, 20


def rows_chart(told: privacy.JointShares, question, labels) -> dict:
    """The grouped bars of the table's shares of rows: for each answer to the first question
    (a group), the share of them who gave each answer to the second (a bar); a row with no one
    in it has no bars, and says so with a dash."""
    rows, columns = labels
    groups, y = [], BAR_TOP
    for a, row in enumerate(told.row_shares):
        group = {"label": {"x": BAR_LEFT, "y": y + 16, "text": rows[a]}, "bars": []}
        for b, share in enumerate(row or ()):
            top = y + GROUP_LABEL + BAR_ROW * b
            group["bars"].append(
                {
                    "label": {"x": BAR_LEFT, "y": top + 13, "text": columns[b]},
                    "value": {"x": BAR_LEFT + BAR_PLOT, "y": top + 13, "text": percent(share)},
                    "x": BAR_LEFT,
                    "y": top + 17,
                    "width": f"{BAR_PLOT * share:.2f}",
                    "height": BAR_HEIGHT,
                }
            )
        group["empty"] = None if row else {"x": BAR_LEFT + BAR_PLOT, "y": y + 16, "text": "–"}
        groups.append(group)
        y += GROUP_LABEL + BAR_ROW * (len(row) if row else 0) + GROUP_GAP
    height = y + CHART_FOOT
    first, second = question.parts
    return {
        "height": height,
        "groups": groups,
        "grid": [
            {"x": f"{BAR_LEFT + BAR_PLOT * tick:.2f}", "y1": BAR_TOP, "y2": height - CHART_FOOT}
            for tick in (0, 0.5, 1)
        ],
        "ticks": [
            {"x": BAR_LEFT + BAR_PLOT * tick, "y": height - 4, "text": percent(tick), "anchor": a}
            for tick, a in ((0, "start"), (0.5, "middle"), (1, "end"))
        ],
        "title": gettext(
            "Question %(number)s: among those who gave each answer to “%(first)s”, the share "
            "who gave each answer to “%(second)s” (the share of the row, from the shares shown; "
            "no range is drawn)",
            number=question.number,
            first=first.text,
            second=second.text,
        ),
    }
