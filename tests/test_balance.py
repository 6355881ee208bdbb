"""The balance report of ``rulecraft simulate --all``: table, JSON and HTML of a tiny run."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import re
import shlex
from html import escape
from html.parser import HTMLParser

import pytest
import yaml
from compile_helpers import REPO
from rulecraft.compiler.cli import build_parser, main
from rulecraft.runtime.tools.agents import RandomAgent
from rulecraft.runtime.tools.balance import (
    BalanceReport,
    Pairing,
    ScenarioBalance,
    balance,
    off_even,
    reproduce,
    scenarios_of,
    seat_colours,
)
from rulecraft.runtime.tools.simulate import TURN_LIMIT, SimResult, bot_max_turns

# the modules (``rulecraft.runtime.simulate`` is the function)
sim = importlib.import_module("rulecraft.runtime.tools.simulate")
bal = importlib.import_module("rulecraft.runtime.tools.balance")

GAME = "march_of_progress"
GAMES, BOT_GAMES, PLAYOUTS = 4, 1, 1
EPS = 1e-9  # Wilson bounds of 0 or n successes are 0 or 1 up to rounding


# one worker of a parallel run makes the shared run (the module's fixture), not each
pytestmark = pytest.mark.xdist_group("balance")


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
    # links only within the page (the summary's scenario names)
    assert not [v for k, v in parser.attrs if k in ("src", "href") and v and v[0] != "#"]
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page and "url(http" not in page
    assert parser.tags.count("section") == len(run["scenarios"]) + 1  # and the summary
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


# -- the summary, flags, endings, small samples ------------------------------------------------
def _summary_rows(page: str) -> list[str]:
    """The summary's rows after its head, in order."""
    summary = page.split('<section class="summary">', 1)[1].split("</section>", 1)[0]
    return summary.split("<tr>")[2:]


def test_summary_comes_first_in_the_games_order(run):
    page = run["html"]
    assert page.index('<section class="summary">') < page.index('<section id="s-')
    rows = _summary_rows(page)
    assert [re.search(r'href="#s-(\w+)"', r).group(1) for r in rows] == run["scenarios"]
    for sid in run["scenarios"]:
        assert f'<section id="s-{sid}">' in page


def test_only_some_scenarios_keep_the_games_order():
    order = [sid for _, sid in scenarios_of(GAME)]
    asked = [order[-1], order[0]]
    report = balance(GAME, games=2, bot_games=0, scenarios=asked)
    assert [sb.scenario for sb in report.scenarios] == [order[0], order[-1]]
    rows = _summary_rows(report.html())
    assert [re.search(r'href="#s-(\w+)"', r).group(1) for r in rows] == [order[0], order[-1]]
    assert f"--scenarios {order[0]},{order[-1]}" in report.command


def _result(wins: dict[str, int], games: int, ties: int = 0, reasons=(), outcomes=()):
    seats = list(wins)
    return SimResult(
        GAME, "x", seats, ["random"] * len(seats), 0, games, dict(wins), ties, 30 * games,
        90 * games, 1.0, list(outcomes), tuple(reasons),
    )  # fmt: skip


def _report(*results: tuple[str, SimResult], limit: int = 150) -> BalanceReport:
    """A report of made-up results, one scenario each (pairing random, or mc for few games)."""
    scenarios = []
    for sid, r in results:
        sb = ScenarioBalance(sid, sid.title(), r.seats, [s.upper() for s in r.seats])
        sb.bot_max_turns, sb.limit_from = limit, "scenario"
        p = (
            Pairing("random", "random", r.games)
            if r.games >= 50
            else Pairing("mc", "mc:4", r.games)
        )
        sb.results.append((p, r))
        scenarios.append(sb)
    return BalanceReport(GAME, "T", 0, [p for sb in scenarios for p, _ in sb.results], scenarios)


def test_flag_when_an_interval_excludes_an_even_share():
    biased = _result({"blue": 120, "orange": 80}, 200)  # blue 53-67%, orange 34-47%
    fair = _result({"blue": 110, "orange": 90}, 200)  # blue 48-62%: holds 50%
    assert off_even(biased, biased.seats) == {"blue": "above", "orange": "below"}
    assert off_even(fair, fair.seats) == {}
    # three seats: the even share is 1/3, not 1/2 (b, 22-40%, holds 1/3 but not 1/2)
    three = _result({"a": 50, "b": 30, "c": 20}, 100)
    assert off_even(three, three.seats) == {"a": "above", "c": "below"}
    report = _report(("biased", biased), ("fair", fair), ("three", three))
    page = report.html()
    rows = dict(zip(("biased", "fair", "three"), _summary_rows(page), strict=True))
    assert "&#9873; BLUE above, ORANGE below an even share" in rows["biased"]
    assert "&#9873;" not in rows["fair"] and "every interval holds an even share" in rows["fair"]
    assert "&#9873; A above, C below an even share" in rows["three"]
    assert page.count('title="above an even share">&#9650; above') == 2  # blue and a, tables
    data = report.to_dict()
    assert [r["off_even"] for sc in data["scenarios"] for r in sc["results"]] == [
        {"blue": "above", "orange": "below"},
        {},
        {"a": "above", "c": "below"},
    ]
    table = report.table()
    fair_block = table.split("[fair]", 1)[1].split("\n\n", 1)[0]
    biased_block = table.split("[biased]", 1)[1].split("\n\n", 1)[0]
    assert "!" not in fair_block and biased_block.count(" !") == 2


def test_endings_and_turn_limit_stops_in_html_json_and_table():
    reasons = ("the players agreed to end the game", "18 VPs reached")
    outcomes = [(i, [i % 2], False, 20, 60, False, "18 VPs reached") for i in range(3)]
    outcomes += [(i, [], True, 151, 400, True, TURN_LIMIT) for i in (3, 4)]
    r = _result({"blue": 2, "orange": 1}, 5, ties=2, reasons=reasons, outcomes=outcomes)
    report = _report(("stall", r), limit=150)
    (sc,) = report.to_dict()["scenarios"]
    assert sc["bot_max_turns"] == 150 and sc["bot_max_turns_from"] == "scenario"
    ((p, _),) = report.scenarios[0].results
    assert reproduce(report, report.scenarios[0], p) == (
        f"rulecraft simulate {GAME}/stall --games 5 --seed 0 --agents mc:4 --bot-max-turns 150"
    )
    (row,) = sc["results"]
    assert row["endings"] == {reasons[0]: 0, reasons[1]: 3, TURN_LIMIT: 2}
    assert row["turn_limit"] == 2 and row["max_turns"] == 150 and row["small_sample"]
    page = report.html()
    endings = page.split('<table class="endings">', 1)[1].split("</table>", 1)[0]
    assert "<tr><td>18 VPs reached</td><td>3 (60%)</td></tr>" in endings
    assert f"<tr><td>{escape(reasons[0])}</td><td>0 (0%)</td></tr>" in endings
    assert '<td class="limit">2 (40%) at 150</td>' in endings
    (summary,) = _summary_rows(page)
    assert '<td class="num limit">2 of 5</td>' in summary and "18 VPs reached 60%" in summary
    table = report.table()
    assert "mc:4 vs mc:4 ended: the players agreed to end the game 0, 18 VPs reached 3" in table
    assert "2 of 5 games stopped at the scenario's bot turn limit, 150 (no sole winner)" in table


def test_a_rare_ending_does_not_read_as_none():
    assert [bal._percent(k, 200) for k in (0, 1, 2, 200)] == ["0%", "<1%", "1%", "100%"]


def test_endings_of_a_real_run_add_up(run):
    for sc in json.loads(run["json"])["scenarios"]:
        for r in sc["results"]:
            assert sum(r["endings"].values()) == r["games"]
            assert r["endings"].get(TURN_LIMIT, 0) == r["turn_limit"]


def test_small_samples_are_drawn_faint():
    few, many = _result({"blue": 6, "orange": 4}, 10), _result({"blue": 100, "orange": 100}, 200)
    report = _report(("few", few), ("many", many))
    rows = _summary_rows(report.html())
    assert '<td class="weak">' in rows[0] and "few: weak evidence" in rows[0]
    assert '<td class="weak">' not in rows[1] and "few: weak evidence" not in rows[1]
    charts = report.html().split('role="img"')[1:]
    assert '<g class="weak"' in charts[0] and '<g class="weak"' not in charts[1]
    data = report.to_dict()
    assert [sc["results"][0]["small_sample"] for sc in data["scenarios"]] == [True, False]


# -- reproduce commands ---------------------------------------------------------------------------
def _json_of(argv: list[str]) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main([*argv, "--json"]) == 0
    return json.loads(out.getvalue())


_TIMES = ("seconds", "games_per_second")


def test_reproduce_commands_parse_and_play_the_same_games(tmp_path):
    """Real bots, a turn limit low enough to stop them: each row's command, run alone, gives
    the row again game for game (the limit is part of it: it also bounds the bots' playouts)."""
    sid = "age_of_marlborough"
    argv = ["simulate", "--all", GAME, "--games", "6", "--bot-games", "2", "--playouts", "1"]
    argv += ["--bot-max-turns", "6", "--scenarios", sid]
    html = tmp_path / "b.html"
    text = io.StringIO()
    with contextlib.redirect_stdout(text), contextlib.redirect_stderr(io.StringIO()):
        assert main([*argv, "--html", str(html)]) == 0
    data = _json_of(argv)
    (sc,) = data["scenarios"]
    assert [r["agent"] for r in sc["results"]] == ["random", "mc:1"]
    assert sc["results"][1]["turn_limit"] == 2  # the limit decided the bot games
    page = html.read_text(encoding="utf-8")
    for row in sc["results"]:
        cmd = row["reproduce"]
        assert cmd in text.getvalue() and escape(cmd) in page
        words = shlex.split(cmd)
        assert words[0] == "rulecraft"
        ns = build_parser().parse_args(words[1:])
        assert (ns.name, ns.games, ns.seed, ns.agents) == (
            f"{GAME}/{sid}",
            row["games"],
            0,
            [row["agent"]],
        )
        again = _json_of(words[1:])
        for key in ("wins", "ties", "turn_limit", "mean_turns", "mean_decisions", "endings"):
            assert again[key] == row[key], (cmd, key)
    # the whole report's command
    words = shlex.split(data["command"])
    assert escape(data["command"]) in page and data["command"] in text.getvalue()
    build_parser().parse_args(words[1:])
    again = _json_of(words[1:])
    assert again["command"] == data["command"]
    for a, b in zip(again["scenarios"][0]["results"], sc["results"], strict=True):
        assert {k: v for k, v in a.items() if k not in _TIMES} == {
            k: v for k, v in b.items() if k not in _TIMES
        }


# -- the bot turn limit comes from the scenario's data ------------------------------------------
def _yaml_limit(sid: str) -> int:
    """`simulate: bot_max_turns` of a scenario file, else of its base."""
    doc = yaml.safe_load((REPO / "rules" / GAME / "scenarios" / f"{sid}.yaml").read_text())
    limit = (doc.get("simulate") or {}).get("bot_max_turns")
    return limit if limit is not None else _yaml_limit(doc["base"])


def test_the_bot_turn_limit_is_read_from_the_scenarios_data(monkeypatch):
    played: list[tuple[str, str, int | None]] = []

    def fake(spec, sid, games, seed, agents, max_turns=None, **kw):
        played.append((sid, agents[0], max_turns))
        return _result(dict.fromkeys(spec.seats, 0), games, ties=games)

    monkeypatch.setattr(bal, "simulate", fake)
    limits = {sid: _yaml_limit(sid) for _, sid in scenarios_of(GAME)}
    assert len(set(limits.values())) > 1  # the scenarios differ: a default would not pass
    for spec, sid in scenarios_of(GAME):
        assert bot_max_turns(spec) == limits[sid]
    report = balance(GAME, games=1, bot_games=1, playouts=1)
    assert [(s, a, m) for s, a, m in played if a == "mc:1"] == [
        (s, "mc:1", n) for s, n in limits.items()
    ]
    assert all(m is None for _, a, m in played if a == "random")
    assert {sb.limit_from for sb in report.scenarios} == {"scenario"}
    played.clear()
    report = balance(GAME, games=1, bot_games=1, playouts=1, bot_max_turns=7)
    assert {m for _, a, m in played if a == "mc:1"} == {7}
    assert {sb.limit_from for sb in report.scenarios} == {"option"}
    assert "--bot-max-turns 7" in report.command


def test_one_scenario_with_a_bot_stops_at_its_data_limit(monkeypatch, capsys):
    asked: list[int | None] = []
    real = sim.simulate

    def spy(*a, max_turns=None, **kw):
        asked.append(max_turns)
        return real(*a, max_turns=max_turns, **kw)

    monkeypatch.setattr(sim, "simulate", spy)
    monkeypatch.setattr(sim, "make_agent", lambda name, seed: RandomAgent(seed))
    name = f"{GAME}/war_to_end_war"
    for extra in (
        ["--agents", "mc:1"],
        ["--agents", "random"],
        ["--agents", "mc:1", "--bot-max-turns", "9"],
    ):
        assert main(["simulate", name, "--games", "1", *extra]) == 0
    capsys.readouterr()
    assert asked == [_yaml_limit("war_to_end_war"), None, 9]


def test_balance_judges_the_decisive_games_as_the_sweep_does():
    """One definition of "balanced" on both pages (simulate.BALANCE_RULE): a seat's share of
    the games one seat won alone against an even share; games nobody won alone (ties, shared
    victories and defeats, the turn limit) are counted beside, never in the shares."""
    from rulecraft.runtime.tools.simulate import BALANCE_RULE, off_even_share
    from rulecraft.runtime.tools.sweep_model import Point

    # 40 wins each and 120 ties in 200 games: each seat wins 20% of all games, below 1/2, but
    # half of the decisive games: balanced
    drawish = _result({"blue": 40, "orange": 40}, 200, ties=120)
    assert off_even(drawish, drawish.seats) == {}
    # shared victories are no decisive games: blue's 30 shared wins do not count for it
    seats = ["blue", "orange"]
    outcomes = [(i, [0], False, 5, 9, False, "vps") for i in range(20)]
    outcomes += [(20 + i, [1], False, 5, 9, False, "vps") for i in range(20)]
    outcomes += [(40 + i, [0, 1], False, 5, 9, False, "vps") for i in range(30)]
    outcomes += [(70 + i, [], True, 50, 9, True, "turn limit reached") for i in range(5)]
    shared = _result({"blue": 50, "orange": 50}, 75, ties=5, outcomes=outcomes)
    assert shared.sole_wins == {"blue": 20, "orange": 20} and shared.decisive == 40
    assert off_even(shared, seats) == {} == off_even_share(shared.sole_wins, seats)
    # the sweep's point counts the same games the same way
    point = Point({}, seats, wins=dict.fromkeys(seats, 0))
    point.add(outcomes)
    assert point.wins == shared.sole_wins and point.decisive == shared.decisive
    assert point.no_sole == {"shared victories": 30, "stopped at the turn limit": 5}
    biased = _result({"blue": 120, "orange": 80}, 200)
    page = _report(("drawish", drawish), ("shared", shared), ("biased", biased)).html()
    assert f"Balanced means: {BALANCE_RULE}" in page.replace("&#x27;", "'")
    rows = dict(zip(("drawish", "shared", "biased"), _summary_rows(page), strict=True))
    assert "every interval holds an even share" in rows["drawish"]
    assert (
        "BLUE 50%" in rows["shared"]
        and "30 shared victories, 5 stopped at the turn" in (rows["shared"])
    )
    # the endings table breaks the games nobody won alone down
    assert "of which shared victories (no sole winner)</td><td>30 (40%)</td>" in page


def test_no_decisive_game_is_not_read_as_balanced():
    limit = [(i, [], True, 50, 9, True, "turn limit reached") for i in range(60)]
    stuck = _result({"blue": 0, "orange": 0}, 60, ties=60, outcomes=limit)
    page = _report(("stuck", stuck)).html()
    (row,) = _summary_rows(page)
    assert "no game won alone: no share to judge" in row
    assert "every interval holds an even share" not in row
    assert "BLUE &ndash;" in row
    table = _report(("stuck", stuck)).table()
    assert "no sole winner: 60 stopped at the turn limit" in table
