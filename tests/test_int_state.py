"""The state holds ints where it can (engine v3, for the native build): a reference slot
holds -1 for none, and everything a person or a save sees of it still says none."""

from __future__ import annotations

import json

from compile_helpers import REPO
from rulecraft.runtime import Game
from rulecraft.runtime.layout import NO_REF, ref, unref

NAME = "march_of_progress/thirty_years_war"


def _location(g: Game, army: int) -> object:
    slot = g.spec.layout.by_path["e.army.location"]
    return g.raw[slot.offset + army]


def test_a_reference_slot_holds_minus_one_for_none_and_the_named_state_says_none() -> None:
    g = Game.named(NAME, 1)
    armies = range(g.spec.layout.by_path["e.army.location"].count)
    raw = [_location(g, a) for a in armies]
    assert all(isinstance(v, int) for v in raw)
    assert NO_REF in raw  # the armies in the stock are on no country
    named = [g.state["e"]["army"][a]["location"] for a in armies]
    assert [v is None for v in named] == [v == NO_REF for v in raw]
    saved = json.loads(g.position_json())["e"]["army"]
    assert [r["location"] is None for r in saved.values()] == [v == NO_REF for v in raw]


def test_a_position_saves_none_and_loads_back_to_minus_one() -> None:
    g = Game.named(NAME, 2)
    text = g.position_json()
    assert '"location":null' in text
    back = Game.from_position(text)
    assert back.raw == g.raw


def test_writing_none_by_name_stores_minus_one() -> None:
    g = Game.named(NAME, 3)
    placed = next(a for a in range(6) if _location(g, a) != NO_REF)
    g.state["e"]["army"][placed]["location"] = None
    assert _location(g, placed) == NO_REF
    assert g.state["e"]["army"][placed]["location"] is None


def test_ref_and_unref_convert() -> None:
    assert ref(NO_REF) is None and ref(0) == 0 and ref(5) == 5
    assert unref(None) == NO_REF and unref(0) == 0 and unref(5) == 5


def test_the_engine_compares_reference_slots_on_their_ints() -> None:
    text = (REPO / "generated" / "march_of_progress" / "engine.py").read_text(encoding="utf-8")
    assert "N[self.o_e_army__location + v_a] < 0" in text  # `a.location == none`
    assert "S[self.o_e_army__location + v_a] is None" not in text
    assert "= _unref(" in text  # a write encodes none


def _method(text: str, name: str) -> str:
    """A method's text, its whitespace runs made one space."""
    return " ".join(text.split(f"    def {name}(")[1].split("\n    def ")[0].split())


def test_a_reference_slot_is_compared_on_ints_where_the_other_side_is_never_none() -> None:
    text = (REPO / "generated" / "march_of_progress" / "engine.py").read_text(encoding="utf-8")
    # `c` typed i64 (never none, nonone.py): a plain int compare, native in the mypyc build
    defended = _method(text, "f_defended")
    assert "v_c: i64)" in defended
    assert "if N[self.o_e_army__location + v_a__1] == v_c:" in defended
    assert "v_c is not None" not in defended
    # a parameter that may be none (Any to mypyc): compared as its int copy, -1 for none
    armies_in = _method(text, "f_armies_in")
    assert "v_c: Any)" in armies_in
    assert "_k_v_c: i64 = -1 if v_c is None else v_c" in armies_in
    assert "if N[self.o_e_army__location + v_a] == _k_v_c" in armies_in
    # a local that may be none: compared as an object, with none as -1
    move = _method(text, "q_card__move_2")
    assert (
        "S[self.o_e_army__location + v_b] == v_start if v_start is not None "
        "else N[self.o_e_army__location + v_b] < 0"
    ) in move
    # a value never none is stored as it is, none as -1, through the int view
    assert "N[self.o_e_army__location + v_a] = v_dest" in _method(text, "p_move_army")
    assert "N[self.o_e_army__location + v_a] = -1" in _method(text, "p_destroy")


def test_the_layout_hash_follows_the_position_format_not_the_engine_abi(monkeypatch) -> None:
    """ABI 3 changed how the state holds a reference, not what a position says: a position
    written under ABI 2 (the same JSON) still loads, so the layout hash a position carries
    must not move with the ABI; it moves with the position format."""
    from rulecraft.runtime import layout

    slots = Game.named(NAME, 1).spec.layout
    before = layout.Layout(slots.size, slots.slots).hash
    monkeypatch.setattr(layout, "ABI", layout.ABI + 1)
    assert layout.Layout(slots.size, slots.slots).hash == before
    monkeypatch.setattr(layout, "POSITION_FORMAT", layout.POSITION_FORMAT + 1)
    assert layout.Layout(slots.size, slots.slots).hash != before
