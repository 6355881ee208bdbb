"""Small functions of the rules inlined where a plain method assigns their result
(compiler/codegen/inline_calls.py): the callee's body in the caller, its parameters read as
the arguments and its locals renamed; under the scenario's flag where a scenario redefines
the function. The same values, without the call."""

from __future__ import annotations

import textwrap
from typing import Any

from compile_helpers import REPO
from rulecraft.compiler.codegen.inline_calls import inlinable, inline_calls

CALLEE = '''def f_actors(self, S: list[Any], v_grp: Any) -> Any:
    """Doc."""
    #@rules.yaml:3:4
    _w1 = []
    for v_p in self.all_player:
        if S[v_p] & v_grp != 0:
            _w1.append(v_p)
    return _w1
'''

CALLER = """def q_x(self, S: list[Any], R: Any) -> Any:
    "Doc."
    out = []
    for v_p in (1, 2, 4):
        _w1 = v_p * 10
        v_a = self.f_actors(S, v_p)
        out.append((v_a, _w1, v_p))
    return out
"""


class _Engine:
    all_player = (0, 1, 2)

    def __init__(self, flag: bool) -> None:
        self.inl_f_actors = flag
        self.calls = 0

    def f_actors(self, S: list[Any], v_grp: Any) -> Any:
        self.calls += 1
        return [p for p in self.all_player if S[p] & v_grp != 0]


def _run(code: str, flag: bool) -> tuple[Any, int]:
    env: dict[str, Any] = {"Any": Any}
    exec(code, env)
    eng = _Engine(flag)
    return env["q_x"](eng, [3, 4, 6], None), eng.calls


def test_a_function_assigned_to_a_local_is_inlined_with_the_same_values() -> None:
    fn = inlinable(CALLEE)
    assert fn is not None
    out = inline_calls(CALLER, {"f_actors": fn}, set())
    assert "self.f_actors(" not in out and "_w1__i1 = []" in out  # the callee's own, renamed
    assert "if S[v_p__i1] & v_p != 0:" in out and "v_a = _w1__i1" in out
    assert "    #@rules.yaml:3:4\n" in out  # the rules position of the callee's lines
    assert _run(out, True) == (_run(CALLER, True)[0], 0)


def test_a_function_some_scenario_redefines_is_inlined_under_its_flag() -> None:
    fn = inlinable(CALLEE)
    assert fn is not None
    out = inline_calls(CALLER, {"f_actors": fn}, {"f_actors"})
    assert "if self.inl_f_actors:" in out and "v_a = self.f_actors(S, v_p)" in out
    assert _run(out, True) == (_run(CALLER, True)[0], 0)
    assert _run(out, False) == _run(CALLER, False)  # the call, made each time


def test_what_is_not_inlined() -> None:
    def fn(body: str) -> str:
        return "def f_y(self, S: list[Any], v_a: Any) -> Any:\n" + textwrap.indent(body, "    ")

    assert inlinable(fn("v_a = 1\nreturn v_a\n")) is None  # assigns its parameter
    assert inlinable(fn("if v_a:\n    return 1\nreturn 2\n")) is None  # two returns
    assert inlinable(fn("f = lambda: v_a\nreturn f()\n")) is None
    assert inlinable(fn("".join(f"v_{i} = {i}\n" for i in range(8)) + "return 1\n")) is None
    callee = inlinable(fn("return v_a + 1\n"))
    assert callee is not None
    kept = "def q_x(self, S, R):\n    v_b = self.f_y(S, self.f_z(S))\n    return self.f_y(S, 1)"
    assert inline_calls(kept, {"f_y": callee}, set()) == kept  # an argument that calls


def test_thirty_years_war_resolves_its_actions_without_a_call_per_group() -> None:
    text = (REPO / "generated" / "march_of_progress" / "engine.py").read_text(encoding="utf-8")
    body = text.split("def q_turn__resolve(")[1].split("\n    def ")[0]
    assert "if self.inl_f_actors_of:" in body
    gen = REPO / "generated" / "march_of_progress"
    assert '"inl_f_actors_of": True' in (gen / "thirty_years_war.py").read_text(encoding="utf-8")
    # the scenario that redefines actors_of calls its own
    pbom = (gen / "politics_by_other_means.py").read_text(encoding="utf-8")
    assert '"inl_f_actors_of": False' in pbom and "def f_actors_of(" in pbom


def test_a_dispatch_method_called_as_a_statement_is_inlined_in_a_loop_run_once() -> None:
    dispatch = (
        "def play_q(self, S: list[Any], R: Any, c: int, p: Any) -> None:\n"
        '    """Doc."""\n'
        "    i = self.card_ix[c]\n"
        "    if i == 1:\n"
        "        self.out.append(('one', p))\n"
        "        return\n"
        "    self.out.append(('other', c, p))\n"
    )
    caller = (
        "def q_x(self, S: list[Any], R: Any) -> Any:\n"
        "    for v_c in (0, 1, 2):\n"
        "        i = v_c * 7\n"
        "        self.play_q(S, R, v_c, i)\n"
        "    return self.out\n"
    )
    fn = inlinable(dispatch, "play_q")
    assert fn is not None and inlinable(dispatch, "q_card__x") is None  # only dispatchers
    out = inline_calls(caller, {"play_q": fn}, {"play_q"})
    assert "while True:" in out and "break" in out and "i__i1 = self.card_ix[v_c]" in out

    class Engine:
        card_ix = (0, 1, 2)

        def __init__(self, flag: bool) -> None:
            self.out: list[Any] = []
            self.inl_play_q = flag

        def play_q(self, S: list[Any], R: Any, c: int, p: Any) -> None:
            env: dict[str, Any] = {"Any": Any}
            exec(dispatch.replace("def play_q", "def f"), env)
            env["f"](self, S, R, c, p)

    def run(code: str, flag: bool) -> Any:
        env: dict[str, Any] = {"Any": Any}
        exec(code, env)
        return env["q_x"](Engine(flag), [], None)

    assert run(out, True) == run(out, False) == run(caller, True)
    assert run(caller, True) == [("other", 0, 0), ("one", 7), ("other", 2, 14)]
