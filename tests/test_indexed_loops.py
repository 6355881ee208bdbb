"""A loop over the records of a type whose body is one ``if`` on a fixed attribute walks the
records with that value (``self.ix_T__A``, ``compiler/codegen/indexed.py``), unless the
value it compares with may change while the loop runs."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from compile_helpers import compile_into

FIXTURES = Path(__file__).parent / "fixtures" / "games"
LOOP = "          for m in missions:\n              if m.owner == p:\n"
#: a for statement over the missions of one owner (not a comprehension)
STATEMENT = re.compile(r"(?m)^\s+for v_m\w* in self\.ix_mission__owner\.get\(v_p\w*, \(\)\):$")


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
    found = re.search(
        r"(?m)^\s+for (v_m\w*) in self\.ix_mission__owner\.get\(v_p\w*, \(\)\):\n\s+if (.*):",
        engine,
    )
    assert found and "o_e_mission__envoys" in found.group(2) and "owner" not in found.group(2)


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
