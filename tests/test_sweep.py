"""Parameter sweeps: --set parsing, the grid, sequential stopping and `rulecraft sweep`."""

from __future__ import annotations

import json
import random
from statistics import NormalDist

import pytest
from fixtures.toy import SPEC
from rulecraft.compiler.cli import main
from rulecraft.runtime import GameError
from rulecraft.runtime.registry import load_spec
from rulecraft.runtime.tools.executors import LocalExecutor
from rulecraft.runtime.tools.simulate import simulate
from rulecraft.runtime.tools.sweep import (
    Point,
    _decided,
    parse_set,
    stop_confidence,
    sweep,
)

MOP = load_spec("march_of_progress", "thirty_years_war")


# -- --set NAME=VALUES ---------------------------------------------------------------------------
def test_ranges_lists_and_readings() -> None:
    assert parse_set(MOP, "victory_vps=12..20:4").values == (12, 16, 20)
    assert parse_set(MOP, "victory_vps=12..14").values == (12, 13, 14)
    assert parse_set(MOP, "victory_vps= 10, 18 ").values == (10, 18)
    assert parse_set(MOP, "army_limit=3").values == (3,)
    reading = parse_set(MOP, "fortified_adds_strength=both")
    assert reading.values == (True, False) and reading.kind == "reading"
    assert parse_set(MOP, "capital_occupation=false,true").values == (False, True)
    assert parse_set(MOP, "victory_vps=18").kind == "constant"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("victory_vps", "expected NAME=VALUES"),
        ("victory_vps=", "expected NAME=VALUES"),
        ("bogus=1", "has no constant or reading 'bogus'"),
        ("victory_vps=ten", "victory_vps is a whole number"),
        ("victory_vps=20..12", "the range runs down, from 20 to 12"),
        ("victory_vps=1..5:0", "the step of a range must be positive"),
        ("victory_vps=1..999999", "more than 1000 values"),
        ("victory_vps=12,12", "a value is given twice"),
        ("fortified_adds_strength=yes", "is true or false (or both), not 'yes'"),
    ],
)
def test_bad_sets_are_refused_in_words(text: str, message: str) -> None:
    with pytest.raises(GameError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_set(MOP, text)


# -- the sweep ------------------------------------------------------------------------------------
def test_each_point_plays_the_games_simulate_plays_with_its_constants() -> None:
    """Common random numbers: point values v play games 0..n-1 of the run seed, the games
    `simulate` plays for the scenario with v, whatever the batches and the executor."""
    params = [parse_set(SPEC, "rounds=2..4"), parse_set(SPEC, "endless=false")]
    with LocalExecutor(2) as ex:
        r = sweep(SPEC, "duel", params, ["random"], max_games=90, batch=40, seed=5, executor=ex)
        assert ex._pool is not None  # one pool for every round of the sweep
    assert ex._pool is None  # closed
    assert [p.values for p in r.points] == [{"rounds": n, "endless": False} for n in (2, 3, 4)]
    for p in r.points:
        alone = simulate(SPEC.with_constants(**p.values), "duel", p.games, 5, ["random"])
        decisive = {s: 0 for s in alone.seats}
        for o in alone.outcomes:
            if not o[2] and len(o[1]) == 1:
                decisive[alone.seats[o[1][0]]] += 1
        assert p.wins == decisive
        assert p.turns == alone.turns
        assert p.games in (40, 80, 90)  # whole batches, or the last shorter one
    # rounds is the number of rounds: game length follows it
    assert [round(p.mean_turns) for p in r.points] == [2, 3, 4]


def test_a_lopsided_point_stops_early_and_a_balanced_one_plays_on() -> None:
    params = [parse_set(SPEC, "rounds=2,4")]
    lopsided = sweep(SPEC, "duel", params, ["mc:4", "random"], max_games=100, batch=20)
    assert all(p.decided == ("ahead", ("red",)) and p.stopped_early for p in lopsided.points)
    assert all(p.games < 100 for p in lopsided.points)
    assert lopsided.games_saved == 200 - lopsided.games > 0
    even = sweep(SPEC, "duel", params, ["random"], max_games=200, batch=50)
    assert all(p.decided is None and p.games == 200 for p in even.points)
    assert all(p.verdict() == "no clear bias" for p in even.points)
    # without stopping every point plays every game, and is judged at 95% at the end
    full = sweep(SPEC, "duel", params, ["mc:4", "random"], max_games=60, batch=20, sequential=False)
    assert [p.games for p in full.points] == [60, 60]
    assert all(not p.stopped_early for p in full.points)


def test_stopping_keeps_a_balanced_points_false_alarms_under_five_percent() -> None:
    """A fair two-seat game looked at after every batch: with the stopping interval at
    1 - 0.05/looks it is called decided in under 5% of runs; a plain 95% interval at every
    look would be wrong far more often (the test can tell the two apart)."""
    rng = random.Random(2026)
    max_games, batch, runs = 400, 25, 600
    looks = max_games // batch

    def false_alarms(confidence: float) -> int:
        z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
        alarms = 0
        for _ in range(runs):
            p = Point({}, ["a", "b"], wins={"a": 0, "b": 0})
            for _look in range(looks):
                a = sum(rng.random() < 0.5 for _ in range(batch))
                p.wins["a"] += a
                p.wins["b"] += batch - a
                p.games += batch
                if _decided(p, ["a", "b"], z):
                    alarms += 1
                    break
        return alarms

    assert stop_confidence(max_games, batch) == pytest.approx(1 - 0.05 / looks)
    assert false_alarms(stop_confidence(max_games, batch)) < 0.05 * runs
    assert false_alarms(0.95) > 0.15 * runs


def test_draws_are_not_read_as_a_side_ahead() -> None:
    """Two seats at 40% wins each and 20% draws: balanced, not 'behind'."""
    p = Point({}, ["a", "b"], games=1000, wins={"a": 400, "b": 400})
    assert _decided(p, ["a", "b"], 1.96) is None
    assert p.tie_rate == pytest.approx(0.2) and p.win_rate("a") == 0.5
    three = Point({}, ["a", "b", "c"], games=300, wins={"a": 80, "b": 110, "c": 110})
    assert _decided(three, ["a", "b", "c"], 1.96) == ("behind", ("a",))


def test_sweep_refuses_what_it_cannot_play() -> None:
    rounds = parse_set(SPEC, "rounds=2,3")
    with pytest.raises(GameError, match="nothing to sweep"):
        sweep(SPEC, "duel", [], ["random"])
    with pytest.raises(GameError, match="--set rounds is given twice"):
        sweep(SPEC, "duel", [rounds, rounds], ["random"])
    with pytest.raises(GameError, match="unknown agent 'genius'"):
        sweep(SPEC, "duel", [rounds], ["genius"])
    with pytest.raises(GameError, match="3 agents for 2 seats"):
        sweep(SPEC, "duel", [rounds], ["random"] * 3)


def test_ismcts_plays_in_a_sweep() -> None:
    r = sweep(SPEC, "duel", [parse_set(SPEC, "rounds=2")], ["ismcts:8", "random"], 6, 6)
    assert r.points[0].games == 6 and r.agents == ["ismcts:8", "random"]


# -- rulecraft sweep ------------------------------------------------------------------------------
def test_the_sweep_command_table_json_and_page(tmp_path, capsys) -> None:
    page = tmp_path / "sweep.html"
    argv = [
        "sweep",
        "toy/duel",
        "--set",
        "rounds=2..3",
        "--set",
        "endless=false",
        "--games",
        "40",
        "--batch",
        "20",
        "--html",
        str(page),
    ]
    assert main(argv) == 0
    out = capsys.readouterr()
    assert "toy/duel: sweep of rounds × endless" in out.out
    assert "rounds  endless  games" in out.out
    assert f"wrote {page}" in out.err
    assert page.read_text().startswith("<!DOCTYPE html>")
    assert main([*argv[:-2], "--json", "--jobs", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["values"] for p in data["points"]] == [
        {"rounds": 2, "endless": False},
        {"rounds": 3, "endless": False},
    ]
    assert data["params"][0] == {"name": "rounds", "kind": "constant", "values": [2, 3]}
    assert set(data["points"][0]["win_share_ci95"]) == {"red", "blue"}


def test_the_sweep_command_says_what_is_wrong(capsys) -> None:
    assert main(["sweep", "toy/duel", "--set", "rounds=a..b"]) == 1
    assert "rounds is a whole number" in capsys.readouterr().err
    assert (
        main(["sweep", "toy/duel", "--set", "rounds=2", "--executor", "dask://x", "--jobs", "2"])
        != 0
    )
    assert "--jobs is for --executor local" in capsys.readouterr().err
    assert main(["sweep", "toy/duel", "--set", "rounds=2", "--html", "/no/such/x.html"]) != 0
    assert "folder /no/such does not exist" in capsys.readouterr().err
