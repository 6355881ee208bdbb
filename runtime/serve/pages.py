"""The server's HTML pages: the front page (the compiled games, a game set up), the host's
page of links, and the play page's shell (its content comes over the socket, drawn by
``static/play.js`` with text nodes only). Every text from the rules is escaped here; no
game's name is written in this code."""

from __future__ import annotations

from html import escape

__all__ = ["front", "setup_form", "host_page", "play_page", "message_page"]


def _page(title: str, body: str, script: bool = False) -> str:
    js = '<script src="/static/play.js" defer></script>' if script else ""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f'<title>{escape(title)}</title><link rel="stylesheet" href="/static/style.css">{js}'
        f"</head><body>{body}</body></html>\n"
    )


def front(games: list[tuple[str, str, list[tuple[str, str, list[str]]]]]) -> str:
    """``games``: (game, title, [(scenario, its title, its seats' labels)])."""
    rows = []
    for game, title, scenarios in games:
        items = "".join(
            f'<li><a href="/new?game={escape(game)}/{escape(sid)}">{escape(stitle)}</a> '
            f'<span class="muted">({escape(", ".join(seats))})</span></li>'
            for sid, stitle, seats in scenarios
        )
        rows.append(f'<section class="card"><h2>{escape(title)}</h2><ul>{items}</ul></section>')
    body = (
        "<header><h1>rulecraft</h1><p>Choose a scenario to set up a game. You get one secret "
        "link per seat to send to each player, and one for spectators.</p></header>"
        + ("".join(rows) or "<p>No compiled game: run <code>rulecraft compile</code>.</p>")
    )
    return _page("rulecraft: play", body)


def setup_form(name: str, title: str, seats: list[str], error: str = "") -> str:
    rows = []
    for k, label in enumerate(seats):
        who = escape(label)
        kinds = "".join(
            f'<option value="{v}"{" selected" if v == ("human" if k == 0 else "random") else ""}>'
            f"{t}</option>"
            for v, t in (
                ("human", "a person (gets a link)"),
                ("random", "bot: random"),
                ("mc", "bot: Monte Carlo"),
                ("ismcts", "bot: ISMCTS"),
            )
        )
        rows.append(
            f'<tr><th scope="row">{who}</th><td><select name="kind_{k}" '
            f'aria-label="who plays {who}">{kinds}</select></td><td><input name="name_{k}" '
            f'maxlength="40" placeholder="name (optional)" aria-label="name of {who}"></td></tr>'
        )
    err = f'<p class="error" role="alert">{escape(error)}</p>' if error else ""
    body = (
        f'<p><a href="/">← all games</a></p><h1>{escape(title)}</h1>{err}'
        f'<form method="post" action="/new" class="card"><input type="hidden" name="game" '
        f'value="{escape(name)}"><table class="seats"><thead><tr><th>Seat</th><th>Played by'
        f"</th><th>Player</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        '<p><label>Seed <input name="seed" inputmode="numeric" maxlength="9" '
        'placeholder="random"></label></p><p><label><input type="checkbox" name="hot"> Hot '
        "seat: one link more for each name given to several seats, which plays them in turn "
        "and asks for the screen to be handed over between them</label></p>"
        '<p><button type="submit">Create the game</button>'
        "</p></form>"
    )
    return _page(f"Set up: {title}", body)


def host_page(
    title: str,
    links: list[tuple[str, str, str]],
    spectators: str,
    host: str,
    hot: list[tuple[str, str, str]] | None = None,
) -> str:
    """``links``: (seat label, who plays it, path) per seat; ``hot``: (seat labels, who,
    path) per hot seat."""
    hot_rows = "".join(
        f'<tr><th scope="row">{escape(seats)}</th><td>{escape(who)}</td><td>'
        f'<a class="link" href="{escape(path)}">{escape(path)}</a></td></tr>'
        for seats, who, path in hot or ()
    )
    hot_table = (
        "<p>Hot seats: one link plays several seats in turn, on one screen.</p>"
        '<table class="links"><thead><tr><th>Seats</th><th>Player</th><th>Secret link</th>'
        f"</tr></thead><tbody>{hot_rows}</tbody></table>"
        if hot_rows
        else ""
    )
    rows = "".join(
        f'<tr><th scope="row">{escape(seat)}</th><td>{escape(who)}</td><td>'
        + (f'<a class="link" href="{escape(path)}">{escape(path)}</a>' if path else "bot")
        + "</td></tr>"
        for seat, who, path in links
    )
    body = (
        f"<h1>{escape(title)}</h1><p>Send each player the link of their seat: whoever has it "
        "plays that seat. Keep this page's address to find the links again.</p>"
        f'<table class="links"><thead><tr><th>Seat</th><th>Player</th><th>Secret link</th>'
        f"</tr></thead><tbody>{rows}</tbody></table>{hot_table}"
        f'<p>Spectators (see only what every player sees): <a class="link" '
        f'href="{escape(spectators)}">{escape(spectators)}</a></p>'
        f'<p class="muted">This page: {escape(host)}</p>'
    )
    return _page(title, body)


def play_page() -> str:
    """The shell of the play page: the same for every game and seat (no data in it)."""
    body = (
        '<header id="top"><h1 id="title">Loading…</h1><p id="subtitle" class="muted"></p>'
        '<p id="status" role="status" aria-live="polite"></p></header>'
        '<main><section id="decision" class="card" aria-labelledby="dhead">'
        '<h2 id="dhead">Your decision</h2><div id="dbody"></div>'
        '<p id="error" class="error" role="alert"></p></section>'
        '<section id="mapcard" class="card" hidden><h2>Map</h2>'
        '<div id="map" class="map"></div><p id="mapinfo" class="muted" aria-live="polite">'
        '</p><p id="mapoff" class="muted"></p></section>'
        '<section class="card"><h2>Board</h2><pre id="board"></pre></section>'
        '<section class="card"><h2>Log</h2><ol id="log"></ol></section></main>'
    )
    return _page("rulecraft", body, script=True)


def message_page(title: str, text: str) -> str:
    return _page(
        title, f'<h1>{escape(title)}</h1><p>{escape(text)}</p><p><a href="/">rulecraft</a></p>'
    )
