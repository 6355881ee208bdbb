"""The shape of the house: what docs/architecture.md promises about compiler/ and runtime/.

- no module is over 1,000 lines;
- no import circle, counting every import (in functions and under ``TYPE_CHECKING`` too);
- no module imports another module's private (``_name``) names;
- no command (``compiler/commands/*``) imports another command: what they share is in
  ``commands/registry.py``.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("compiler", "runtime")
MAX_LINES = 1000
# one worker of a parallel run reads the tree (graph()), not each
pytestmark = pytest.mark.xdist_group("structure")


def _modules() -> dict[str, Path]:
    """Every module of compiler/ and runtime/ by dotted name (``compiler.codegen.exprs``)."""
    out = {}
    for top in PACKAGES:
        for path in sorted((REPO / top).rglob("*.py")):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(name: str) -> list[tuple[str, str | None, int]]:
    """``(module, imported name or None, line)`` for every import of a module of ours in
    module ``name``, relative imports resolved."""
    path = MODULES[name]
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name.removeprefix("rulecraft.")
                if target in MODULES:
                    out.append((target, None, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = (node.module or "").removeprefix("rulecraft.")
            for alias in node.names:
                if f"{target}.{alias.name}" in MODULES:  # `from . import tables`
                    out.append((f"{target}.{alias.name}", None, node.lineno))
                elif target in MODULES:
                    out.append((target, alias.name, node.lineno))
    return out


@functools.cache
def graph() -> dict[str, list[tuple[str, str | None, int]]]:
    """The imports of every module (read once, when a test first asks: parsing the tree at
    import would cost every worker of a parallel run its collection time)."""
    return {name: _imports(name) for name in MODULES}


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted({t for t, _, _ in graph()[v]} - {v}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph()):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_the_wings() -> None:
    # the checks below mean something only if they read the tree as it is
    assert "compiler.commands.registry" in MODULES and "runtime.machine" in MODULES
    assert any(t == "compiler.commands.registry" for t, _, _ in graph()["compiler.cli"])


@pytest.mark.parametrize("top", PACKAGES)
def test_no_module_is_over_a_thousand_lines(top: str) -> None:
    long = {
        str(path.relative_to(REPO)): n
        for name, path in MODULES.items()
        if name.split(".")[0] == top
        and (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_no_import_circles() -> None:
    assert _cycles() == []


def test_no_import_of_private_names() -> None:
    private = [
        f"{MODULES[name].relative_to(REPO)}:{line} imports {target}.{imported}"
        for name, imports in graph().items()
        for target, imported, line in imports
        if imported is not None
        and imported.startswith("_")
        and not imported.startswith("__")
        and target != name
    ]
    assert private == []


def test_no_command_imports_another() -> None:
    commands = {n for n in MODULES if n.startswith("compiler.commands.")}
    shared = {"compiler.commands.registry"}
    crossing = [
        f"{name} imports {target}"
        for name in sorted(commands - shared)
        for target, _, _ in graph()[name]
        if target in commands - shared and target != name
    ]
    assert crossing == []
