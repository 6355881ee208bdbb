"""Visibility: the one place where what a player may see is decided.

``view(S, player)`` is the only way an agent, the terminal or a network client sees a
game. ``determinize(view, spec, rng)`` turns a view back into a full state that is
consistent with it, for bots that simulate; it never reads the true state.
"""

from __future__ import annotations

import marshal
import random
from collections import Counter
from typing import Any

from .machine import GameError, State, answer, reask, run
from .rng import seed_state
from .spec import GameSpec

__all__ = ["view", "log_for", "determinize", "is_hidden"]

_Rules = tuple[dict[str, str], dict[str, str], dict[str, dict[str, str]]]
_CACHE: dict[int, tuple[GameSpec, _Rules]] = {}


def _rules(spec: GameSpec) -> _Rules:
    hit = _CACHE.get(id(spec))
    if hit is not None and hit[0] is spec:
        return hit[1]
    g: dict[str, str] = {}
    p: dict[str, str] = {}
    e: dict[str, dict[str, str]] = {}
    for key, mode in sorted(spec.visibility.items()):
        if mode not in ("all", "owner", "none"):
            raise GameError(f"visibility of {key!r} must be all, owner or none, not {mode!r}")
        if mode == "all":
            continue
        scope, _, rest = key.partition(".")
        if scope == "g":
            g[rest] = "none"
        elif scope == "p":
            p[rest] = mode
        elif scope == "e" and "." in rest:
            etype, _, fld = rest.partition(".")
            e.setdefault(etype, {})[fld] = mode
        else:
            raise GameError(f"bad visibility key {key!r} (expected p.F, g.F or e.TYPE.F)")
    rules = (g, p, e)
    _CACHE[id(spec)] = (spec, rules)
    return rules


def _hide(value: Any) -> dict[str, Any]:
    if isinstance(value, list):
        return {"hidden": len(value)}
    return {"hidden": True}


def is_hidden(value: Any) -> bool:
    """Whether ``value`` is a placeholder a view put in place of a hidden value."""
    return type(value) is dict and len(value) == 1 and "hidden" in value


def _spec_of(S: State, spec: GameSpec | None) -> GameSpec:
    if spec is not None:
        return spec
    from .registry import load_spec

    return load_spec(S["game"], S.get("scenario"))


def view(S: State, player: int | None, spec: GameSpec | None = None) -> dict[str, Any]:
    """A JSON copy of what ``player`` (None: a spectator) may see of ``S``."""
    g_rules, p_rules, e_rules = _rules(_spec_of(S, spec))
    log = S["log"]
    S["log"] = None  # copied below, filtered
    try:
        V = marshal.loads(marshal.dumps(S))
    finally:
        S["log"] = log
    if player is None:
        V["log"] = [[t, a] for t, a in log if a is None]
    else:
        V["log"] = [[t, None if a is None else list(a)] for t, a in log if a is None or player in a]
    V["viewer"] = player
    del V["rng"]
    V["seed"] = None  # the seed and the draw count would predict every die and shuffle
    V["answer"] = None
    answers = V.get("answers") or {}
    own = str(player)
    V["answers"] = {own: answers[own]} if player is not None and own in answers else {}
    if V["pending"]:
        V["pending"] = [
            d if d["player"] == player else {k: d[k] for k in ("player", "kind", "prompt")}
            for d in V["pending"]
        ]
    for fld in g_rules:
        if fld in V["g"]:
            V["g"][fld] = _hide(V["g"][fld])
    for i, pd in enumerate(V["p"]):
        for fld, mode in p_rules.items():
            if fld in pd and not (mode == "owner" and i == player):
                pd[fld] = _hide(pd[fld])
    for etype, fields in e_rules.items():
        for rec in V["e"].get(etype, ()):
            mine = player is not None and rec.get("owner") == player
            for fld, mode in fields.items():
                if fld in rec and not (mode == "owner" and mine):
                    rec[fld] = _hide(rec[fld])
    return V


def log_for(S: State, player: int | None) -> list[str]:
    """The log lines ``player`` (None: a spectator) may read."""
    if player is None:
        return [t for t, a in S["log"] if a is None]
    return [t for t, a in S["log"] if a is None or player in a]


def determinize(V: dict[str, Any], spec: GameSpec, rng: random.Random) -> State:
    """A full state consistent with the view ``V``, with hidden things drawn at random.

    - each seat's hidden list zones get the cards of its universe (``spec.card_universe``)
      that are not in its visible zones, shuffled, keeping each zone's size;
    - other hidden values take their value from the scenario's fresh set-up;
    - a pending simultaneous decision, or one whose options are hidden, is asked again (the
      asking block is re-entered), and the viewer's own answer, if given, is re-applied;
    - the generator state is fresh, drawn from ``rng`` (the bot's own generator).
    """
    S = marshal.loads(marshal.dumps(V))
    viewer = S.pop("viewer", None)
    S["rng"] = seed_state(rng.getrandbits(64))
    S["seed"] = None
    S["answer"] = None
    fresh: dict[str, Any] | None = None

    def initial(*path: Any) -> Any:
        nonlocal fresh
        if fresh is None:
            fresh = spec.scenarios[S["scenario"]].init()
        node: Any = fresh
        for key in path:
            try:
                node = node[key]
            except (KeyError, IndexError, TypeError):
                return None
        return node

    universe = spec.card_universe
    for i, pd in enumerate(S["p"]):
        zones = sorted(f for f, v in pd.items() if is_hidden(v) and v["hidden"] is not True)
        pool: list[Any] = []
        if zones and universe and isinstance(pd.get(universe), list):
            unknown = Counter(pd[universe])
            for fld, value in pd.items():
                if fld != universe and isinstance(value, list):
                    unknown.subtract(x for x in value if isinstance(x, (str, int)))
            pool = [c for c, n in unknown.items() for _ in range(max(n, 0))]
            rng.shuffle(pool)
            need = sum(pd[f]["hidden"] for f in zones)
            if need > len(pool):
                raise GameError(
                    f"cannot determinize seat {i}: {need} hidden cards but only "
                    f"{len(pool)} unaccounted cards in its {universe!r}"
                )
            for fld in zones:
                n = pd[fld]["hidden"]
                pd[fld], pool = pool[:n], pool[n:]
        for fld, value in pd.items():
            if is_hidden(value):
                pd[fld] = initial("p", i, fld)
    for fld, value in S["g"].items():
        if is_hidden(value):
            S["g"][fld] = initial("g", fld)
    for etype, recs in S["e"].items():
        for j, rec in enumerate(recs):
            for fld, value in rec.items():
                if is_hidden(value):
                    rec[fld] = initial("e", etype, j, fld)

    pending = S["pending"]
    if pending and (S.get("simultaneous") or any("options" not in d for d in pending)):
        own = S["answers"].get(str(viewer)) if viewer is not None else None
        had_own = viewer is not None and str(viewer) in S["answers"]
        reask(S, spec.blocks)
        if had_own and S["pending"]:
            for k, d in enumerate(S["pending"]):
                if d["player"] == viewer:
                    for opt in d["options"]:
                        if opt[2] == own:
                            answer(S, k, opt)
                            # re-applying is not a new decision of this game
                            S["steps"] -= 1
                            break
                    break
            if S["pending"] is None:
                run(S, spec.blocks)
    return S
