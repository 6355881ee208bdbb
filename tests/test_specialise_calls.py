"""Small functions of the rules inlined where a plain method assigns their result, and the
steps of q_turns' straight-line turn (compiler/codegen/inline_calls.py): the callee's body in
the caller, its parameters read as the arguments and its locals renamed; under the
scenario's flag where a scenario redefines the function. The same values, without the call."""

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


TURN_MAIN = """def q_turns(self, S: list[Any], R: Any) -> None:
    "Doc."
    while True:
        self.next_turn(S)
        self.q_turn__draw(S, R)
        self.p_turn__score(S)
"""

DRAW = '''def q_turn__draw(self, S: list[Any], R: Any) -> None:
    """Doc."""
    N: list[int] = S
    v_p: int
    for v_p in self.all_player:
        N[self.o_p_pts + v_p] = N[self.o_p_pts + v_p] + int(R() * 3)
'''

SCORE = '''def p_turn__score(self, S: list[Any]) -> None:
    """Doc."""
    N: list[int] = S
    v_p = 0
    if N[self.o_p_pts + v_p] < self.c_goal:
        return
    raise StopIteration(N[self.o_p_pts + v_p])
'''


def test_the_steps_of_the_straight_turn_are_inlined_under_their_flags_and_data_hoisted() -> None:
    """q_turns' straight-line turn (dispatch.py): each step's body in the loop, under its flag
    (its call in the else, for a scenario that defines the step otherwise), its locals renamed,
    its returns the breaks of a loop run once, the state read as N once; then the data the
    loop reads (self.o_p_pts, self.c_goal, the flags) read into locals before it. The same
    game either way."""
    from rulecraft.compiler.codegen.inline_calls import hoist_data, inline_turn
    from rulecraft.compiler.codegen.pytext import bind_int_view

    steps = {
        n: inlinable(t, n, step=True) for n, t in (("q_turn__draw", DRAW), ("p_turn__score", SCORE))
    }
    assert all(steps.values()) and inlinable(DRAW, "q_turn__draw") is None  # steps only
    assert inlinable(CALLEE, "f_actors", step=True) is None  # a function is no step
    fns = {n: f for n, f in steps.items() if f is not None}
    # the state bound as N once, at the top, as module.py's last step does for every method
    inlined = bind_int_view(inline_turn(TURN_MAIN, fns, set(fns)))
    assert "if self.inl_q_turn__draw:" in inlined and "self.q_turn__draw(S, R)" in inlined
    assert inlined.count("N: list[int] = S") == 1 and "v_p__i1" in inlined
    assert "while True:" in inlined.split("if self.inl_p_turn__score:")[1]  # the return
    hoisted = hoist_data(
        inlined, {"o_p_pts", "c_goal", "all_player", "inl_q_turn__draw", "inl_p_turn__score"}
    )
    loop = hoisted.split("while True:", 1)[1]
    assert "self.o_p_pts" not in loop and "self.inl_" not in loop and "_d_o_p_pts" in loop
    assert "_d_c_goal = self.c_goal" in hoisted.split("while True:", 1)[0]
    assert hoist_data(TURN_MAIN.replace("next_turn", "other"), {"o_p_pts"}) == TURN_MAIN.replace(
        "next_turn", "other"
    )  # no straight-line turn, nothing to do

    class Engine:
        all_player = (0, 1)
        o_p_pts = 1
        c_goal = 9

        def __init__(self, flag: bool) -> None:
            self.inl_q_turn__draw = self.inl_p_turn__score = flag

        def next_turn(self, S: list[Any]) -> None:
            S[0] += 1

        def __getattr__(self, name: str) -> Any:  # the steps, called where not inlined
            env: dict[str, Any] = {"Any": Any}
            exec({"q_turn__draw": DRAW, "p_turn__score": SCORE}[name], env)
            return lambda *a: env[name](self, *a)

    def run(code: str, flag: bool) -> Any:
        env: dict[str, Any] = {"Any": Any, "i64": int}
        exec(code, env)
        S = [0, 0, 0]
        draws = iter([0.9, 0.5, 0.1] * 20).__next__
        try:
            env["q_turns"](Engine(flag), S, draws)
        except StopIteration as e:
            return S, e.value
        raise AssertionError("the game did not end")

    want = run(TURN_MAIN, True)
    assert want == ([9, 9, 9], 9)  # nine turns of 2+0+1 and 1+2+0: the goal reached
    assert run(inlined, True) == run(inlined, False) == run(hoisted, True) == want
    assert run(hoisted, False) == want
