"""What one seat's page and socket receive: a frame, made from that seat's view alone.

:func:`frame` takes the seat's view (``Game.view_state(player, log=True)``: the function the
leak tests check) and builds everything from it: the board as the terminal shows it
(:func:`~rulecraft.runtime.tools.board.render_view` of the view by field name), what stands
on a hex board (:func:`~rulecraft.runtime.tools.text_map.map_pieces`), the log lines
the seat may read, its own pending decision with its options (asked again on the view: the
other seats' decisions are not in it), who the game waits for, the result. Nothing here reads
the true state, so twin games that differ only in what the seat may not see give it the same
frame, byte for byte (``tests/test_serve_wire.py``). Standard library only.
"""

from __future__ import annotations

import json
from typing import Any

from ..game import Game
from ..layout import ANSWERS, LOG, PENDING
from ..named import to_named
from ..tools import reading
from ..tools.board import card_kinds, option_card, render_view
from ..tools.text_map import map_pieces
from ..view import log_for

__all__ = ["frame", "encode", "MAX_LISTED", "decision_of"]

#: the most options a frame lists (a longer list is cut, and says so)
MAX_LISTED = 2000


def decision_of(
    spec: Any, V: list[Any], player: int, named: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """The seat's pending decision, asked again on its view, as data for the page."""
    mine = tuple(d for d in V[PENDING] or () if d[0] == player)
    if not mine:
        if any(p == player for p, _v in V[ANSWERS] or ()):
            # a secret pick made, not yet revealed: the others still pick
            return {
                "kind": "picked",
                "options_kind": "",
                "prompt": "",
                "secret": True,
                "optional": False,
                "answered": True,
            }
        return None
    W = V[:]
    W[PENDING] = mine
    d = Game(spec, W).pending()[0]
    raw = mine[0]
    site = spec.sites[raw[1]]
    out: dict[str, Any] = {
        "kind": d.kind,
        "options_kind": site.options.partition(":")[0],
        "prompt": d.prompt,
        "secret": bool(site.simultaneous),
        "optional": site.optional,
    }
    out["answered"] = False
    cond = spec.site_filters.get(d.site)
    if cond:
        out["filter"] = f"The rules offer only those for which `{cond}` holds."
    if site.options.startswith("alloc:"):
        kind, split = site.options[6:], raw[2]
        wk = kind if kind in ("player", "card") or ":" in kind else "e:" + kind
        out["targets"] = [
            {"id": spec.target_id(kind, t), "label": spec.word(wk, t, W)} for t in split.targets
        ]
        out["points"] = split.points
        out["max_each"] = split.max_each
        return out
    if site.options == "report":
        facts = []
        for k, values, now in raw[2].facts:
            where = spec.report_id((k, now))[7:].rpartition("=")[0]
            facts.append(
                {
                    "where": where,
                    "label": spec.report_label((k, now), W).rpartition(" → ")[0],
                    "now": spec.report_id((k, now))[7:].rpartition("=")[2],
                    **_values([spec.report_id((k, v))[7:].rpartition("=")[2] for v in values]),
                }
            )
        out["facts"] = facts
        out["options"] = [{"id": "done", "label": "Done: nothing else changed"}]
        return out
    options = d.options
    n = len(options)
    listed = [options[k] for k in range(min(n, MAX_LISTED))]
    if n > MAX_LISTED:  # cut, but the last (a decline: none, pass) is always there
        listed[-1] = options[n - 1]
        out["more"] = n - MAX_LISTED
    kinds = card_kinds(spec)
    out["options"] = [_option(spec, kinds, o.id, o.label) for o in listed]
    if site.options == "card":
        out["missing"] = _missing_cards(spec, named or to_named(spec, V, player), player, d)
    return out


def _option(spec: Any, kinds: list[str], oid: str, label: str) -> dict[str, Any]:
    """An option for the page; a card's (``card:move_1``, ``strategy:c1``; ``kinds``: the
    game's :func:`card_kinds`) with what is on it, as the terminal prints under it: rules
    data, the same for every seat."""
    out: dict[str, Any] = {"id": oid, "label": label}
    detail = option_card(spec, kinds, oid)
    if detail is not None:
        out["detail"] = detail
    return out


def _values(words: list[str]) -> dict[str, Any]:
    """The values a fact may take: a range of whole numbers as its ends, else listed."""
    nums = [reading.number(w) for w in words]
    if len(words) > 3 and all(n is not None for n in nums):
        lo, hi = min(nums), max(nums)  # type: ignore[type-var]
        if len(set(nums)) == hi - lo + 1:  # type: ignore[operator]
            return {"range": [lo, hi]}
    return {"values": words}


def _missing_cards(spec: Any, named: dict[str, Any], player: int, d: Any) -> list[str]:
    """Why each card the seat holds is not offered (the rules' words where they give them)."""
    mine = named["p"][player] if named["p"] else {}
    offered = {o.id for o in d.options}
    ids = spec.ids.get("card", ())
    out = []
    for key, value in mine.items():
        if spec.refs.get(f"p.{key}") != "card" or not isinstance(value, list):
            continue
        if key == "cards":
            continue
        for cid in value:
            if isinstance(cid, str) and cid in ids and f"card:{cid}" not in offered:
                out.append(reading.not_offered(spec, "card", ids.index(cid), d))
    return out[:40]


def frame(game: Game, player: int | None, log_from: int = 0) -> dict[str, Any]:
    """What ``player`` (None: a spectator) is sent: built from its view alone. ``log_from``:
    the log lines it already has (only the ones after are sent)."""
    spec = game.spec
    V = game.view_state(player, log=True)
    log = log_for(spec, V, player)
    W = V[:]
    W[LOG] = None  # the board needs no log: the view by name without rendering it again
    named = to_named(spec, W, player)
    displays = Game(spec, V).displays(player)
    labels = spec.seat_labels
    waiting = []
    for d in V[PENDING] or ():
        if labels[d[0]] not in waiting:
            waiting.append(labels[d[0]])
    result = None
    if V and named.get("result"):
        r = named["result"]
        result = {
            "winners": [labels[w] if isinstance(w, int) else str(w) for w in r["winners"]],
            "tie": bool(r.get("tie")),
            "reason": str(r.get("reason") or ""),
        }
    return {
        "type": "state",
        "title": spec.title,
        "scenario": spec.scenario_title,
        "seat": None if player is None else labels[player],
        "seats": list(labels),
        "turn": named.get("turn"),
        "board": render_view(named, spec, displays, compact=True, width=74),
        # what stands on the hex board (None: no board); the board itself is sent once per
        # page (``/api/T/map``), the same for everyone
        "map": map_pieces(spec, V),
        "log_from": min(log_from, len(log)),
        "log": log[log_from:],
        "waiting": waiting,
        "decision": None if player is None else decision_of(spec, V, player, named),
        "result": result,
    }


def encode(data: dict[str, Any]) -> str:
    """A frame as the text sent (deterministic: the same frame, the same bytes)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)
