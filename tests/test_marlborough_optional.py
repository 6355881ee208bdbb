"""Marlborough's optional rules (30-37), random events, diplomacy, training and negotiation:
their data, and random games with all of them on (every phase played on turn 1)."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import yaml
from compile_helpers import game_tables
from rulecraft.runtime import Game, resolve

RULES = Path(__file__).resolve().parent.parent / "rules" / "marlborough"
OPTIONAL = {
    "optional_free_corps": "MARL-30.1-01",
    "optional_rebels": "MARL-31.1-01",
    "optional_fortress_markers": "MARL-32.1-01",
    "optional_increasing_taxes": "MARL-33.1-01",
    "optional_prisoners": "MARL-34.1-01",
    "optional_pillage": "MARL-35.1-01",
    "optional_enlightenment": "MARL-36.1-01",
    "optional_experimental_leaders": "MARL-37.1-01",
}
ALL_ON = {name: True for name in OPTIONAL} | {
    "skip_turn_one_random_events": False,
    "skip_turn_one_treasury": False,
    "skip_turn_one_diplomacy": False,
}


def test_optional_rules_are_choices_off_by_default() -> None:
    """Rules: MARL-1.0-02"""
    choices = yaml.safe_load((RULES / "game.yaml").read_text(encoding="utf-8"))["choices"]
    for name, rule in OPTIONAL.items():
        assert choices[name]["value"] is False, name
        assert rule in choices[name]["rules"] and choices[name]["doc"]


def test_map_errata() -> None:
    """The map's Treasury Point marker in hex 5807 is ignored; there is no Alliance Army 4 box.
    Rules: MARL-ERR-01, MARL-ERR-02"""
    board = yaml.safe_load((RULES / "board.yaml").read_text(encoding="utf-8"))["board"]
    assert board["hexes"]["5807"].get("economic", 0) == 0
    assert not [b for b in board.get("boxes", {}) if "army_4" in b]


def test_random_events_two_dice_as_tens_and_ones() -> None:
    """9.1: two dice read as 11-66, so event 13 has a chance of 1 in 36 (the events
    themselves are assumed). Rules: MARL-9.1-01"""
    t = game_tables("marlborough")["random_events"]
    dist = t.distribution()
    assert dist["Reaction to Balance of Power"] == Fraction(1, 36)
    assert sum(dist.values()) == 1
    assert t.row_for(13).cells[0].printed_text == "Reaction to Balance of Power"


def play(spec, seed: int) -> Game:
    g = Game.new(spec, None, seed)
    rng = random.Random(seed)
    for _ in range(20000):
        if g.finished:
            return g
        pend = g.pending()
        d = pend[rng.randrange(len(pend))]
        g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
    raise AssertionError("game did not finish")


def test_random_games_with_every_optional_rule_and_phase_finish() -> None:
    spec, _ = resolve("marlborough/blenheim")
    spec = spec.with_constants(**ALL_ON)
    logs = []
    for seed in range(6):
        g = play(spec, seed)
        assert g.finished
        logs.append("\n".join(g.log_for(None)))
    text = "\n".join(logs)
    assert "Random event" in text
    assert "Battle Matrix" in text
    assert "Diplomacy Table" in text or "declares war" in text


def test_no_leak_in_diplomacy_espionage_negotiation_and_the_optional_rules() -> None:
    """The twin-state check (tests/leak_helpers.py) along random games with every optional
    rule and phase on, after every twelfth decision from the Provisioning Phase on (diplomacy
    with hidden markers, espionage reveals, offers) and every eightieth before it (the soak's
    all-checks run covers every scenario at random decisions too)."""
    from leak_helpers import differences

    spec, _ = resolve("marlborough/blenheim")
    spec = spec.with_constants(**ALL_ON)
    for seed in (1,):
        g = Game.new(spec, None, seed)
        rng = random.Random(seed)
        step = 0
        late = False
        while not g.finished:
            late = late or any("Balance of Power:" in line for line in g.log_for(None)[-5:])
            if (late and step % 12 == 0) or step % 80 == 0:
                for viewer in [*range(len(spec.seats)), None]:
                    assert differences(spec, g.raw, viewer, rng) == [], (seed, step, viewer)
            pend = g.pending()
            d = pend[rng.randrange(len(pend))]
            g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
            step += 1
