"""Fuzzers of what people type and configure (``-m fuzz``; ``--fuzz-budget N`` inputs each):
typed offers (Westphalia), allocations and reports of board changes (Third Reich), through
``Game.apply`` and through the terminal's reading of a typed line, and the contents of a
project's ``rulecraft.toml`` through the ``rulecraft`` command.

Every input ends accepted or refused in one line: a GameError from the API, a refusal the
terminal prints, ``rulecraft: error: ...`` and exit 1 from the command. Never another
exception, never a hang (:data:`SECONDS` per input), never a traceback."""

from __future__ import annotations

import contextlib
import io
import os
import random
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fuzz_helpers import no_hang
from rulecraft.compiler.cli import main
from rulecraft.runtime import Game, GameError, registry
from rulecraft.runtime.layout import PENDING
from rulecraft.runtime.tools import reading

pytestmark = pytest.mark.fuzz

#: one input taking longer than this is a finding (a hang, or an allocation without bound)
SECONDS = 10

#: numbers as people (and fuzzers) type them: ASCII and not, signed, huge, empty
NUMBERS = [
    *"0123456789",
    "10", "15", "-1", "--5", "+2", "-0", "²", "①", "٣", "１", "9" * 16, "9" * 5000,
    "999999999", "4294967296", "1e3", "1.5", " 2", "", "0x10", "1_000", "0" * 20 + "2",
]  # fmt: skip
#: pieces of text a typed line may be broken with
JUNK = [
    "", ":", ">", "=", ";", ",", "\x00", "é", "offer:", "alloc:", "report:", " ", "\t", "..",
    "none", "pass", "done", "a" * 300, ";" * 50, "=" * 3, "\u202e", "\ud800",
]  # fmt: skip


def _mangle(text: str, rng: random.Random) -> str:
    """``text`` with a few characters inserted, deleted or repeated."""
    for _ in range(rng.randrange(1, 4)):
        i = rng.randrange(len(text) + 1)
        op = rng.randrange(3)
        if op == 0:
            text = text[:i] + rng.choice(JUNK + NUMBERS) + text[i:]
        elif op == 1:
            text = text[:i] + text[i + rng.randrange(1, 6) :]
        else:
            text = text[:i] + text[i : i + 8] * rng.randrange(2, 5) + text[i:]
    return text


def _positions(name: str, kind: str, seeds: range, steps: int = 400) -> list[Game]:
    """Games of ``name`` waiting for a decision of ``kind`` (one per seed that reaches one)."""
    out = []
    for seed in seeds:
        g = Game.named(name, seed)
        rng = random.Random(seed)
        for _ in range(steps):
            if g.finished:
                break
            d = g.pending()[0]
            if d.kind == kind:
                out.append(g)
                break
            g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
    assert out, f"no {kind} decision in {name}"
    return out


def _decision(g: Game, kind: str) -> Any:
    return next(d for d in g.pending() if d.kind == kind)


def _try(where: str, what: Callable[..., Any], *args: Any) -> str:
    """``what(*args)``, one input: ``accepted`` or ``refused`` (a GameError); anything else
    fails."""
    try:
        with no_hang(SECONDS):
            what(*args)
    except GameError as exc:
        assert "\n" not in str(exc), f"{where}: a refusal of more than one line: {exc}"
        return "refused"
    except Exception as exc:
        raise AssertionError(f"{where}: {type(exc).__name__}: {str(exc)[:300]}") from exc
    return "accepted"


def _terminal(where: str, g: Game, player: int, read: Callable[..., Any], *args: Any) -> str:
    """The terminal's reading ``read(*args)`` of a typed line: an option id it then applies,
    or None (it says why); any exception fails."""
    try:
        with no_hang(SECONDS):
            option = read(*args)
    except Exception as exc:
        raise AssertionError(f"{where}: the terminal raised {type(exc).__name__}: {exc}") from exc
    if option is None:
        return "refused"
    return _try(f"{where}: the terminal's {option[:80]!r}", g.clone().apply, player, option)


# -- typed offers (Westphalia) ---------------------------------------------------------------


def _offer(g: Game, d: Any, rng: random.Random) -> str:
    """An offer as typed: a listed one, changed a little, or items made up of goods, seats
    and amounts (mostly well formed)."""
    if rng.random() < 0.4:
        text = d.options[rng.randrange(len(d.options))].id.removeprefix("offer:")
        if text == "pass" or rng.random() < 0.3:
            return text
        if "=" in text and rng.random() < 0.6:
            return text.rpartition("=")[0] + "=" + rng.choice(NUMBERS)
        return _mangle(text, rng)
    spec = g.spec
    goods = spec.engine.deal_goods
    items = []
    for _ in range(rng.choice([1, 1, 1, 2, 3, 4, 60])):
        good = goods[rng.randrange(len(goods))]
        name = good[0] if rng.random() < 0.95 else rng.choice(JUNK + ["Units"])
        who, to = (
            rng.choice(spec.seats) if rng.random() < 0.95 else rng.choice(JUNK) for _ in range(2)
        )
        if rng.random() < 0.5:  # the proposer must be a party: often it gives
            who = spec.seats[d.player]
        ids = list(spec.ids.get(good[3], ())) if good[3] else []
        small = rng.choice(["1", "1", "2", "3"])
        arg = rng.choice([small, small, *NUMBERS]) if not ids else rng.choice(ids + NUMBERS[:3])
        eq = (good[2] in ("amount", "pick")) != (rng.random() < 0.1)
        items.append(f"{name}:{who}>{to}" + (f"={arg}" if eq else ""))
    text = ";".join(items)
    return _mangle(text, rng) if rng.random() < 0.2 else text


def test_typed_offers_are_applied_or_refused_in_a_line(fuzz_budget: int) -> None:
    games = _positions("westphalia/congress", "propose", range(3))
    counts = {"accepted": 0, "refused": 0}
    for i in range(fuzz_budget):
        rng = random.Random(i)
        g = rng.choice(games)
        d = _decision(g, "propose")
        text = _offer(g, d, rng)
        where = f"input {i}: {text[:120]!r}"
        counts[_try(where, g.clone().apply, d.player, "offer:" + text)] += 1
        h = g.clone()
        _terminal(where, h, d.player, reading.match, text, d, h)
        why = reading.offer_refusal(h, d, text)
        assert isinstance(why, str) and "\n" not in why, f"{where}: {why!r}"
    print(f"offers: {fuzz_budget} inputs, {counts}")


# -- allocations (Third Reich) ---------------------------------------------------------------


def _targets(g: Game, player: int) -> list[str]:
    split, kind = next(
        (raw[2], g.spec.sites[raw[1]].options[6:]) for raw in g.raw[PENDING] if raw[0] == player
    )
    return [g.spec.target_id(kind, t) for t in split.targets]


def _allocation(targets: list[str], rng: random.Random) -> list[tuple[str, str]]:
    out = []
    for _ in range(rng.choice([0, 1, 1, 2, 3, 40])):
        t = rng.choice(targets)
        name = rng.choice([t, t, t.partition("_")[2] or t, t.upper(), rng.choice(JUNK)])
        out.append((name, rng.choice(NUMBERS)))
    return out


def test_allocations_are_applied_or_refused_in_a_line(fuzz_budget: int) -> None:
    first = Game.named("third_reich_diplomacy/situation_1941", 0)
    for seat in ("germany", "britain", "russia"):
        first.apply(first.spec.seats.index(seat), "number:0")
    games = [first, *_positions("third_reich_diplomacy/campaign_1939", "allocate", range(2))]
    counts = {"accepted": 0, "refused": 0}
    for i in range(fuzz_budget):
        rng = random.Random(i)
        g = rng.choice(games)
        d = _decision(g, "allocate")
        parts = _allocation(_targets(g, d.player), rng)
        body = ",".join(f"{t}={n}" for t, n in parts) or "none"
        body = _mangle(body, rng) if rng.random() < 0.2 else body
        where = f"input {i}: {body[:120]!r}"
        counts[_try(where, g.clone().apply, d.player, "alloc:" + body)] += 1
        typed = " ".join(f"{t}={n}" for t, n in parts) or rng.choice(["none", "0", ""])
        h = g.clone()
        _terminal(where, h, d.player, reading.allocation, typed, d, h)
    print(f"allocations: {fuzz_budget} inputs, {counts}")


# -- reports of board changes (Third Reich) ----------------------------------------------------


def test_reports_are_applied_or_refused_in_a_line(fuzz_budget: int) -> None:
    games = _positions("third_reich_diplomacy/campaign_1939", "report", range(3))
    facts = sorted(
        {
            d.options[k].id[7:].rpartition("=")[0]
            for g in games
            for d in [_decision(g, "report")]
            for k in range(0, len(d.options) - 1, 7)
        }
    )
    values = [*NUMBERS, "yes", "no", "none", "germany", "allies", "Yes", "true", "-"]
    counts = {"accepted": 0, "refused": 0}
    for i in range(fuzz_budget):
        rng = random.Random(i)
        g = rng.choice(games)
        d = _decision(g, "report")
        fact = rng.choice(facts) if rng.random() < 0.9 else rng.choice(JUNK + ["g.x", "a.b.c.d"])
        text = f"{fact}={rng.choice(values)}"
        text = _mangle(text, rng) if rng.random() < 0.2 else text
        where = f"input {i}: {text[:120]!r}"
        counts[_try(where, g.clone().apply, d.player, "report:" + text)] += 1
        h = g.clone()
        _terminal(where, h, d.player, reading.match, text, d, h)
    print(f"reports: {fuzz_budget} inputs, {counts}")


# -- project configurations (rulecraft.toml) --------------------------------------------------

KEYS = ["rules", "generated", "package", "rule", "Package", "tool", "rules.x", '"rules"']
VALUES = [
    '"rules"', '"generated"', '"engines"', '"my_engines"', '"my_engines.sub"', '""', '"."',
    '".."', '"../x"', '"/etc"', '"/tmp"', '"a/b"', '"generated/../.."', '"rules/../../.."',
    '"rulecraft"', '"rulecraft.runtime"', '"rulecraft.generated"', '"rulecraft_x"', '"json"',
    '"os.path"', '"sys"', '"builtins"', '"__main__"', '"_"', '"a..b"', '"1abc"', '"my-engines"',
    '"é"', '"a\\u0000b"', '"' + "a" * 300 + '"', "1", "-1", "true", "[1]", '["rules"]',
    "{a = 1}", "1979-05-27", "inf", "nan", '"""x"""', "'rules'",
]  # fmt: skip
RAW = [
    b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\x00", b"=", b"[", b"[[x]]", b"x = 1 = 2", b'x = "',
    b"\xc3", b"[tool.rulecraft]", b"rules = ", b"\n" * 3, b"# only a comment",
]  # fmt: skip


def _config(rng: random.Random) -> bytes:
    lines = []
    for _ in range(rng.randrange(0, 5)):
        if rng.random() < 0.85:
            lines.append(f"{rng.choice(KEYS)} = {rng.choice(VALUES)}".encode())
        else:
            lines.append(rng.choice(RAW))
    data = b"\n".join(lines) + (b"\n" if rng.random() < 0.8 else b"")
    if rng.random() < 0.1:
        i = rng.randrange(len(data) + 1)
        data = data[:i] + rng.choice(RAW) + data[i:]
    return data


@contextlib.contextmanager
def _registry_kept() -> Iterator[None]:
    """The games found by name as they were (``list`` makes the project's engines used)."""
    packages, folders, specs = (
        list(registry.PACKAGES),
        dict(registry._FOLDERS),
        dict(registry._SPECS),
    )
    try:
        yield
    finally:
        registry.PACKAGES[:] = packages
        registry._FOLDERS.clear()
        registry._FOLDERS.update(folders)
        registry._SPECS.clear()
        registry._SPECS.update(specs)


def _layout(root: Path, rng: random.Random) -> str:
    """The project's folders: usual, or odd (a file for rules/, a link out for generated/)."""
    choice = rng.choice(["usual"] * 6 + ["no rules", "rules file", "generated link", "game"])
    if choice != "no rules":
        (root / "rules").mkdir()
    if choice == "rules file":
        (root / "rules").rmdir()
        (root / "rules").write_text("not a folder")
    if choice == "generated link":
        (root / "generated").symlink_to(tempfile.gettempdir())
    if choice == "game":
        (root / "rules" / "empty_game").mkdir()
        (root / "rules" / "empty_game" / "game.yaml").write_text("game: x\n")
    return choice


def test_project_configurations_are_used_or_refused_in_a_line(fuzz_budget: int) -> None:
    counts = {"used": 0, "refused": 0}
    for i in range(fuzz_budget):
        rng = random.Random(i)
        root = Path(tempfile.mkdtemp(prefix="rulecraft-fuzz-config-"))
        try:
            data = _config(rng)
            odd = rng.random()
            if odd < 0.2:
                (root / "pyproject.toml").write_bytes(b"[tool.rulecraft]\n" + data)
            elif odd < 0.22:
                os.mkfifo(root / "rulecraft.toml")  # nobody writes to it
                data = b"(a pipe)"
            elif odd < 0.24:
                (root / "rulecraft.toml").symlink_to(rng.choice(["/dev/zero", "/nowhere", "."]))
                data = b"(a link to " + os.readlink(root / "rulecraft.toml").encode() + b")"
            else:
                (root / "rulecraft.toml").write_bytes(data)
            layout = _layout(root, rng)
            command = rng.choice([["list"], ["list"], ["check"], ["play", "nogame"]])
            where = f"input {i}: {command[0]}, {layout}, {data[:200]!r}"
            out, err = io.StringIO(), io.StringIO()
            try:
                with (
                    _registry_kept(),
                    no_hang(SECONDS),
                    contextlib.redirect_stdout(out),
                    contextlib.redirect_stderr(err),
                ):
                    code = main(["--project", str(root), *command])
            except Exception as exc:
                raise AssertionError(f"{where}: {type(exc).__name__}: {exc}") from exc
            text = err.getvalue()
            if code == 0:
                counts["used"] += 1
                continue
            assert code == 1, f"{where}: exit {code}: {text}"
            assert "Traceback" not in text, f"{where}: {text}"
            errors = [line for line in text.splitlines() if line.startswith("rulecraft: error:")]
            assert errors or command[0] == "check", f"{where}: no error line: {text!r}"
            if command[0] != "check":  # check lists the rules' diagnostics, then its verdict
                assert text.count("\n") == 1, f"{where}: more than one line: {text!r}"
            counts["refused"] += 1
        finally:
            shutil.rmtree(root, ignore_errors=True)
    print(f"configurations: {fuzz_budget} inputs, {counts}")
