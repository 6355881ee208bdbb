"""Lists a plain method only draws from, takes the first item of or measures
(compiler/codegen/specialise.py), and indexes by a player or a record as tuples
(compiler/codegen/indexed.py, runtime/layout.engine_data): the same values and the same draws
of ``R()``, without a comprehension, a list or a dict lookup where none is needed."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from compile_helpers import REPO
from rulecraft.compiler.codegen.indexed import index_of
from rulecraft.compiler.codegen.specialise import lower_loops
from rulecraft.runtime.layout import bits, engine_data
from rulecraft.runtime.machine import DeadEnd, RulesError
from rulecraft.runtime.prelude import head, pick, pick_optional

METHOD = """def q_x(self, S: list[Any], R: Any, v_m: Any) -> Any:
    "Doc."
    #@rules.yaml:1:2
    _ans = [_pick(R, [v_c for v_c in _bits(v_m) if self.ok(v_c, v_p)]) for v_p in (0, 1)]
    v_o = _pick_optional(R, [v_c * 2 for v_c in _bits(v_m) if v_c != 3])
    v_s = _pick_optional(R, [v_c for v_c in _bits(v_m) if v_c != 3 and self.ok(v_c, 2)])
    v_h = _head([v_c for v_c in _bits(v_m) if v_c > 1])
    v_k = _head([v_c for v_c in _bits(v_m) if self.ok(v_c, 1)])
    v_few = [v_c for v_c in _bits(v_m) if self.ok(v_c, 0)]
    if len(v_few) > 1:
        return (_ans, v_o, v_s, v_h, v_k, len(v_few))
    return (_ans, v_o, v_s, v_h, v_k)
"""


class _Engine:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def ok(self, c: int, p: int) -> bool:
        self.calls.append((c, p))
        return (c + p) % 3 != 0


def _run(code: str, mask: int, seed: int) -> Any:
    env: dict[str, Any] = {"Any": Any, "_bits": bits, "_pick": pick, "_head": head}
    env["_pick_optional"] = pick_optional
    exec(code, env)
    draws = random.Random(seed)
    drawn: list[float] = []

    def R() -> float:
        drawn.append(draws.random())
        return drawn[-1]

    eng = _Engine()
    try:
        out = env["q_x"](eng, [], R, mask)
    except (DeadEnd, RulesError) as e:
        out = type(e).__name__
    return out, drawn, eng.calls


def test_lists_drawn_from_taken_or_measured_are_loops_with_the_same_values_and_draws() -> None:
    out = lower_loops(METHOD)
    assert "[v_c for" not in out and "v_c * 2 for" not in out  # no comprehension left
    assert "v_few = _w" in out and "len(v_few)" not in out  # the count, not the list
    # the first item of a pure filter: the loop stops there; one that calls: it does not
    pure, calls = out.split("v_h = ")[0].rsplit("for v_c", 1)[1], out.split("v_k = ")[0]
    assert "break" in pure and "break" not in calls.rsplit("for v_c", 1)[1]
    assert "    #@rules.yaml:1:2\n" in out
    # the members of a set drawn from are kept as a set, not appended to a list
    assert out.count("_bits(_w") == 2
    assert len(re.findall(r"(_w\d+) = \1 \| 1 << v_c", out)) == 2
    for mask in [*range(64), 0b1_0110_0101, 0b1011 << 40]:
        for seed in range(3):
            assert _run(out, mask, seed) == _run(METHOD, mask, seed), (mask, seed)


def test_a_list_kept_or_read_otherwise_is_left_a_list() -> None:
    code = (
        "def f_x(self, S, v_m):\n"
        "    v_a = [v_c for v_c in _bits(v_m) if v_c > 1]\n"
        "    v_b = [v_c for v_c in _bits(v_m)]\n"
        "    v_b = [1]\n"
        "    return len(v_a) + len(v_b) + _head(v_a)\n"
    )
    assert lower_loops(code) == code


def test_indexes_of_players_and_records_are_tuples_indexed_by_them() -> None:
    primary = {
        "id_player": ("a", "b", "c"),
        "id_army": ("x", "y", "z"),
        "s_e_army__owner": (1, 0, 1),
        "ref_attrs": {"army__owner": "player"},
    }
    d = engine_data(primary, ())
    assert d["ixt_army__owner"] == ((1,), (0, 2), (), ())  # and none's, last
    assert d["ix_army__owner"] == {1: (0, 2), 0: (1,)}
    assert index_of(d, "army", "owner", "v_p") == (
        "self.ixt_army__owner[v_p if v_p is not None else -1]"
    )
    # a key never none (an int) is not tested: the native build would box it to compare
    assert index_of(d, "army", "owner", "v_p", never_none=True) == "self.ixt_army__owner[v_p]"
    # a key that is not a plain name is not read twice: the dict
    assert index_of(d, "army", "owner", "f(v_p)") == "self.ix_army__owner.get(f(v_p), ())"


def test_a_fixed_reference_that_may_be_none_is_compared_as_ints() -> None:
    primary = {
        "id_player": ("a", "b"),
        "id_country": ("x", "y", "z"),
        "s_e_country__owner": (0, None, 1),
        "s_e_country__home": (0, 1, 1),
        "ref_attrs": {"country__owner": "player", "country__home": "player"},
    }
    d = engine_data(primary, ())
    assert d["si_e_country__owner"] == (0, -1, 1)
    assert "si_e_country__home" not in d  # never none: already a tuple of ints
    text = (REPO / "generated" / "march_of_progress" / "engine.py").read_text(encoding="utf-8")
    body = text.split("def f_controls(")[1].split("\n    def ")[0]
    assert "self.si_e_country__owner[v_c] == v_p" in body
    assert "self.ixt_army__owner[v_p]" in body  # a parameter never none, not tested


@pytest.mark.parametrize("name", ["f_controls", "q_attack"])
def test_the_engines_use_the_tuples_and_loops(name: str) -> None:
    text = (REPO / "generated" / "march_of_progress" / "engine.py").read_text(encoding="utf-8")
    body = text.split(f"def {name}(")[1].split("\n    def ")[0]
    assert "self.ixt_army__owner[v_" in body
    if name == "q_attack":
        assert "v_ready > 0" in body  # a count
