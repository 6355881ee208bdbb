"""Card masks looked up by an enum loop's position, not by the value's text
(compiler/codegen/ordinals.py, runtime/layout.engine_data): the same masks in the same order."""

from __future__ import annotations

from typing import Any

from compile_helpers import REPO
from rulecraft.compiler.codegen.ordinals import ordinal_lookups
from rulecraft.runtime.layout import engine_data

METHOD = """def q_x(self, S: list[Any], v_m: int) -> Any:
    "Doc."
    out = []
    for v_g in self.e_kind:
        #@rules.yaml:3:5
        out.append(v_m & self.mk_card__kind.get(v_g, 0))
        out.append([v_m & self.mk_card__kind.get(v_g, 0) for _x in (1, 2)])
    for v_h in self.e_kind:
        v_h = "b"  # the loop's value replaced: its position says nothing of it
        out.append(self.mk_card__kind.get(v_h, 0))
    for v_k in self.e_kind:
        out.append(self.mk_card__kind.get(v_k, 1))  # another default: left alone
    return out
"""


class _Engine:
    def __init__(self) -> None:
        primary = {
            "id_card": ("c0", "c1", "c2", "c3"),
            "card_kind": ("b", "a", "b", "c"),
            "e_kind": ("a", "b", "c", "d"),
        }
        self.__dict__.update(engine_data(primary, ()))


def test_a_lookup_by_an_enum_loops_value_reads_the_tuple_by_position() -> None:
    d = engine_data(
        {"id_card": ("c0", "c1", "c2"), "card_kind": ("b", "a", "b"), "e_kind": ("a", "b", "c")},
        (),
    )
    assert d["mkt_card__kind__kind"] == (0b010, 0b101, 0)  # "c": no card
    out, keys = ordinal_lookups(METHOD)
    assert keys == {"mkt_card__kind__kind"}
    assert "for _e1, v_g in enumerate(self.e_kind):" in out
    assert out.count("self.mkt_card__kind__kind[_e1]") == 2
    assert "    #@rules.yaml:3:5\n" in out
    # a loop that binds its value again, and another default, keep the dict
    assert "for v_h in self.e_kind:" in out and "self.mk_card__kind.get(v_h, 0)" in out
    assert "self.mk_card__kind.get(v_k, 1)" in out
    env: dict[str, Any] = {"Any": Any}
    before: dict[str, Any] = {"Any": Any}
    exec(out, env)
    exec(METHOD, before)
    eng = _Engine()
    for mask in range(16):
        assert env["q_x"](eng, [], mask) == before["q_x"](eng, [], mask)


def test_a_method_without_such_a_loop_is_left_as_it_is() -> None:
    code = "def f_x(self, S, v_g):\n    return self.mk_card__kind.get(v_g, 0)\n"
    assert ordinal_lookups(code) == (code, set())


def test_the_sequence_of_actions_reads_its_rows_by_position() -> None:
    text = (REPO / "generated" / "march_of_progress" / "engine.py").read_text(encoding="utf-8")
    body = text.split("def q_turn__resolve(")[1].split("\n    def ")[0]
    assert "for _e1, v_grp in enumerate(self.e_action_group):" in body
    assert "self.mkt_card__group__action_group[_e1]" in body
    assert "mk_card__group.get(v_grp" not in body
