"""`rulecraft coverage`: which rules-index items the rules encode and the tests check.

An item counts as *encoded* when a rules file names its id (a ``rules:`` list, a table's
``source.rules``) and as *tested* when a test names it in a docstring line ``Rules: ID, ...``
(continued on indented lines) or an example of play lists it.  Assumed data (table cells
marked ``assumed:`` or ``gap:``, ``# Assumed:`` notes in rules files) is listed so that
nothing invented goes unnoticed.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import yaml
from rulecraft.runtime.files import read_text

from ..project import Project, as_project
from .registry import CLIError, command, project_of

ID = re.compile(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9.]+)+\b")
#: ``Rules: ID, ID, ...`` in a test, continued on indented lines that start with an id
RULES_LINE = re.compile(r"\bRules:[ \t]*([^\n]+(?:\n[ \t]+[A-Z][A-Z0-9]*-[^\n]*)*)")


def _yaml(path: Path) -> Any:
    """A YAML file the coverage reads (a rules index, an example): its data, or one line."""
    try:
        data = yaml.safe_load(read_text(path))
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CLIError(f"{path}: not valid YAML ({first}); `rulecraft check` shows where") from None
    if data is not None and not isinstance(data, dict):
        raise CLIError(f"{path}: expected a mapping of keys at the top of the file")
    return data


def index_items(index_dir: Path) -> dict[str, dict[str, str]]:
    """Game (file stem) -> {id: kind} from the rules index."""
    return {
        g: {i: kind for i, (kind, _rule) in items.items()} for g, items in _index(index_dir).items()
    }


def _index(index_dir: Path) -> dict[str, dict[str, tuple[str, str]]]:
    """Game (file stem) -> {id: (kind, the rule's text)} from the rules index."""
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for path in sorted(index_dir.glob("*.yaml")):
        data = _yaml(path) or {}
        out[path.stem] = {
            str(it["id"]): (str(it.get("kind", "")), " ".join(str(it.get("rule", "")).split()))
            for it in data.get("items", [])
        }
    return out


def ids_in_tests(root: Path | Project) -> set[str]:
    project = as_project(root)
    found: set[str] = set()
    for path in (project.root / "tests").rglob("*.py"):
        for m in RULES_LINE.finditer(read_text(path)):
            found.update(ID.findall(m.group(1)))
    for path in project.rules.glob("*/examples/*.yaml"):
        data = _yaml(path) or {}
        found.update(str(r) for r in data.get("rules") or [])
    return found


def ids_in_rules(root: Path | Project) -> set[str]:
    found: set[str] = set()
    for path in as_project(root).rules.rglob("*.yaml"):
        found.update(ID.findall(read_text(path)))
    return found


def assumed_notes(root: Path | Project) -> list[str]:
    project = as_project(root)
    notes = []
    for path in sorted(project.rules.rglob("*.yaml")):
        rel = path.relative_to(project.root).as_posix()
        for n, line in enumerate(read_text(path).splitlines(), 1):
            text = line.strip()
            if re.search(r"#\s*Assumed\b|^\s*assumed:|^\s*gap:|\bassumed:\s", line):
                notes.append(f"{rel}:{n}: {text[:110]}")
    return notes


def _add(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--index",
        default=None,
        help="the rules-index folder (default: rules_index in rulecraft.toml, else the "
        "project's rules-index/)",
    )
    p.add_argument("--missing", action="store_true", help="list the items no test names")
    p.add_argument("--assumed", action="store_true", help="list every assumed datum and gap")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")


def index_folder(project: Project, given: str | None = None) -> Path:
    """The rules index coverage counts: ``--index``, else the one the project declares
    (``rules_index`` in rulecraft.toml), else its ``rules-index/`` folder."""
    if given:
        index_dir, where = Path(given), "--index"
    elif project.rules_index is not None:
        index_dir, where = project.rules_index, f"rules_index in {project.config or 'the project'}"
    else:
        index_dir, where = project.root / "rules-index", ""
    if not index_dir.is_dir():
        if where:
            raise CLIError(f"{where}: no rules index at {index_dir} (a folder of <game>.yaml)")
        raise CLIError(
            f"no rules index at {index_dir}: declare yours in rulecraft.toml "
            '(rules_index = "FOLDER") or give --index DIR'
        )
    return index_dir


def _run(args: argparse.Namespace) -> int:
    root = project_of(args)
    items = _index(index_folder(root, args.index))
    tested, encoded = ids_in_tests(root), ids_in_rules(root)
    report = {}
    for game, ids in items.items():
        report[game] = {
            "items": len(ids),
            "encoded": sum(i in encoded for i in ids),
            "tested": sum(i in tested for i in ids),
            "untested": sorted(i for i in ids if i not in tested),
        }
    rule_of = {i: rule for ids in items.values() for i, (_kind, rule) in ids.items()}
    notes = assumed_notes(root)
    if args.json:
        print(json.dumps({"games": report, "assumed": notes}, indent=2))
        return 0
    print(f"{'game':<26} {'items':>6} {'encoded':>14} {'tested':>14}")
    for game, r in report.items():
        n = max(r["items"], 1)
        enc = f"{r['encoded']} ({100 * r['encoded'] // n}%)"
        tst = f"{r['tested']} ({100 * r['tested'] // n}%)"
        print(f"{game:<26} {r['items']:>6} {enc:>14} {tst:>14}")
    print("encoded: a rules file names the item; tested: a test or an example of play names it")
    print(f"{len(notes)} assumed data or gaps marked in rules/ (--assumed lists them)")
    if args.missing:
        for game, r in report.items():
            if r["untested"]:
                print(f"\n{game}: not named by any test:")
                for i in r["untested"]:
                    rule = rule_of.get(i, "")
                    print(f"  {i:<16} {rule[:80] + '...' if len(rule) > 83 else rule}")
    if args.assumed:
        print("\n" + "\n".join(notes))
    return 0


command("coverage", "count the rules-index items the rules encode and the tests check", _add, _run)
