"""One typography in what a person reads: curly apostrophes and quotes (’ “ ”), never straight
ones (' "), in every template's text and every words module's sentences (and the builder's
and the question kinds' messages).

Code keeps its straight quotes: HTML tags and their attributes, Jinja's statements and
expressions, what a template shows as code (``<code>``, ``<pre>``, ``<kbd>``, ``<script>``,
``<style>``), and a words module's docstrings and comments.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "templates"
#: The words modules, and the modules whose messages a person reads beside a field or in a
#: definition file's errors: the builder's errors, each kind of question's checks.
WORDS_MODULES = sorted(
    [
        *(ROOT / "survey_app").rglob("words.py"),
        ROOT / "survey_app" / "builder" / "errors.py",
        ROOT / "survey_app" / "surveys" / "definition_checks.py",
        *(ROOT / "survey_app" / "kinds").glob("*.py"),
    ]
)

#: Jinja's statements, expressions and comments.
JINJA = re.compile(r"\{%.*?%\}|\{\{.*?\}\}|\{#.*?#\}", re.S)
#: Elements whose content is code, not words.
CODE_ELEMENTS = re.compile(r"<(code|pre|kbd|samp|script|style)\b.*?</\1\s*>", re.S | re.I)
#: An HTML tag, whole or cut short by a placeholder (``<strong class="x"`` then ``{code}``).
TAG = re.compile(r"<[A-Za-z/!](?:\"[^\"]*\"|'[^']*'|[^<>\"'])*>?")
#: An attribute a macro or a set block writes outside any tag: ``aria-invalid="true"``.
ATTRIBUTE = re.compile(r"\b[a-z][\w:-]*=(?:\"[^\"\n]*\"|'[^'\n]*')")
#: A straight apostrophe or quote, with a few characters either side for the message.
STRAIGHT = re.compile(r".{0,25}['\"].{0,25}")
#: A double-quoted string in a Jinja expression whose words hold a straight apostrophe.
APOSTROPHE_IN_LITERAL = re.compile(r"\"[^\"]*\w'\w[^\"]*\"")


def _blank(match: re.Match) -> str:
    """The match's characters blanked, its line breaks kept (so that lines keep their numbers)."""
    return re.sub(r"[^\n]", " ", match.group())


def read_text(markup: str) -> str:
    """What a person reads of ``markup`` (a template, or a sentence with HTML in it): its tags,
    attributes, code elements and Jinja blanked."""
    text = re.sub(r"<!--.*?-->", _blank, markup, flags=re.S)
    text = JINJA.sub(_blank, text)
    text = CODE_ELEMENTS.sub(_blank, text)
    text = TAG.sub(_blank, text)
    return ATTRIBUTE.sub(_blank, text)


def straight_quotes(markup: str) -> list[str]:
    """Each straight apostrophe or quote in what a person reads of ``markup``, in context."""
    found = [match.group().strip() for match in STRAIGHT.finditer(read_text(markup))]
    for token in JINJA.findall(markup):
        if token.startswith("{{"):
            found += APOSTROPHE_IN_LITERAL.findall(token)
    return found


def sentences(module: Path) -> list[str]:
    """A words module's string constants: its sentences and their pieces, its docstrings aside."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if id(node) not in docstrings
    ]


def template_names() -> list[str]:
    return sorted(path.relative_to(TEMPLATES).as_posix() for path in TEMPLATES.rglob("*.html"))


@pytest.mark.parametrize("name", template_names())
def test_a_template_s_text_has_curly_apostrophes_and_quotes(name):
    assert straight_quotes((TEMPLATES / name).read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("module", WORDS_MODULES, ids=lambda path: str(path.relative_to(ROOT)))
def test_a_words_module_s_sentences_have_curly_apostrophes_and_quotes(module):
    found = [(text, straight_quotes(text)) for text in sentences(module)]
    assert [(text, quotes) for text, quotes in found if quotes] == []


def test_there_are_templates_and_words_modules_to_check():
    assert len(template_names()) >= 20
    assert {path.parent.name for path in WORDS_MODULES} >= {"respondents", "results", "surveys"}


#: Straight quotes a person would read: each must be found.
STRAIGHT_IN_TEXT = {
    "an apostrophe": "<p>The page's script has not started.</p>",
    "quotes": '<p>Type "yes" to confirm.</p>',
    "after a placeholder": "<p>{{ name }}'s survey</p>",
    "in a tag's text between tags": '<li><a href="/x">Open</a> the class\'s page</li>',
    "in a sentence with markup": 'Students type the code <strong class="c">{code}</strong>, '
    "or scan it with a phone's camera.",
    "in an expression's words": '<p>{{ "Don\'t send" if closed else "Send" }}</p>',
}

#: Straight quotes in code: none is text a person reads.
STRAIGHT_IN_CODE = {
    "attributes": '<p class="muted" id=\'x\' data-x="{{ a }}">Curly’s fine.</p>',
    "jinja": "{% set x = 'a' %}{{ url_for('static', filename=\"x.js\") }}{# it's #}",
    "code": "<p>Set <code>KEY='value'</code> or <pre>\"x\"</pre></p>",
    "a script": "<script>const a = 'b';</script><style>a::after { content: \"x\"; }</style>",
    "a macro's attributes": '{% set attributes %} data-min="{{ q.min }}"{% endset %}',
    "a tag cut by a placeholder": '<strong class="join-code" id="join-code"',
    "a comment": "<!-- it's -->",
}


@pytest.mark.parametrize("markup", STRAIGHT_IN_TEXT.values(), ids=STRAIGHT_IN_TEXT.keys())
def test_a_straight_quote_in_text_is_found(markup):
    assert straight_quotes(markup) != []


@pytest.mark.parametrize("markup", STRAIGHT_IN_CODE.values(), ids=STRAIGHT_IN_CODE.keys())
def test_straight_quotes_in_code_pass(markup):
    assert straight_quotes(markup) == []
