"""Scenarios as keyed overlays: a variant invented here compiles with no code change, every
overlay that targets something missing is an error at its key, and `explain` tells where
every part of a resolved scenario came from."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest
import yaml
from compile_helpers import (
    REPO,
    compile_errors,
    compile_into,
    import_generated,
    scenario_module,
    scratch_project,
)
from rulecraft.compiler.commands.explain import explain
from rulecraft.runtime import Game

LONG_WAR = """\
scenario: long_war
base: thirty_years_war
title: The Long War (invented for the tests)
constants:
  victory_vps: {value: 25}
choices:
  order_choice_without_flip: false
globals:
  vp_stock: 42
players:
  all:
    cards: [move_1, move_2, recruit, attack, attack_plus_1, strength, score, levy]
    hand: [move_1, move_2, recruit, attack, attack_plus_1, strength, score, levy]
state:
  globals:
    levies: {type: int, doc: Armies raised by LEVY.}
cards:
  remove: [fortify]
  add:
    levy:
      name: LEVY
      group: recruit
      effect: |
        levies += 1
        log "{me} raises a levy"
functions:
  replace:
    vp_die_floor:
      params: {p: player, c: country}
      returns: int
      body: |
        return 1
flow:
  end_of_turn:
    add:
      stock_empty:
        doc: Without this step a 21-21 split of the stock would never end (found by simulation).
        do: |
          if vp_stock == 0:
              let best = max([p.vp for p in players])
              end_game([p for p in players if p.vp == best], "the stock is empty")
  setup:
    add:
      war_chest:
        before: initiative
        do: |
          for p in players:
              p.vp = 2
              vp_stock -= 2
hooks:
  blood_money:
    after: destroy
    do: |
      gain_vp(enemy(a.owner), 1)
"""


def load(root: Path, scenario: str):
    """The module of a scenario compiled into ``root`` (the registry keeps the real game)."""
    return scenario_module(import_generated(root, "march_of_progress"), scenario)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = scratch_project(tmp_path)
    scen = root / "rules" / "march_of_progress" / "scenarios"
    for path in scen.glob("*.yaml"):
        if path.stem != "thirty_years_war":
            path.unlink()
    for path in (root / "rules" / "march_of_progress" / "examples").glob("*.yaml"):
        path.unlink()
    return root


def test_an_invented_variant_compiles_and_plays_with_no_code_change(root: Path) -> None:
    """Rules: MOP-SCEN-01"""
    (root / "rules" / "march_of_progress" / "scenarios" / "long_war.yaml").write_text(LONG_WAR)
    games = compile_into(root)
    assert {"march_of_progress/thirty_years_war", "march_of_progress/long_war"} <= set(games)
    engine = load(root, "long_war")
    assert "fortify" not in engine.CARD_ID and "levy" in engine.CARD_ID
    spec = engine.SPEC
    g = Game.new(spec, "long_war", 3)
    S = g.state
    assert S["c"]["victory_vps"] == 25
    assert [p["vp"] for p in S["p"]] == [2, 2] and S["g"]["vp_stock"] == 38
    ids = {o.id for o in g.pending()[0].options}
    assert "card:levy" in ids and "card:fortify" not in ids
    destroyed_paid = 0
    for seed in range(40):
        g = Game.new(spec, "long_war", seed)
        rng = random.Random(seed)
        while not g.finished:
            d = rng.choice(g.pending())
            before = sum(p["vp"] for p in g.state["p"])
            g.apply(d.player, rng.choice(d.options).id)
            S = g.state
            assert S["g"]["vp_stock"] + sum(p["vp"] for p in S["p"]) == 42
            del before
        log = g.log_for(None)
        destroyed_paid += sum("destroyed" in line for line in log)
        assert max(p["vp"] for p in g.state["p"]) >= 25 or g.state["g"]["vp_stock"] == 0
        assert g.result is not None
    assert destroyed_paid > 0


def test_the_base_scenario_is_unchanged_by_its_variant(root: Path) -> None:
    (root / "rules" / "march_of_progress" / "scenarios" / "long_war.yaml").write_text(LONG_WAR)
    compile_into(root)
    base = load(root, "thirty_years_war")
    assert "fortify" in base.CARD_ID and "levy" not in base.CARD_ID
    assert base.SPEC.constants["victory_vps"] == 18


@pytest.mark.parametrize(
    ("old", "new", "needle", "message"),
    [
        (
            "  remove: [fortify]",
            "  remove: [fortfy]",
            "fortfy",
            "there is no card 'fortfy' to change",
        ),
        (
            "  replace:\n    vp_die_floor:",
            "  replace:\n    vp_die_flor:",
            "vp_die_flor",
            "there is no function 'vp_die_flor' to change",
        ),
        (
            "before: initiative",
            "before: initiatve",
            "initiatve",
            "there is no setup step 'initiatve' to change",
        ),
        (
            "base: thirty_years_war",
            "base: thirty_year_war",
            "thirty_year_war",
            "unknown base scenario 'thirty_year_war'",
        ),
        (
            "after: destroy",
            "after: destory",
            "destory",
            "there is no procedure 'destory' to change",
        ),
        ("  add:\n    levy:", "  add:\n    score:", None, "card 'score' already exists"),
    ],
)
def test_overlay_targets_that_do_not_exist_are_errors_at_their_key(
    root: Path, old: str, new: str, needle: str | None, message: str
) -> None:
    text = LONG_WAR.replace(old, new, 1)
    assert text != LONG_WAR
    path = root / "rules" / "march_of_progress" / "scenarios" / "long_war.yaml"
    path.write_text(text)
    errors = [d for d in compile_errors(root) if d.message == message]
    assert errors, [d.render() for d in compile_errors(root)]
    d = errors[0]
    assert d.pos.file == "rules/march_of_progress/scenarios/long_war.yaml"
    if needle is not None:
        i = text.index(needle)
        line = text.count("\n", 0, i) + 1
        col = i - (text.rfind("\n", 0, i) + 1) + 1
        assert (d.pos.line, d.pos.col) == (line, col)


def test_the_bot_turn_limit_is_tooling_data_inherited_from_the_base(root: Path) -> None:
    """`simulate: bot_max_turns` reaches the engine data; a variant without it inherits it."""
    from rulecraft.runtime.tools.simulate import bot_max_turns, default_max_turns

    scen = root / "rules" / "march_of_progress" / "scenarios"
    base = yaml.safe_load((scen / "thirty_years_war.yaml").read_text())["simulate"]
    (scen / "long_war.yaml").write_text(LONG_WAR)
    short = LONG_WAR.replace("scenario: long_war", "scenario: short_war")
    (scen / "short_war.yaml").write_text(short + "simulate:\n  bot_max_turns: 42\n")
    compile_into(root)
    package = import_generated(root, "march_of_progress")
    specs = {s: scenario_module(package, s).SPEC for s in ("long_war", "short_war")}
    assert bot_max_turns(specs["long_war"]) == base["bot_max_turns"]
    assert bot_max_turns(specs["short_war"]) == 42
    # games with a bot stop there; random games at the scenario's own limit
    assert default_max_turns(specs["short_war"], ["mc:2", "random"]) == 42
    assert default_max_turns(specs["short_war"], ["random"]) is None


@pytest.mark.parametrize(
    ("tail", "needle"),
    [
        ("max_turns: 100\nsimulate:\n  bot_max_turns: 120\n", "120"),
        ("max_turns: 100\n", "100"),  # below the base's bot limit, inherited
    ],
)
def test_a_bot_turn_limit_above_max_turns_is_an_error(root: Path, tail: str, needle: str) -> None:
    text = LONG_WAR + tail
    (root / "rules" / "march_of_progress" / "scenarios" / "long_war.yaml").write_text(text)
    errors = [d for d in compile_errors(root) if "is above the scenario's max_turns" in d.message]
    assert len(errors) == 1, [d.render() for d in compile_errors(root)]
    d = errors[0]
    assert d.code == "schema" and d.pos.file == "rules/march_of_progress/scenarios/long_war.yaml"
    i = text.rindex(needle)
    assert (d.pos.line, d.pos.col) == (text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i))


def test_explain_names_the_file_line_and_layer_of_every_part(root: Path) -> None:
    (root / "rules" / "march_of_progress" / "scenarios" / "long_war.yaml").write_text(LONG_WAR)
    games = compile_into(root)
    table = explain(games["march_of_progress/long_war"])
    rows = {(section, r["what"]): r for section, rs in table.items() for r in rs}
    stock = rows[("globals", "vp_stock")]
    assert stock["value"] == 42 and stock["layer"] == "long_war"
    assert stock["where"] == "rules/march_of_progress/scenarios/long_war.yaml:9:13"
    strength = rows[("players", "blue.strength")]
    assert strength["layer"] == "thirty_years_war"
    assert rows[("cards", "levy")]["where"].startswith(
        "rules/march_of_progress/scenarios/long_war.yaml:"
    )
    assert rows[("cards", "move_1")]["where"].startswith("rules/march_of_progress/cards.yaml:")
    assert rows[("functions", "vp_die_floor")]["layer"] == "long_war"
    assert rows[("functions", "controls")]["layer"] == "game"
    assert rows[("hooks", "blood_money")]["value"] == "after destroy"
    assert [r["what"] for r in table["flow setup"]][:3] == ["armies", "war_chest", "initiative"]
    assert rows[("constants", "order_choice_without_flip")]["value"] is False


GENERIC = {
    "scenario",
    "scenarios",
    "introduction",
    "players",
    "variant",
    "variants",
    "opening",
    "succession",
}


def test_no_scenario_is_named_in_compiler_or_runtime() -> None:
    words = set()
    for path in (REPO / "rules").glob("*/scenarios/*.yaml"):
        words.add(path.stem)
        title = yaml.safe_load(path.read_text()).get("title", "")
        words.update(
            w
            for w in title.replace(":", " ").split()
            if len(w) > 6 and w.isalpha() and w.lower() not in GENERIC
        )
    assert "thirty_years_war" in words
    for word in sorted(words):
        proc = subprocess.run(
            ["git", "grep", "-i", "-w", "-l", word, "--", "compiler", "runtime"],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert proc.stdout == "", f"{word!r} is named in {proc.stdout.split()}"
