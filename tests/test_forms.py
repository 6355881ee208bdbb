"""One meaning for every form of an engine: the machine form (``Game.apply``, play, examples
of play) and the playout form (simulate, bots) play the same games.

Every scenario of every bundled game is played by both forms in lockstep
(tests/forms_helpers.py): the same seed, the same seeded choices; at every decision the
same kind of decision with as many options and the same state; at the end the same state
and result. ``-m soak`` plays ``RULECRAFT_SOAK_GAMES`` games in all, shared out among the
scenarios (default 2200: 200 of each), each scenario stopping at its share of
``RULECRAFT_SOAK_SECONDS`` after ``GAMES`` games.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import time
from typing import Any

import pytest
import rulecraft.generated
from forms_helpers import lockstep

#: ``game/scenario`` of every bundled scenario (not a test game a test registered)
SCENARIOS = sorted(
    f"{m.name}/{sid}"
    for m in pkgutil.iter_modules(rulecraft.generated.__path__)
    if m.ispkg
    for sid in importlib.import_module(f"rulecraft.generated.{m.name}").SPECS
)
#: the default run: games of each scenario (fewer, at least one, where they take more than
#: SECONDS in all: a Marlborough game takes seconds), and the decisions after which a game is cut
GAMES = 6
SECONDS = 1.5
MOST = 300
#: the soak plays at least this many games of each scenario, of up to 2,000 decisions (a
#: Marlborough game that long takes about 10 s in both forms; six took CI's soak 5 minutes)
SOAK_AT_LEAST = 2


def _spec(name: str):  # type: ignore[no-untyped-def]
    game, sid = name.split("/")
    return importlib.import_module(f"rulecraft.generated.{game}").SPECS[sid]


def _play(
    name: str,
    games: int,
    most: int,
    seconds: float | None = None,
    at_least: int = 1,
    first_seed: int = 0,
) -> dict[str, int]:
    """Up to ``games`` games of scenario ``name`` in lockstep, from seed ``first_seed`` on;
    after ``at_least`` of them, none begun past ``seconds``."""
    spec = _spec(name)
    seen = {"games": 0, "decisions": 0, "draws": 0, "ended": 0, "cut": 0, "stopped": 0}
    deadline = None if seconds is None else time.monotonic() + seconds
    for seed in range(first_seed, first_seed + games):
        if deadline is not None and seen["games"] >= at_least and time.monotonic() > deadline:
            break
        rec = lockstep(spec, seed, most=most)
        seen["games"] += 1
        seen["decisions"] += len(rec.decisions)
        seen["draws"] += rec.draws
        m = rec.machine
        seen["cut" if m.cut else "stopped" if m.error else "ended"] += 1
    return seen


@pytest.mark.parametrize("name", SCENARIOS)
def test_both_forms_play_the_same_games(name: str) -> None:
    seen = _play(name, GAMES, MOST, SECONDS)
    assert seen["decisions"] > 0
    assert seen["stopped"] == 0, f"{name}: a game stopped with a rules error"


@pytest.mark.soak
@pytest.mark.parametrize("name", SCENARIOS)
def test_both_forms_play_the_same_games_soak(name: str) -> None:
    total = int(os.environ.get("RULECRAFT_SOAK_GAMES", "2200"))
    games = max(GAMES, total // len(SCENARIOS))
    # at least SOAK_AT_LEAST games, then the scenario's share of RULECRAFT_SOAK_SECONDS, on
    # seeds the default run does not play
    share = float(os.environ.get("RULECRAFT_SOAK_SECONDS", "540")) / len(SCENARIOS)
    start = time.perf_counter()
    seen = _play(name, games, 2000, share, at_least=SOAK_AT_LEAST, first_seed=1000)
    print(f"{name}: {seen} in {time.perf_counter() - start:.1f} s")
    assert seen["stopped"] == 0, f"{name}: a game stopped with a rules error"


def test_both_forms_play_the_same_games_with_fog_picks_and_plans() -> None:
    """The constructs of the outposts fixture game (tests/fixtures/games/outposts/): reveals
    of records in the fog of war, several picks (``choose_some`` with ``where=``) and
    ``simultaneously:`` with a decision per player from sets of its own."""
    from fixtures.outposts import SPEC

    kinds: set[str] = set()
    for seed in range(3 * GAMES):
        rec = lockstep(SPEC, seed)
        assert rec.machine.error is None and not rec.machine.cut
        kinds |= {d.kind for d in rec.decisions}
    assert {"choose-some", "choose-attack_plan", "choose-defence_plan"} <= kinds


# -- what the lockstep found ------------------------------------------------------------------

STAKES = """      let raise = choose_yes_no(red, "Raise the stakes to 2 VP?")
      stakes = 2 if raise else 1
"""
KEEP = """      let kept = 2
      while true:
          let stop = choose_yes_no(red, "Stop?")
          if stop:
              break
          kept = 1
      stakes = kept
"""


def _toy(stakes: str) -> Any:
    """The toy game with its stakes step replaced, compiled; its ``duel`` spec."""
    from compile_helpers import compile_into, import_generated
    from fuzz_helpers import scratch

    root = scratch("toy")
    flow = root / "rules" / "toy" / "flow.yaml"
    text = flow.read_text(encoding="utf-8")
    assert text.count(STAKES) == 1
    flow.write_text(text.replace(STAKES, stakes), encoding="utf-8")
    compile_into(root)
    return import_generated(root, "toy").SPECS["duel"]


def test_a_local_kept_across_a_decision_survives_a_break_before_its_new_value() -> None:
    """A local set before ``while true:`` and given a new value after a decision in the
    loop, below a ``break`` that follows the decision: the machine form did not keep the
    local in its frame across the decision (the new value below the ``break`` hid it from
    the ``break``'s way out), and read None after the loop ("TypeError: '>' not supported
    between instances of 'int' and 'NoneType'" at ``stakes = kept``) while the playout form
    played on."""
    from rulecraft.runtime import Game

    spec = _toy(KEEP)
    for noes, stakes in ((0, 2), (1, 1)):  # stop at once; go round once first
        g = Game.new(spec, "duel", 1)
        while True:
            d = g.pending()[0]
            if d.kind != "yes-no":
                g.apply(d.player, d.options[0].id)
                continue
            if noes == 0:
                break
            g.apply(d.player, "no")
            noes -= 1
        g.apply(d.player, "yes")
        assert g.state["g"]["stakes"] == stakes
    for seed in range(6):
        lockstep(spec, seed)


PICKS = """      let everyone = [p for p in players]
      let picked = everyone
      picked = choose_some(red, players, "Who counts?", min=1)
      let twice = choose_yes_no(red, "Twice?")
      stakes = count(picked) * (2 if twice else 1)
"""


def test_a_pick_given_to_a_local_that_held_a_list_plays_alike_in_both_forms() -> None:
    """A local that held a list takes a ``choose_some`` pick and waits across a decision:
    both forms play the same games, and a position saved while it waits loads as it was.
    (The playout gives the pick as a list, because the native build types such a local
    as a list: given as the tuple it is among the options, Marlborough's drop-offs stopped
    with a TypeError there; ``-m native`` plays Marlborough's native build.)"""
    from rulecraft.runtime import Game

    spec = _toy(PICKS)
    g = Game.new(spec, "duel", 1)
    while g.pending()[0].kind != "choose-some":
        d = g.pending()[0]
        g.apply(d.player, d.options[0].id)
    g.apply(red := g.pending()[0].player, g.pending()[0].options[-1].id)  # every player
    assert Game.from_position(g.position_json(), spec).raw == g.raw
    g.apply(red, "yes")
    assert g.state["g"]["stakes"] == 4
    for seed in range(6):
        lockstep(spec, seed)


def test_a_die_rolled_in_a_log_line_is_rolled_in_a_playout_too() -> None:
    """The playout form writes no log, and left out log lines whole: a die rolled (or a
    list shuffled) in a log line's text was not rolled in a playout, and the two forms went
    on with different dice. A log line whose arguments may roll or fail is now run in the
    playout form too (with the log off it writes nothing)."""
    spec = _toy(
        '      log "The omens: {roll(6)}."\n'
        '      let raise = choose_yes_no(red, "Raise the stakes to 2 VP?")\n'
        "      stakes = 2 if raise else 1\n"
    )
    for seed in range(6):
        lockstep(spec, seed)
