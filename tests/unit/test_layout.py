"""The package's shape holds: no import circle between its modules, none of them (nor any of their
functions, nor any test file) too long to read, and nothing of the benchmark inside it."""

from __future__ import annotations

import ast
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "survey_app"
TESTS = Path(__file__).resolve().parents[1]
MAX_LINES = 600
#: The longest a function of the package may be, decorators and docstring included.
MAX_FUNCTION_LINES = 60
#: The longest a file under tests/ may be: split by what its tests test beyond that.
MAX_TEST_FILE_LINES = 800


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The package's modules that ``path`` imports, at any level (inside functions too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("survey_app"):
            if node.module != "survey_app":
                found.add(node.module)
            for alias in node.names:  # "from survey_app import privacy" names a module
                candidate = f"{node.module}.{alias.name}"
                as_path = PACKAGE.parent / candidate.replace(".", "/")
                if as_path.with_suffix(".py").exists() or as_path.is_dir():
                    found.add(candidate)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("survey_app.")}
    return found


def modules() -> dict[str, Path]:
    return {
        module_name(path): path for path in PACKAGE.rglob("*.py") if "migrations" not in path.parts
    }


def test_no_import_circle_between_modules():
    """The factory (survey_app/__init__.py) imports the blueprints; other than that, no module
    reaches itself again through what it imports."""
    graph = {
        name: imports_of(path) - {name} for name, path in modules().items() if name != "survey_app"
    }
    circles = []

    def visit(start: str, node: str, path: list[str]) -> None:
        for target in graph.get(node, ()):
            if target == start:
                circles.append([*path, start])
            elif target in graph and target not in path:
                visit(start, target, [*path, target])

    for name in graph:
        visit(name, name, [name])
    assert circles == []


def test_no_module_is_longer_than_a_newcomer_reads():
    lengths = {
        name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in modules().items()
    }
    assert {name: n for name, n in lengths.items() if n > MAX_LINES} == {}


def function_lengths(source: str) -> dict[str, int]:
    """Each function (nested ones and methods too) by its line and name, and its length in
    lines from its first decorator to its last line."""
    lengths = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            lengths[f"{node.name} (line {node.lineno})"] = node.end_lineno - first + 1
    return lengths


def test_function_lengths_count_decorators_and_nested_functions():
    source = "@a\n@b\ndef outer():\n    def inner():\n        pass\n    return inner\n"
    assert function_lengths(source) == {"outer (line 3)": 6, "inner (line 4)": 2}


def test_no_function_is_longer_than_a_screen():
    """Every function in survey_app/, migrations included, fits in MAX_FUNCTION_LINES lines."""
    too_long = {
        f"{path.relative_to(PACKAGE.parent)}: {name}": length
        for path in PACKAGE.rglob("*.py")
        for name, length in function_lengths(path.read_text(encoding="utf-8")).items()
        if length > MAX_FUNCTION_LINES
    }
    assert too_long == {}


def files_under(root: Path) -> dict[str, int]:
    """Each text file under ``root`` (not node_modules or caches) by its path, and its lines.

    Those folders are left out before they are entered: npm may be making node_modules anew
    while this runs (CI installs axe-core beside the unit tests)."""
    skipped = {"node_modules", "__pycache__", ".pytest_cache"}
    lengths = {}
    for folder, folders, files in os.walk(root):
        folders[:] = sorted(name for name in folders if name not in skipped)
        for name in files:
            path = Path(folder) / name
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:  # a binary file has no lines to read
                continue
            lengths[str(path.relative_to(root))] = len(text.splitlines())
    return lengths


def test_files_under_counts_lines_and_skips_node_modules(tmp_path):
    (tmp_path / "unit").mkdir()
    (tmp_path / "unit" / "test_a.py").write_text("x = 1\n" * 801, encoding="utf-8")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "big.js").write_text("x\n" * 5000, encoding="utf-8")
    assert files_under(tmp_path) == {str(Path("unit") / "test_a.py"): 801}


def test_no_test_file_is_longer_than_a_newcomer_reads():
    too_long = {name: n for name, n in files_under(TESTS).items() if n > MAX_TEST_FILE_LINES}
    assert too_long == {}


def test_the_package_holds_no_benchmark():
    assert [name for name in modules() if "bench" in name] == []


def defines_blueprint(path: Path) -> bool:
    """True if the module binds a blueprint of its own at its top level (``bp = ...``)."""
    return any(
        isinstance(node, ast.Assign)
        and any(isinstance(target, ast.Name) and target.id == "bp" for target in node.targets)
        for node in ast.parse(path.read_text(encoding="utf-8")).body
    )


def blueprint_modules() -> set[str]:
    """The modules that define a Flask blueprint (``bp = Blueprint(...)`` or a maker of one)."""
    return {
        name for name, path in modules().items() if name != "survey_app" and defines_blueprint(path)
    }


def test_every_blueprint_module_is_found(app):
    """The check below sees exactly the blueprints the factory registers, the analyst's too."""
    registered = {blueprint.import_name for blueprint in app.blueprints.values()}
    assert {
        "survey_app.accounts.views",
        "survey_app.builder.views",
        "survey_app.dashboard.views",
    } <= registered
    assert blueprint_modules() == registered


def test_no_blueprint_imports_another():
    """What several pages share lives in modules no blueprint owns (survey_app.dashboard.rendering,
    survey_app.web.analyst_area)."""
    blueprints = blueprint_modules()
    crossing = {
        name: sorted(imports_of(modules()[name]) & (blueprints - {name})) for name in blueprints
    }
    assert {name: found for name, found in crossing.items() if found} == {}
    assert "survey_app.dashboard.rendering" not in blueprints
    assert "survey_app.web.analyst_area" not in blueprints


def empty_forms() -> list[str]:
    """The package's FlaskForm classes with no fields of their own (only a CSRF token)."""
    found = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            if "FlaskForm" not in {getattr(base, "id", None) for base in node.bases}:
                continue
            if not any(isinstance(statement, ast.Assign) for statement in node.body):
                found.append(f"{name}.{node.name}")
    return found


def test_each_cross_cutting_view_rule_is_written_once():
    """No caching (security.never_cached) and the buttons' form (forms.ActionForm) each have
    one place; the CSRF token is checked by CSRFProtect alone, never again by a view."""
    sources = {name: path.read_text(encoding="utf-8") for name, path in modules().items()}
    assert [name for name, text in sources.items() if '"no-store"' in text] == [
        "survey_app.web.security"
    ]
    assert empty_forms() == ["survey_app.web.forms.ActionForm"]
    checks = ("validate_csrf", "ActionForm().validate")
    assert [name for name, text in sources.items() if any(c in text for c in checks)] == []
