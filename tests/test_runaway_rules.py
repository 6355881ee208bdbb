"""Rules that compile can still run away: a loop that never ends, a routine that calls
itself. The work between two decisions and the depth of waiting calls are bounded, and going
past either is a RulesError naming the rules line, in the machine form (play, tests) and in
the playout form (bots, simulate) alike."""

from __future__ import annotations

import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from compile_helpers import compile_into, import_generated
from fixtures.toy import SOURCE
from rulecraft.runtime import Game, RulesError
from rulecraft.runtime.machine import playout

STAKES = """      let raise = choose_yes_no(red, "Raise the stakes to 2 VP?")
      stakes = 2 if raise else 1
"""
AGAIN = """  again:
    params: {p: player}
    body: |
%s
"""


def _toy(stakes: str, again: str = "") -> Any:
    """The toy game with its stakes step replaced (and a procedure `again` added)."""
    root = Path(tempfile.mkdtemp(prefix="rulecraft-runaway-"))
    (root / "rules").mkdir()
    (root / "generated").mkdir()
    shutil.copytree(SOURCE, root / "rules" / "toy")
    flow = root / "rules" / "toy" / "flow.yaml"
    flow.write_text(flow.read_text().replace(STAKES, stakes))
    if again:
        rules = root / "rules" / "toy" / "rules.yaml"
        body = "\n".join("      " + line for line in again.splitlines())
        rules.write_text(
            rules.read_text().replace("procedures:\n", "procedures:\n" + AGAIN % body, 1)
        )
    compile_into(root)
    return import_generated(root, "toy").SPECS["duel"]


def _play(spec: Any, decisions: int = 100_000) -> None:
    g = Game.new(spec, "duel", 1)
    for _ in range(decisions):
        d = g.pending()[0]
        g.apply(d.player, d.options[0].id)


def test_an_endless_loop_names_its_line() -> None:
    spec = _toy("      while true:\n          pass\n")
    with pytest.raises(RulesError, match=r"rules/toy/flow\.yaml:21:7: a loop ran 1,000,000 times"):
        _play(spec)
    g = Game.new(spec, "duel", 1)  # and in a playout (bots, simulate)
    with pytest.raises(RulesError, match=r"flow\.yaml:21:7: a loop ran 1,000,000 times"):
        playout(g.spec, g.raw[:], random.Random(1).random)


def test_an_endless_loop_that_may_ask_is_bounded_too() -> None:
    # the loop could ask a decision, so it is a resumable loop; it never does
    spec = _toy(
        "      while true:\n          if stakes > 5:\n"
        '              let x = choose_yes_no(red, "Never asked")\n'
    )
    with pytest.raises(RulesError, match=r"flow\.yaml:21:7: a loop ran 1,000,000 times"):
        _play(spec)


def test_a_routine_calling_itself_names_its_line() -> None:
    spec = _toy("      again(red)\n", "again(p)")
    with pytest.raises(
        RulesError, match=r"rules/toy/rules\.yaml:\d+:\d+: the rules call themselves"
    ):
        _play(spec)


def test_a_routine_calling_itself_across_decisions_is_bounded() -> None:
    """Each call asks a decision, so no Python stack grows: the waiting routines do."""
    spec = _toy("      again(red)\n", 'let x = choose_yes_no(p, "Again?")\nagain(p)')
    with pytest.raises(
        RulesError, match=r"rules/toy/rules\.yaml:\d+:3: the rules call themselves too deeply"
    ):
        _play(spec)
