"""Fuzzers of what players hand the engine (``-m fuzz``; ``--fuzz-budget N`` inputs each):
mutated saves of every scenario of every bundled game, and garbage decisions.

A save either loads into the game its decisions make from its seed (checked against an
independent replay, and against the original game when the mutation left the decisions
alone) and plays on, or is refused with a SaveError; a position (no decisions) is never
loaded as a game; a decision is applied or refused with a GameError. Nothing else may come
out."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from rulecraft.runtime import Game, GameError, RulesError
from rulecraft.runtime.layout import LOG
from rulecraft.runtime.named import SaveError, log_events
from rulecraft.runtime.registry import known_games
from rulecraft.runtime.tools.balance import scenarios_of

pytestmark = pytest.mark.fuzz

JUNK: list[Any] = [None, True, -1, 0, 2**70, 1.5, "", "x", "blue", [], [1], {}, {"a": 1}, "9" * 30]
IDS: list[Any] = ["none", "yes", "no", "pass", "done", "alloc:none", "card:", "offer:x", "\x00"]
KINDS: list[Any] = ["human", "human:ann", "mc", "random", "", " mc", "x" * 200, 3, None]


def _games() -> list[Game]:
    """A game of every scenario of every bundled game, played a random number of decisions
    (by id and by index: both are recorded), some to the end."""
    out = []
    for game in sorted(g for g in known_games() if "/" not in g):
        for spec, sid in scenarios_of(game):
            for seed in (5, 6, 7, 8):
                g = Game.new(spec, sid, seed)
                rng = random.Random(f"{game}/{sid}/{seed}")
                try:
                    for _ in range(400 if seed == 8 else rng.choice([0, 3, 20, 60, 150])):
                        if g.finished:
                            break
                        d = rng.choice(g.pending())
                        n = len(d.options)
                        i = rng.randrange(n)
                        if d.kind in ("propose", "report") and rng.random() < 0.7:
                            i = n - 1  # pass or done: windows close, games move on
                        if rng.random() < 0.5:
                            g.apply_index(d.player, i)
                        else:
                            g.apply(d.player, d.options[i].id)
                except GameError:  # a turn limit: the game stopped where it was
                    continue
                if rng.random() < 0.5:
                    g.seat_kinds = tuple(
                        rng.choice(["human", "mc", "human:ann"]) for _ in g.spec.seats
                    )
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


def _mutate_at(data: Any, rng: random.Random, within: tuple = ()) -> str:
    """Delete, add, bump or replace with junk one value at a random path under ``within``."""
    node = data
    for key in within:
        node = node[key]
    paths = [(*within, *p) for p in _paths(node)]
    if not paths:
        return "nothing"
    path = rng.choice(paths)
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    op = rng.choice(["junk", "delete", "add", "number"])
    if op == "delete" and isinstance(parent, dict):
        del parent[key]
    elif op == "add" and isinstance(parent, dict):
        parent[f"extra{rng.randrange(9)}"] = rng.choice(JUNK)
    elif op == "number" and type(parent[key]) is int:
        parent[key] += rng.choice([-100, -1, 1, 7, 10**20])
    else:
        parent[key] = rng.choice(JUNK)
    return f"{op} {'.'.join(map(str, path))}"


def _other_option(g: Game, data: dict[str, Any], rng: random.Random) -> str:
    """Decision k answered with another option legal at that point; the rest kept or cut."""
    decisions = data["decisions"]
    k = rng.randrange(len(decisions))
    h = Game.new(g.spec, None, data["seed"])
    h.max_turns = data["limit"]
    for p, oid in g.decisions()[:k]:
        h.apply(p, oid)
    seat = decisions[k][0]
    asked = [d for d in h.pending() if d.seat == seat]
    if not asked:
        return "nothing"
    options = asked[0].options
    decisions[k][1] = options[rng.randrange(len(options))].id
    if rng.random() < 0.5:
        del decisions[k + 1 :]
    return f"decision {k + 1} answered {decisions[k][1]!r}"


def _mutate(g: Game, data: dict[str, Any], rng: random.Random) -> str:
    decisions = data["decisions"]
    what = rng.choice(
        ["position", "position", "decisions", "decisions", "legal", "seats", "header", "drop"]
    )
    if what == "position" and "position" in data:
        return "position: " + _mutate_at(data, rng, ("position",))
    if what == "decisions" and decisions:
        k = rng.randrange(len(decisions))
        op = rng.choice(["swap", "drop", "twice", "seat", "id", "junk", "cut", "append"])
        if op == "swap" and len(decisions) > 1:
            j = rng.randrange(len(decisions))
            decisions[k], decisions[j] = decisions[j], decisions[k]
        elif op == "drop":
            del decisions[k]
        elif op == "twice":
            decisions.insert(k, list(decisions[k]))
        elif op == "seat":
            decisions[k][0] = rng.choice([*g.spec.seats, *JUNK])
        elif op == "id":
            decisions[k][1] = rng.choice([*IDS, *(d[1] for d in decisions)])
        elif op == "junk":
            decisions[k] = rng.choice(JUNK)
        elif op == "cut":
            del decisions[k:]
        else:
            decisions.append([rng.choice(g.spec.seats), rng.choice(IDS)])
        return f"decisions: {op} at {k + 1}"
    if what == "legal" and decisions:
        return _other_option(g, data, rng)
    if what == "seats":
        seats = data.setdefault("seats", {s: "human" for s in g.spec.seats})
        seat = rng.choice([*g.spec.seats, "nobody"])
        if rng.random() < 0.3:
            seats.pop(seat, None)
        else:
            seats[seat] = rng.choice(KINDS)
        return f"seats: {seat}"
    if what == "drop":
        data.pop("position", None)
        return "position left out" + (": " + _mutate_at(data, rng) if rng.random() < 0.5 else "")
    key = rng.choice(["seed", "limit", "constants", "layout", "rulecraft", "game", "scenario"])
    if key == "seed" and rng.random() < 0.5:
        data["seed"] += 1
    elif key == "constants":
        data["constants"] = rng.choice([{"nope": 1}, JUNK[rng.randrange(len(JUNK))], {}])
    else:
        data[key] = rng.choice(JUNK)
    return f"header: {key}"


def _same(a: Game, b: Game) -> bool:
    """The same state (the log, a long linked list, compared as a list: == on it recurses)."""
    return a.raw[:LOG] + a.raw[LOG + 1 :] == b.raw[:LOG] + b.raw[LOG + 1 :] and log_events(
        a.raw
    ) == log_events(b.raw)


def _replayed(h: Game, data: dict[str, Any]) -> Game:
    """The game ``h``'s own record makes, replayed independently of ``Game.from_json``."""
    o = Game.new(h.spec, None, data["seed"])
    if data.get("limit") is not None:
        o.max_turns = data["limit"]
    for p, oid in h.decisions():
        o.apply(p, oid)
    return o


def test_mutated_saves_are_replayed_or_refused(fuzz_budget: int) -> None:
    games = _games()
    texts = {id(g): g.to_json() for g in games}
    counts = {"refused": 0, "loaded": 0, "loaded, decisions changed": 0}
    for i in range(fuzz_budget):
        rng = random.Random(i)
        g = rng.choice(games)
        original = json.loads(texts[id(g)])
        data = json.loads(texts[id(g)])
        what = _mutate(g, data, rng)
        where = f"input {i}: {g.spec.game}/{g.spec.scenario} ({len(g.decisions())}): {what}"
        try:
            h = Game.from_json(json.dumps(data))
        except SaveError as exc:
            assert str(exc) and "\n" not in str(exc), f"{where}: refused in no words: {exc!r}"
            counts["refused"] += 1
            continue
        except Exception as exc:
            raise AssertionError(f"{where}: raised {type(exc).__name__}: {exc}") from exc
        same = all(
            data.get(k) == original.get(k) for k in ("seed", "limit", "constants", "decisions")
        )
        counts["loaded" if same else "loaded, decisions changed"] += 1
        try:
            assert [list(d) for d in h.decisions()] == [
                [h.spec.seats.index(s), oid] for s, oid in data["decisions"]
            ]
            seats = data.get("seats")
            assert h.seat_kinds == (seats and tuple(seats[s] for s in h.spec.seats)), "seats"
            if same:
                assert _same(h, g), "the decisions were kept but the game differs"
            else:
                assert _same(h, _replayed(h, data)), "not the game its decisions make"
                assert _same(Game.from_json(h.to_json()), h), "its own save does not load"
        except AssertionError as exc:
            raise AssertionError(f"{where}: loaded, but {exc}") from exc
        _plays_on(h, rng, where)
    print(f"saves: {fuzz_budget} inputs, {counts}")
    assert counts["refused"] and counts["loaded"]


def _plays_on(h: Game, rng: random.Random, where: str) -> None:
    """A loaded game plays on for 20 decisions, or stops with an error of the runtime."""
    try:
        for _ in range(20):
            if h.finished:
                break
            d = h.pending()[0]
            h.apply(d.player, d.options[rng.randrange(len(d.options))].id)
    except GameError:
        pass
    except Exception as exc:
        raise AssertionError(f"{where}: loaded, then {type(exc).__name__}: {exc}") from exc


def test_mutated_positions_are_never_loaded_as_games(fuzz_budget: int) -> None:
    """A position (a save before version 3) is refused by from_json whatever it holds; the
    trusting from_position loads it or refuses it with a SaveError, never anything else."""
    games = _games()
    texts = {id(g): g.position_json() for g in games}
    counts = {"refused": 0, "loaded by from_position": 0}
    for i in range(fuzz_budget):
        rng = random.Random(i)
        g = rng.choice(games)
        data = json.loads(texts[id(g)])
        what = _mutate_at(data, rng)
        where = f"input {i}: {g.spec.game}/{g.spec.scenario}: {what}"
        text = json.dumps(data)
        try:
            Game.from_json(text)
        except SaveError:
            pass
        except Exception as exc:
            raise AssertionError(f"{where}: from_json raised {type(exc).__name__}: {exc}") from exc
        else:
            raise AssertionError(f"{where}: a position was loaded as a game")
        try:
            h = Game.from_position(text)
        except SaveError:
            counts["refused"] += 1
            continue
        except Exception as exc:
            raise AssertionError(f"{where}: raised {type(exc).__name__}: {exc}") from exc
        counts["loaded by from_position"] += 1
        _plays_on(h, rng, where)
    print(f"positions: {fuzz_budget} inputs, {counts}")


def test_garbage_decisions_are_applied_or_refused(fuzz_budget: int) -> None:
    games = _games()
    junk_ids: list[Any] = [*JUNK, *IDS]
    counts = {"refused": 0, "applied": 0}
    for i in range(fuzz_budget):
        rng = random.Random(i)
        g = rng.choice(games).clone()
        if g.finished:
            continue
        player = rng.choice([*range(len(g.spec.seats)), -1, 99, None, "0", True])
        option = rng.choice(junk_ids)
        index = rng.choice([-1, 0, 1, 10**9, True, None, 1.0, "0"])
        broken = False
        for how, what in ((g.apply, option), (g.apply_index, index)):
            try:
                how(player, what)
                counts["applied"] += 1
            except RulesError:  # the rules stopped (a turn limit): the game is over for good
                broken = True
            except GameError:
                counts["refused"] += 1
            except Exception as exc:
                raise AssertionError(
                    f"input {i}: {player!r}, {option!r} / {index!r}: {type(exc).__name__}: {exc}"
                ) from exc
        # what was applied is recorded: the game's save replays to it
        try:
            assert broken or _same(Game.from_json(g.to_json()), g)
        except GameError as exc:
            raise AssertionError(f"input {i}: its save does not load: {exc}") from exc
    print(f"decisions: {fuzz_budget} inputs, {counts}")
