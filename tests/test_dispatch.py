"""Direct dispatch (compiler/codegen/dispatch.py): the flow's steps and the cards' routines
called by name in an ``if`` chain, the same methods the tables of bound methods hold."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path
from typing import Any

import pytest
from compile_helpers import REPO
from rulecraft.compiler.codegen.dispatch import dispatch_methods

GAMES = ("march_of_progress", "westphalia", "third_reich_diplomacy")


def test_a_chain_calls_the_waiting_form_first_and_skips_what_the_class_lacks() -> None:
    have = {"q_a", "p_a", "p_b", "p_card__x", "q_card__y", "f_playable__y"}
    out = dispatch_methods(have.__contains__, ("a", "b", "c"), ("x", "y", "z"))
    assert (
        "if i == 0:\n            self.q_a(S, R)\n        elif i == 1:\n            self.p_b(S)\n"
        in (out["q_main"])
    )
    assert "i == 2" not in out["q_main"]  # no routine c: the chain has no branch for it
    assert (
        "    if i == 0:\n        self.p_card__x(S, p)\n        return\n    if i == 1:\n"
        in (out["play_q"])
    )
    assert "self.q_card__y(S, R, p)" in out["play_q"]
    assert "q_card__y" not in out["play_p"] and "self.p_card__x(S, p)" in out["play_p"]
    assert "    if i == 1:\n        return self.f_playable__y(S, p)" in out["playable"]
    # what no branch takes goes through the tables, as before
    assert out["play_q"].endswith(
        "f = self.card_q[c]\n    if f is None:\n        self.card_p[c](S, p)\n"
        "    else:\n        f(S, R, p)"
    )
    assert out["play_p"].endswith("\n    self.card_p[c](S, p)")
    # many cards: a search by halves, every card once
    many = tuple(f"k{n}" for n in range(9))
    tree = dispatch_methods(lambda n: n.startswith("p_card__"), (), many)["play_p"]
    assert "    if i < 4:\n        if i < 2:\n" in tree
    assert [tree.count(f"self.p_card__k{n}(S, p)") for n in range(9)] == [1] * 9
    namespace: dict[str, Any] = {"Any": Any}
    exec(tree, namespace)  # noqa: S102 - generated text, run to check every card lands
    called: list[str] = []

    class Fake:
        card_ix = tuple(range(9))
        card_p = ()

    for n in range(9):
        setattr(Fake, f"p_card__k{n}", lambda self, S, p, n=n: called.append(f"k{n}"))
    for n in range(9):
        namespace["play_p"](Fake(), [], n, 0)
    assert called == list(many)
    empty = dispatch_methods(lambda n: False, ("a",), ())
    ast.parse(empty["q_main"])  # no branch: the loop holds the fallback alone
    assert "i == " not in empty["q_main"] and "self.flow_q[k - 1]" in empty["q_main"]


def _branches(module_file: str, cls: str, method: str) -> dict[int, str] | None:
    """The method each ``i == n`` branch of ``cls.method`` calls, from the generated source."""
    tree = ast.parse(Path(module_file).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for fn in node.body:
                if isinstance(fn, ast.FunctionDef) and fn.name == method:
                    out = {}
                    for test in ast.walk(fn):
                        if (
                            isinstance(test, ast.If)
                            and isinstance(test.test, ast.Compare)
                            and ast.unparse(test.test.left) == "i"  # not an inlined chain's
                        ):
                            n = test.test.comparators[0]
                            eq = isinstance(test.test.ops[0], ast.Eq)
                            if eq and isinstance(n, ast.Constant) and isinstance(n.value, int):
                                call = test.body[0]
                                if isinstance(call, ast.If):  # playable_in: `if f(...): k = ...`
                                    call = ast.Expr(call.test)
                                target = call.value if isinstance(call, ast.Return) else call
                                assert isinstance(target, (ast.Expr, ast.Call))
                                c = target.value if isinstance(target, ast.Expr) else target
                                assert isinstance(c, ast.Call)
                                assert isinstance(c.func, ast.Attribute)
                                out[n.value] = c.func.attr
                    return out
    return None


def _chain_of(engine: Any, method: str) -> dict[int, str]:
    """The branches of ``method`` as the engine's class (or the nearest base defining it)
    has them."""
    for cls in type(engine).__mro__:
        mod = sys.modules[cls.__module__]
        src = (mod.__file__ or "").rsplit(".", 1)[0].split(".cpython")[0] + ".py"
        found = _branches(src, cls.__name__, method) if Path(src).exists() else None
        if found is not None:
            return found
    raise AssertionError(f"no {method} in {type(engine).__name__}'s classes")


@pytest.mark.parametrize("game", GAMES)
def test_every_scenarios_steps_and_cards_call_what_the_tables_hold(game: str) -> None:
    pkg = importlib.import_module(f"rulecraft.generated.{game}")
    for sid, spec in pkg.SPECS.items():
        engine = spec.engine
        d = engine.d
        # the game-wide numbers name the scenario's own steps and cards
        assert [None if i < 0 else engine.STEP_NAMES[i] for i in engine.flow_ix] == list(d["flow"])
        assert [engine.CARD_NAMES[i] for i in engine.card_ix] == list(d["id_card"]), sid
        steps = _chain_of(engine, "q_main")
        for k, i in enumerate(engine.flow_ix):
            if i >= 0:
                step, _waits = engine.flow_q[k]
                assert steps[i] == step.__name__, (sid, d["flow"][k])
        plays = _chain_of(engine, "play_q")
        ps = _chain_of(engine, "play_p")
        playable = _chain_of(engine, "playable")
        kept = _chain_of(engine, "playable_in")
        for c, i in enumerate(engine.card_ix):
            f = engine.card_q[c] or engine.card_p[c]
            if f is not None:
                assert plays[i] == f.__name__, (sid, d["id_card"][c])
            if engine.card_p[c] is not None:
                assert ps[i] == engine.card_p[c].__name__, (sid, d["id_card"][c])
            if engine.card_playable[c] is not None:
                assert playable[i] == engine.card_playable[c].__name__, (sid, d["id_card"][c])
                assert kept[i] == engine.card_playable[c].__name__, (sid, d["id_card"][c])


def test_the_engines_call_steps_and_cards_directly() -> None:
    text = (REPO / "generated" / "march_of_progress" / "engine.py").read_text(encoding="utf-8")
    main = text.split("    def q_main(")[1].split("\n    def ")[0]
    assert "self.q_turn__pick(S, R)" in main and "self.p_turn__reveal(S)" in main
    assert "self.card_playable[v_c] is None or self.playable(S, v_c, v_p)" in text
    assert "    card_playable: tuple[Any, ...]\n" in text
    # a scenario that adds steps has a chain of its own that calls them
    pbom = (REPO / "generated" / "march_of_progress" / "politics_by_other_means.py").read_text(
        encoding="utf-8"
    )
    assert "def q_main(" in pbom and "self.p_turn__neutral_card_back(S)" in pbom


class _Stop(Exception):
    pass


def _calls_of_q_main(have: set[str], turn: tuple[str, ...], flow: tuple[Any, ...], k: int):
    """The steps ``q_main`` and ``q_turns`` (generated for a class with the methods ``have``,
    the game's turn ``turn``) call for a scenario whose flow is ``flow`` (None: the next
    turn), from step ``k``, until the 12th call."""
    steps = tuple(dict.fromkeys(n for n in flow if n is not None))
    methods = dispatch_methods(have.__contains__, steps, (), turn)
    # q_main, and the straight-line turn it hands over to (q_turns) where there is one
    text = "\n".join(methods[m] for m in ("q_main", "q_turns") if m in methods)
    namespace: dict[str, Any] = {"Any": Any, "Callable": Any}
    exec(text, namespace)  # noqa: S102 - generated text, run to follow the calls
    called: list[str] = []

    def log(name: str) -> Any:
        def step(self: Any, *args: Any) -> None:
            called.append(name)
            if len(called) == 12:
                raise _Stop

        return step

    loop = flow.index(None)

    class Fake:
        FLOW_TURN = turn
        flow_ix = tuple(-1 if n is None else steps.index(n) for n in flow)
        flow_loop = loop
        flow_turn = flow[loop + 1 :] == turn
        flow_q: tuple[Any, ...] = ()
        next_turn = log("next")

    for name in have:
        setattr(Fake, name, log(name[2:]))
    if "q_turns" in namespace:
        Fake.q_turns = namespace["q_turns"]  # type: ignore[attr-defined]
    Fake.flow_q = tuple(
        (None, False) if n is None else (getattr(Fake, "q_" + n, None), True) for n in flow
    )
    with pytest.raises(_Stop):
        namespace["q_main"](Fake(), [], None, k)
    return called, text


def test_a_scenario_that_plays_the_games_turn_plays_it_straight_on() -> None:
    have = {"q_s", "q_a", "p_b", "q_c"}
    flow = ("s", None, "a", "b", "c")
    straight, text = _calls_of_q_main(have, ("a", "b", "c"), flow, 3)
    assert "    while True:\n        self.next_turn(S)\n        self.q_a(S, R)\n" in text
    assert "        self.p_b(S)\n        self.q_c(S, R)" in text
    # the same calls as the chain makes step by step (a turn that is not the game's)
    chained, _ = _calls_of_q_main(have, ("a", "c"), flow, 3)
    expected = ["b", "c"] + ["next", "a", "b", "c"] * 2 + ["next", "a"]
    assert straight == chained == expected
    from_setup, _ = _calls_of_q_main(have, ("a", "b", "c"), flow, 0)
    assert from_setup[:6] == ["s", "next", "a", "b", "c", "next"]
    # a class without one of the turn's steps has no straight-line turn
    assert (
        "flow_turn"
        not in dispatch_methods({"q_a"}.__contains__, ("a", "b"), (), ("a", "b"))["q_main"]
    )


@pytest.mark.parametrize("game", GAMES)
def test_the_straight_turn_is_the_scenarios_turn(game: str) -> None:
    pkg = importlib.import_module(f"rulecraft.generated.{game}")
    straight = 0
    for sid, spec in pkg.SPECS.items():
        engine = spec.engine
        d = engine.d
        turn = tuple(d["flow"][d["flow_loop"] + 1 :])
        assert engine.flow_turn == (turn == engine.FLOW_TURN), sid
        if engine.flow_turn:
            straight += 1
            assert [f.__name__ for f, _ in engine.flow_q[d["flow_loop"] + 1 :]] == [
                n for n in _straight_calls(engine)
            ], sid
    assert straight > 0  # most scenarios play the game's turn


def _straight_calls(engine: Any) -> list[str]:
    """The methods the straight-line turn of the engine's ``q_turns`` calls after next_turn."""
    for cls in type(engine).__mro__:
        mod = sys.modules[cls.__module__]
        src = (mod.__file__ or "").rsplit(".", 1)[0].split(".cpython")[0] + ".py"
        if not Path(src).exists():
            continue
        for node in ast.parse(Path(src).read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
                for fn in node.body:
                    if isinstance(fn, ast.FunctionDef) and fn.name == "q_turns":
                        loop = fn.body[-1]
                        assert isinstance(loop, ast.While)
                        # a step inlined sits under its flag, its call in the else
                        calls = [s.orelse[0] if isinstance(s, ast.If) else s for s in loop.body]
                        names = [ast.unparse(s.value.func) for s in calls]  # type: ignore[attr-defined]
                        assert names[0] == "self.next_turn"
                        for s in loop.body:
                            if isinstance(s, ast.If):
                                step = ast.unparse(s.orelse[0]).partition("(")[0]
                                flag = step.replace("self.", "inl_")
                                assert ast.unparse(s.test) in (f"self.{flag}", f"_d_{flag}")
                        return [n.removeprefix("self.") for n in names[1:]]
    raise AssertionError(f"no q_turns in {type(engine).__name__}'s classes")
