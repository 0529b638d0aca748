"""The dashboard's path for one survey is one pass down: its data is read once (results.tables),
told once (survey_app.privacy), worded once (results.panel and the words modules) and placed
(dashboard.rendering and the views), and no module on the way calls back up into a later step.

Each module has a rank, and none imports a module of a higher rank (the same rank is fine):

0. What everything stands on: the math (survey_app.privacy), the stored data (storage,
   extensions, config), the kinds of question (survey_app.kinds), the one rule for figures in
   words (survey_app.words, results.rounding), and rules that read nothing
   (surveys.definition_checks, surveys.typed_numbers, and the web's small rules: links, forms,
   security, strictjson, file_names, live_updates, assets). A package whose ``__init__``
   imports nothing holds nothing, and is rank 0 too.
1. Reading and telling: results.releases and results.tables (the counts an owner may see,
   read once and told by privacy), surveys.services and surveys.copies, classroom.codes,
   accounts, planning.numbers (a numeric question planned in its unit), respondents.submissions,
   web.parsing, web.ratelimits and web.errors.
2. Wording: each domain's words module (survey_app.surveys.words: the privacy a survey gives,
   in figures and words; results.words: the range a page leads with, releases and a number's
   figures; results.cautions: why a range is too wide yet; results.question_words: a
   question's sentences, each whole; results.joint_words: a paired question's cross-tab in
   words; classroom.words, respondents.words,
   lesson.words, planning.readout_words: the builder's readout), the documents a program reads
   (results.documents, results.exports, respondents.definition), builder.errors and
   classroom.qr_codes.
3. Putting a page's parts together: results.panel (each question's sentences and charts),
   planning.shares and planning.words (a plan, then the plan in words: the words take the
   plan's limits from it), respondents.class_results, classroom.projector_pages, the lesson's
   figures and presenters (its steps for a share and for a number too), builder.form.
4. Placing: dashboard.rendering (the analyst pages' shared placing), every blueprint (the
   views, classroom.projector, classroom.code_slips), web.analyst_area and
   web.template_filters (which format a figure, never word a result again).
5. The app: the factory (survey_app), cli and server.

The checks: no import climbs (every module on the dashboard's path is ranked); no call climbs
while the dashboard of a survey with answers is worked out (a callback the results' tables
would make into the words' module, say); only dashboard.rendering reads the results on the way;
and nothing re-exports: each name of the package is imported from the module that defines it,
and no module keeps imports for others to take (``noqa: F401``).
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Callable, Iterable, Mapping
from fnmatch import fnmatchcase
from pathlib import Path

from tests.analyst_helpers import ROWS, submit
from tests.unit.test_layout import PACKAGE, imports_of, modules

ROOT = PACKAGE.parent

#: Each module's rank, by the first pattern its name matches (see the module's docstring).
RANKS: tuple[tuple[str, int], ...] = (
    # 3 before 2: the plan's words word what planning.shares works out.
    ("survey_app.planning.words", 3),
    ("survey_app.privacy", 0),
    ("survey_app.privacy.*", 0),
    ("survey_app.storage.*", 0),
    ("survey_app.kinds", 0),
    ("survey_app.kinds.*", 0),
    ("survey_app.words", 0),
    ("survey_app.results.rounding", 0),
    ("survey_app.extensions", 0),
    ("survey_app.config", 0),
    ("survey_app.surveys.definition_checks", 0),
    ("survey_app.surveys.typed_numbers", 0),
    ("survey_app.web.links", 0),
    ("survey_app.web.forms", 0),
    ("survey_app.web.security", 0),
    ("survey_app.web.strictjson", 0),
    ("survey_app.web.file_names", 0),
    ("survey_app.web.live_updates", 0),
    ("survey_app.web.assets", 0),
    ("survey_app.web.languages", 0),
    ("survey_app.web.page_words", 0),
    ("survey_app.results.releases", 1),
    ("survey_app.results.tables", 1),
    ("survey_app.surveys.services", 1),
    ("survey_app.surveys.copies", 1),
    ("survey_app.classroom.codes", 1),
    ("survey_app.accounts.services", 1),
    ("survey_app.accounts.access", 1),
    ("survey_app.accounts.devices", 1),
    ("survey_app.planning.numbers", 1),
    ("survey_app.respondents.submissions", 1),
    ("survey_app.web.parsing", 1),
    ("survey_app.web.ratelimits", 1),
    ("survey_app.web.errors", 1),
    ("survey_app.*.words", 2),
    ("survey_app.results.cautions", 2),
    ("survey_app.planning.readout_words", 2),
    ("survey_app.planning.pairs", 2),
    ("survey_app.planning.margin_words", 2),
    ("survey_app.results.mechanism_words", 2),
    ("survey_app.results.release_words", 2),
    ("survey_app.results.question_words", 2),
    ("survey_app.results.joint_words", 2),
    ("survey_app.results.documents", 2),
    ("survey_app.results.exports", 2),
    ("survey_app.respondents.definition", 2),
    ("survey_app.builder.errors", 2),
    ("survey_app.classroom.qr_codes", 2),
    ("survey_app.results.panel", 3),
    ("survey_app.planning.shares", 3),
    ("survey_app.respondents.class_results", 3),
    ("survey_app.classroom.projector_pages", 3),
    ("survey_app.lesson.figures", 3),
    ("survey_app.lesson.presenters", 3),
    ("survey_app.lesson.share_steps", 3),
    ("survey_app.lesson.number_steps", 3),
    ("survey_app.lesson.pair_steps", 3),
    ("survey_app.builder.form", 3),
    ("survey_app.dashboard.rendering", 4),
    ("survey_app.*.views", 4),
    ("survey_app.classroom.projector", 4),
    ("survey_app.classroom.code_slips", 4),
    ("survey_app.web.analyst_area", 4),
    ("survey_app.web.template_filters", 4),
    ("survey_app", 5),
    ("survey_app.cli", 5),
    ("survey_app.server", 5),
)

#: Where the dashboard's path for one survey starts: its blueprint.
DASHBOARD = "survey_app.dashboard.views"


def package_graph() -> dict[str, set[str]]:
    """Each module of the package and the package's modules it imports."""
    return {name: imports_of(path) - {name} for name, path in package_modules().items()}


@functools.cache
def package_modules() -> dict[str, Path]:
    """The package's modules by name, read once for every check here."""
    return modules()


def holds_nothing(name: str) -> bool:
    """Whether ``name`` is a package whose ``__init__`` imports nothing of the package."""
    path = package_modules().get(name)
    return path is not None and path.name == "__init__.py" and not imports_of(path)


def rank_of(name: str) -> int | None:
    """A module's rank (the first of RANKS its name matches); None for a module not ranked."""
    for pattern, rank in RANKS:
        if fnmatchcase(name, pattern):
            return rank
    return 0 if holds_nothing(name) else None


def climbs(
    graph: Mapping[str, Iterable[str]], rank: Callable[[str], int | None]
) -> list[tuple[str, str]]:
    """Each edge of ``graph`` (imports, or calls) from a module to one of a higher rank:
    (importer, imported), lowest importer first."""
    found = []
    for importer, imported in graph.items():
        for target in imported:
            low, high = rank(importer), rank(target)
            if low is not None and high is not None and high > low:
                found.append((importer, target))
    return sorted(found)


def reached_from(graph: Mapping[str, Iterable[str]], start: str) -> set[str]:
    """The modules ``start`` imports, and those they import, and so on, with ``start``."""
    reached, waiting = set(), [start]
    while waiting:
        name = waiting.pop()
        if name not in reached:
            reached.add(name)
            waiting.extend(graph.get(name, ()))
    return reached


def test_the_check_finds_a_climb_in_a_made_up_graph():
    """A lower module importing a higher one is a climb (the shared words reaching for the
    results panel, the planner's numbers for the dashboard); importing down, or within a rank,
    is not."""
    graph = {
        "survey_app.words": {"survey_app.results.panel", "survey_app.results.rounding"},
        "survey_app.planning.numbers": {"survey_app.dashboard.rendering"},
        "survey_app.results.panel": {"survey_app.results.words", "survey_app.planning.shares"},
        "survey_app.dashboard.rendering": {"survey_app.results.panel"},
    }
    assert climbs(graph, rank_of) == [
        ("survey_app.planning.numbers", "survey_app.dashboard.rendering"),
        ("survey_app.words", "survey_app.results.panel"),
    ]


def test_the_ranks_follow_the_path_down():
    assert [
        rank_of(name)
        for name in (
            "survey_app.words",
            "survey_app.results.tables",
            "survey_app.results.words",
            "survey_app.results.panel",
            "survey_app.dashboard.rendering",
            "survey_app",
        )
    ] == [0, 1, 2, 3, 4, 5]


def test_every_module_on_the_dashboards_path_has_a_rank():
    """The path reads the results once, words them through the panel, and places them."""
    path = reached_from(package_graph(), DASHBOARD)
    assert {
        "survey_app.dashboard.rendering",
        "survey_app.results.tables",
        "survey_app.results.panel",
        "survey_app.results.words",
        "survey_app.surveys.words",
        "survey_app.words",
    } <= path
    assert sorted(name for name in path if rank_of(name) is None) == []


def test_no_module_imports_one_of_a_higher_rank():
    assert climbs(package_graph(), rank_of) == []


def calls_of(source: str, function: str) -> int:
    """How many times ``source`` calls ``function`` (by its name, or as an attribute)."""
    return sum(
        isinstance(node, ast.Call)
        and function in {getattr(node.func, "id", None), getattr(node.func, "attr", None)}
        for node in ast.walk(ast.parse(source))
    )


def calls_between_modules(request: Callable[[], object]) -> dict[str, set[str]]:
    """Which of the package's modules call which while ``request()`` runs: each function
    called, by the module that defines it, under the module of the code that called it."""
    calls: dict[str, set[str]] = {}

    def profile(frame, event, arg) -> None:
        caller = frame.f_back.f_globals.get("__name__", "") if frame.f_back else ""
        callee = frame.f_globals.get("__name__", "")
        if event == "call" and caller.startswith("survey_app") and callee.startswith("survey_app"):
            calls.setdefault(caller, set()).add(callee)

    sys.setprofile(profile)
    try:
        request()
    finally:
        sys.setprofile(None)
    return calls


def test_the_dashboard_calls_no_module_of_a_higher_rank(app, signed_in, survey):
    """At run time too: no call goes from a module to one of a higher rank (a callback the
    results' tables would call in the words' module, say), as the dashboard of one survey
    with results is worked out."""
    slug = survey[0]
    submit(app, slug, ROWS)
    pages = []
    calls = calls_between_modules(lambda: pages.append(signed_in.get(f"/analyst/surveys/{slug}")))
    assert pages[0].status_code == 200
    assert {"survey_app.results.panel", "survey_app.results.words"} <= calls[
        "survey_app.dashboard.rendering"
    ]
    assert climbs(calls, rank_of) == []


def test_the_results_are_read_once_on_the_dashboards_path():
    """Only dashboard.rendering reads the results (results.tables.survey_results) on the way,
    once: the panel, the planner and the words modules take what it read."""
    path = reached_from(package_graph(), DASHBOARD) - {"survey_app.results.tables"}
    readers = {
        name: count
        for name in path
        if (
            count := calls_of(package_modules()[name].read_text(encoding="utf-8"), "survey_results")
        )
    }
    assert readers == {"survey_app.dashboard.rendering": 1}
    twice = "results = tables.survey_results(survey)\nif not results:\n    survey_results(s)\n"
    assert calls_of(twice, "survey_results") == 2


# --------------------------------------------------------------------------- no re-exports

#: The modules whose names others may import although they are defined further in: the
#: math's one interface (survey_app.privacy names what it offers in ``__all__``).
INTERFACES = ("survey_app.privacy",)


def defined_names(source: str) -> set[str]:
    """The names a module's own code binds at its top level (functions, classes, assignments,
    in an ``if``, ``try`` or ``with`` too), not the names it imports."""
    return bound_by(ast.parse(source).body)


def bound_by(statements: list[ast.stmt]) -> set[str]:
    """The names these statements bind, and those inside their ``if``, ``try`` and ``with``
    blocks (a function's or class's inside is its own)."""
    names = set()
    for node in statements:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            inner = [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            inner += [s for handler in getattr(node, "handlers", []) for s in handler.body]
            names |= bound_by(inner)
    return names


def borrowed_names(source: str, defined_in: Callable[[str], set[str] | None]) -> list[str]:
    """Each ``module.name`` that ``source`` imports from a module of the package that does not
    define it (nor has it as a submodule): a name taken through another module's imports, or
    from a module that is no more. ``survey_app`` itself offers its modules and the factory."""
    borrowed = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("survey_app"):
            continue
        if node.module == "survey_app" or node.module.startswith(INTERFACES):
            continue
        defined = defined_in(node.module) or set()
        borrowed += [
            f"{node.module}.{alias.name}"
            for alias in node.names
            if alias.name not in defined and defined_in(f"{node.module}.{alias.name}") is None
        ]
    return borrowed


@functools.cache
def defined_in_package(module: str) -> set[str] | None:
    """The names ``module`` of the package defines; None where it is no module of the package."""
    path = package_modules().get(module)
    if path is None:
        return None
    return defined_names(path.read_text(encoding="utf-8"))


def test_the_re_export_check_finds_a_name_taken_through_another_module():
    defined = {"survey_app.a": {"counted"}, "survey_app.b": {"percent"}, "survey_app.b.c": set()}
    source = (
        "from survey_app.a import counted, percent\nfrom survey_app.b import c, percent\n"
        "from survey_app.gone import counted\nfrom survey_app import a\n"
    )
    assert borrowed_names(source, defined.get) == [
        "survey_app.a.percent",
        "survey_app.gone.counted",
    ]
    assert defined_names("from x import y\nZ = 1\ndef f():\n    w = 2\n") == {"Z", "f"}


def test_each_name_is_imported_from_the_module_that_defines_it():
    """Nothing re-exports: the package, its tests and the benchmark import each name of the
    package from its own module (survey_app.privacy, the math's one interface, apart)."""
    files = [
        *PACKAGE.rglob("*.py"),
        *(ROOT / "tests").rglob("*.py"),
        *(ROOT / "benchmarks").rglob("*.py"),
    ]
    borrowed = {
        str(path.relative_to(ROOT)): found
        for path in files
        if "migrations" not in path.parts
        and (found := borrowed_names(path.read_text(encoding="utf-8"), defined_in_package))
    }
    assert borrowed == {}


def silenced_imports(source: str) -> list[int]:
    """The lines of imports of the package whose unused names are silenced (``noqa: F401``)."""
    lines = source.splitlines()
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        and "survey_app" in ast.unparse(node)
        and "F401" in "\n".join(lines[node.lineno - 1 : node.end_lineno])
    ]


def test_the_silenced_import_check_finds_an_import_block_kept_for_others():
    source = (
        "from survey_app.words import (  # noqa: F401\n    counted,\n)\nimport os  # noqa: F401\n"
    )
    assert silenced_imports(source) == [1]


def test_no_module_keeps_imports_for_others():
    """No ``noqa: F401`` import of the package's names in it, but where the factory registers
    the tables (survey_app/__init__.py) and in the kinds' registry."""
    allowed = {PACKAGE / "__init__.py", PACKAGE / "kinds" / "__init__.py"}
    silenced = {
        str(path.relative_to(ROOT)): found
        for path in PACKAGE.rglob("*.py")
        if path not in allowed and (found := silenced_imports(path.read_text(encoding="utf-8")))
    }
    assert silenced == {}
