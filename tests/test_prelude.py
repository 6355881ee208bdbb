"""The engine prelude (rulecraft.runtime.prelude): the helpers every generated engine calls,
one module that the engines import (never a copy of it in a generated file), its slot names
layout's, its die rng's; the standalone copy the native build compiles; and generated data
written compactly."""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path
from typing import Any

import pytest
from fixtures.toy import PACKAGE
from rulecraft.compiler.codegen.module import PRELUDE_NAMES, _py, prelude_alias
from rulecraft.runtime import SUSPEND, DeadEnd, GameEnded, RulesError, TurnLimit, layout, prelude
from rulecraft.runtime.rng import FIXED_ROLLS, fix_rolls, roll, seed_state, unfix_rolls
from rulecraft.runtime.split import Changes

REPO = Path(__file__).resolve().parent.parent
GENERATED = sorted((REPO / "generated").glob("*/*.py"))
ENGINES = sorted((REPO / "generated").glob("*/engine.py"))


def state(seed: int = 2024) -> list[Any]:
    S: list[Any] = [None] * layout.HEADER
    S[layout.RNG], S[layout.DRAWS], S[layout.REVEALS] = seed_state(seed), 0, 0
    S[layout.LOG] = None
    S[layout.UNWIND] = []
    return S


# -- where the prelude lives


def test_slot_constants_are_layouts() -> None:
    slots = [n for n in prelude.__all__ if n.isupper() and n.lower() in layout.HEADER_NAMES]
    assert slots == [
        "RNG",
        "DRAWS",
        "REVEALS",
        "TURN",
        "LIMIT",
        "RESULT",
        "PENDING",
        "LOG",
        "UNWIND",
    ]
    for n in slots:
        assert getattr(prelude, n) == getattr(layout, n) == layout.HEADER_NAMES.index(n.lower())
    assert PACKAGE.engine._REVEALS == layout.REVEALS and PACKAGE.engine._UNWIND == layout.UNWIND


def test_the_names_generated_code_calls_come_from_the_prelude() -> None:
    assert set(PRELUDE_NAMES.values()) == set(prelude.__all__)
    assert PRELUDE_NAMES["_roll"] == "roll" and PRELUDE_NAMES["MAX_LOOP"] == "MAX_LOOP"
    assert prelude_alias("REVEALS") == "_REVEALS"
    for alias, name in PRELUDE_NAMES.items():  # the toy's engine has every one, the same object
        assert getattr(PACKAGE.engine, alias) is getattr(prelude, name), alias


def test_one_implementation_of_the_die_and_the_bitmasks() -> None:
    from rulecraft.runtime import rng

    assert prelude.roll is rng.roll and prelude.bits is layout.bits
    assert prelude.mask is layout.mask_of


@pytest.mark.parametrize("path", GENERATED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_generated_module_defines_a_helper_itself(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bound = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound |= {t.id for t in targets if isinstance(t, ast.Name)}
    helpers = set(PRELUDE_NAMES) | set(prelude.__all__) | {"_MASK64", "_GAMMA", "_BITS", "_BITS8"}
    assert not bound & helpers, sorted(bound & helpers)


@pytest.mark.parametrize("path", ENGINES, ids=lambda p: p.parent.name)
def test_every_engine_imports_the_whole_prelude(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {
        (a.name, a.asname or a.name)
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module == "rulecraft.runtime.prelude"
        for a in node.names
    }
    assert imported == {(n, a) for a, n in PRELUDE_NAMES.items()}


# -- the helpers


def test_roll_draws_the_numbers_it_always_drew() -> None:
    """The values and generator state the engines' own _roll gave before it moved here."""
    S = [seed_state(2024), 0]
    assert [prelude.roll(S, s) for s in (6, 6, 20, 2, 100, 3)] == [1, 2, 17, 1, 95, 2]
    assert S == [8145865097727323383, 6]
    assert prelude.shuffled(S, range(8)) == (2, 4, 0, 3, 7, 1, 5, 6)
    assert S == [14163892538151506314, 13]  # one draw a card but the first
    with pytest.raises(RulesError, match="cannot roll a die with 0 sides"):
        prelude.roll(S, 0)
    assert S[1] == 13


def test_a_shuffle_takes_no_fixed_value_and_a_roll_does() -> None:
    S, T = state(5), state(5)
    fix_rolls(S, [4])
    try:
        assert prelude.shuffled(S, "abcde") == prelude.shuffled(T, "abcde")
        assert prelude.roll(S, 6) == 4
        roll(T, 6)
        assert S == T  # the generator drew as usual
    finally:
        unfix_rolls(S)
    assert FIXED_ROLLS.get(id(S)) is None


def test_bits_masks_and_sets() -> None:
    assert prelude.bits(0) == () and prelude.bits(0b1011) == (0, 1, 3)
    big = (1 << 300) | (1 << 9) | 1
    assert prelude.bits(big) == (0, 9, 300) and prelude.bits(big) is prelude.bits(big)
    assert all(prelude.bits(m) == tuple(i for i in range(9) if m >> i & 1) for m in range(512))
    assert prelude.mask([0, 3, 3]) == 0b1001 and prelude.mask(()) == 0
    assert prelude.count(big) == 3
    assert prelude.has(0b100, 2) and not prelude.has(0b100, 1) and not prelude.has(-1, None)
    assert prelude.first(0b10100) == 2
    with pytest.raises(RulesError, match=re.escape("first() of an empty list")):
        prelude.first(0)
    assert prelude.head((7, 8)) == 7
    with pytest.raises(RulesError, match=re.escape("first() of an empty list")):
        prelude.head(())
    assert prelude.take(0b110, 2) == 0b010
    for m, c in ((0b110, 0), (0b110, None)):
        with pytest.raises(RulesError, match="is not in the zone it is moved from"):
            prelude.take(m, c)
    assert prelude.remove((1, 2, 1), 1) == (2, 1)
    with pytest.raises(RulesError, match="card 5 is not in the zone"):
        prelude.remove((1, 2), 5)
    assert prelude.uniq([3, 1, 3, 2, 1]) == [3, 1, 2]
    assert prelude.name(("a", "b"), 1) == "b" and prelude.name(("a",), None) == "none"


def test_decisions_drawn_in_a_playout() -> None:
    R = random.Random(1).random
    assert prelude.pick(R, ["only"]) == "only"
    assert {prelude.pick(R, "abc") for _ in range(200)} == set("abc")
    with pytest.raises(DeadEnd, match="a decision with no legal option"):
        prelude.pick(R, [])
    assert {prelude.pick_optional(R, "ab") for _ in range(200)} == {"a", "b", None}
    assert prelude.pick_optional(R, []) is None


def test_waiting_and_asking_everyone() -> None:
    S = state()
    assert prelude.wait(S, ("frame",)) is SUSPEND and S[layout.UNWIND] == [("frame",)]
    assert prelude.ask_all(S, ("f2",), [(0, 1, (), ()), (1, 1, (), ())]) is SUSPEND
    assert S[layout.UNWIND][-1] == ("f2",) and S[layout.PENDING] == ((0, 1, (), ()), (1, 1, (), ()))
    with pytest.raises(DeadEnd, match="decision 'simultaneous' for player None has no legal"):
        prelude.ask_all(S, ("f3",), [])
    with pytest.raises(DeadEnd, match="decision 'trade' for player 2 has no legal option"):
        prelude.dead("trade", 2)


def test_the_log_and_its_audience() -> None:
    S = state()
    prelude.log(S, 3, (1,))
    prelude.log_to(S, 4, (), 0b10)
    assert S[layout.LOG] == (4, (), 0b10, (3, (1,), None, None))
    S[layout.LOG] = False  # a playout: the log is off
    prelude.log(S, 3, ())
    prelude.log_to(S, 3, (), 1)
    assert S[layout.LOG] is False


@pytest.mark.parametrize(
    ("winners", "shared", "tie"),
    [((1,), False, False), ((0, 1), False, True), ((), False, True), ((0, 1), True, False)],
)
def test_the_end_of_the_game(winners: tuple[int, ...], shared: bool, tie: bool) -> None:
    S = state()
    with pytest.raises(GameEnded):
        prelude.end(S, iter(winners), "score", shared)
    assert S[layout.RESULT] == (winners, tie, "score")


def test_the_bounds_on_runaway_rules() -> None:
    assert prelude.MAX_LOOP == 1_000_000
    with pytest.raises(RulesError, match="a loop ran 1,000,000 times"):
        prelude.endless_loop()
    S = state()
    S[layout.TURN], S[layout.LIMIT] = 6, 5
    with pytest.raises(TurnLimit, match="turn 6 exceeds the limit of 5"):
        prelude.turn_limit(S, "rules/toy/flow.yaml:3:5")


def test_maps() -> None:
    # 0 - 1 - 2 - 3, and 0 - 4 - 3
    adjacent = {0: (1, 4), 1: (0, 2), 2: (1, 3), 3: (2, 4), 4: (0, 3)}
    assert prelude.reachable(adjacent, 0, {1, 2}) == [0, 1, 2]
    assert prelude.reachable(adjacent, 0, set()) == [0]
    everything = set(adjacent)
    assert prelude.path_cost(adjacent, 0, 0, set(), everything) == 0
    assert prelude.path_cost(adjacent, 0, 3, set(), everything) == 1  # through 4
    assert prelude.path_cost(adjacent, 0, 3, {1, 2}, everything - {4}) == 0
    assert prelude.path_cost(adjacent, 0, 3, set(), {0, 1, 3}) == -1


def test_table_lookups() -> None:
    cells = (("2", 2, False, None), ("x", None, False, "no result"), ("6+", 6, True, None))
    # (id, by range, rows, columns, cells, clamp low, clamp high, texts, shifts, CRT data)
    by_range = (
        "combat",
        True,
        ((None, 2), (3, 4), (5, None)),
        (),
        cells,
        False,
        False,
        (),
        None,
        None,
    )
    assert prelude.lookup(by_range, 7, -9) == (7, 0, "2", 2, False)
    assert prelude.lookup(by_range, 7, 12)[2:] == ("6+", 6, True)
    with pytest.raises(RulesError, match=r"table combat: 3 falls in a gap \(no result\)"):
        prelude.lookup(by_range, 7, 3)
    closed = ("odds", True, ((1, 2), (3, 4)), (), cells[:2], True, False, (), None, None)
    assert prelude.lookup(closed, 0, -1)[1] == 0  # below the first row: the first row
    with pytest.raises(RulesError, match="table odds: 9 is off the table"):
        prelude.lookup(closed, 0, 9)
    matrix = (
        "m",
        False,
        ("a", "b"),
        ("x", "y"),
        tuple((str(i), i, False, None) for i in range(4)),
        False,
        False,
        (),
        (0, 0, 1, 0),
        None,
    )
    assert prelude.lookup(matrix, 1, "b", "x") == (1, 2, "2", 2, False)
    assert prelude.cell_shift(matrix, 2) == 1 and prelude.cell_shift(by_range, 0) == 0
    with pytest.raises(RulesError, match=r"table m: no row 'c' \(rows: a, b\)"):
        prelude.lookup(matrix, 1, "c", "x")
    with pytest.raises(RulesError, match=r"table m: no column 'z' \(columns: x, y\)"):
        prelude.lookup(matrix, 1, "a", "z")


def test_table_programs_and_reports() -> None:
    class Engine:
        def f_mods(self, S: list[Any], x: int) -> int:
            return x + 1

    assert prelude.tcall(Engine(), ("f_mods", None), 0, 0, [], 4) == 5
    assert prelude.tcall(Engine(), ("f_mods", None), 1, "default", [], 4) == "default"
    # bound once per engine (``self.tfun_<part>``): the same answers, called by table number
    mods = prelude.programs(Engine(), ("f_mods", None), "default")
    assert mods[0]([], 4) == 5 and mods[1]([], 4) == "default"
    assert prelude.programs(Engine(), None, 0) == ()
    S = [None] * 20
    S[14], S[15] = 1, 2
    options = prelude.report_options(S, ((14, 2, (1, 2, 3), False),))
    assert isinstance(options, Changes)
    assert prelude.report(S, (15, 3)) and S[15] == 3
    assert not prelude.report(S, None)
    # a reference fact: its slot holds -1 for none, its changes say None
    S[16], S[17] = -1, 0
    facts = ((16, 2, (0, 1, None), True),)
    refs = prelude.report_options(S, facts)
    assert list(refs) == [(16, 0), (16, 1), (17, 1), (17, None)]
    assert prelude.report(S, (17, None), facts) and S[17] == -1
    assert prelude.report(S, (16, 1), facts) and S[16] == 1


def test_deals_of_nobody() -> None:
    assert prelude.deal_parties(None) == ()
    with pytest.raises(RulesError, match=re.escape("carry_out() of no deal")):
        prelude.carry_out(None, [], None)


# -- the native build's copy


def test_the_standalone_prelude_is_the_prelude_with_its_runtime_functions_copied_in() -> None:
    from rulecraft.compiler.native import standalone_prelude

    text = standalone_prelude()
    tree = ast.parse(text)
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert {"roll", "bits", "mask", "lookup", "shuffled"} <= defined
    ns: dict[str, Any] = {"__name__": "standalone_prelude_test"}
    exec(compile(text, "<standalone prelude>", "exec"), ns)
    assert set(ns["__all__"]) == set(prelude.__all__)
    for n in prelude.__all__:
        assert n in ns, n
        if isinstance(getattr(prelude, n), int):
            assert ns[n] == getattr(prelude, n)
    assert ns["FIXED_ROLLS"] is FIXED_ROLLS and ns["RulesError"] is RulesError
    S, T = state(9), state(9)
    assert [ns["roll"](S, 6) for _ in range(50)] == [roll(T, 6) for _ in range(50)] and S == T
    assert ns["shuffled"](S, range(9)) == prelude.shuffled(T, range(9)) and S == T
    assert all(ns["bits"](m) == prelude.bits(m) for m in (0, 5, 255, 256, 1 << 70 | 3))
    fix_rolls(S, [2])
    try:
        assert ns["roll"](S, 6) == 2
    finally:
        unfix_rolls(S)


def test_a_native_build_of_another_prelude_is_refused(tmp_path: Path) -> None:
    import hashlib
    import json

    from rulecraft.runtime import UnknownGame
    from rulecraft.runtime.registry import check_native, native_runtime_hashes

    (tmp_path / "engine.py").write_text("x = 1\n")
    sources = {"engine.py": hashlib.sha256(b"x = 1\n").hexdigest()}
    manifest = tmp_path / "native.json"
    for runtime, refused in ((None, False), (native_runtime_hashes(), False), ({"a": "b"}, True)):
        data: dict[str, Any] = {"sources": sources}
        if runtime is not None:
            data["runtime"] = runtime
        manifest.write_text(json.dumps(data))
        if refused:
            with pytest.raises(UnknownGame, match="native build of toy is older"):
                check_native("pkg.toy", [str(tmp_path)])
        else:
            check_native("pkg.toy", [str(tmp_path)])


# -- compact data


def test_no_generated_module_writes_one_integer_a_line() -> None:
    lone = re.compile(r"\s*-?\d+,")
    for path in GENERATED:
        run = 0
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            run = run + 1 if lone.fullmatch(line) else 0
            assert run < 3, f"{path}:{number}: integers one a line"


@pytest.mark.parametrize("seed", range(40))
def test_compact_literals_are_the_same_tuples(seed: int) -> None:
    r = random.Random(seed)
    pieces: list[Any] = []
    while len(pieces) < r.randrange(2, 200):
        kind = r.randrange(4)
        start = r.randrange(-50, 50)
        if kind == 0:
            pieces.extend(
                range(start, start + r.randrange(1, 40))
                if r.random() < 0.7
                else range(start, start - 9, -1)
            )
        elif kind == 1:
            pieces.extend([r.choice([0, 1, True, False, None, -3])] * r.randrange(1, 12))
        else:
            pieces.extend(
                r.choice([0, 1, True, False, None, 7, 300, -2]) for _ in range(r.randrange(1, 9))
            )
    v = tuple(pieces)
    text = _py(v)
    back = eval(text)  # a literal the compiler wrote, in a test
    assert back == v and type(back) is tuple
    assert [type(x) for x in back] == [type(x) for x in v]
    if len(repr(v)) > 56:
        assert len(text) < len(repr(v)) or "*(" in text


def test_take_card_is_take_of_a_card_never_none() -> None:
    for m in range(64):
        for c in range(7):
            if m >> c & 1:
                assert prelude.take_card(m, c) == prelude.take(m, c) == m & ~(1 << c)
            else:
                with pytest.raises(RulesError, match="not in the zone"):
                    prelude.take_card(m, c)
