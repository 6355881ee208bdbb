"""Board displays (`board:` in rules.yaml): lines computed from the state, shown on every
seat's board; a display changes nothing and reads only what every player sees."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from compile_helpers import compile_errors
from fixtures.toy import CARD_ID, SOURCE, SPEC
from mop_helpers import BLUE_HOME, NEUTRAL, new_game, place
from rulecraft.runtime import Game
from rulecraft.runtime.tools.terminal import render_view

DISPLAY = """\
      for p in players:
          if count(p.revealed) > 0:
              log "{p}: {p.vp} VP, revealed {shown(p)}"
"""


def test_a_display_shows_the_state_now_to_every_seat_alike() -> None:
    g = Game.new(SPEC, "duel", 3)
    assert g.displays(0) == [("Standing", ["Red: 0 VP", "Blue: 0 VP"])]
    rng = random.Random(3)
    while not g.state["p"][0]["revealed"]:
        d = g.pending()[0]
        g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
    log = g.log_for(None)
    [(title, lines)] = g.displays(None)
    assert g.displays(0) == g.displays(1) == [(title, lines)]
    assert g.log_for(None) == log  # a display writes nothing into the game's log
    for p, line in zip(g.state["p"], lines, strict=True):
        shown = sum(int(CARD_ID[c][1:]) for c in p["revealed"])  # card cN is worth N
        assert line.endswith(f"{p['vp']} VP, revealed {shown}" if shown else f"{p['vp']} VP")
    assert "revealed" in lines[0]
    assert "Standing:\n    Red: " in render_view(g.view(0), g.spec, g.displays(0))


def _toy(tmp_path: Path, display: str) -> Path:
    root = tmp_path
    shutil.copytree(SOURCE, root / "rules" / "toy")
    (root / "generated").mkdir()
    rules = root / "rules" / "toy" / "rules.yaml"
    text = rules.read_text()
    head = text[: text.index("    show: |\n") + len("    show: |\n")]
    rules.write_text(head + display)
    return rules


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if needle in ln)


def test_a_display_may_not_read_what_a_player_may_not_see(tmp_path: Path) -> None:
    rules = _toy(tmp_path, DISPLAY + '          log "{p} holds {count(p.hand)} cards"\n')
    [err] = compile_errors(tmp_path)
    assert err.message == ("board display 'standing' reads 'hand', which not every player may see")
    assert err.pos.line == _line_of(rules, "count(p.hand)")
    assert "visible: all" in err.hint


def test_a_display_may_not_read_it_through_a_function(tmp_path: Path) -> None:
    rules = _toy(
        tmp_path,
        DISPLAY + '          log "{p}: marker {first(markers).strength}"\n',
    )
    text = rules.read_text().replace(
        "  shown:\n",
        "  strongest:\n    returns: int\n    body: |\n"
        "      return max([m.strength for m in markers])\n\n  shown:\n",
    )
    rules.write_text(text.replace("{first(markers).strength}", "{strongest()}"))
    [err] = compile_errors(tmp_path)
    assert err.message == (
        "board display 'standing' reads 'strength' (through strongest()), which not every "
        "player may see"
    )
    assert err.pos.line == _line_of(rules, "{strongest()}")


def test_a_display_changes_nothing(tmp_path: Path) -> None:
    _toy(tmp_path, "      for p in players:\n          p.vp += 1\n")
    [err] = compile_errors(tmp_path)
    assert err.message == "board display 'standing' may not change the game state"


def test_the_march_of_progress_board_explains_combat_strength() -> None:
    """Rules: MOP-COMBAT-01, MOP-COMBAT-02, MOP-COMBAT-04, MOP-COMBAT-05, MOP-ATT-05"""
    g = new_game()
    assert g.displays(0) == [("Combat strength now (where both sides have forces)", [])]
    place(g, "blue_1", NEUTRAL)
    place(g, "blue_2", NEUTRAL, fortified=True)
    place(g, "orange_1", NEUTRAL)
    place(g, "orange_2", BLUE_HOME)
    g.state["p"][0]["strength"] = 2
    g.state["p"][1]["strength"] = 3
    [(_title, lines)] = g.displays(0)
    assert lines == [
        "In Blue home:",
        "  Blue defends with 2 = armies 0 + garrison 2",
        "  Orange attacks with 3 (1 army)",
        "  Orange defends with 3 = armies 3",
        "In Neutral:",
        "  Blue attacks with 2 (1 army; 1 fortified army may stand up and join)",
        # a fortified army counts its strength + 1 in defence (MOP-COMBAT-02)
        "  Blue defends with 5 = armies 5",
        "  Orange attacks with 3 (1 army)",
        "  Orange defends with 3 = armies 3",
    ]
