"""A loop over the records of a type whose body is one ``if`` on a fixed attribute walks the
records with that value (``self.ix_T__A``, ``compiler/codegen/indexed.py``), unless the
value it compares with may change while the loop runs."""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

from compile_helpers import compile_into, import_generated
from rulecraft.runtime import TurnLimit, new_state, playout

FIXTURES = Path(__file__).parent / "fixtures" / "games"
LOOP = "          for m in missions:\n              if m.owner == p:\n"
#: the missions of one owner: the owner a player, its index a tuple by player (none last)
OWNED = r"self\.ixt_mission__owner\[(?P<p>v_p\w*) if (?P=p) is not None else -1\]"
#: a for statement over the missions of one owner (not a comprehension)
STATEMENT = re.compile(rf"(?m)^\s+for v_m\w* in {OWNED}:$")


def envoys_engine(tmp_path: Path, loop: str = LOOP) -> str:
    """The generated engine of the envoys fixture, its commit loop written as ``loop``."""
    (tmp_path / "rules").mkdir()
    (tmp_path / "generated").mkdir()
    shutil.copytree(FIXTURES / "envoys", tmp_path / "rules" / "envoys")
    flow = tmp_path / "rules" / "envoys" / "flow.yaml"
    text = flow.read_text()
    assert text.count(LOOP) == 1
    flow.write_text(text.replace(LOOP, loop))
    compile_into(tmp_path)
    return (tmp_path / "generated" / "envoys" / "engine.py").read_text()


def test_a_loop_acting_on_one_owner_s_records_walks_that_owner_s_records(tmp_path):
    """``for m in missions: if m.owner == p:`` (the envoys fixture's commit step): its
    missions, none of the others. Tests/test_element_count.py plays every allocation through
    it and finds each mission's envoys."""
    engine = envoys_engine(tmp_path)
    assert re.search(STATEMENT, engine)
    assert "in self.all_mission:" not in engine


def test_the_rest_of_the_condition_is_still_tested(tmp_path):
    loop = "          for m in missions:\n              if m.envoys >= 0 and m.owner == p:\n"
    engine = envoys_engine(tmp_path, loop)
    found = re.search(rf"(?m)^\s+for (v_m\w*) in {OWNED}:\n\s+if (?P<rest>.*):", engine)
    rest = found.group("rest") if found else ""
    assert "o_e_mission__envoys" in rest and "owner" not in rest


def test_a_value_the_body_assigns_keeps_the_loop_over_every_record(tmp_path):
    """The compared local is assigned in the body: it may differ from one record to the
    next, so the loop visits every mission and tests each."""
    loop = (
        "          let q = p\n"
        "          for m in missions:\n"
        "              if m.owner == q:\n"
        "                  q = p\n"
    )
    engine = envoys_engine(tmp_path, loop)
    assert "in self.all_mission:" in engine
    assert not re.search(STATEMENT, engine)


COURTING = "      for p in players:\n          court(p)\n"


def _courting(tmp_path: Path, loop: str, function: str = "") -> str:
    """The engine of the envoys fixture compiled in ``tmp_path``, its courting loop written
    as ``loop`` and ``function`` added to its functions."""
    (tmp_path / "rules").mkdir(parents=True)
    (tmp_path / "generated").mkdir()
    shutil.copytree(FIXTURES / "envoys", tmp_path / "rules" / "envoys")
    rules = tmp_path / "rules" / "envoys" / "rules.yaml"
    rules.write_text(rules.read_text().replace("functions:\n", "functions:\n" + function, 1))
    flow = tmp_path / "rules" / "envoys" / "flow.yaml"
    text = flow.read_text()
    assert text.count(COURTING) == 1
    flow.write_text(text.replace(COURTING, loop))
    compile_into(tmp_path)
    return (tmp_path / "generated" / "envoys" / "engine.py").read_text()


def _final_states(root: Path, seeds: range) -> list[list]:
    spec = import_generated(root, "envoys").SPECS["rivals"]
    out = []
    for seed in seeds:
        S = new_state(spec, seed)
        try:
            playout(spec, S, random.Random(seed).random)
        except TurnLimit:
            pass
        out.append(S)
    return out


def test_a_filter_on_a_player_field_no_rule_changes_walks_the_seats_with_that_value(tmp_path):
    """``p.envoys`` is never written (every seat has 4): ``for p in players: if p.envoys ==
    4:`` walks ``self.ix_player__envoys.get(4, ())``, every seat in seat order, and plays the
    same games as the loop without the test; ``== 5`` walks no seat, and the games differ."""
    same = "      for p in players:\n          if p.envoys == 4:\n              court(p)\n"
    engine = _courting(tmp_path / "same", same)
    assert re.search(r"(?m)^\s+for v_p\w* in self\.ix_player__envoys\.get\(4, \(\)\):$", engine)
    _courting(tmp_path / "plain", COURTING)
    none = "      for p in players:\n          if p.envoys == 5:\n              court(p)\n"
    _courting(tmp_path / "none", none)
    seeds = range(12)
    plain = _final_states(tmp_path / "plain", seeds)
    assert _final_states(tmp_path / "same", seeds) == plain
    assert _final_states(tmp_path / "none", seeds) != plain


def test_a_filter_written_in_a_function_is_indexed_once_inlined(tmp_path):
    """``[q for q in players if four_envoys(q)]``, the function returning ``q.envoys == 4``:
    the call is inlined into the filter, whose equality the seats' index serves."""
    function = (
        "  four_envoys:\n"
        "    params: {q: player}\n"
        "    returns: bool\n"
        "    body: |\n"
        "      return q.envoys == 4\n"
    )
    loop = "      for p in [q for q in players if four_envoys(q)]:\n          court(p)\n"
    engine = _courting(tmp_path / "fn", loop, function)
    assert "self.ix_player__envoys.get(4, ())" in engine
    assert "f_four_envoys" not in engine.split("def q_turn__courting", 1)[-1].split("\n    def ")[0]


ENVOYS_AT = "return sum([m.envoys for m in missions if m.owner == p and m.city == c])"


def _envoys_at(tmp_path: Path, body: str) -> str:
    """The engine of the envoys fixture compiled in ``tmp_path``, ``envoys_at`` returning
    ``body``."""
    (tmp_path / "rules").mkdir(parents=True)
    (tmp_path / "generated").mkdir()
    shutil.copytree(FIXTURES / "envoys", tmp_path / "rules" / "envoys")
    rules = tmp_path / "rules" / "envoys" / "rules.yaml"
    text = rules.read_text()
    assert text.count(ENVOYS_AT) == 1
    rules.write_text(text.replace(ENVOYS_AT, body))
    compile_into(tmp_path)
    return (tmp_path / "generated" / "envoys" / "engine.py").read_text()


def test_a_sum_over_seats_of_sums_over_their_records_is_one_loop_over_records(tmp_path):
    """``sum([sum([m.envoys for m in missions if m.owner == q and m.city == c]) for q in
    players if q.envoys == p.envoys and q == p])``: one loop over the missions of ``c`` whose
    owner has ``p``'s envoys (``self.ix_mission__city__owner_of_envoys``, the owner's fixed
    player field seen through the mission's fixed ``owner``), no loop over the seats; the
    same games as the plain sum."""
    nested = (
        "return sum([sum([m.envoys for m in missions if m.owner == q and m.city == c])"
        " for q in players if q.envoys == p.envoys and q == p])"
    )
    engine = _envoys_at(tmp_path / "nested", nested)
    body = engine.split("def f_envoys_at", 1)[1].split("\n    def ", 1)[0]
    assert "_of_envoys" in body
    assert "all_player" not in body and "ix_player__" not in body
    _envoys_at(tmp_path / "plain", ENVOYS_AT)
    seeds = range(12)
    assert _final_states(tmp_path / "nested", seeds) == _final_states(tmp_path / "plain", seeds)


def test_a_sum_over_seats_without_an_index_for_their_filter_stays_nested(tmp_path):
    """The seats' filter tests no fixed player field (``q == p`` alone): the fused loop
    would gain nothing, so the sums stay as written (a loop over the seats)."""
    nested = (
        "return sum([sum([m.envoys for m in missions if m.owner == q and m.city == c])"
        " for q in players if q == p])"
    )
    engine = _envoys_at(tmp_path / "nested", nested)
    body = engine.split("def f_envoys_at", 1)[1].split("\n    def ", 1)[0]
    assert "_of_" not in body and "self.all_player" in body


def test_the_records_whose_reference_is_none_are_the_tuple_s_last_entry():
    """`a == none` reads the entry of the records without one directly: the conditional the
    other keys get (`k if k is not None else -1`) would be `None if None is not None else -1`,
    typed `int | None`, which the native build (mypy) refuses as an index."""
    from rulecraft.compiler.codegen.indexed import index_of

    data = {"ixt_nation__permanent": ()}
    assert index_of(data, "nation", "permanent", "None") == "self.ixt_nation__permanent[-1]"
    assert index_of(data, "nation", "permanent", "v_p") == (
        "self.ixt_nation__permanent[v_p if v_p is not None else -1]"
    )
    engine = Path(__file__).resolve().parents[1] / "generated" / "marlborough" / "engine.py"
    assert not re.search(r"\bNone if None\b", engine.read_text())
