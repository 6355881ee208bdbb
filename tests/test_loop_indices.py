"""Loop variables that walk indices declared i64 for the native build
(compiler/codegen/loop_indices.py): only names every binding of which is such a loop."""

from __future__ import annotations

import ast

from compile_helpers import REPO
from rulecraft.compiler.codegen.loop_indices import index_loops

METHOD = """def f_x(self, S: list[Any], v_p: i64, v_m: Any) -> int:
    "Doc."
    n = 0
    for v_a in self.ixt_army__owner[v_p]:
        #@rules.yaml:4:9
        n += 1
    for v_a in self.all_army:
        n += v_a
    for v_c in _BITS8[_m1] if 0 <= (_m1 := v_m) < 256 else _bits(_m1):
        n += v_c
    for v_r in self.ix_army__owner.get(v_p, ()):
        n += v_r
    for v_p in self.all_player:
        n += v_p
    for v_t in _ps1:
        n += v_t
    v_b = None
    for v_b in self.all_army:
        n += 1
    for v_i, v_j in enumerate(self.all_army):
        n += v_i + v_j
    for v_k in self.all_army:
        n += len([v_k for v_k in (1, 2)])
    for v_w in self.all_army:
        n += sum([(v_z := 1) for _ in (v_z,)])
    for v_z in self.all_army:
        n += 1
    return n
"""


def _body(code: str) -> list[ast.stmt]:
    fn = ast.parse(code).body[0]
    assert isinstance(fn, ast.FunctionDef)
    return fn.body


def _declared(code: str) -> list[str]:
    return [
        s.target.id
        for s in _body(code)
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is None
    ]


def test_only_loop_variables_that_walk_indices_are_declared_i64() -> None:
    out = index_loops(METHOD)
    # index tuples, a set's members, an index's records; a comprehension's own variable
    # does not count as a binding of the method's
    assert _declared(out) == ["v_a", "v_c", "v_k", "v_r", "v_w"]
    assert out.startswith(
        'def f_x(self, S: list[Any], v_p: i64, v_m: Any) -> int:\n    """Doc."""\n'
    )
    assert "    v_a: i64\n    v_c: i64\n" in out
    assert "\n        #@rules.yaml:4:9\n" in out  # the rules positions stay
    # not: a parameter (v_p), a loop over a local (v_t), a name a statement binds too (v_b),
    # a tuple target (v_i, v_j), a name `:=` binds in the method (v_z)
    for name in ("v_p", "v_t", "v_b", "v_i", "v_j", "v_z"):
        assert f"{name}: i64" not in out.split("->", 1)[1], name
    # the same method otherwise: only declarations were added
    body = [s for s in _body(out) if not isinstance(s, ast.AnnAssign)]
    assert ast.dump(ast.Module(body, [])) == ast.dump(ast.Module(_body(METHOD), []))
    assert index_loops("def f_y(self, S):\n    return 1\n") == "def f_y(self, S):\n    return 1\n"


def test_the_engines_declare_their_index_loops() -> None:
    text = (REPO / "generated" / "march_of_progress" / "engine.py").read_text(encoding="utf-8")
    controls = text[text.index("    def f_controls(") :]
    controls = controls[: controls.index("\n    def ", 1)]
    assert "        v_a: i64\n" in controls and "for v_a in self.ixt_army__owner[v_p]:" in controls
