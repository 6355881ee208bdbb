"""Negotiation as data: the `negotiation:` section of rules.yaml, compiled into routines.

```yaml
negotiation:
  offers: parties            # who reads an offer's terms: its parties (default), all, or the
                             # name of a bool choice or constant (true: all)
  deals: all                 # who reads a concluded deal: all (default) or its parties
  value: position_value      # a function (p: player) -> int that bots trade by (optional)
  goods:
    units:                   # an amount: 1..amount
      title: Units
      amount: giver.units
      when: at_war(giver, receiver) == false      # who may give it to whom (optional)
      why: "..."             # printed when an offer is refused for this good (optional)
      give: |
        giver.units -= n
        receiver.units += n
    claim:                   # one of a list (`item` is its type): x
      title: Claim
      item: area
      from: "[a for a in areas if claims(giver, a) > 0]"
      when: has_army_in(receiver, x.theater)
      give: |
        transfer_claim(giver, receiver, x)
    peace:                   # neither: a one-off the `when` allows
      title: Peace
      when: giver == spain and receiver == dutch and not at_peace
      give: |
        make_peace()
    truce:                   # a promise, kept until the end of a flow phase
      title: Truce
      when: hostile(giver, receiver)
      promise: {until: military, mutual: true}
    keep_out:                # a promise about one of a list: x
      title: Keep out of
      item: area
      from: areas
      promise: {until: military}
```

For each good ``g`` the game gets (names no rules file can declare, since rule names have no
double underscore): a function ``deal__g__most(giver, receiver) -> int`` (an amount),
``deal__g__options(giver, receiver) -> list`` (an item) or ``deal__g__ok(giver, receiver) ->
bool`` (neither), and a procedure ``deal__g__give(giver, receiver[, n | x])``; a list whose
`from` does not read the receiver also ``deal__g__from`` and ``deal__g__keep`` (the list, and
those of a list its `when` keeps: see ``_split_options``). A promise
keeps a player field ``promised_g`` (the players promised to), read by
``promised("g", a, b)`` and emptied when its `until` phase ends; a promise about one of a
list also keeps ``promised_g_about`` (what each entry of ``promised_g`` is about), read by
``promised("g", a, b, x)``. The window itself is the
procedure ``negotiate(seats, rounds)``, written in the effect language below.
"""

from __future__ import annotations

import copy
from typing import Any

from . import ir
from .diagnostics import DiagnosticSink
from .effects import (
    Assign,
    Attr,
    BinOp,
    Bool,
    Comp,
    For,
    Int,
    ListLit,
    Name,
    Return,
    Snippet,
    Stmt,
    Ternary,
    parse_into,
    walk,
)

__all__ = ["add_negotiation", "WINDOW"]

#: the negotiation window: every seat in turn proposes a deal or passes; the parties answer;
#: it ends when every seat has passed in succession, or after `rounds` rounds
WINDOW = """\
let w_passes = 0
let w_round = 0
while w_passes < count(w_seats) and w_round < w_rounds:
    w_round += 1
    for w_p in w_seats:
        if w_passes < count(w_seats):
            let w_offer = propose(w_p, w_seats, "Make an offer, or pass")
            if w_offer == none:
                w_passes += 1
            else:
                w_passes = 0
                let w_others = [q for q in deal_parties(w_offer) if q != w_p]
                log "{w_p} makes an offer to {w_others}"
                log to __OFFERS__ "{w_p} offers: {w_offer}"
                let w_agreed = true
                for w_q in w_others:
                    if w_agreed:
                        let w_yes = choose_yes_no(w_q, "Accept the offer of {w_p}?")
                        if not w_yes:
                            w_agreed = false
                            log "{w_q} refuses the offer of {w_p}"
                if w_agreed:
                    log to __DEALS__ "Agreed: {w_offer}"
                    carry_out(w_offer)
                w_offer = none
"""


def _split_options(
    game: ir.Game, here: Any, name: str, t: ir.Type, source: Any, when: Any, origin: Any
) -> None:
    """A list good whose `from` does not read the receiver also gets ``deal__g__from(giver,
    receiver)`` (the list) and, with a `when`, ``deal__g__keep(giver, receiver, xs)`` (those of
    ``xs`` it allows): ``keep(from)`` is ``options``, element for element, and the offers of
    a negotiation (``runtime/deals.py``) find the list once per giver, not per receiver."""
    parties = [("giver", ir.PLAYER), ("receiver", ir.PLAYER)]
    listed = ir.list_of(t)
    fname = f"deal__{name}__from"
    body: list[Stmt] = [Return(here, 0, copy.deepcopy(source))]
    game.functions[fname] = ir.Routine(fname, "function", list(parties), listed, body, origin)
    if when is None:
        return
    kname = f"deal__{name}__keep"
    kept = Comp(here, 0, Name(here, 0, "x"), "x", Name(here, 0, "xs"), copy.deepcopy(when))
    game.functions[kname] = ir.Routine(
        kname, "function", [*parties, ("xs", listed)], listed, [Return(here, 0, kept)], origin
    )


def add_negotiation(b: Any, game: ir.Game, sink: DiagnosticSink) -> None:
    """Add the routines and fields of `negotiation:` in rules.yaml to ``game``."""
    doc = b.doc("rules.yaml")
    if doc is None or not isinstance(doc.data.get("negotiation"), dict):
        return
    spec = doc.data["negotiation"]
    base = ("negotiation",)
    pos = doc.key_pos(base)
    here = Snippet("negotiation", lambda off, p=pos: p, "negotiation")
    origin = ir.Origin(pos, tuple(spec.get("rules") or ()), "")
    parties = [("giver", ir.PLAYER), ("receiver", ir.PLAYER)]
    for name, good in (spec.get("goods") or {}).items():
        gpath = (*base, "goods", name)
        gorigin = ir.Origin(doc.key_pos(gpath), tuple(good.get("rules") or ()), "")
        when = (
            b.expression(doc, (*gpath, "when"), f"when of good {name!r}")
            if "when" in good
            else None
        )
        promise = good.get("promise")
        shape = "amount" if "amount" in good else "pick" if "from" in good else "flag"
        if promise is not None and shape == "amount":
            sink.error(
                "negotiation",
                f"good {name!r} is a promise and cannot also have an amount",
                doc.key_pos((*gpath, "promise")),
                "a promise is given whole, or about one of a list: drop `amount` "
                "(or write item: and from:)",
            )
            continue
        arg: list[tuple[str, ir.Type]] = []
        ref = ""
        about: ir.Type | None = None

        def query(
            part: str, returns: ir.Type, value: Any, name: str = name, o: Any = gorigin
        ) -> None:
            """The function ``deal__<good>__<part>(giver, receiver)`` returning ``value``."""
            fname = f"deal__{name}__{part}"
            game.functions[fname] = ir.Routine(
                fname, "function", list(parties), returns, [Return(here, 0, value)], o
            )

        if shape == "amount":
            most = b.expression(doc, (*gpath, "amount"), f"amount of good {name!r}")
            if most is None:
                continue
            value = most if when is None else Ternary(here, 0, when, most, Int(here, 0, 0))
            query("most", ir.INT, value)
            arg = [("n", ir.INT)]
        elif shape == "pick":
            if "item" not in good:
                sink.error(
                    "negotiation",
                    f"good {name!r} takes one of a list but does not say of what",
                    doc.key_pos(gpath),
                    "add item: <type> (an entity type, card or player)",
                )
                continue
            t = b.type_of(game, good["item"], doc, (*gpath, "item"))
            # the kind of ids an offer names the item by (spec.ids): players, cards, records
            ref = "player" if t == ir.PLAYER else "card" if t == ir.CARD else t.name
            source = b.expression(doc, (*gpath, "from"), f"list of good {name!r}")
            if source is None:
                continue
            query("options", ir.list_of(t), Comp(here, 0, Name(here, 0, "x"), "x", source, when))
            if not any(isinstance(n, Name) and n.id == "receiver" for n in walk(source)):
                _split_options(game, here, name, t, source, when, gorigin)
            arg = [("x", t)]
            about = t
        else:
            query("ok", ir.BOOL, when if when is not None else Bool(here, 0, True))
        body: list[Stmt] | None
        if promise is not None:
            title = str(good.get("title") or name.replace("_", " "))
            body = _promise(game, here, name, title, promise, about, doc, gpath, sink)
        elif "give" in good:
            body = b.program(doc, (*gpath, "give"), f"give of good {name!r}")
        else:
            sink.error(
                "negotiation",
                f"good {name!r} says nothing about what giving it does",
                doc.key_pos(gpath),
                "add give: | ... (giver, receiver and n or x are known), "
                "or promise: {until: <phase>}",
            )
            continue
        if body is None:
            continue
        game.functions[f"deal__{name}__give"] = ir.Routine(
            f"deal__{name}__give", "procedure", [*parties, *arg], ir.VOID, body, gorigin
        )
        title = str(good.get("title") or name.replace("_", " "))
        game.goods.append((name, title, shape, ref, str(good.get("why") or "")))

    text = WINDOW
    offers = spec.get("offers", "parties")
    if offers == "all":
        text = text.replace("log to __OFFERS__ ", "log ")
    elif offers != "parties":
        # a switchable reading: public while the named choice (or constant) is true
        line = next(ln for ln in text.split("\n") if "log to __OFFERS__ " in ln)
        ind = line[: len(line) - len(line.lstrip())]
        public = line.replace("log to __OFFERS__ ", "log ")
        text = text.replace(
            line,
            f"{ind}if {offers}:\n    {public}\n{ind}else:\n    {line}",
        )
    if spec.get("deals", "all") == "all":
        text = text.replace("log to __DEALS__ ", "log ")
    text = text.replace("__OFFERS__", "deal_parties(w_offer)").replace(
        "__DEALS__", "deal_parties(w_offer)"
    )
    window = Snippet(text, lambda off, p=pos: p, "the negotiation window")
    body = parse_into(window, sink)
    if body is not None:
        game.functions["negotiate"] = ir.Routine(
            "negotiate",
            "procedure",
            [("w_seats", ir.list_of(ir.PLAYER)), ("w_rounds", ir.INT)],
            ir.VOID,
            body,  # type: ignore[arg-type]
            ir.Origin(pos, origin.rules, "A negotiation window: offers, answers, deals."),
        )
    value = spec.get("value")
    if value is not None:
        r = game.functions.get(str(value))
        if (
            r is None
            or r.kind != "function"
            or r.returns != ir.INT
            or [t for _n, t in r.params] != [ir.PLAYER]
        ):
            sink.error(
                "negotiation",
                f"value {value!r} is not a function (p: player) -> int",
                doc.pos((*base, "value")),
                "declare it under functions: with params {p: player} and returns: int",
            )
        else:
            game.deal_value = str(value)


def _promise(
    game: ir.Game,
    here: Snippet,
    name: str,
    title: str,
    promise: Any,
    about: ir.Type | None,
    doc: Any,
    gpath: tuple,
    sink: DiagnosticSink,
) -> list[Stmt] | None:
    """A promise's fields, its `give` (record it) and its end (when its phase ends). A promise
    about one of a list (``about``: its type) also keeps what it is about, in a second field
    whose entries stand beside the players promised to."""
    field = f"promised_{name}"
    fields = [field] if about is None else [field, f"{field}_about"]
    for f in fields:
        if f in game.player_fields:
            sink.error(
                "negotiation",
                f"promise {name!r} keeps what was promised to whom in the player field {f!r}, "
                "which game.yaml already declares",
                doc.key_pos(gpath),
                f"rename the promise or the field {f!r}",
            )
            return None
    game.promises.append(name)
    # a promise about one of a list keeps two lists entry by entry: both in order (a list
    # field is otherwise a set, which would lose the pairing and repeated players)
    game.player_fields[field] = ir.Field(
        field,
        ir.list_of(ir.PLAYER),
        ir.Origin(doc.key_pos(gpath), (), f"who {name} was promised to"),
        title=f"{title} promised to",
        ordered=about is not None,
    )
    if about is not None:
        game.promise_about[name] = about
        game.player_fields[fields[1]] = ir.Field(
            fields[1],
            ir.list_of(about),
            ir.Origin(doc.key_pos(gpath), (), f"what {name} was promised about"),
            title=f"{title} promised about",
            ordered=True,
        )
    promise = promise if isinstance(promise, dict) else {}

    def add(who: str, f: str, what: str) -> Stmt:
        target = Attr(here, 0, Name(here, 0, who), f)
        more = BinOp(
            here,
            0,
            "+",
            Attr(here, 0, Name(here, 0, who), f),
            ListLit(here, 0, [Name(here, 0, what)]),
        )
        return Assign(here, 0, target, more)

    pairs = [("giver", "receiver")]
    if promise.get("mutual", False):
        pairs.append(("receiver", "giver"))
    body: list[Stmt] = []
    for who, whom in pairs:
        body.append(add(who, field, whom))
        if about is not None:
            body.append(add(who, fields[1], "x"))
    until = promise.get("until")
    phase = next((r for r in game.turn if r.name == f"turn__{until}"), None)
    if phase is None:
        known = ", ".join(r.name[6:] for r in game.turn)
        sink.error(
            "negotiation",
            f"promise {name!r} lasts until phase {until!r}, which the flow does not have",
            doc.pos((*gpath, "promise")),
            f"until: one of the turn's phases ({known})",
        )
        return body
    clear: list[Stmt] = [
        Assign(here, 0, Attr(here, 0, Name(here, 0, "p_"), f), ListLit(here, 0, [])) for f in fields
    ]
    phase.body.append(For(here, 0, "p_", Name(here, 0, "players"), clear))
    return body
