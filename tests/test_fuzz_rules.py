"""Mutation fuzzer over real rules files (``-m fuzz``; ``--fuzz-budget N`` inputs per game).

Each input is one game's rules with one file mutated the way designers and editors break
them: a line deleted, doubled, shifted left or right, a number replaced (by 0, -1, a huge
one), two names swapped, a stray character or YAML anchor inserted, the file cut short, a
type changed. ``rulecraft check`` (and, for the small fixture games, ``compile``) must either
accept it or report errors, each with a file:line:col in the project, never raise, never
hang; generated code of an accepted input must pass ruff, and its two forms (the machine
form and the playout form) must play a game of each scenario alike (tests/forms_helpers.py).
A finding names the seed that reproduces it."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

import pytest
from compile_helpers import REPO, import_generated
from forms_helpers import FormsDiffer, lockstep
from fuzz_helpers import Hang, bad_positions, no_hang, scratch
from rulecraft.compiler.project import compile_project, new_sink

pytestmark = pytest.mark.fuzz

NAME = re.compile(r"\b[a-z_][a-z0-9_]{2,}\b")
NUMBER = re.compile(r"(?<![\w.])-?\d+\b")
JUNK = [
    "\t",
    ":",
    "{",
    "}",
    "[",
    "- ",
    "&a ",
    "*a",
    "!!python/object ",
    "'",
    '"',
    "\\",
    "#",
    "\u00a0",
    "é",
]
NUMBERS = ["0", "-1", "1", "99999", "9" * 40, "007", "1e3"]
TYPES = ["int", "bool", "str", "player", "cards", "country", "list", "nonsense"]


def mutate(text: str, rng: random.Random) -> tuple[str, str]:
    """One mutation of ``text``, and what it did."""
    lines = text.split("\n")
    k = rng.randrange(len(lines))
    op = rng.choice(
        ["delete", "double", "shift", "number", "swap", "junk", "cut", "retype", "alias"]
    )
    if op == "delete":
        del lines[k]
    elif op == "double":
        lines.insert(k, lines[k])
    elif op == "shift":
        n = rng.choice([1, 2, 3, 4, 8])
        lines[k] = lines[k][n:] if rng.random() < 0.5 else " " * n + lines[k]
    elif op == "number":
        hits = list(NUMBER.finditer(text))
        if hits:
            m = rng.choice(hits)
            new = rng.choice(NUMBERS)
            return text[: m.start()] + new + text[m.end() :], f"number at {m.start()} -> {new}"
    elif op == "swap":
        names = list(dict.fromkeys(NAME.findall(text)))
        if len(names) > 1:
            a, b = rng.sample(names, 2)
            pos = [m.start() for m in re.finditer(rf"\b{a}\b", text)]
            at = rng.choice(pos)
            return text[:at] + b + text[at + len(a) :], f"name {a} at {at} -> {b}"
    elif op == "junk":
        j = rng.choice(JUNK)
        col = rng.randrange(len(lines[k]) + 1)
        lines[k] = lines[k][:col] + j + lines[k][col:]
        return "\n".join(lines), f"line {k + 1}: {j!r} inserted at column {col + 1}"
    elif op == "cut":
        at = rng.randrange(len(text))
        return text[:at], f"cut at {at}"
    elif op == "retype":
        hits = list(re.finditer(r"type: (\w+)", text))
        if hits:
            m = rng.choice(hits)
            new = rng.choice(TYPES)
            return text[: m.start(1)] + new + text[m.end(1) :], f"type at {m.start(1)} -> {new}"
    elif op == "alias":
        lines.insert(k, "x: &a [1, 2]" if rng.random() < 0.5 else "y: *a")
    return "\n".join(lines), f"{op} line {k + 1}"


def _ruff_findings(root: Path, outputs: dict[Path, str]) -> str:
    """What the project's own ruff check says of generated code (in ``root``, with the
    project's configuration: long rule texts are allowed in generated/)."""
    for rel, text in outputs.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    ruff = Path(sys.executable).with_name("ruff")
    done = subprocess.run(
        [str(ruff), "check", "--no-cache", "generated"], cwd=root, capture_output=True, text=True
    )
    return "" if done.returncode == 0 else done.stdout[-2000:]


def _forms_differ(root: Path, game: str) -> str:
    """Where the two forms of the generated engine part ways in a game of each scenario
    (written by :func:`_ruff_findings`), or ``""``."""
    pkg = import_generated(root, game)
    for sid, spec in sorted(pkg.SPECS.items()):
        try:
            lockstep(spec, 0, most=200)
        except FormsDiffer as exc:
            return f"{sid}: {exc}"
    return ""


#: (game, share of the budget, whether to generate engines too): the fixture games are fast
#: enough to generate; the real games are checked only
PLAN = [
    ("toy", 1.0, True),
    ("merchants", 0.5, True),
    ("envoys", 0.5, True),
    ("march_of_progress", 0.1, False),
    ("westphalia", 0.1, False),
]


@pytest.mark.parametrize("game, share, generate", PLAN)
def test_mutated_rules_are_accepted_or_refused_with_positions(
    game: str, share: float, generate: bool, fuzz_budget: int
) -> None:
    root = scratch(game)
    files = sorted(p for p in (root / "rules" / game).rglob("*.yaml"))
    originals = {p: p.read_text(encoding="utf-8") for p in files}
    findings: list[str] = []
    counts = {"refused": 0, "accepted": 0}
    for i in range(max(1, int(fuzz_budget * share))):
        rng = random.Random(f"{game}:{i}")
        path = rng.choice(files)
        text, what = mutate(originals[path], rng)
        path.write_text(text, encoding="utf-8")
        where = f"{game} input {i}: {path.relative_to(root)}: {what}"
        try:
            sink = new_sink(root)
            with no_hang():
                result = compile_project(root, sink, generate=generate)
            diags = sink.sorted()
            if sink.has_errors:
                counts["refused"] += 1
                findings += [f"{where}: no position: {b}" for b in bad_positions(diags, root)]
            else:
                counts["accepted"] += 1
                if generate and i % 5 == 0:
                    lint = _ruff_findings(root, result.outputs)
                    if lint:
                        findings.append(f"{where}: generated code fails ruff:\n{lint}")
                    else:
                        with no_hang():
                            differ = _forms_differ(root, game)
                        if differ:
                            findings.append(f"{where}: the two forms differ: {differ}")
        except Hang as exc:
            findings.append(f"{where}: {exc}")
        except Exception:
            findings.append(f"{where}: raised\n{traceback.format_exc(limit=-4)}")
        finally:
            path.write_text(originals[path], encoding="utf-8")
    print(f"{game}: {sum(counts.values())} inputs, {counts} , {len(findings)} findings")
    assert not findings, "\n\n".join(findings[:8])
