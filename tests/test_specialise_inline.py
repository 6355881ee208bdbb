"""Prelude helpers inlined into the plain methods (compiler/codegen/specialise.py): ``_bits``,
``_pick``, ``_head`` and ``_take`` as expressions, the helper called only off their common
case: the same values, the same errors and the same draws of ``R()``, without the call."""

from __future__ import annotations

import random
from typing import Any

from compile_helpers import REPO
from rulecraft.compiler.codegen.specialise import _HELPERS, INLINED, inline_helpers
from rulecraft.runtime.machine import DeadEnd, RulesError
from rulecraft.runtime.prelude import BITS8, bits, head, pick, take

METHOD = """def q_x(self, S: list[Any], R: Any, v_m: Any, v_c: Any) -> Any:
    "Doc."
    #@rules.yaml:1:2
    _w = []
    for v_a in _bits(S[0] | v_m):
        _w.append(v_a)
    v_all = [v_b for v_b in _bits(v_m >> 2) if v_b in _bits(S[0])]
    v_h = _head(_w) if v_m & 1 else _head([v_d for v_d in _w if v_d > 2])
    v_p = _pick(R, _w)
    v_q = _pick(R, [v_d for v_d in _bits(v_m >> 1)])
    S[1] = _take(S[1], v_c)
    return (_w, v_all, v_h, v_p, v_q, S)
"""


def _run(code: str, mask: int, card: Any, seed: int) -> Any:
    env: dict[str, Any] = {"Any": Any, "_bits": bits, "_pick": pick, "_head": head}
    env.update(_take=take, _BITS8=BITS8)
    exec(code, env)
    draws = random.Random(seed)
    drawn: list[float] = []

    def R() -> float:
        drawn.append(draws.random())
        return drawn[-1]

    try:
        out = env["q_x"](None, [mask >> 3, mask ^ 0x5A5], R, mask, card)
    except (DeadEnd, RulesError) as e:
        out = (type(e).__name__, str(e))
    return out, drawn


def test_helpers_inlined_give_the_same_values_errors_and_draws() -> None:
    out = inline_helpers(METHOD, frozenset(_HELPERS))
    assert "_take(S[1], v_c)" in out and "~(1 << " in out
    assert "_BITS8[_m" in out and "_pick(R, _w)" in out and "_w[0] if" in out
    assert "_head(_w) if" not in out  # the first item read without the call
    assert "    #@rules.yaml:1:2\n" in out
    # no `:=` in a comprehension's iterable: the helper is called there
    assert "for v_b in _bits(v_m >> 2)" in out and "v_b in (_BITS8[" in out
    for mask in (*range(0, 600, 7), 1 << 9, (1 << 12) - 1, 0):
        for card in (None, 0, 2, 9):
            for seed in range(2):
                assert _run(out, mask, card, seed) == _run(METHOD, mask, card, seed), mask


def test_each_helper_can_be_left_out_and_a_method_without_them_is_unchanged() -> None:
    only = inline_helpers(METHOD, frozenset({"_bits"}))
    assert "_BITS8[" in only and "_pick(R, _w)\n" in only and "= _take(S[1], v_c)" in only
    # the code generator's default leaves _take called (it costs the native build)
    assert "= _take(S[1], v_c)" in inline_helpers(METHOD) and "_take" not in INLINED
    plain = "def f_x(self, S, v_m):\n    return len(v_m)"
    assert inline_helpers(plain) == plain


def test_an_argument_that_calls_is_bound_once_and_take_of_it_left_alone() -> None:
    code = (
        "def f_x(self, S, R):\n"
        "    v_a = _pick(R, self.f_g(S))\n"
        "    S[2] = _take(self.f_m(S), 3)\n"
        "    return _head(self.f_g(S))\n"
    )
    out = inline_helpers(code, frozenset(_HELPERS))
    assert out.count("self.f_g(S)") == 2  # each list once, bound to a temporary
    assert ":= self.f_g(S)" in out and "_take(self.f_m(S), 3)" in out


def test_the_engines_inline_the_hot_helpers() -> None:
    text = (REPO / "generated" / "march_of_progress" / "engine.py").read_text(encoding="utf-8")
    body = text.split("def q_turn__pick(")[1].split("\n    def ")[0]
    # the playable cards of a hand as a set, drawn from without a list
    assert "_BITS8[_m1]" in body and "_m1 := self.playable_in(" in body
    assert "_pick(R, _o2)" in body and "_o2[int(R() * _n3)]" in body


def test_a_head_guarded_by_a_known_length_is_the_first_item() -> None:
    from rulecraft.compiler.codegen.specialise import known_heads

    code = (
        "def q_x(self, S, xs, ys):\n"
        "    if len(xs) == 1:\n"
        "        self.f(S, xs[0] if xs else _head(xs))\n"
        "    elif len(xs) == 2:\n"
        "        v: int = xs[0] if xs else _head(xs)\n"
        "        w = ys[0] if ys else _head(ys)\n"
        "    if len(xs) == 0:\n"
        "        return xs[0] if xs else _head(xs)\n"
        "    if len(xs) == 1:\n"
        "        xs = ys\n"
        "        return xs[0] if xs else _head(xs)\n"
    )
    out = known_heads(code)
    assert "self.f(S, xs[0])" in out and "v: int = xs[0]\n" in out
    assert "w = ys[0] if ys else _head(ys)" in out  # another list: its length is not known
    # a length of 0 says nothing, and a list bound again under the test is another list
    assert out.count("xs[0] if xs else _head(xs)") == 2
