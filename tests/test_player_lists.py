"""Lists of players built in a loop and only read, built as sets (compiler/codegen/
player_lists.py): the same players in the same order, read the same way, without a list."""

from __future__ import annotations

from typing import Any

from compile_helpers import REPO
from rulecraft.compiler.codegen.player_lists import player_lists_as_sets
from rulecraft.runtime.layout import _BITS8, bits
from rulecraft.runtime.prelude import head, pick

METHOD = """def q_x(self, S: list[Any], R: Any, v_m: int) -> Any:
    "Doc."
    _w1 = []
    _k = 3
    for v_p in self.all_player:
        #@rules.yaml:4:9
        if v_m >> v_p & 1:
            _w1.append(v_p)
    v_actors = _w1
    if not v_actors:
        return None
    n = len(v_actors)
    return (n, v_actors[0], _pick(R, v_actors), 2 in v_actors, [p for p in v_actors], _k)
"""

KEPT = [
    # returned: the caller may use it as a list
    "def f_x(self, S):\n    _w1 = []\n    for v_p in self.all_player:\n"
    "        _w1.append(v_p)\n    return _w1\n",
    # changed afterwards
    "def f_x(self, S):\n    _w1 = []\n    for v_p in self.all_player:\n"
    "        _w1.append(v_p)\n    _w1.append(9)\n    return len(_w1)\n",
    # a copy given to something that may keep it
    "def f_x(self, S):\n    _w1 = []\n    for v_p in self.all_player:\n"
    "        _w1.append(v_p)\n    v = _w1\n    self.keep(v)\n",
    # another value appended, or the loop over something else
    "def f_x(self, S):\n    _w1 = []\n    for v_p in self.all_player:\n"
    "        _w1.append(v_p + 1)\n    return len(_w1)\n",
    "def f_x(self, S):\n    _w1 = []\n    for v_p in self.all_army:\n"
    "        _w1.append(v_p)\n    return len(_w1)\n",
    # its value kept by `or`
    "def f_x(self, S):\n    _w1 = []\n    for v_p in self.all_player:\n"
    "        _w1.append(v_p)\n    v = _w1 or [0]\n    return v\n",
]


class _Engine:
    all_player = (0, 1, 2, 3)


def _run(code: str, mask: int, seed: int) -> Any:
    env: dict[str, Any] = {"Any": Any, "_bits": bits, "_BITS8": _BITS8, "_pick": pick}
    env["_head"] = head
    exec(code, env)
    draws = iter([(seed * 0.37) % 1, 0.5, 0.9])
    return env["q_x"](_Engine(), [], lambda: next(draws), mask)


def test_a_list_of_players_only_read_is_built_as_a_set() -> None:
    out = player_lists_as_sets(METHOD)
    assert "_w1_m = 0" in out and "_w1_m = _w1_m | 1 << v_p" in out
    assert "_w1 = _BITS8[_w1_m] if 0 <= _w1_m < 256 else _bits(_w1_m)" in out
    assert ".append(" not in out and "    #@rules.yaml:4:9\n" in out
    for mask in range(16):
        for seed in range(3):
            assert _run(out, mask, seed) == _run(METHOD, mask, seed)


def test_a_list_that_may_be_kept_or_changed_stays_a_list() -> None:
    for code in KEPT:
        assert player_lists_as_sets(code) == code, code


def test_the_sequence_of_actions_builds_no_list_of_actors() -> None:
    text = (REPO / "generated" / "march_of_progress" / "engine.py").read_text(encoding="utf-8")
    body = text.split("def q_turn__resolve(")[1].split("\n    def ")[0]
    assert "_w1__i1_m = _w1__i1_m | 1 << v_p__i1" in body and "_w1__i1 = []" not in body
    # the armies a player may fortify: a comprehension over a player's armies (6 at most)
    body = text.split("def q_card__fortify(")[1].split("\n    def ")[0]
    assert "v_candidates_m = v_candidates_m | 1 << v_a" in body


def test_a_copy_bound_elsewhere_too_is_a_tuple_there_as_well() -> None:
    # the native build gives a local one type: where the copy of the set (a tuple) is bound
    # to something else too (the call of a scenario's own function), that is made a tuple
    code = (
        "def f_x(self, S, v_g):\n"
        "    if self.inl_f:\n"
        "        _w1 = []\n"
        "        for v_p in self.all_player:\n"
        "            _w1.append(v_p)\n"
        "        v = _w1\n"
        "    else:\n"
        "        v = self.f_g(S, v_g)\n"
        "    return len(v)\n"
    )
    out = player_lists_as_sets(code)
    assert "v = tuple(self.f_g(S, v_g))" in out and "_w1_m = 0" in out
    # bound to another local or to a constant: left a list
    for other in ("v = v_g", "v = None"):
        kept = code.replace("v = self.f_g(S, v_g)", other)
        assert player_lists_as_sets(kept) == kept


def test_a_comprehension_of_a_small_kind_only_read_is_a_loop_that_sets_bits() -> None:
    code = (
        "def f_x(self, S, v_m):\n"
        "    v_mine = [v_a for v_a in self.ixt_army__owner[v_m] if v_a != 1 if v_a < 5]\n"
        "    v_big = [v_b for v_b in self.ixt_area__owner[v_m] if v_b != 1]\n"
        "    return (len(v_mine), v_mine[0] if v_mine else None, len(v_big))\n"
    )
    out = player_lists_as_sets(code, frozenset({"player", "army"}))
    assert "v_mine_m = 0\n    for v_a in self.ixt_army__owner[v_m]:" in out
    nested = "if v_a != 1:\n            if v_a < 5:\n                v_mine_m = v_mine_m | 1 << v_a"
    assert nested in out
    assert "v_big = [v_b for v_b in self.ixt_area__owner[v_m] if v_b != 1]" in out  # not small

    class _E:
        ixt_army__owner = ((0, 1, 3, 6), (2, 4, 5, 7))
        ixt_area__owner = ((0, 1), (1, 2))

    env: dict[str, Any] = {"_bits": bits, "_BITS8": _BITS8}
    before: dict[str, Any] = {}
    exec(out, env)
    exec(code, before)
    for m in (0, 1):
        assert env["f_x"](_E(), [], m) == before["f_x"](_E(), [], m)
    # the comprehension's variable named elsewhere too: a loop would change it, left alone
    clash = code.replace("return (", "v_a = 9\n    return (v_a, ")
    assert "v_mine = [v_a for" in player_lists_as_sets(clash, frozenset({"army"}))
