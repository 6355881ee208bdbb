"""`rulecraft serve` in a real browser: Playwright for Python driving Debian's Chromium
(``/usr/bin/chromium``, or ``RULECRAFT_CHROMIUM``) headless against a server on 127.0.0.1.

Two browser contexts play a whole Thirty Years War game against each other through the
pages; one seat plays a whole game against a bot; a Westphalia offer is made in one page and
accepted in another; a Third Reich allocation is entered in the page; Blenheim's hex board
is drawn as a map. Marked ``browser`` (run in CI with -m browser); without a browser the
tests skip, saying so, except in CI (``CI=true``), where they fail."""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import httpx2
import pytest
from serve_helpers import create, free_port, start_server, stop

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("serve_browser")]

CHROMIUM = Path(os.environ.get("RULECRAFT_CHROMIUM", "/usr/bin/chromium"))
TYW = "march_of_progress/thirty_years_war"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    proc = start_server(tmp_path_factory.mktemp("serve") / "games.sqlite3", port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"no browser at {CHROMIUM}: CI must run the browser tests")
        pytest.skip(
            f"no browser at {CHROMIUM} (install Debian's chromium, or set RULECRAFT_CHROMIUM)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        try:
            yield b
        finally:
            b.close()


def _page(browser, url: str):
    """A page in a context of its own (its own cookies and storage: another person),
    failing on any script error or refused resource (the Content-Security-Policy)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(f"script error: {e}"))
    page.on(
        "console",
        lambda m: problems.append(m.text) if m.type == "error" else None,
    )
    page.problems = problems  # type: ignore[attr-defined]
    page.goto(url)
    _wait_frames(page, 0)
    return page


def _frames(page) -> int:
    """How many frames the page has drawn (read without evaluating script: the page's
    Content-Security-Policy forbids eval, and Playwright's waits for a function use it)."""
    return int(page.locator("body").get_attribute("data-frames") or 0)


def _wait_frames(page, n: int, seconds: float = 20) -> None:
    """Until the page has drawn more than ``n`` frames."""
    for _ in range(int(seconds / 0.02)):
        if _frames(page) > n:
            return
        page.wait_for_timeout(20)
    raise AssertionError(f"no frame after {seconds} s")


def _click(page, locator) -> None:
    """Click and wait for the page to draw the frame that follows."""
    n = _frames(page)
    locator.click()
    _wait_frames(page, n)


def _over(page) -> bool:
    return page.locator("#dhead").inner_text() == "Game over"


def _play_through(pages, rng: random.Random, limit: int = 600) -> int:
    """Click options in whichever page has a decision until every page says the game is
    over; the number of decisions made in the pages."""
    made = 0
    while not all(_over(p) for p in pages):
        assert made < limit, "the game did not end"
        acted = False
        for page in pages:
            buttons = page.locator("#dbody button.option")
            count = buttons.count()
            if count and not _over(page):
                _click(page, buttons.nth(rng.randrange(count)))
                made += 1
                acted = True
                break
        if not acted:  # a bot or the other page is being told: wait for a frame
            pages[0].wait_for_timeout(50)
    for page in pages:
        assert page.problems == [], page.problems
        assert page.locator("#error").inner_text() == ""
    return made


def test_two_people_play_a_whole_thirty_years_war_game_in_two_browsers(server, browser):
    with httpx2.Client(base_url=server, trust_env=False) as c:
        links = create(c, TYW, ["human", "human"], seed=21, names=["Ann", "Bob"])
    pages = [_page(browser, f"{server}/play/{t}") for t in links["seats"]]
    assert pages[0].locator("#subtitle").inner_text().count("Ann") == 1
    made = _play_through(pages, random.Random(1))
    assert made > 20
    result = pages[0].locator("#dbody .result").inner_text()
    assert (
        result.startswith(("Won by", "A tie"))
        and result == pages[1].locator("#dbody .result").inner_text()
    )
    assert pages[0].locator("#log li").count() > 50
    spectator = _page(browser, f"{server}/play/{links['spectators']}")
    assert spectator.locator("#dhead").inner_text() == "Game over"


def test_one_seat_plays_a_whole_game_against_a_bot(server, browser):
    with httpx2.Client(base_url=server, trust_env=False) as c:
        links = create(c, TYW, ["random", "human"], seed=8)
    page = _page(browser, f"{server}/play/{links['seats'][1]}")
    assert "Blue (bot)" in page.locator("#subtitle").inner_text()
    assert _play_through([page], random.Random(2)) > 10


def test_a_westphalia_offer_is_made_and_accepted_in_the_pages(server, browser):
    with httpx2.Client(base_url=server, trust_env=False) as c:
        links = create(c, "westphalia/congress", ["human"] * 6, seed=3)
        austria, bavaria = links["seats"][0], links["seats"][1]
        first = c.get(f"/api/{austria}/state").json()["decision"]
        assert first["options_kind"] != "offer"
        c.post(f"/api/{austria}/decide", json={"option": first["options"][0]["id"]})
    pa = _page(browser, f"{server}/play/{austria}")
    pb = _page(browser, f"{server}/play/{bavaria}")
    assert pa.locator("#dbody .prompt").inner_text() == "Make an offer, or pass"
    pa.locator("#dbody form.offer input").fill("units:austria>bavaria=2")
    n = _frames(pb)
    _click(pa, pa.locator("#dbody form.offer button.primary"))
    _wait_frames(pb, n)
    assert pb.locator("#dbody .prompt").inner_text() == "Accept the offer of Austria?"
    _click(pb, pb.get_by_role("button", name="Yes", exact=True))
    log = pb.locator("#log").inner_text()
    assert "Agreed: Austria gives Bavaria 2 Units" in log, log[-800:]
    assert pa.problems == [] and pb.problems == []


def test_a_third_reich_allocation_is_entered_in_the_page(server, browser):
    with httpx2.Client(base_url=server, trust_env=False) as c:
        links = create(c, "third_reich_diplomacy/situation_1941", ["human"] * 6, seed=3)
        germany = links["seats"][0]
        for _ in range(10):  # the DPs bought with foreign aid, by whoever is asked
            for tok in links["seats"]:
                d = c.get(f"/api/{tok}/state").json()["decision"]
                if d and not d["answered"] and d["options_kind"] != "alloc":
                    c.post(f"/api/{tok}/decide", json={"option": d["options"][0]["id"]})
        assert c.get(f"/api/{germany}/state").json()["decision"]["options_kind"] == "alloc"
    page = _page(browser, f"{server}/play/{germany}")
    inputs = page.locator("#dbody form.alloc input[type=number]")
    assert inputs.count() > 1
    points = int(page.locator("#dbody form.alloc p").inner_text().split(" of ")[1].split()[0])
    assert points > 0
    inputs.nth(0).fill("1")
    assert page.locator("#dbody form.alloc p").inner_text().startswith("1 of ")
    _click(page, page.locator("#dbody form.alloc button"))
    assert page.locator("#error").inner_text() == ""
    assert page.locator("#dhead").inner_text() == "You have picked"
    assert page.problems == []


def test_a_hex_board_is_drawn_as_a_map_with_the_seats_pieces(server, browser):
    with httpx2.Client(base_url=server, trust_env=False) as c:
        links = create(c, "marlborough/blenheim", ["human", "human"], seed=3)
        plain = create(c, TYW, ["human", "human"])["seats"][0]
    page = _page(browser, f"{server}/play/{links['seats'][0]}")
    for _ in range(1000):
        if page.locator("body").get_attribute("data-map") == "drawn":
            break
        page.wait_for_timeout(20)
    assert page.locator("#mapcard").is_visible()
    assert page.locator("#map svg use").count() == 2400  # every hex, drawn once
    assert page.locator("#pieces g.own").count() > 0 and page.locator("#pieces g.fog").count() > 0
    page.locator("#pieces g.fog").first.click()
    assert "force of unknown size" in (page.locator("#mapinfo").text_content() or "")
    assert page.problems == [], page.problems
    # a game without a board: no map
    other = _page(browser, f"{server}/play/{plain}")
    assert not other.locator("#mapcard").is_visible() and other.locator("#map svg").count() == 0


def test_a_hot_seat_hands_the_screen_over_between_its_seats(server, browser):
    """One link for Blue and Orange (hot seat): after Blue's decision the page hides the
    screen and asks for it to be handed to Orange; Orange's decision then shows."""
    form = {"game": TYW, "seed": "5", "hot": "on"}
    form |= {"kind_0": "human", "kind_1": "human", "name_0": "Ann", "name_1": "Ann"}
    with httpx2.Client(base_url=server, trust_env=False) as c:
        r = c.post("/new", data=form, follow_redirects=False)
        found = re.search(r'Hot seats.*?/play/([^"]+)"', c.get(r.headers["location"]).text, re.S)
    assert found is not None
    page = _page(browser, f"{server}/play/{found.group(1)}")
    first = page.locator("#subtitle").inner_text()
    handed = False
    for _ in range(6):  # the simultaneous card picks: Blue's, then Orange's
        _click(page, page.locator("#dbody button.option").first)
        if page.locator("body").get_attribute("data-handover"):
            handed = True
            assert page.locator("main").is_hidden()
            ok = page.locator("#handover-ok")
            assert ok.inner_text().startswith("I play ")
            n = _frames(page)
            ok.click()
            _wait_frames(page, n)
            assert page.locator("main").is_visible()
            break
    assert handed, "the screen was never handed over"
    assert page.locator("#subtitle").inner_text() != first  # the other seat's screen
    assert page.problems == [], page.problems
