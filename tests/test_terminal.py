"""Terminal play as a player meets it (issue 25): a screen read at a glance, input that
forgives, logs that explain, and games that are never lost. Each case drives ``play`` with
scripted input and reads what it printed."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
from fixtures.toy import SPEC as TOY
from rulecraft.runtime import Game
from rulecraft.runtime.registry import resolve
from rulecraft.runtime.tools import terminal
from rulecraft.runtime.tools.terminal import play


class Screen(io.StringIO):
    """Output that says it is a terminal (wrapping, the thinking line)."""

    def isatty(self) -> bool:
        return True


def run(
    what: Any,
    script: str,
    seats: list[str] | None = None,
    seed: int = 3,
    out: io.StringIO | None = None,
    **kw: Any,
) -> str:
    """What ``play`` prints for ``script``: ``what`` is a spec, a ``game/scenario`` name or a
    game to go on with."""
    out = io.StringIO() if out is None else out
    start = what if isinstance(what, Game) else None
    if isinstance(what, str):
        spec, scenario = resolve(what)
    elif start is not None:
        spec, scenario = start.spec, start.spec.scenario
    else:
        spec, scenario = what, "duel"
    seats = seats or ["human"] + ["random"] * (len(spec.seats) - 1)
    play(spec, scenario, seats, seed, input=io.StringIO(script), output=out, start=start, **kw)
    return out.getvalue()


def solo(name: str) -> list[str]:
    """Every seat of ``name`` held by one person (no hot-seat screens)."""
    return ["human:me"] * len(resolve(name)[0].seats)


def answers(out: io.StringIO, n: int) -> io.TextIOBase:
    """Input that answers what the screen asks: pass, no to offers, Enter to go on."""

    class Answers(io.TextIOBase):
        count = 0

        def readline(self) -> str:
            self.count += 1
            if self.count > n:
                return ""
            last = out.getvalue()[-800:]
            if last.rstrip().endswith("take it back:"):
                return "\n"
            if "Accept the offer" in last:
                return "no\n"
            if "or pass" in last:
                return "pass\n"
            return "1\n"

    return Answers()


# -- a screen read at a glance ------------------------------------------------------------------


def test_the_board_is_shown_once_a_turn_then_only_what_changed():
    text = run(TOY, "1\n\nyes\n2\n\nboard\nquit\n")
    # each turn: a secret pick, then the stakes question; the board once, then on request
    assert text.count("== Toy Duel - turn 1 ==") == 1
    turn1 = text.split("== Toy Duel - turn 2 ==")[0]
    stakes = turn1.split("Raise the stakes")[1]
    assert "Red (you):" not in stakes  # after the pick: what changed, then the prompt
    assert "> Both players have committed a card." in turn1.split("Raise the stakes")[0]
    assert text.count("== Toy Duel - turn 2 ==") == 2  # at its start, and `board`
    assert "(3 steps ran since your last decision: Trick, Draw, Score)" in text


def test_log_hand_and_cards_on_request():
    text = run("march_of_progress/thirty_years_war", "log 2\nhand\nquit\n")
    assert "(the last 2 of 3 log lines)" in text and "  > Turn 1" in text
    hand = text.split("Blue> ", 2)[2]
    assert "MOVE 1: Move 1 of your armies" in hand and "discard: -" in hand


def test_westphalia_cards_lists_the_cards_a_player_holds():
    """`cards` printed nothing in Westphalia (its cards are records, not `card`s)."""
    text = run(
        "westphalia/congress", "2\ncards\nhelp goal_4\nquit\n", seats=solo("westphalia/congress")
    )
    held = text.split("You hold:")[1].split("Every card of the game:")[0]
    assert "Goal card IV: Authoritarian Threshold: 8; Debt Threshold: 15" in held
    assert "Herring (1): portuguese: no; value: 1" in text
    assert text.count("Goal card IV: Authoritarian Threshold: 8") == 3  # hand, cards, help
    # the options of a decision over such cards say what is on them
    assert "Goal card II  [goal:goal_2]\n        Authoritarian Threshold: 7" in text


def test_rise_of_totalitarianism_hand_lists_the_strategy_cards_held():
    """`hand` listed the box of the Order of Play Track (a record a player points at) and
    never the Strategy cards (a deck type with state of its own), and `help` knew no Crisis
    card: the cards are the types declared `deck: true`. A face-down deck of yours says how
    many cards it holds; a card's player and major-power attributes are named."""
    name = "rise_of_totalitarianism/scenario_a"
    text = run(name, "hand\n1\n1\n1\nhand\nhelp CR#2\nquit\n", seats=solo(name), seed=7)
    before, after = text.split("Take a Mulligan")
    # every card of the game, held or not; a name's first word is enough
    assert ">   CR#2 Crisis card: Crisis check Difficulty: 7;" in after
    assert "Box of the Order of Play Track" not in text
    assert "   1. First  [slot:first]\n   2. Second" in before and "(no details" not in text
    assert "Strategy Deck: 7 hidden cards\n  Discard pile: -\n  Hand: -\n" in before
    held = " ".join(after.split("Hand:")[1].split("Reserve slots")[0].split())  # unwrapped
    assert "SD1 Social-Democracy card: " in held and "Card ID: SD1" in held
    assert "owner: Social-Democracy" in held and "Flag: Italy" in held
    assert "Strategy Deck: 4 hidden cards" in after


def test_the_compact_board_leaves_out_rows_that_hold_nothing():
    g = Game.named("third_reich_diplomacy/situation_1941", 1)
    compact = terminal._board(g, 0)
    full = terminal._board(g, 0, full=True)
    assert "Italy to Italy" not in compact and "Italy to Italy" in full
    assert "rows holding nothing or hidden" in compact and "board all" in compact
    assert len(compact.splitlines()) * 3 < len(full.splitlines())
    # a list of names with one value each: grouped by the value
    assert "Controlled by axis: Warsaw, Paris, Rome" in compact
    w = Game.named("westphalia/congress", 1)
    board = terminal._board(w, 0)
    assert "Ships in the Dutch Sea Box" not in board  # nobody has any
    assert "Austrian Goal card: hidden" not in board  # says nothing
    assert "Catholic Power (Affinity); Major Power (Affinity); HRE Power (Affinity)" in board
    assert "Debts: 12" in board


def test_text_wraps_at_word_boundaries_to_the_terminal_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "50")
    out = Screen()
    run("march_of_progress/thirty_years_war", "help score\nquit\n", out=out)
    text = out.getvalue().replace("\033[2J\033[H", "")
    # a prompt is followed by what the player types and Enter: no echo in a script
    lines = [line.rstrip("\r").removeprefix("Blue> ") for line in text.splitlines()]
    assert all(len(line) <= 50 for line in lines), [line for line in lines if len(line) > 50]
    card = next(i for i, line in enumerate(lines) if "SCORE: Score 1VP" in line)
    end = next(i for i in range(card, len(lines)) if lines[i].startswith("Game abandoned"))
    shown = " ".join(line.strip() for line in lines[card:end]).split()
    spec = resolve("march_of_progress/thirty_years_war")[0]
    printed = spec.data["text_card"][spec.ids["card"].index("score")]
    assert shown == f"SCORE: {printed}".split()  # every word whole, in order


def test_steps_run_without_a_decision_are_named():
    """One `pass` in Westphalia ran Arrears, Recruitment, Italy, Gold and Trade past (with
    negotiation only before Arrears and in the Final Step: no window between those steps)."""
    spec, scenario = resolve("westphalia/congress")
    spec = spec.with_constants(talks_at_every_step=False)
    out = io.StringIO()
    seats = ["human"] + ["random"] * 5
    play(spec, scenario, seats, 1, input=answers(out, 40), output=out)
    text = out.getvalue()
    assert "steps ran since your last decision: Arrears, Recruitment, Italy, Gold, Trade" in text


def test_a_bot_thinking_says_so_with_the_seconds():
    out = Screen()

    def slow() -> str:
        time.sleep(1.2)
        return "card:c1"

    assert terminal._thinking(out, "Blue", 5.0, slow) == "card:c1"
    said = out.getvalue()
    assert "Blue is thinking... 1 of 5 s" in said and said.endswith("\r\033[K")


# -- input that forgives ------------------------------------------------------------------------


def test_typos_ambiguous_starts_and_options_not_offered():
    text = run("march_of_progress/thirty_years_war", "atack\nmove\nscore\nquit\n")
    assert "No option 'atack'; did you mean ATTACK or ATTACK+1?" in text
    assert "'move' could be MOVE 1 [card:move_1]; MOVE 2 [card:move_2]" in text
    assert "SCORE is not offered now: you cannot play your SCORE card" in text


def test_why_a_named_thing_is_not_among_the_options():
    g = Game.named("third_reich_diplomacy/situation_1941", 1)
    while "Name a country" not in g.pending()[0].prompt:
        d = g.pending()[0]
        g.apply(d.player, d.options[-1 if d.kind == "allocate" else 0].id)
    d = g.pending()[0]
    said = terminal.reading.why_not("bulgaria", d, g)
    assert said.startswith("Bulgaria is not one of the options of this decision (")
    # the condition the rules filter the countries by, as rules.yaml writes it
    assert "the rules offer only those for which `may_name(p, c)` holds: " in said


def test_options_that_are_numbers_are_typed_as_themselves():
    """Third Reich listed "1. 0 [number:0]": typing 1 picked 0 DPs, silently."""
    name = "third_reich_diplomacy/situation_1941"
    text = run(name, "5\n1\nquit\n", seats=solo(name))
    assert "Type one of: 0, 1, 2" in text and "1. 0" not in text
    assert "5 is not one of the values offered: type 0, 1 or 2." in text
    assert "Germany, your secret pick: 1 (DPs to buy with foreign aid (5 BRPs each))." in text


def test_an_allocation_says_what_is_wrong():
    name = "third_reich_diplomacy/situation_1941"
    script = "0\n0\n0\nspain\nspain=5\nfrance=1\nspian=1\nspain=4 turkey=4 bulgaria=4\nquit\n"
    text = run(name, script, seats=solo(name), seed=0)
    assert "Give spain a number of points: spain=1." in text
    assert "spain=5 is over the limit: at most 4 points on one target." in text
    assert "France is not a target of this allocation now: the targets are bulgaria," in text
    assert "No target 'spian'; did you mean spain" in text
    assert "12 points in all, over the 7 you have to place." in text
    assert "    spain                    Germany to Spain" in text  # the short names


def test_a_mistyped_fact_name_gets_did_you_mean():
    g = Game.named("third_reich_diplomacy/campaign_1939", 1)
    while g.pending()[0].kind != "report":
        d = g.pending()[0]
        g.apply(d.player, d.options[0].id)
    seat = g.pending()[0].player
    seats = ["human:me" if k == seat else "random" for k in range(len(g.spec.seats))]
    text = run(g, "axis_hexes_britian=1\naxis_hexes_britain=99\nquit\n", seats=seats)
    assert "No fact 'axis_hexes_britian'; did you mean axis_hexes_britain," in text
    assert "axis_hexes_britain cannot be '99': a number from 0 to " in text
    assert "type a number from 1 to" not in text


def test_a_secret_pick_is_echoed_to_its_owner_in_hot_seat():
    text = run(TOY, "2\n\nquit\n", seats=["human", "human"])
    before, after = text.split("--- Pass to Blue and press Enter ---", 1)
    assert (
        "Red, your secret pick: Card 2 (Pick a card to play in secret)."
        in before.split("\n\n")[-1] + before[-200:]
    )
    assert "Red, your secret pick" not in after


def test_offers_are_grouped_and_listed_by_relevance():
    spec, scenario = resolve("westphalia/congress")
    g = Game.named("westphalia/congress", 1)
    g.apply(0, "goal:goal_2")
    d = g.pending()[0]
    assert d.kind == "propose"
    rows = terminal._offer_help(g, d, "offers")
    me = spec.seats[d.player]
    assert rows[0].startswith(f"  {len(d.options) - 1} deals in ")
    assert all(me in r.split()[0] for r in rows[1:])  # deals naming the proposer first
    assert any(r.split()[0].endswith("=1..6") for r in rows[1:])  # amounts as one row
    narrowed = terminal._offer_help(g, d, "offers prestige")
    assert "naming 'prestige'" in narrowed[0]
    assert all("prestige" in r for r in narrowed[1:])


# -- never lose a game --------------------------------------------------------------------------


def test_quit_offers_to_save_and_the_end_of_input_saves(tmp_path: Path):
    path = tmp_path / "game.json"
    text = run(TOY, "1\n\nquit\n\n", save_to=str(path))
    assert f"Save the game first? Enter saves it to {path}." in text
    assert f"Game saved to {path}: go on with rulecraft play toy/duel --load {path}" in text
    assert json.loads(path.read_text())["decisions"]
    path.unlink()
    text = run(TOY, "1\n\nquit\nno\n", save_to=str(path))
    assert "Game abandoned, not saved." in text and not path.exists()
    other = tmp_path / "other.json"
    run(TOY, f"quit\n{other}\n", save_to=str(path))
    assert other.exists() and not path.exists()
    text = run(TOY, "1\n\n", save_to=str(path))  # Ctrl-D: no question, saved
    assert "End of input." in text and f"Game saved to {path}" in text and path.exists()


def test_load_goes_on_exactly_as_the_game_would_have(tmp_path: Path):
    """Seats, names, bots and seed: a game saved at the end of input and loaded plays on as
    the same game played without a break (the bots' choices included)."""
    moves = ["1", "", "yes", "2", "", "no", "1", "", "yes"]
    whole, part = tmp_path / "whole.json", tmp_path / "part.json"
    seats = ["human:ann", "mc:4"]
    text = run(TOY, "\n".join(moves) + "\n", seats=seats, seed=11, save_to=str(whole))
    assert "Game over" not in text
    run(TOY, "\n".join(moves[:5]) + "\n", seats=seats, seed=11, save_to=str(part))
    loaded = Game.from_json(part.read_text())
    assert loaded.seat_kinds == ("human:ann", "mc:4")
    rest = "\n".join(moves[5:]) + "\n"
    n = len(loaded.decisions())
    text = run(
        loaded, rest, seats=list(loaded.seat_kinds), seed=loaded.state["seed"], save_to=str(part)
    )
    assert f"(going on after {n} decisions;" in text
    assert "> The cards are dealt." not in text  # the last lines of the log, not all of it
    assert json.loads(part.read_text())["decisions"] == json.loads(whole.read_text())["decisions"]


def test_a_bad_seat_kind_is_refused_before_the_game_starts():
    from rulecraft.runtime.machine import GameError

    with pytest.raises(GameError, match="unknown agent 'robot'"):
        run(TOY, "quit\n", seats=["human", "robot"])


def test_a_person_at_several_seats_reads_each_log_line_once():
    name = "third_reich_diplomacy/situation_1941"
    seats = ["human:ann", "human:ann", "human:bob", "human:bob", "human:bob", "human:bob"]
    text = run(name, "1\n\n1\n0\nquit\n", seats=seats, seed=2)
    bob = text.split("--- bob (Britain) to decide")[1]
    assert bob.count("> Germany receives 7 DPs") == 1  # for Britain, not again for Russia
    assert "Russia: DPs to buy with foreign aid" in bob


def test_a_word_at_the_offer_prompt_is_told_how_to_pass():
    g = Game.named("westphalia/congress", 1)
    g.apply(0, "goal:goal_2")
    d = g.pending()[0]
    said = terminal.reading.offer_refusal(g, d, "no")
    assert said == (
        "'no' is not an offer (good:giver>receiver=amount); type pass to make none, goods to "
        "list the goods."
    )
