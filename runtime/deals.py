"""Deals: what players trade in a negotiation window (`negotiation:` in rules.yaml).

A **deal** is a tuple ``("deal", item, item, ...)``; an item is ``(good, giver, receiver, x)``:
the index of a declared good, two seats and the good's argument (an amount, the index of a
record, or None for a good without one, such as a peace). The marker in front lets the
runtime recognise a deal wherever it is kept (a routine's locals, a log line) after a save
and a load, and hide it from the players who are not its parties (:func:`parties`).

``propose(p, seats, "prompt")`` asks ``p`` for a deal or ``pass``. Its options are an
:class:`Offers`: every legal single item between ``p`` and one partner, and every swap of one
item each way with one partner, numbered and never listed (a power with 20 Units, 10 Claims
and 15 Debts has thousands). Any other deal among the seats (three items, three parties) can
still be typed or scripted: :func:`check` decides whether it is legal, and says why not.

Option ids: ``offer:<item>;<item>...`` with an item ``<good>:<giver>><receiver>[=<x>]``, e.g.
``offer:units:spain>bavaria=2;prestige:bavaria>spain=1``. A record argument is its id
(``offer:claim:austria>sweden=saxony``).
"""

from __future__ import annotations

import bisect
import threading
from typing import Any

from .layout import LOG
from .machine import GameEnded
from .numbers import parse_int

__all__ = [
    "DEAL",
    "Offers",
    "is_deal",
    "parties",
    "check",
    "carry_out",
    "try_out",
    "label",
    "deal_id",
]

DEAL = "deal"


def is_deal(v: Any) -> bool:
    return type(v) is tuple and len(v) > 0 and v[0] == DEAL


def parties(deal: tuple[Any, ...]) -> tuple[int, ...]:
    """The seats a deal concerns (givers and receivers), in seat order."""
    out: set[int] = set()
    for _g, giver, receiver, _x in deal[1:]:
        out.add(giver)
        out.add(receiver)
    return tuple(sorted(out))


def item_args(engine: Any, S: list[Any], g: int, giver: int, receiver: int) -> tuple[Any, ...]:
    """The arguments good ``g`` can take from ``giver`` to ``receiver`` now."""
    shape = engine.deal_goods[g][2]
    found = engine.deal_queries[g](S, giver, receiver)
    if shape == "amount":
        return tuple(range(1, found + 1))
    if shape == "pick":
        return tuple(found)
    return (None,) if found else ()


class Offers:
    """The listed options of ``propose``: single items and one-for-one swaps between the
    proposer and one partner, numbered and built one at a time. Immutable and hashable (it
    sits in a pending decision); ``offers[i]`` is deal ``i``.

    Making one runs each good's query once per direction and partner and keeps what it
    found (a number of Units, the list of Claims): a block of items per good. No item is
    built until it is asked for, so a playout that draws one offer builds one deal."""

    __slots__ = ("proposer", "seats", "_parts", "_part_starts", "_n_singles", "_swaps", "_n")

    def __init__(self, engine: Any, S: list[Any], proposer: int, seats: Any) -> None:
        self.proposer = proposer
        self.seats = tuple(sorted(set(seats)))
        # a part: the blocks of one direction between the proposer and a partner, (start,
        # blocks, their starts within the part); a block: (good, giver, receiver, shape,
        # found) with found a count ("amount") or a tuple of arguments ("pick"); a flag
        # good that may be given has found None
        parts: list[tuple[int, tuple[Any, ...], tuple[int, ...]]] = []
        swaps: list[tuple[int, int, int, int]] = []  # (start, len out, start in, len in)
        n = 0
        if proposer in self.seats:
            memo = _memo_for(engine, S)
            for q in self.seats:
                if q == proposer:
                    continue
                out_start = n
                blocks, starts, total, n_out = _direction(memo, S, proposer, q)
                if total:
                    parts.append((n, blocks, starts))
                    n += total
                in_start = n
                blocks, starts, total, n_in = _direction(memo, S, q, proposer)
                if total:
                    parts.append((n, blocks, starts))
                    n += total
                if n_out and n_in:
                    swaps.append((out_start, n_out, in_start, n_in))
        self._parts = tuple(parts)
        self._part_starts = tuple(p[0] for p in parts)
        self._n_singles = n
        self._swaps = tuple(swaps)
        self._n = n + sum(a * b for _s, a, _t, b in swaps)

    def __len__(self) -> int:
        return self._n

    @property
    def _blocks(self) -> tuple[tuple[Any, ...], ...]:
        """Every block, in order."""
        return tuple(b for _start, blocks, _starts in self._parts for b in blocks)

    def single(self, i: int) -> tuple[Any, ...]:
        """Single item ``i`` (``0 <= i < `` the number of single items)."""
        start, blocks, starts = self._parts[bisect.bisect_right(self._part_starts, i) - 1]
        j = i - start
        b = bisect.bisect_right(starts, j) - 1
        g, giver, receiver, kind, found = blocks[b]
        j -= starts[b]
        if kind == "amount":
            return (g, giver, receiver, j + 1)
        if kind == "pick":
            return (g, giver, receiver, found[j])
        return (g, giver, receiver, None)

    @property
    def singles(self) -> tuple[tuple[Any, ...], ...]:
        """Every single item, in order (built on each call)."""
        return tuple(self.single(i) for i in range(self._n_singles))

    def __getitem__(self, i: int) -> tuple[Any, ...]:
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(f"offer {i} of {self._n}")
        if i < self._n_singles:
            return (DEAL, self.single(i))
        i -= self._n_singles
        for out_start, n_out, in_start, n_in in self._swaps:
            if i < n_out * n_in:
                a, b = divmod(i, n_in)
                return (DEAL, self.single(out_start + a), self.single(in_start + b))
            i -= n_out * n_in
        raise IndexError(i)  # pragma: no cover - the blocks add up to _n

    def __iter__(self) -> Any:
        # in the order of the numbers, each single item built once (not once per swap)
        singles = self.singles
        for item in singles:
            yield (DEAL, item)
        for out_start, n_out, in_start, n_in in self._swaps:
            ins = singles[in_start : in_start + n_in]
            for a in range(n_out):
                out = singles[out_start + a]
                for item in ins:
                    yield (DEAL, out, item)

    def _key(self) -> tuple[Any, ...]:
        return (self.proposer, self.seats, self._blocks)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Offers) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Offers(proposer={self.proposer}, {self._n} listed)"

    def __reduce__(self) -> Any:
        return (_rebuild, (self.proposer, self.seats, self._blocks, self._swaps))


class _Memo(threading.local):
    """What the goods' queries found in the last state offers were made in, one per thread
    (a server's bots think in threads): the engine, a copy of the state, ``found`` {(giver,
    receiver): what :func:`_pair` found, (good, giver, "from"): a list good's list}, and
    ``goods``, the engine's goods in the order offers list them with their queries, as
    (goods with an amount or a list, flags). The queries are pure functions of the state,
    so while a negotiation's offers are refused (the state unchanged) each direction
    between two seats is asked once, not once per proposer."""

    def __init__(self) -> None:
        self.engine: Any = None
        self.state: list[Any] | None = None
        self.found: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self.goods: tuple[Any, ...] = ((), ())


_MEMO = _Memo()


def _memo_for(engine: Any, S: list[Any]) -> _Memo:
    """This thread's memo, emptied unless it was made for ``engine`` in a state equal to ``S``."""
    memo = _MEMO
    if memo.engine is not engine:
        shapes = [gd[2] for gd in engine.deal_goods]
        # goods with an amount or a list first: only they are swapped (a one-off, such as
        # a promise, is given whole once, and a swap may not repeat it)
        order = sorted(range(len(shapes)), key=lambda g: shapes[g] == "flag")
        froms = getattr(engine, "deal_from", None) or (None,) * len(shapes)
        keeps = getattr(engine, "deal_keep", None) or (None,) * len(shapes)
        queries = engine.deal_queries
        tradables = tuple(
            (g, shapes[g], queries[g], froms[g], keeps[g]) for g in order if shapes[g] != "flag"
        )
        flags = tuple((g, queries[g]) for g in order if shapes[g] == "flag")
        memo.engine, memo.state, memo.found, memo.goods = engine, S[:], {}, (tradables, flags)
    elif memo.state != S:
        memo.state, memo.found = S[:], {}
    return memo


def _direction(memo: _Memo, S: list[Any], giver: int, receiver: int) -> tuple[Any, ...]:
    """:func:`_pair` of one direction, asked once per state."""
    found = memo.found.get((giver, receiver))
    if found is None:
        found = memo.found[giver, receiver] = _pair(memo, S, giver, receiver)
    return found


def _pair(memo: _Memo, S: list[Any], giver: int, receiver: int) -> tuple[Any, ...]:
    """What ``giver`` may give ``receiver`` now: (blocks, their starts, the number of items,
    the number of those that may be swapped: not flags), the blocks in the order of
    ``memo.goods``, each (good, giver, receiver, shape, found) with at least one item. A list
    that does not depend on the receiver (the engine's ``deal_from``) is found once per
    giver and state, and filtered per receiver (``deal_keep``)."""
    blocks = []
    starts = []
    n = 0
    found_before = memo.found
    tradables, flags = memo.goods
    for g, kind, query, listed, keep in tradables:
        if kind == "amount":
            k = query(S, giver, receiver)
            if k > 0:
                blocks.append((g, giver, receiver, kind, k))
                starts.append(n)
                n += k
            continue
        if listed is not None:
            found = found_before.get((g, giver, "from"))
            if found is None:
                found = found_before[g, giver, "from"] = tuple(listed(S, giver, receiver))
            if found and keep is not None:
                found = tuple(keep(S, giver, receiver, found))
        else:
            found = tuple(query(S, giver, receiver))
        if found:
            blocks.append((g, giver, receiver, kind, found))
            starts.append(n)
            n += len(found)
    tradable = n
    for g, query in flags:
        if query(S, giver, receiver):
            blocks.append((g, giver, receiver, "flag", None))
            starts.append(n)
            n += 1
    return (tuple(blocks), tuple(starts), n, tradable)


def _rebuild(proposer: int, seats: Any, blocks: Any, swaps: Any) -> Offers:
    o = object.__new__(Offers)
    o.proposer, o.seats, o._swaps = proposer, seats, swaps
    starts, n = [], 0
    for _g, _giver, _receiver, kind, found in blocks:
        starts.append(n)
        n += found if kind == "amount" else len(found) if kind == "pick" else 1
    o._parts = ((0, tuple(blocks), tuple(starts)),) if blocks else ()
    o._part_starts = tuple(p[0] for p in o._parts)
    o._n_singles = n
    o._n = n + sum(a * b for _s, a, _t, b in swaps)
    return o


def check(spec: Any, S: list[Any], offers: Offers, deal: Any) -> str | None:
    """Why ``deal`` may not be offered now (None: it may). Each item is checked against the
    state before the deal, as the offer space lists them, with the items before it of the
    same good and giver given: one cannot give the same Units twice, and what one party
    receives does not change what the other may give in return (a Claim given and a promise
    to keep out of its Area, in one deal)."""
    if not is_deal(deal) or len(deal) < 2:
        return "a deal has at least one item"
    engine = spec.engine
    for _g, giver, receiver, _x in deal[1:]:
        for q in (giver, receiver):
            if q not in offers.seats:
                return f"{spec.seat_labels[q]} does not take part in this negotiation"
        if giver == receiver:
            return f"{spec.seat_labels[giver]} cannot give something to themselves"
    if offers.proposer not in parties(deal):
        return "a player may only propose a deal they are a party to"
    given: dict[tuple[Any, Any], list[Any]] = {}  # (good, giver) -> the state it draws on
    for g, giver, receiver, x in deal[1:]:
        T = given.get((g, giver))
        if T is None:
            T = given[g, giver] = S[:]
            T[LOG] = False
        if x not in item_args(engine, T, g, giver, receiver):
            return _why_not(spec, T, (g, giver, receiver, x))
        try:
            engine.deal_give(T, g, giver, receiver, x)
        except GameEnded:
            pass  # an item that ends the game may be given; the items after it are checked still
    return None


def _why_not(spec: Any, S: list[Any], item: tuple[Any, ...]) -> str:
    g, giver, receiver, x = item
    engine = spec.engine
    name, title, shape, _ref, why = engine.deal_goods[g]
    who, to = spec.seat_labels[giver], spec.seat_labels[receiver]
    can = item_args(engine, S, g, giver, receiver)
    if shape == "amount":
        if not can:
            text = f"{who} has no {title} to give to {to}"
        else:
            text = f"{who} can give at most {len(can)} {title} to {to}"
    elif shape == "pick":
        if not can:
            text = f"{who} has no {title} to give to {to}"
        else:
            text = f"{who} cannot give {title} {_arg_label(spec, g, x, S)} to {to}"
    else:
        text = f"{who} cannot give {title} to {to} now"
    return f"{text} ({why})" if why else text


def carry_out(engine: Any, S: list[Any], deal: Any) -> None:
    """Every item of ``deal``, in order. An item that ends the game (a good whose `give` calls
    ``end_game``) raises :class:`GameEnded` as any rule does: the machine ends the game."""
    for g, giver, receiver, x in deal[1:]:
        engine.deal_give(S, g, giver, receiver, x)


def try_out(engine: Any, S: list[Any], deal: Any) -> None:
    """:func:`carry_out` on a copy ``S`` a bot judges: an item that ends the game ends the deal
    there (the copy holds the result), instead of raising."""
    try:
        carry_out(engine, S, deal)
    except GameEnded:
        pass


# -- names


def _arg_label(spec: Any, g: int, x: Any, S: list[Any] | None) -> str:
    ref = spec.engine.deal_goods[g][3]
    if x is None:
        return ""
    if ref:
        return spec.word("player" if ref == "player" else "e:" + ref, x, S)
    return str(x)


def item_label(spec: Any, item: tuple[Any, ...], S: list[Any] | None = None) -> str:
    g, giver, receiver, x = item
    _name, title, shape, _ref, _why = spec.engine.deal_goods[g]
    who, to = spec.seat_labels[giver], spec.seat_labels[receiver]
    if shape == "amount":
        what = f"{x} {title}"
    elif shape == "pick":
        what = f"{title} {_arg_label(spec, g, x, S)}"
    else:
        what = title
    return f"{who} gives {to} {what}"


def label(spec: Any, deal: Any, S: list[Any] | None = None) -> str:
    return "; ".join(item_label(spec, it, S) for it in deal[1:])


def _arg_id(spec: Any, g: int, x: Any) -> str:
    ref = spec.engine.deal_goods[g][3]
    if x is None:
        return ""
    if ref:
        return "=" + spec.ids[ref][x]
    return f"={x}"


def item_id(spec: Any, item: tuple[Any, ...]) -> str:
    g, giver, receiver, x = item
    name = spec.engine.deal_goods[g][0]
    return f"{name}:{spec.seats[giver]}>{spec.seats[receiver]}{_arg_id(spec, g, x)}"


def deal_id(spec: Any, deal: Any) -> str:
    return "offer:" + ";".join([item_id(spec, item) for item in deal[1:]])


def row_makers(spec: Any, S: list[Any] | None) -> tuple[Any, Any]:
    """``deal_id`` and ``label`` for the rows of one list of offers in state ``S``, each
    item's id and label made once: a swap is two single items the list also offers alone,
    so a whole list (views, OpenSpiel's legal actions) makes each item's text once rather
    than once per deal it is in."""

    def once(make: Any) -> Any:
        made: dict[tuple[Any, ...], str] = {}

        def text(item: tuple[Any, ...]) -> str:
            try:
                found = made[item]
            except KeyError:
                found = made[item] = make(item)
            except TypeError:  # an argument that cannot key a dict: made each time
                found = make(item)
            return found

        return text

    item_ids = once(lambda item: item_id(spec, item))
    item_labels = once(lambda item: item_label(spec, item, S))
    return (
        lambda deal: "offer:" + ";".join(map(item_ids, deal[1:])),
        lambda deal: "; ".join(map(item_labels, deal[1:])),
    )


def _quoted(part: str) -> str:
    return repr(part) if len(part) <= 40 else repr(part[:40]) + "..."


def parse(spec: Any, option_id: str) -> tuple[Any, ...] | str:
    """The deal an id names, or a text saying what is wrong with it."""
    if not option_id.startswith("offer:"):
        return "an offer is offer:<good>:<giver>><receiver>[=<amount or id>];..."
    goods = {gd[0]: g for g, gd in enumerate(spec.engine.deal_goods)}
    items: list[tuple[Any, ...]] = []
    for part in option_id[6:].split(";"):
        name, colon, rest = part.partition(":")
        if not colon or name not in goods:
            return f"unknown good {_quoted(name)} (goods: {', '.join(goods)})"
        g = goods[name]
        who, gt, rest = rest.partition(">")
        to, eq, arg = rest.partition("=")
        if not gt or who not in spec.seats or to not in spec.seats:
            seats = ", ".join(spec.seats)
            return f"{_quoted(part)}: write <good>:<giver>><receiver>, with seat ids ({seats})"
        shape, ref = spec.engine.deal_goods[g][2], spec.engine.deal_goods[g][3]
        x: Any = None
        if shape == "amount":
            x = parse_int(arg) if eq else None
            if x is None or x < 1:
                return f"{_quoted(part)}: say how many in digits, e.g. {name}:{who}>{to}=2"
        elif shape == "pick":
            ids = spec.ids.get(ref, ())
            if not eq or arg not in ids:
                return (
                    f"{_quoted(part)}: say which, e.g. {name}:{who}>{to}={ids[0] if ids else 'id'}"
                )
            x = list(ids).index(arg)
        elif eq:
            return f"{_quoted(part)}: {name} takes no amount"
        items.append((g, spec.seats.index(who), spec.seats.index(to), x))
    return (DEAL, *items)
