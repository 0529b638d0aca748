"""The package's shape holds: no import circle between its modules, none of them too long to read,
and nothing of the benchmark inside it."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "survey_app"
MAX_LINES = 600


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
    assert {"survey_app.sign_in", "survey_app.builder_pages", "survey_app.dashboard_pages"} <= (
        registered
    )
    assert blueprint_modules() == registered


def test_no_blueprint_imports_another():
    """What several pages share lives in modules no blueprint owns (survey_app.dashboard,
    survey_app.analyst_area)."""
    blueprints = blueprint_modules()
    crossing = {
        name: sorted(imports_of(modules()[name]) & (blueprints - {name})) for name in blueprints
    }
    assert {name: found for name, found in crossing.items() if found} == {}
    assert "survey_app.dashboard" not in blueprints
    assert "survey_app.analyst_area" not in blueprints
