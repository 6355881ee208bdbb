"""Property-based fuzzer of effect programs through the whole pipeline (``-m fuzz``).

Hypothesis writes programs in the effect language over the toy game's names (its globals,
player fields, cards, functions, decisions), mostly well typed and sometimes not, as the
body of a step of its flow. Each program goes through check and compile: refused, every
error has a file:line:col; accepted, the generated code passes ruff and three short games
(machine form, random decisions) and a playout (the bots' form) may only stop with a
located RulesError of the rules themselves (an empty list's first(), a card not where it
is moved from, a loop that never ends), never a Python error the checker should have
caught, and never without a rules position. Both forms of the engine play the same games:
each program's games are played in lockstep by the machine form and the playout form
(tests/forms_helpers.py), which must agree at every decision and at the end.
``--fuzz-budget N``: N // 4 programs."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

pytest.importorskip("hypothesis", reason="the effect-program fuzzer needs hypothesis (.[test])")

from compile_helpers import REPO, import_generated  # noqa: E402
from forms_helpers import FormsDiffer, lockstep  # noqa: E402
from fuzz_helpers import Hang, bad_positions, no_hang, scratch  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from rulecraft.compiler.project import compile_project, new_sink, write_outputs  # noqa: E402
from rulecraft.runtime import Game, GameError, RulesError  # noqa: E402
from rulecraft.runtime.machine import playout  # noqa: E402

pytestmark = pytest.mark.fuzz

STAKES = """      let raise = choose_yes_no(red, "Raise the stakes to 2 VP?")
      stakes = 2 if raise else 1
"""
#: a RulesError that is a Python error surfacing in generated code: a hole in the checker
PYTHON_ERROR = re.compile(r"^[A-Z]\w*(Error|Exception)\b")

# -- the programs ------------------------------------------------------------------------
names = st.sampled_from(["x", "y", "n"])
players_ = st.sampled_from(["red", "enemy(red)", "first(players)", "p"])
small = st.integers(-2, 7).map(str)
huge = st.sampled_from(["99999999999999999999", "0", "-1"])


def ints(depth: int) -> st.SearchStrategy[str]:
    leaf = st.one_of(
        small,
        huge,
        st.sampled_from(["stakes", "last_die", "round", "x", "n", "c.value"]),
        players_.map(lambda p: f"{p}.vp"),
        players_.map(lambda p: f"shown({p})"),
        players_.map(lambda p: f"count({p}.hand)"),
        st.just("roll(6)"),
    )
    if depth <= 0:
        return leaf
    sub = ints(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(["+", "-", "*"]), sub).map(" ".join),
        st.tuples(sub, sub).map(lambda t: f"min({t[0]}, {t[1]})"),
        st.tuples(sub, sub).map(lambda t: f"max({t[0]}, {t[1]})"),
        sub.map(lambda a: f"div_down({a}, 2)"),
        sub.map(lambda a: f"-{a}"),
        st.tuples(bools(depth - 1), sub, sub).map(lambda t: f"{t[1]} if {t[0]} else {t[2]}"),
    )


def bools(depth: int) -> st.SearchStrategy[str]:
    leaf = st.one_of(
        st.sampled_from(["true", "false", "b", "red == enemy(red)"]),
        st.tuples(small, st.sampled_from(["<", "<=", "==", "!=", ">"]), small).map(" ".join),
    )
    if depth <= 0:
        return leaf
    sub = ints(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(["<", "==", ">="]), sub).map(" ".join),
        st.tuples(bools(depth - 1), st.sampled_from(["and", "or"]), bools(depth - 1)).map(" ".join),
        bools(depth - 1).map(lambda b: f"not {b}"),
    )


cards_ = players_.flatmap(
    lambda p: st.sampled_from([f"{p}.hand", f"{p}.revealed", f"{p}.discard", f"{p}.deck"])
)
wrong = st.sampled_from(
    [
        "stakes = red",
        "let x = red + 1",
        "nope += 1",
        "red.vp = true",
        "let x = first(3)",
        'log "{missing}"',
        'let x = choose(red, stakes, "?")',
        "return 3",
        "stakes.vp = 1",
    ]
)


#: decisions: where the machine form and the playout form of a routine part ways
#: (into the locals every program declares first: a second `let` of a name is refused)
decisions = st.one_of(
    players_.map(lambda p: [f'b = choose_yes_no({p}, "Yes?")']),
    players_.map(lambda p: [f'c = choose({p}, {p}.hand, "Which card?")']),
    players_.map(
        lambda p: [
            f'o = choose_optional({p}, {p}.hand, "A card?", "None")',
            "if o != none:",
            "    x = o.value",
        ]
    ),
)
#: the locals of every program
PRELUDE = [
    "let x = 0",
    "let y = 0",
    "let n = 0",
    "let b = false",
    "let c = first(red.cards)",
    "let o = c if false else none",  # a card or none
]


def _block(body: list[str]) -> list[str]:
    return ["    " + line for line in body]


def breaking_loop(sub: st.SearchStrategy[list[str]]) -> st.SearchStrategy[list[str]]:
    """A loop left by a break after a decision (at most twice round), then a local given a
    new value below the break, read after the loop: on the way out through the break the
    local keeps the value it had (the loop bug of issue 20)."""
    return st.tuples(decisions, sub, bools(1), sub, st.sampled_from(["x", "y"]), ints(1)).map(
        lambda t: [
            "n = 0",
            "while true:",
            "    n += 1",
            *_block(t[0]),
            *_block(t[1]),
            f"    if {t[2]} or n > 1:",
            "        break",
            *_block(t[3]),
            f"    {t[4]} = {t[5]}",
            f"stakes = {t[4]}",
        ]
    )


def statements(depth: int) -> st.SearchStrategy[list[str]]:
    simple = st.one_of(
        ints(2).map(lambda e: [f"let z = {e}"]),
        st.tuples(names, ints(2)).map(lambda t: [f"{t[0]} = {t[1]}"]),
        ints(2).map(lambda e: [f"stakes = {e}"]),
        st.tuples(players_, ints(1)).map(lambda t: [f"{t[0]}.vp += {t[1]}"]),
        ints(2).map(lambda e: [f'log "value {{{e}}}"']),
        decisions,
        cards_.map(lambda z: [f"let x = count({z})"]),
        st.tuples(players_, cards_).map(
            lambda t: [f"move first({t[1]}) from {t[1]} to {t[0]}.discard"]
        ),
        wrong.map(lambda w: [w]),
        st.just(["pass"]),
    )
    if depth <= 0:
        return simple

    block = _block
    sub = st.lists(statements(depth - 1), min_size=1, max_size=3).map(
        lambda blocks: [line for b in blocks for line in b]
    )
    return st.one_of(
        simple,
        breaking_loop(sub),
        st.tuples(bools(1), sub).map(lambda t: [f"if {t[0]}:", *block(t[1])]),
        st.tuples(bools(1), sub, sub).map(
            lambda t: [f"if {t[0]}:", *block(t[1]), "else:", *block(t[2])]
        ),
        sub.map(lambda b: ["for p in players:", *block(b)]),
        st.tuples(st.integers(0, 4), sub).map(
            lambda t: ["n = 0", f"while n < {t[0]}:", "    n += 1", *block(t[1])]
        ),
    )


def _program(blocks: list[list[str]], at: int, decision: list[str]) -> list[str]:
    """The blocks with a decision among them (most programs then wait: two forms)."""
    blocks = [*blocks[: at % (len(blocks) + 1)], decision, *blocks[at % (len(blocks) + 1) :]]
    return [*PRELUDE, *[line for b in blocks for line in b]]


programs = st.builds(
    _program,
    st.lists(statements(2), min_size=1, max_size=5),
    st.integers(0, 5),
    st.one_of(decisions, breaking_loop(statements(1))),
)

# -- the property --------------------------------------------------------------------------
#: the scratch project the programs are compiled in, made when the fuzzer runs
ROOT = Path()
FLOW = Path()
ORIGINAL = ""
SEEN = {
    "programs": 0,
    "refused": 0,
    "accepted": 0,
    "games": 0,
    "rules errors": 0,
    "lockstep games": 0,
    "lockstep decisions": 0,
}


def _ruff(root: Path) -> str:
    ruff = Path(sys.executable).with_name("ruff")
    done = subprocess.run(
        [str(ruff), "check", "--no-cache", "generated"], cwd=root, capture_output=True, text=True
    )
    return "" if done.returncode == 0 else done.stdout[-1500:]


def _located_rules_error(exc: BaseException, program: str) -> None:
    if not isinstance(exc, GameError):
        raise AssertionError(f"a Python error escaped the engine:\n{program}") from exc
    if isinstance(exc, RulesError):
        SEEN["rules errors"] += 1
        assert exc.origin, f"a rules error without a rules position: {exc}\n{program}"
        assert not PYTHON_ERROR.match(exc.message), f"the checker let through: {exc}\n{program}"


def _both_forms(spec: object) -> None:
    """Games of the program played by both forms in lockstep (FormsDiffer where they differ)."""
    for seed in range(2):
        rec = lockstep(spec, seed, most=200)
        SEEN["lockstep games"] += 1
        SEEN["lockstep decisions"] += len(rec.decisions)


def _games(spec: object, program: str) -> None:
    for seed in range(3):
        SEEN["games"] += 1
        g = Game.new(spec, "duel", seed)  # type: ignore[arg-type]
        rng = random.Random(seed)
        for _ in range(300):
            if g.finished:
                break
            d = g.pending()[0]
            g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
    g = Game.new(spec, "duel", 9)  # type: ignore[arg-type]
    playout(g.spec, g.raw[:], random.Random(9).random)


def _effect_program_property(lines: list[str]) -> None:
    SEEN["programs"] += 1
    body = "".join("      " + line + "\n" for line in lines)
    program = body
    FLOW.write_text(ORIGINAL.replace(STAKES, body), encoding="utf-8")
    sink = new_sink(ROOT)
    try:
        with no_hang():
            result = compile_project(ROOT, sink)
    except Hang as exc:
        raise AssertionError(f"compile hangs: {exc}\n{program}") from None
    except Exception:
        raise AssertionError(f"compile raised:\n{traceback.format_exc()}\n{program}") from None
    if sink.has_errors:
        SEEN["refused"] += 1
        bad = bad_positions(sink.sorted(), ROOT)
        assert not bad, f"errors without a position: {bad}\n{program}"
        return
    SEEN["accepted"] += 1
    write_outputs(ROOT, result.outputs)
    lint = _ruff(ROOT)
    assert not lint, f"generated code fails ruff:\n{lint}\n{program}"
    spec = import_generated(ROOT, "toy").SPECS["duel"]
    try:
        with no_hang():
            _both_forms(spec)
            _games(spec, program)
    except Hang as exc:
        raise AssertionError(f"a game hangs: {exc}\n{program}") from None
    except FormsDiffer as exc:
        raise AssertionError(f"the two forms of the engine differ: {exc}\n{program}") from None
    except Exception as exc:
        _located_rules_error(exc, program)


def test_effect_programs_compile_or_are_refused_and_run_or_stop_located(
    fuzz_budget: int,
) -> None:
    global ROOT, FLOW, ORIGINAL
    ROOT = scratch("toy")
    FLOW = ROOT / "rules" / "toy" / "flow.yaml"
    ORIGINAL = FLOW.read_text(encoding="utf-8")
    shutil.copy(REPO / "pyproject.toml", ROOT / "pyproject.toml")
    prop = given(programs)(
        settings(
            max_examples=max(5, fuzz_budget // 4),
            deadline=None,
            derandomize=True,  # the same programs on every run: a finding reproduces
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )(_effect_program_property)
    )
    try:
        prop()
    finally:
        FLOW.write_text(ORIGINAL, encoding="utf-8")
        print(f"effect programs: {SEEN}")
