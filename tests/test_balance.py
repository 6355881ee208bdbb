"""The balance report of ``rulecraft simulate --all``: table, JSON and HTML of a tiny run."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import re
from html.parser import HTMLParser

import pytest
from rulecraft.compiler.cli import main
from rulecraft.runtime.tools.agents import RandomAgent
from rulecraft.runtime.tools.balance import balance, scenarios_of, seat_colours

# the module (``rulecraft.runtime.tools.simulate``; ``rulecraft.runtime.simulate`` is the function)
sim = importlib.import_module("rulecraft.runtime.tools.simulate")

GAME = "march_of_progress"
GAMES, BOT_GAMES, PLAYOUTS = 4, 1, 1
EPS = 1e-9  # Wilson bounds of 0 or n successes are 0 or 1 up to rounding


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One tiny CLI run over every scenario (table + HTML, then JSON) shared by the tests.

    The Monte Carlo bot is what makes a balance run slow (and some scenarios run long under
    it), so here ``mc:N`` plays like ``random``: this checks the report, not the bot, which
    :func:`test_real_bot_pairing` plays for real on one short scenario.
    """
    out = tmp_path_factory.mktemp("balance")
    html = out / "balance.html"
    argv = [
        "simulate",
        "--all",
        GAME,
        "--games",
        str(GAMES),
        "--bot-games",
        str(BOT_GAMES),
        "--playouts",
        str(PLAYOUTS),
        "--seed",
        "3",
    ]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sim, "make_agent", lambda name, seed: RandomAgent(seed))
        text, err, js = io.StringIO(), io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(text), contextlib.redirect_stderr(err):
            rc_table = main([*argv, "--html", str(html)])
        with contextlib.redirect_stdout(js), contextlib.redirect_stderr(io.StringIO()):
            rc_json = main([*argv, "--json"])
    return {
        "rc": (rc_table, rc_json),
        "table": text.getvalue(),
        "stderr": err.getvalue(),
        "json": js.getvalue(),
        "html": html.read_text(encoding="utf-8"),
        "scenarios": [sid for _, sid in scenarios_of(GAME)],
    }


def test_every_scenario_and_pairing_in_the_table(run):
    assert run["rc"] == (0, 0), run["stderr"]
    table = run["table"]
    for sid in run["scenarios"]:
        assert f"[{sid}]" in table
        block = table.split(f"[{sid}]", 1)[1].split("\n\n", 1)[0]
        assert re.search(rf"random vs random +{GAMES} ", block), block
        assert re.search(rf"mc:{PLAYOUTS} vs mc:{PLAYOUTS} +{BOT_GAMES} ", block), block
        assert "FAILED" not in block
    # progress went to stderr, not into the table
    assert f"{GAME}/{run['scenarios'][0]} random: {GAMES}/{GAMES} games" in run["stderr"]
    assert f"{GAMES}/{GAMES} games" not in table


def test_json_is_well_formed_and_adds_up(run):
    data = json.loads(run["json"])
    assert data["game"] == GAME and data["seed"] == 3
    assert [p["agent"] for p in data["pairings"]] == ["random", f"mc:{PLAYOUTS}"]
    assert [s["scenario"] for s in data["scenarios"]] == run["scenarios"]
    for sc in data["scenarios"]:
        assert sc["errors"] == []
        assert len(sc["seats"]) == len(sc["seat_labels"]) >= 2
        assert [r["agent"] for r in sc["results"]] == ["random", f"mc:{PLAYOUTS}"]
        for r, n in zip(sc["results"], (GAMES, BOT_GAMES), strict=True):
            assert r["games"] == n and r["scenario"] == sc["scenario"]
            assert set(r["wins"]) == set(sc["seats"]) == set(r["win_ci95"])
            # a shared victory counts for each winner; otherwise wins + draws = games
            assert sum(r["wins"].values()) + r["ties"] == n + r["shared_wins"]
            for s in sc["seats"]:
                lo, hi = r["win_ci95"][s]
                assert 0 <= lo <= r["win_rate"][s] + EPS and r["win_rate"][s] <= hi + EPS
                assert hi <= 1 + EPS
            lo, hi = r["tie_ci95"]
            assert 0 <= lo <= r["tie_rate"] + EPS and r["tie_rate"] <= hi + EPS <= 1 + 2 * EPS
            assert r["mean_turns"] > 0 and r["mean_decisions"] >= r["mean_turns"] / 10


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)


def test_html_page_is_self_contained_and_complete(run):
    page = run["html"]
    parser = _Tags()
    parser.feed(page)
    assert "script" not in parser.tags and "link" not in parser.tags and "img" not in parser.tags
    assert not [v for k, v in parser.attrs if k in ("src", "href") and v]
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page and "url(http" not in page
    assert parser.tags.count("section") == len(run["scenarios"])
    assert page.count('role="img"') == len(run["scenarios"])  # one chart per scenario
    for sid in run["scenarios"]:
        assert sid in page
    assert page.count("random vs random") >= 2 * len(run["scenarios"])
    assert page.count(f"mc:{PLAYOUTS} vs mc:{PLAYOUTS}") >= 2 * len(run["scenarios"])


def test_single_scenario_output_unchanged(capsys):
    assert main(["simulate", f"{GAME}/thirty_years_war", "--games", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == [
        "game",
        "scenario",
        "agents",
        "seed",
        "games",
        "wins",
        "win_rate",
        "win_ci95",
        "ties",
        "turn_limit",
        "tie_rate",
        "tie_ci95",
        "mean_turns",
        "mean_decisions",
        "seconds",
        "games_per_second",
        "shared_victories",
        "shared_victory_rate",
        "shared_defeats",
        "endings",
    ]
    assert main(["simulate", f"{GAME}/thirty_years_war"]) == 1
    assert "required: --games" in capsys.readouterr().err
    assert main(["simulate", GAME, "--games", "1", "--html", "x.html"]) == 1
    assert "--html needs --all" in capsys.readouterr().err
    assert main(["simulate", "--all", f"{GAME}/thirty_years_war"]) == 1
    assert "game name" in capsys.readouterr().err


def test_real_bot_pairing():
    report = balance(GAME, games=2, bot_games=1, playouts=1, scenarios=["age_of_marlborough"])
    assert [sb.scenario for sb in report.scenarios] == ["age_of_marlborough"]
    (sb,) = report.scenarios
    assert not sb.errors and [p.agent for p, _ in sb.results] == ["random", "mc:1"]
    r = sb.results[1][1]
    assert r.agents == ["mc:1", "mc:1"] and r.games == 1
    assert sum(r.wins.values()) + r.ties >= 1
    assert "mc:1 vs mc:1" in report.table() and "mc:1 vs mc:1" in report.html()


def test_balance_api_and_n_seat_colours():
    report = balance(GAME, games=2, bot_games=0, seed=1)
    assert [p.agent for p in report.pairings] == ["random"]
    assert all(len(sb.results) == 1 for sb in report.scenarios)
    assert len(report.scenarios) == len(scenarios_of(GAME))
    assert seat_colours(["blue", "orange"]) == ["#3a6ea5", "#e0862d"]
    three = seat_colours(["north", "south", "blue"])
    assert len(set(three)) == 3 and three[2] == "#3a6ea5"
