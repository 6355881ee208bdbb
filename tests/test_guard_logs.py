"""guard_logs (compiler/codegen/specialise.py): a log line whose arguments only read is written
under ``if S[_LOG] is not False:``; one whose arguments call something is left alone."""

from __future__ import annotations

from compile_helpers import REPO
from rulecraft.compiler.codegen.specialise import guard_logs

METHOD = """def p_x(self, S: list[Any], v_p: Any) -> None:
    "Doc."
    #@rules.yaml:1:2
    for v_c in _bits(N[self.o_p_played + v_p]):
        S[_REVEALS] += 1
        _log(S, 51, (v_p, v_c))
    if v_p:
        _log(S, 3, (str(v_p),))
    else:
        _log_to(S, 4, (N[self.o + v_p] - 1,), (v_p,))
    _log(S, 5, (N[1] // v_p,))
"""


def test_a_log_line_that_only_reads_is_guarded_and_one_that_calls_is_not() -> None:
    out = guard_logs(METHOD)
    assert "        if S[_LOG] is not False:\n            _log(S, 51, (v_p, v_c))" in out
    assert "    if v_p:\n        _log(S, 3, (str(v_p),))" in out  # str() still runs
    assert "    elif S[_LOG] is not False:\n        _log_to(S, 4," in out
    assert "\n    _log(S, 5, (N[1] // v_p,))" in out  # a division may fail: left alone
    assert "    #@rules.yaml:1:2\n" in out  # the rules-position marker stays a comment
    assert guard_logs("def f(self, S):\n    return 1") == "def f(self, S):\n    return 1"


def test_the_engines_guard_their_log_lines_outside_the_machine_form() -> None:
    text = (REPO / "generated" / "march_of_progress" / "engine.py").read_text(encoding="utf-8")
    reveal = text.split("def p_turn__reveal(")[1].split("\n    def ")[0]
    assert "if S[_LOG] is not False:\n                    _log(S, 51, (v_p, v_c))" in reveal
    # the machine form (r_) runs with the log on: no guard there
    for chunk in text.split("\n    def r_")[1:]:
        assert "S[_LOG] is not False" not in chunk.split("\n    def ")[0]
