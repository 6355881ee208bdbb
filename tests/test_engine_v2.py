"""Engine v2 guarantees not covered elsewhere: a save from a changed layout is refused;
routines that wait for decisions may call themselves (the machine keeps one frame per call);
a scenario that changes only set-up data adds no routine code.

Each compiles a changed copy of a game (the toy game of tests/fixtures/games/toy/, or The
March of Progress) into a scratch project with the real pipeline.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from compile_helpers import compile_into, import_generated, scratch_project
from fixtures.toy import SOURCE, SPEC
from rulecraft.runtime import Game, SaveError


def _toy_copy(root: Path) -> Path:
    (root / "rules").mkdir()
    (root / "generated").mkdir()
    shutil.copytree(SOURCE, root / "rules" / "toy")
    return root / "rules" / "toy"


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path.name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_save_from_a_changed_layout_is_refused(tmp_path):
    game = _toy_copy(tmp_path)
    # One more field that changes during play: the state has another layout.
    _replace(
        game / "game.yaml",
        "    round: {type: int, min: 0}\n",
        "    round: {type: int, min: 0}\n    tricks: {type: int, min: 0}\n",
    )
    _replace(game / "flow.yaml", "      round += 1\n", "      round += 1\n      tricks += 1\n")
    compile_into(tmp_path)
    changed = import_generated(tmp_path, "toy").SPECS["duel"]
    assert changed.layout.hash != SPEC.layout.hash

    g = Game.new(SPEC, "duel", 3)
    d = g.pending()[0]
    g.apply(d.player, d.options[0].id)
    text = g.to_json()
    assert Game.from_json(text, SPEC).raw == g.raw  # the same engine loads it
    with pytest.raises(SaveError, match=r"written for another version of toy/duel \(layout"):
        Game.from_json(text, changed)


def test_an_unchanged_layout_hash_survives_a_rule_change_that_moves_nothing(tmp_path):
    game = _toy_copy(tmp_path)
    _replace(game / "flow.yaml", 'log "The trick is drawn."', 'log "Nobody wins the trick."')
    compile_into(tmp_path)
    reworded = import_generated(tmp_path, "toy").SPECS["duel"]
    assert reworded.layout.hash == SPEC.layout.hash


RECURSIVE = """
  bid:
    do: |
      let red = first(players)
      bid_up(red, 1)
"""
BID_UP = """
  bid_up:
    doc: Raise the stakes one step at a time until the player stops (or reaches 4).
    params: {p: player, level: int}
    body: |
      if level < 4:
          let more = choose_yes_no(p, "Raise the stakes to {level + 1} VP?")
          if more:
              stakes = level + 1
              log "{p} raises the stakes to {stakes} VP."
              bid_up(p, level + 1)
"""


def test_a_routine_that_waits_may_call_itself(tmp_path):
    game = _toy_copy(tmp_path)
    # The stakes phase becomes a recursive procedure that asks at every level.
    flow = game / "flow.yaml"
    text = flow.read_text(encoding="utf-8")
    start = text.index("  stakes:\n")
    end = text.index("  trick:\n")
    flow.write_text(text[:start] + RECURSIVE.lstrip("\n") + "\n" + text[end:], encoding="utf-8")
    rules = game / "rules.yaml"
    rules.write_text(
        rules.read_text(encoding="utf-8").replace("procedures:\n", "procedures:" + BID_UP, 1),
        encoding="utf-8",
    )
    compile_into(tmp_path)
    spec = import_generated(tmp_path, "toy").SPECS["duel"]

    g = Game.new(spec, "duel", 5)
    for d in g.pending():  # both pick a card
        g.apply(d.player, d.options[0].id)
    prompts = []
    for _ in range(3):  # red raises three times: the procedure is three calls deep
        (d,) = g.pending()
        prompts.append(d.prompt)
        saved = g.to_json()  # a save in the middle of the recursion resumes it
        g = Game.from_json(saved, spec)
        g.apply(d.player, "yes")
    assert prompts == [f"Raise the stakes to {n} VP?" for n in (2, 3, 4)]
    assert g.state["g"]["stakes"] == 4
    assert "Red raises the stakes to 4 VP." in g.log_for(None)
    # at level 4 it asks no more: the game went on to the trick
    assert all("Raise" not in d.prompt for d in g.pending())

    # random games, also in the playout form, end normally
    for seed in range(30):
        r = random.Random(seed)
        h = Game.new(spec, "duel", seed)
        while not h.finished:
            d = h.pending()[0]
            h.apply_index(d.player, r.randrange(len(d.options)))
        assert h.result is not None


LONG_WAR = """\
scenario: long_war
base: thirty_years_war
title: "The Long War"
constants:
  victory_vps: {value: 25}
globals:
  vp_stock: 42
players:
  all: {strength: 2}
entities:
  country:
    neutral: {vp_die: 1, adjacent: [blue_home, orange_home, bavaria]}
    bavaria: {name: Bavaria, kind: neutral, garrison: 0, vp_max: 2, vp_die: 2, adjacent: [neutral]}
"""


def test_a_scenario_that_changes_only_set_up_data_adds_no_routine_code(tmp_path):
    root = scratch_project(tmp_path)
    (root / "rules/march_of_progress/scenarios/long_war.yaml").write_text(
        LONG_WAR, encoding="utf-8"
    )
    compile_into(root)
    source = (root / "generated/march_of_progress/long_war.py").read_text(encoding="utf-8")
    assert "\nclass " not in source and " def " not in source and "\ndef " not in source
    # and it plays, with its data
    spec = import_generated(root, "march_of_progress").SPECS["long_war"]
    g = Game.new(spec, "long_war", 1)
    assert g.state["g"]["vp_stock"] == 42
    assert [p["strength"] for p in g.state["p"]] == [2, 2]
    assert "bavaria" in spec.ids["country"]
    r = random.Random(1)
    while not g.finished:
        d = g.pending()[0]
        g.apply_index(d.player, r.randrange(len(d.options)))
