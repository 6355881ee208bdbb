"""The HTML page of a parameter sweep, from results built by hand (no games are played).

Run as a script (``python tests/test_sweep_html.py OUT.html``) to write a realistic example
page to look at.
"""

from __future__ import annotations

import itertools
import random
import re
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from rulecraft.runtime.tools.balance import seat_colours
from rulecraft.runtime.tools.simulate import wilson
from rulecraft.runtime.tools.sweep import Param, Point, SweepResult
from rulecraft.runtime.tools.sweep_html import render_html

SVG = "{http://www.w3.org/2000/svg}"
VOID = {"meta", "br", "hr", "img", "input", "link", "col", "wbr", "area", "base", "source"}


# -- building results by hand ------------------------------------------------------------------
def point(
    values: dict[str, Any],
    wins: dict[str, int],
    games: int,
    *,
    turns: float = 20.0,
    decided: str | None = None,
    stopped_early: bool = False,
) -> Point:
    """A point of ``games`` games; those not in ``wins`` (a seat's games won alone) are draws;
    ``decided`` as its verdict reads ("red ahead", "france and sweden behind")."""
    return Point(
        values=dict(values),
        games=games,
        wins=dict(wins),
        turns=round(turns * games),
        decided=_decided(decided),
        stopped_early=stopped_early,
    )


def _decided(verdict: str | None) -> tuple[str, tuple[str, ...]] | None:
    if verdict is None:
        return None
    *seats, side = verdict.split(" ")
    return side, tuple(s for s in seats if s != "and")


def result(
    params: list[Param],
    points: list[Point],
    seats: tuple[str, ...] = ("blue", "red"),
    labels: tuple[str, ...] | None = None,
    **kw: Any,
) -> SweepResult:
    args: dict[str, Any] = dict(
        game="westphalia",
        scenario="congress",
        title="The Congress of Westphalia",
        seats=list(seats),
        seat_labels=list(labels or seats),
        agents=["random"] * len(seats),
        seed=7,
        params=params,
        points=points,
        max_games=400,
        batch=50,
        stop_confidence=1 - 0.05 / 8,
        seconds=12.5,
        executor="local",
    )
    args.update(kw)
    return SweepResult(**args)


def grid(params: list[Param], seats: tuple[str, ...] = ("blue", "red"), games: int = 100):
    """A point per combination of ``params`` (the first varying slowest), each with
    ``games`` games and win counts that differ from point to point."""
    pts = []
    for n, combo in enumerate(itertools.product(*(p.values for p in params))):
        first = min(games, (games * (30 + 7 * n)) // 100)
        wins = {seats[0]: first}
        rest = games - first
        for k, s in enumerate(seats[1:]):
            wins[s] = rest // (len(seats) - 1) + (rest % (len(seats) - 1) if k == 0 else 0)
        pts.append(point(dict(zip([p.name for p in params], combo, strict=True)), wins, games))
    return pts


# -- reading the page --------------------------------------------------------------------------
class _Checker(HTMLParser):
    """Tags in order, with a stack check: every opened element is closed, in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.text: list[str] = []

    def handle_data(self, data):
        self.text.append(data)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):  # <path .../> inside svg
        self.tags.append(tag)
        self.attrs.extend(attrs)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()


def check_page(page: str) -> _Checker:
    c = _Checker()
    c.feed(page)
    c.close()
    assert not c.errors, c.errors[:5]
    assert not c.stack, c.stack
    return c


def svgs(page: str) -> list[ET.Element]:
    """Every <svg> of the page, parsed as XML (which fails on anything not well formed)."""
    return [ET.fromstring(s) for s in re.findall(r"<svg\b.*?</svg>", page, re.S)]


def charts(page: str, kind: str) -> list[ET.Element]:
    return [s for s in svgs(page) if s.get("class") == f"chart {kind}"]


def find(svg: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in svg.iter(SVG + tag) if cls in (e.get("class") or "").split()]


# -- tests -------------------------------------------------------------------------------------
ONE = [Param("victory_vps", (12, 14, 16, 18, 20))]


def one_param() -> SweepResult:
    pts = [
        point({"victory_vps": 12}, {"blue": 70, "red": 28}, 100, turns=14.2,
              decided="blue ahead", stopped_early=True),
        point({"victory_vps": 14}, {"blue": 120, "red": 75}, 200, turns=17.0),
        point({"victory_vps": 16}, {"blue": 200, "red": 196}, 400, turns=19.5),
        point({"victory_vps": 18}, {"blue": 150, "red": 250}, 400, turns=22.1,
              decided="red ahead"),
        point({"victory_vps": 20}, {"blue": 30, "red": 70}, 100, turns=25.0,
              decided="red ahead", stopped_early=True),
    ]  # fmt: skip
    return result(ONE, pts)


def test_page_is_well_formed_and_self_contained():
    page = render_html(one_param())
    c = check_page(page)
    assert page.startswith("<!DOCTYPE html>")
    assert "script" not in c.tags and "link" not in c.tags and "img" not in c.tags
    assert not [v for k, v in c.attrs if k in ("src", "href")]
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page and "url(" not in page
    assert len(svgs(page)) >= 2  # every svg parses as XML


def test_title_subtitle_and_command():
    r = one_param()
    page = render_html(r)
    assert "<h1>The Congress of Westphalia: sweep of victory_vps</h1>" in page
    assert "<title>The Congress of Westphalia: sweep of victory_vps</title>" in page
    sub = re.search(r'<p class="sub">(.*?)</p>', page, re.S)[1]
    assert "seed 7" in sub and "up to 400 games per point in batches of 50" in sub
    assert "executor local" in sub and f"{r.games:,} games" in sub
    assert f"saved {r.games_saved:,} of 2,000" in sub
    assert f"<code>{r.command()}</code>" in page
    assert "<b>5 points: 2 red ahead, 1 blue ahead, 2 no clear bias; 2 stopped early.</b>" in page


def test_one_parameter_charts():
    r = one_param()
    page = render_html(r)
    (win,) = charts(page, "win")
    (length,) = charts(page, "length")
    assert "Win rate against victory_vps" in page and "Game length" in page
    # x labels: the values, in order
    labels = [t.text for t in win.iter(SVG + "text") if t.text in {"12", "14", "16", "18", "20"}]
    assert labels == ["12", "14", "16", "18", "20"]
    # a band, a line and five dots per seat, in the seat's colour
    colours = seat_colours(r.seats)
    bands = find(win, "path", "band")
    assert [b.get("fill") for b in bands] == colours
    assert all(b.get("d").count("Z") == 1 for b in bands)  # one run: no gaps
    assert [ln.get("stroke") for ln in find(win, "path", "line")] == colours
    dots = find(win, "circle", "dot")
    assert len(dots) == 5 * 2
    # filled where decided (3 points, both seats), hollow elsewhere
    assert len(find(win, "circle", "decided")) == 3 * 2
    assert sum(d.get("fill") == "#fff" for d in dots) == 2 * 2
    # a small mark over each point that stopped early, explained by its tooltip
    early = find(win, "path", "early")
    assert len(early) == 2
    assert "stopped early, decided after 100 of 400 games" in early[0].find(SVG + "title").text
    # the even share: dashed, halfway up the plot for two seats
    (even,) = find(win, "line", "even-line")
    assert even.get("stroke-dasharray")
    grid_ys = sorted(
        float(ln.get("y1")) for ln in win.iter(SVG + "line") if ln.get("stroke") == "#e6e3dc"
    )
    assert float(even.get("y1")) == pytest.approx((grid_ys[0] + grid_ys[-1]) / 2, abs=0.1)
    assert "even share" in "".join(t.text or "" for t in win.iter(SVG + "text"))
    # the length chart: a line with a dot per point, from 0
    assert len(length.findall(f"{SVG}circle")) == 5
    assert "0" in [t.text for t in length.iter(SVG + "text")]


def test_tooltips_give_rate_interval_and_games():
    r = one_param()
    (win,) = charts(render_html(r), "win")
    tips = [d.find(SVG + "title").text for d in find(win, "circle", "dot")]
    lo, hi = wilson(70, 98)  # a share of the 98 decisive games
    assert tips[0] == (
        f"blue at victory_vps = 12: {7000 / 98:.1f}% of 98 decisive games (95% interval "
        f"{100 * lo:.1f}–{100 * hi:.1f}); 100 games, 2% without a sole winner; blue ahead"
    )


def test_hostile_text_is_escaped():
    bad = "<b>&"
    params = [Param("x<i>", ("<s>", "a&b", '"q"'))]
    pts = grid(params, seats=("blue", "red"))
    r = result(
        params, pts, labels=(bad, "red"), title="<script>alert(1)</script>", scenario="s&c",
        agents=["<u>", "random"], executor="<Exec>",
    )  # fmt: skip
    page = render_html(r)
    c = check_page(page)
    assert not {"s", "u", "script"} & set(c.tags)
    assert c.tags.count("b") == 1 and c.tags.count("i") == 2  # the summary; the seat legend
    text = "".join(c.text)
    assert "<b>&" in text and "x<i>" in text and "<script>alert(1)</script>" in text
    assert "a&b" in text and "<s>" in text
    assert bad not in page and "&lt;b&gt;&amp;" in page
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "<Exec>" not in page and "&lt;Exec&gt;" in page
    svgs(page)  # and the charts still parse as XML


def test_two_by_three_grid_small_multiples_and_heatmap():
    params = [Param("army_limit", (3, 4)), Param("fog", (True, False, "maybe"))]
    pts = grid(params)
    pts[0] = point({"army_limit": 3, "fog": True}, {"blue": 61, "red": 39}, 100)
    r = result(params, pts)
    page = render_html(r)
    check_page(page)
    assert "sweep of army_limit × fog" in page
    assert page.count('class="panel"') == 2
    assert "<h3>army_limit = 3</h3>" in page and "<h3>army_limit = 4</h3>" in page
    wins, lengths = charts(page, "win"), charts(page, "length")
    assert len(wins) == 2 and len(lengths) == 2
    for w in wins:
        assert len(find(w, "path", "band")) == 2
        assert len(find(w, "line", "even-line")) == 1
        labels = [t.text for t in w.iter(SVG + "text")]
        assert {"true", "false", "maybe"} <= set(labels)  # booleans as true/false
        assert "True" not in labels
    # the heatmap: rows army_limit, columns fog, the first seat's win rate
    heat = re.search(r'<table class="heat">(.*?)</table>', page, re.S)[1]
    cells = re.findall(r'<td class="cell[^"]*"[^>]*>(.*?)</td>', heat)
    assert len(cells) == 6
    assert heat.count("<tr>") == 3  # a heading row and a row per army_limit
    lo, hi = wilson(61, 100)
    assert cells[0] == f"61% ({100 * lo:.0f}–{100 * hi:.0f}) n=100"
    assert cells[0].startswith("61% (51–") or cells[0].startswith("61% (52–")
    # in the first seat's colour (blue) where it is ahead, its rival's behind, white near even
    colours = re.findall(r'<td class="cell[^"]*" style="background:#(\w{6})', heat)

    def rgb(h):
        return tuple(int(h[i : i + 2], 16) for i in (0, 2, 4))

    rates = [p.win_rate("blue") for p in r.points]
    for rate, c in zip(rates, colours, strict=True):
        red, _, blue = rgb(c)
        if rate > 0.55:
            assert blue > red
        elif rate < 0.45:
            assert red > blue
    # the table of every point
    table = re.search(r'<table class="points">(.*?)</table>', page, re.S)[1]
    assert table.count("<tr>") == 1 + 6


def test_three_parameters_small_multiples_no_heatmap():
    params = [Param("a", (1, 2)), Param("b", (0.5, 1.5, 2.5)), Param("c", (True, False))]
    page = render_html(result(params, grid(params)))
    check_page(page)
    # across: b, the parameter with the most values; a panel for each a × c
    assert page.count('class="panel"') == 4
    assert "Win rate against b, for each a × c" in page
    assert "<h3>a = 1, c = true</h3>" in page and "<h3>a = 2, c = false</h3>" in page
    assert len(charts(page, "win")) == 4 and len(charts(page, "length")) == 4
    assert 'class="heat"' not in page
    assert "sweep of a × b × c" in page


def test_zero_game_point_and_gaps():
    r = one_param()
    r.points[2] = point({"victory_vps": 16}, {}, 0)
    page = render_html(r)
    check_page(page)
    (win,) = charts(page, "win")
    assert len(find(win, "circle", "dot")) == 4 * 2  # no dot where no games
    assert all(b.get("d").count("Z") == 2 for b in find(win, "path", "band"))  # split band
    assert "n=0" in page and "no games" in page
    row = re.findall(r"<tr><td class=\"v\">16</td>(.*?)</tr>", page)[0]
    assert "<td>0</td>" in row and "no clear bias" in row


def test_every_point_without_games():
    params = [Param("p", (1, 2)), Param("q", ("x", "y"))]
    pts = [point(dict(p=a, q=b), {}, 0) for a in (1, 2) for b in ("x", "y")]
    page = render_html(result(params, pts, seconds=0.0))
    check_page(page)
    assert page.count("– n=0") == 4
    for w in charts(page, "win"):
        assert [b.get("d") for b in find(w, "path", "band")] == ["", ""]


def test_single_value_identical_rates_and_one_seat():
    params = [Param("only", (5,))]
    pts = [point({"only": 5}, {"solo": 40}, 80, turns=0.0)]
    page = render_html(result(params, pts, seats=("solo",)))
    check_page(page)
    (win,) = charts(page, "win")
    (band,) = find(win, "path", "band")
    assert band.get("d").startswith("M") and band.get("d").endswith("Z")
    assert len(find(win, "circle", "dot")) == 1
    assert "100%" in "".join(t.text or "" for t in win.iter(SVG + "text"))  # the even share
    # a length of zero everywhere still gives an axis
    (length,) = charts(page, "length")
    assert length.find(SVG + "circle") is not None


def test_three_seats_and_long_labels():
    long = "The Most Serene Republic of Venice and its Terraferma " * 3
    seats = ("france", "sweden", "empire")
    params = [Param("subsidy", ("a very long reading value indeed " * 4, "short", "x" * 80))]
    pts = grid(params, seats=seats, games=90)
    r = result(params, pts, seats=seats, labels=(long, "Sweden", "Empire"))
    page = render_html(r)
    check_page(page)
    (win,) = charts(page, "win")
    assert len(find(win, "path", "band")) == 3
    assert "33.3%" in "".join(t.text or "" for t in win.iter(SVG + "text"))
    # the labels are cut short in the chart, and whole in their tooltips
    texts = [t for t in win.iter(SVG + "text") if t.find(SVG + "title") is not None]
    assert all(len(t.text) <= 14 for t in texts)
    assert any(("x" * 80) in t.find(SVG + "title").text for t in texts)


def test_verdicts_in_seat_labels_and_arrows_per_named_seat():
    seats = ("france", "sweden", "empire")
    params = [Param("k", (1, 2))]
    pts = [
        point({"k": 1}, {"france": 10, "sweden": 10, "empire": 70}, 90,
              decided="france and sweden behind", stopped_early=True),
        point({"k": 2}, {"france": 30, "sweden": 30, "empire": 30}, 90),
    ]  # fmt: skip
    page = render_html(result(params, pts, seats=seats, labels=("France", "Sweden", "Empire")))
    row = re.findall(r'<tr><td class="v">1</td>(.*?)</tr>', page)[0]
    assert row.count("▼") == 2 and "▲" not in row
    assert "France and Sweden behind" in row and "yes, after 90" in row
    assert "1 France and Sweden behind, 1 no clear bias" in page


def test_a_point_with_every_game_drawn():
    params = [Param("k", (1, 2, 3))]
    pts = [point({"k": k}, {"blue": 20, "red": 20} if k != 2 else {}, 40) for k in (1, 2, 3)]
    page = render_html(result(params, pts))
    (win,) = charts(page, "win")
    assert len(find(win, "circle", "dot")) == 2 * 2
    (gap,) = find(win, "path", "gap")
    assert gap.find(SVG + "title").text == "k = 2: no game won alone"
    (length,) = charts(page, "length")
    assert len(length.findall(f"{SVG}circle")) == 3  # the drawn games still have a length
    assert "100.0%" in re.findall(r'<tr><td class="v">2</td>(.*?)</tr>', page)[0]  # draws


def test_many_values_thin_the_labels():
    params = [Param("n", tuple(range(100, 160)))]
    page = render_html(result(params, grid(params, games=10)))
    (win,) = charts(page, "win")
    labels = [t for t in win.iter(SVG + "text") if t.find(SVG + "title") is not None]
    assert 3 <= len(labels) < 60
    assert len(find(win, "circle", "dot")) == 60 * 2


def test_stopping_explained():
    r = one_param()
    page = render_html(r)
    assert f"a seat's {100 * r.stop_confidence:.2f}% interval lies wholly above or below" in page
    assert "The intervals shown are 95%" in page


def test_result_html_is_the_page():
    r = one_param()
    assert r.html() == render_html(r)


# -- a realistic example to look at ------------------------------------------------------------
def example() -> SweepResult:
    """A 2-parameter sweep played by a model of the game, with sequential stopping."""
    rng = random.Random(3)
    params = [
        Param("army_limit", (3, 4, 5)),
        Param("victory_vps", (10, 12, 14, 16, 18, 20)),
    ]
    max_games, batch = 400, 50
    looks = max_games // batch
    conf = 1 - 0.05 / looks
    z = 2.734  # about the normal quantile of 1 - (1 - conf) / 2
    pts = []
    for army in params[0].values:
        for vps in params[1].values:
            p_blue = 0.485 + 0.035 * (14 - vps) + 0.04 * (army - 4)  # red: 0.97 - p_blue
            pt = Point({"army_limit": army, "victory_vps": vps})
            while pt.games < max_games and pt.decided is None:
                for _ in range(batch):
                    u = rng.random()
                    if u < 0.97:  # else a draw (3%): nobody won alone
                        who = "blue" if u < p_blue else "red"
                        pt.wins[who] = pt.wins.get(who, 0) + 1
                    pt.turns += rng.randint(vps - 2, vps + 8)
                    pt.games += 1
                lo, hi = wilson(pt.wins.get("blue", 0), sum(pt.wins.values()), z)
                if lo > 0.5 or hi < 0.5:
                    pt.decided = ("ahead", ("blue",) if lo > 0.5 else ("red",))
                    pt.stopped_early = pt.games < max_games
            pts.append(pt)
    return result(
        params, pts, labels=("Protestant Union", "Catholic League"), agents=["random", "mc:4"],
        max_games=max_games, batch=batch, stop_confidence=conf, seconds=83.4,
        executor="LocalExecutor(4)",
    )  # fmt: skip


def test_example_renders():
    page = render_html(example())
    check_page(page)
    assert page.count('class="panel"') == 3


if __name__ == "__main__":  # pragma: no cover - writes pages to look at
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "sweep_example.html")
    out.write_text(render_html(example()), encoding="utf-8")
    one = out.with_name(out.stem + "_one" + out.suffix)
    one.write_text(render_html(one_param()), encoding="utf-8")
    print(out, one)


def test_the_page_says_how_games_ended_and_what_balanced_means():
    """The endings of every game, the games nobody won alone by kind, and the one definition
    of "balanced" the balance page uses too; a point without a clear bias says so, never the
    ambiguous "not decided"."""
    from rulecraft.runtime.tools.simulate import BALANCE_RULE

    params = [Param("k", (1, 2))]
    p1 = Point({"k": 1}, ["blue", "red"], wins={"blue": 0, "red": 0})
    p1.add([(0, [0], False, 5, 9, False, "Paris falls"), (1, [1], False, 6, 9, False, "VPs")])
    p1.add([(2, [], True, 30, 9, True, "turn limit reached"), (3, [], True, 7, 9, False, "VPs")])
    p2 = Point({"k": 2}, ["blue", "red"], wins={"blue": 0, "red": 0})
    p2.add([(0, [0, 1], False, 5, 9, False, "Paris falls")])
    page = render_html(result(params, [p1, p2]))
    text = " ".join(re.sub(r"<[^>]+>", " ", page).split()).replace("&#x27;", "'")
    assert f"Balanced means: {BALANCE_RULE}" in text
    assert "How the games ended" in text
    assert "ended by Paris falls 2 40%" in text and "ended by VPs 2 40%" in text
    assert "ended by turn limit reached" not in text  # a kind of game nobody won alone
    assert "no sole winner: ties 1 20%" in text
    assert "no sole winner: shared victories 1 20%" in text
    assert "no sole winner: stopped at the turn limit 1 20%" in text
    assert "1 ties, 1 stopped at the turn limit" in text  # the point's own breakdown
    assert "not decided" not in text and "2 points: 2 no clear bias" in text
    data = result(params, [p1, p2])
    assert data.endings_text() == (
        "2 by Paris falls, 2 by VPs; no sole winner: 1 ties, "
        "1 shared victories, 1 stopped at the turn limit"
    )
