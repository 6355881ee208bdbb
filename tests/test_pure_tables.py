"""Functions of one record that read no state, as tables (compiler/codegen/purefn.py): which
qualify, how their calls read the table, and the tables the engines build."""

from __future__ import annotations

import importlib
from typing import Any

from compile_helpers import REPO
from rulecraft.compiler.codegen.purefn import pure_text, table_type, use_tables
from rulecraft.runtime.prelude import RulesError, tabulate

DATA = {"all_player", "s_p_side", "k_player__russia", "ix_army__owner", "c_max"}


def test_a_function_qualifies_only_if_it_reads_no_state() -> None:
    pure = """def f_enemy(self, S: list[Any], v_p: Any) -> Any:
    "Doc."
    #@rules.yaml:1:2
    return _head([v_q for v_q in self.all_player if v_q != v_p])
"""
    assert pure_text(pure, set(), DATA)
    assert pure_text(
        "def f_x(self, S: list[Any], v_p: Any) -> int:\n"
        "    _w1 = []\n"
        "    for v_a in self.ix_army__owner.get(v_p, ()):\n"
        "        _w1.append(v_a)\n"
        "    return len(_w1) + self.c_max",
        set(),
        DATA,
    )
    reads = "def f_x(self, S: list[Any], v_p: Any) -> int:\n    return S[self.c_max + v_p]"
    assert not pure_text(reads, set(), DATA)
    ints = "def f_x(self, S: list[Any], v_p: Any) -> int:\n    N: list[int] = S\n    return N[v_p]"
    assert not pure_text(ints, set(), DATA)
    # a die, a log line, a state-reading attribute (an offset), an unknown helper
    assert not pure_text("def f_x(self, S, v_p):\n    return _roll(S, 6)", set(), DATA)
    assert not pure_text("def f_x(self, S, v_p):\n    _log(S, 1, ())\n    return 1", set(), DATA)
    assert not pure_text("def f_x(self, S, v_p):\n    return self.o_p_vp + v_p", set(), DATA)
    # another function: only if it qualifies, and S only passed on to it
    calls = "def f_x(self, S, v_p):\n    return self.f_powers(S)[v_p]"
    assert not pure_text(calls, set(), DATA)
    assert pure_text(calls, {"f_powers"}, DATA)
    assert not pure_text(
        "def f_x(self, S, v_p):\n    return self.f_powers(S, S)", {"f_powers"}, DATA
    )


def test_calls_read_the_table_and_keep_the_call_where_there_is_none() -> None:
    code = (
        "def q_x(self, S, R, v_me):\n"
        "    v_foe = self.f_enemy(S, v_me)\n"
        "    self.ff_enemy(S, v_me)\n"
        "    return self.f_enemy_of(S, v_me) + len(self.f_enemy(S, _head((v_me, 1))))\n"
    )
    out = use_tables(code, ["f_enemy"])
    assert (
        "v_foe = (self.tab_enemy[v_me] if self.tab_enemy is not None "
        "else self.f_enemy(S, v_me))" in out
    )
    assert "self.ff_enemy(S, v_me)" in out and "self.f_enemy_of(S, v_me)" in out
    assert (
        "(self.tab_enemy[_head((v_me, 1))] if self.tab_enemy is not None "
        "else self.f_enemy(S, _head((v_me, 1))))" in out
    )
    assert table_type("def f_x(self, S: list[Any], v_p: Any) -> bool:\n    return True") == (
        "tuple[bool, ...] | None"
    )
    assert table_type("def f_x(self, S: list[Any], v_p: Any) -> Any:\n    return 1") == (
        "tuple[Any, ...] | None"
    )


def test_tabulate_gives_up_on_a_failing_value_a_list_or_a_domain_not_numbered_from_0() -> None:
    assert tabulate(lambda S, p: 1 - p, (0, 1)) == (1, 0)
    assert tabulate(lambda S, p: None if p else "x", (0, 1)) == ("x", None)

    def fails(S: Any, p: int) -> int:
        if p == 2:
            raise RulesError("first() of an empty list")
        return p

    assert tabulate(fails, (0, 1, 2)) is None
    assert tabulate(lambda S, p: [p], (0, 1)) is None  # a caller could change a list
    assert tabulate(lambda S, p: p, (1, 2)) is None
    assert tabulate(lambda S, p: p, None) is None


def test_the_march_of_progress_reads_the_enemy_from_a_table() -> None:
    text = (REPO / "generated" / "march_of_progress" / "engine.py").read_text(encoding="utf-8")
    attack = text.split("def q_attack(")[1].split("\n    def ")[0]
    assert "self.tab_enemy[v_me] if self.tab_enemy is not None" in attack
    pkg = importlib.import_module("rulecraft.generated.march_of_progress")
    thirty = pkg.SPECS["thirty_years_war"].engine
    assert thirty.tab_enemy == (1, 0)
    assert thirty.tab_enemy == tuple(thirty.f_enemy([], p) for p in (0, 1))
    # Politics by Other Means defines its own enemy (the first of the powers with armies,
    # a function that qualifies too): its class builds its own table
    politics = pkg.SPECS["politics_by_other_means"].engine
    assert politics.tab_enemy == tuple(politics.f_enemy([], p) for p in (0, 1, 2)) == (1, 0, 0)
