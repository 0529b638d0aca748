"""The words rule, on every template: no template splices a sentence with a conditional.

A sentence is whole in one place, so that a translation can wrap it as one: the template's own
text (its figures as placeholders), or a word module's sentence. A conditional may choose
between whole sentences, or add a whole sentence after a full stop; inside an HTML tag (its
attributes) it builds no sentence at all. What the check calls a splice, in running text
outside HTML tags, of an ``{% if %}``, ``{% elif %}``, ``{% else %}`` or ``{% endif %}`` tag, or
of an inline conditional with words in it (``{{ "words" if ... }}``):

- directly after a letter, a digit, a comma, a colon, a semicolon or an opening bracket
  (spaces aside): ``respondents{% if ... %}``, ``code{{ "s" if n != 1 }}``;
- directly before a lower-case letter, a digit, or what goes on with a sentence (``,;:.)``, or
  a bracket opening on a lower-case letter): ``{% if qr %},``, ``{% endif %}.``,
  ``{% if current %} (this survey)``; HTML attributes a macro writes (`` autofocus``,
  `` aria-invalid="true"``) are no sentence;
- an inline conditional's words that start mid-sentence (a space or ``,;:.)`` first):
  ``{{ " and " if not loop.last }}``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"

#: Templates the rule does not hold in yet, each named while its words are being made whole:
#: none now. A template named here must still splice (it leaves once it does not).
NOT_YET: set[str] = set()

#: Jinja's statements, expressions and comments, each a token of its own.
JINJA = re.compile(r"\{%.*?%\}|\{\{.*?\}\}|\{#.*?#\}", re.S)
#: The statements that choose what a template says.
CONDITIONAL_TAG = re.compile(r"\{%-?\s*(if|elif|else|endif)\b")
#: A string literal in an expression.
LITERAL = re.compile(r"\"[^\"]*\"|'[^']*'")
#: Before a conditional: what leaves a sentence unfinished.
OPEN_BEFORE = re.compile(r"[\w,;:(“‘±–]", re.U)
#: What a macro may write into a tag: attributes, not words.
ATTRIBUTES = re.compile(
    r"\s*(?:[a-z][\w:-]*=\"|"
    r"(?:autofocus|hidden|disabled|checked|selected|required|readonly)\s*(?:\{|>|$))"
)
#: A piece of template between two Jinja tokens that is attributes alone.
ATTRIBUTES_ONLY = re.compile(
    r"(?:\s*(?:[a-z][\w:-]*=\"[^\"]*\"|autofocus|hidden|disabled|checked|selected|required"
    r"|readonly))+\s*"
)
#: An inline conditional's words that start mid-sentence.
MID_SENTENCE_WORDS = re.compile(r"[\"'][\s,;:.)]")


def html_tag_spans(source: str) -> list[tuple[int, int]]:
    """Where the template's HTML tags are (``<p class="...">``, ``</p>``), Jinja left in place:
    what lies inside them is attributes, not running text; a script's or a style's content
    neither."""
    masked = JINJA.sub(lambda match: "\0" * len(match.group()), source)
    spans = []
    for match in re.finditer(r"<[A-Za-z/!](?:\"[^\"]*\"|'[^']*'|[^>\"'])*>", masked):
        spans.append(match.span())
    for match in re.finditer(r"<(script|style)\b.*?</\1>", masked, re.S | re.I):
        spans.append(match.span())
    return spans


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(start < position < end for start, end in spans)


def _before(source: str, position: int, previous_end: int) -> str:
    """The character a conditional follows, spaces aside ("" after a tag, a statement or a
    comment, or at the start: a sentence may start there; "" after attributes a macro
    writes)."""
    text = source[:position].rstrip()
    if not text or text.endswith(("%}", "#}", ">", "}}")):
        return ""
    if ATTRIBUTES_ONLY.fullmatch(source[previous_end:position]):
        return ""
    return text[-1]


def _after(source: str, position: int) -> str:
    """What a conditional goes on with, spaces aside, up to the next tag or Jinja ("" there)."""
    rest = source[position:]
    text = rest.lstrip()
    if not text or text.startswith(("<", "{{", "{%", "{#")) or ATTRIBUTES.match(rest):
        return ""
    return text[:2] if text[0] != "(" else "(" + text[1:].lstrip()[:1]


def goes_on(after: str) -> bool:
    """Whether what follows a conditional goes on with a sentence: a lower-case letter, a
    digit, a comma..., or a bracket opening on a lower-case letter ("(this survey)")."""
    if not after:
        return False
    if after[0] == "(":
        return after[1:2].islower()
    return after[0].islower() or after[0].isdigit() or after[0] in ",;:.)"


def splices(source: str) -> list[str]:
    """The conditionals of a template's source that splice a sentence, each as it is written
    with what it is glued to."""
    spans = html_tag_spans(source)
    found = []
    previous_end = 0
    for match in JINJA.finditer(source):
        token = match.group()
        (start, end), after_previous = match.span(), previous_end
        previous_end = end
        if _inside(start, spans):
            continue
        is_tag = CONDITIONAL_TAG.match(token)
        words = LITERAL.findall(token) if token.startswith("{{") else []
        is_inline = any(re.search(r"\w", word) for word in words) and re.search(
            r"\bif\b", LITERAL.sub("", token)
        )
        if not (is_tag or is_inline):
            continue
        before, after = _before(source, start, after_previous), _after(source, end)
        spliced = (
            (before and OPEN_BEFORE.match(before))
            or goes_on(after)
            or (is_inline and any(MID_SENTENCE_WORDS.match(word) for word in words))
        )
        if spliced:
            found.append(source[max(0, start - 30) : end + 30].replace("\n", "⏎"))
    return found


def template_names() -> list[str]:
    return sorted(path.relative_to(TEMPLATES).as_posix() for path in TEMPLATES.rglob("*.html"))


@pytest.mark.parametrize("name", [name for name in template_names() if name not in NOT_YET])
def test_no_template_splices_a_sentence(name):
    """Each template places whole sentences: its own, or its word modules'."""
    assert splices((TEMPLATES / name).read_text(encoding="utf-8")) == []


def test_the_templates_not_checked_yet_still_splice():
    """Each template in NOT_YET is still there and still splices: once it follows the rule, it
    leaves NOT_YET and is checked like the others (one test, not one per name: an empty
    NOT_YET is no skipped test)."""
    still = {
        name
        for name in NOT_YET
        if (TEMPLATES / name).exists() and splices((TEMPLATES / name).read_text(encoding="utf-8"))
    }
    assert still == NOT_YET


#: Sentences spliced as the pages once spliced them: each must be found.
SPLICED = {
    "respondents needed": "about <strong>{{ n }}</strong> respondents{% if n != m %} ({{ m }} "
    "for its yes/no questions alone){% endif %}.",
    "says next to nothing": "within about <strong>{{ now }}</strong>{% if next_to_nothing %}, "
    "which says next to nothing yet{% endif %} (Chebyshev’s bound with the exact variance: "
    "{{ c }}).",
    "a unit in brackets": "the margin of its average{% if unit %} (± {{ unit }}){% endif %} "
    "each class size reaches",
    "a second clause": "with the estimate and its interval{% if has_numeric %}; for a number "
    "question, its average with its range{% endif %}.",
    "a bound named": "the randomization{% if berry_esseen %} (with this many answers, the "
    "Berry–Esseen theorem){% endif %}.",
    "a step named": "answers it names{% if step %} (an answer counts in the bar of its nearest "
    "{{ step }}){% endif %}, with the known randomization removed.",
    "either clause": "survey, its questions{% if answers %}, {{ phrase }} and the results drawn "
    "from them{% else %} (no one has answered it){% endif %}{% if codes %},⏎  and its codes"
    "{% endif %}.",
    "a button's tail": '<button id="confirm-delete">Delete the survey{% if answers %} and '
    "{{ phrase }}{% endif %}</button>",
    "one time in": "{{ flip }}% of the time{% if whole %}⏎  (1 time in {{ one_in }}){% endif %}, "
    "by chance.",
    "a label's unit": '<label for="answer">Your answer{% if unit %} ({{ unit }}){% endif %}'
    "</label>",
    "after a tag": "the code <strong>{{ code }}</strong>{% if qr %},⏎    or scan the QR code"
    "{% endif %}. The projector view shows both.",
    "a cell's note": '<th scope="row">{{ p|percent }}{% if current %} (this survey){% endif %}'
    "</th>",
    "a plural's s": "<h1>{{ n }} one-time code{{ 's' if n != 1 }} for “{{ title }}”</h1>",
    "a list's and": "{% for size in sizes %}{{ size }} people{{ ' and ' if not loop.last }}"
    "{% endfor %}.",
    "an inline clause": "at least {{ c }} of the time{{ ', however often this redraws' if live "
    "}}, for the people who answered.",
    "an inline label's tail": "<label>all at once{{ ' (once the survey closes)' if open }}</label>",
    "a word chosen": "<p>Too early for {{ 'the average' if numeric else 'shares' }} yet.</p>",
    "a word in a branch": "<p>{% if a %}{{ x }}{% else %}nothing{% endif %} so far.</p>",
}

#: Conditionals that choose whole sentences, add one after a full stop, or write attributes.
WHOLE = {
    "whole paragraphs": "{% if x %}<p>Whole sentence A.</p>{% else %}<p>Whole B.</p>{% endif %}",
    "whole sentences": "<li>{% if open %}Archive: close the survey first; an archived survey "
    "takes no answers.{% else %}Archive: off your survey list; the results stay.{% endif %}</li>",
    "a sentence after a full stop": "which is narrower.{% if together %}⏎    All at once: the "
    "exact ranges of all {{ n }} answers hold together.{% endif %}⏎    Chebyshev range:",
    "a sentence before the others": "<p>{% if choice %}Answers are sometimes swapped. "
    "{% endif %}Nobody can tell.</p>",
    "a sentence ending a paragraph": "never too narrow.{% if live %}⏎    Live range: {{ a }} to "
    "{{ b }}.{% endif %}</p>",
    "attributes": '<tr {% if current %}class="current"{% endif %}><input {% if error %}'
    'aria-invalid="true"{% else %}aria-describedby="hint"{% endif %} {{ "checked" if on }}>',
    "a macro's attributes": '{%- if error %} aria-invalid="true"{% endif %}'
    "{%- if focus == id %} autofocus{% endif %}",
    "whole labels": '<button>{{ "Open to respondents" if draft else "Reopen" }}</button>',
    "a value chosen": "<p>{{ plan.text if plan.ok else plan.error }}</p>",
    "a cell chosen whole": '<th scope="row">{% if current %}{{ this_survey }}{% else %}'
    "{{ p|percent }}{% endif %}</th>",
}


def _source(snippet: str) -> str:
    return snippet.replace("⏎", "\n")


@pytest.mark.parametrize("snippet", SPLICED.values(), ids=SPLICED.keys())
def test_a_spliced_sentence_is_found(snippet):
    assert splices(_source(snippet)) != []


@pytest.mark.parametrize("snippet", WHOLE.values(), ids=WHOLE.keys())
def test_whole_sentences_and_attributes_pass(snippet):
    assert splices(_source(snippet)) == []
