"""Fuzzers of what players hand the engine (``-m fuzz``; ``--fuzz-budget N`` inputs each):
mutated saves of every compiled game, and garbage decisions. A save either loads into a
game that plays on, or is refused with a SaveError; a decision is applied or refused with a
GameError. Nothing else may come out."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from rulecraft.runtime import Game, GameError, UnknownGame
from rulecraft.runtime.named import SaveError
from rulecraft.runtime.registry import known_games
from rulecraft.runtime.tools.balance import scenarios_of

pytestmark = pytest.mark.fuzz

JUNK: list[Any] = [None, True, -1, 0, 2**70, 1.5, "", "x", "blue", [], [1], {}, {"a": 1}, "9" * 30]


def _positions() -> list[Game]:
    out = []
    for game in sorted(g for g in known_games() if "/" not in g):
        for spec, sid in scenarios_of(game):
            g = Game.new(spec, sid, 5)
            rng = random.Random(5)
            for _ in range(rng.randrange(5, 40)):
                if g.finished:
                    break
                d = g.pending()[0]
                g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
            out.append(g)
    return out


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node[:6]):
            out += _paths(v, (*prefix, i))
    return out


def _mutate(data: Any, rng: random.Random) -> str:
    path = rng.choice(_paths(data))
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    op = rng.choice(["junk", "delete", "add", "number"])
    if op == "delete" and isinstance(parent, dict):
        del parent[key]
    elif op == "add" and isinstance(parent, dict):
        parent[f"extra{rng.randrange(9)}"] = rng.choice(JUNK)
    elif op == "number" and isinstance(parent[key], int):
        parent[key] += rng.choice([-100, -1, 1, 7, 10**20])
    else:
        parent[key] = rng.choice(JUNK)
    return f"{op} {'.'.join(map(str, path))}"


def test_mutated_saves_load_and_play_on_or_are_refused(fuzz_budget: int) -> None:
    games = _positions()
    counts = {"refused": 0, "loaded": 0}
    for i in range(fuzz_budget):
        rng = random.Random(i)
        g = rng.choice(games)
        data = json.loads(g.to_json())
        what = _mutate(data, rng)
        where = f"input {i}: {g.spec.game}/{g.spec.scenario}: {what}"
        try:
            h = Game.from_json(json.dumps(data))
        except (SaveError, UnknownGame):  # a damaged save, or one of a game not compiled here
            counts["refused"] += 1
            continue
        except Exception as exc:
            raise AssertionError(f"{where}: raised {type(exc).__name__}: {exc}") from exc
        counts["loaded"] += 1
        try:
            for _ in range(20):  # it plays on, or stops with an error of the runtime
                if h.finished:
                    break
                d = h.pending()[0]
                h.apply(d.player, d.options[rng.randrange(len(d.options))].id)
        except GameError:
            pass
        except Exception as exc:
            raise AssertionError(f"{where}: loaded, then {type(exc).__name__}: {exc}") from exc
    print(f"saves: {fuzz_budget} inputs, {counts}")


def test_garbage_decisions_are_applied_or_refused(fuzz_budget: int) -> None:
    games = _positions()
    junk_ids: list[Any] = [*JUNK, "card:", "none", "yes", "pass", "alloc:", "offer:x", "\x00"]
    counts = {"refused": 0, "applied": 0}
    for i in range(fuzz_budget):
        rng = random.Random(i)
        g = rng.choice(games).clone()
        if g.finished:
            continue
        player = rng.choice([*range(len(g.spec.seats)), -1, 99, None, "0", True])
        option = rng.choice(junk_ids)
        index = rng.choice([-1, 0, 1, 10**9, True, None, 1.0, "0"])
        for how, what in ((g.apply, option), (g.apply_index, index)):
            try:
                how(player, what)
                counts["applied"] += 1
            except GameError:
                counts["refused"] += 1
            except Exception as exc:
                raise AssertionError(
                    f"input {i}: {player!r}, {option!r} / {index!r}: {type(exc).__name__}: {exc}"
                ) from exc
    print(f"decisions: {fuzz_budget} inputs, {counts}")
