"""The offer space of a negotiation window (`runtime/deals.py` `Offers`): numbered and built one
deal at a time, in exactly the order of the full list (every single item, partner by partner,
the proposer's gifts before the partner's, then every one-for-one swap), which is built here
independently from the goods' queries and compared deal for deal."""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest
from rulecraft.runtime import Game, deals, load_spec
from rulecraft.runtime.deals import DEAL, Offers, carry_out, deal_id, item_args
from rulecraft.runtime.tools.agents import RandomAgent

#: the offer space's properties do not depend on how many Areas a promise may name: with the
#: choice keep_out_any_area false (Areas the receiver claims) the lists built in full here are
#: a quarter as long (every Area: tests/test_westphalia_engine.py)
WESTPHALIA = load_spec("westphalia", "congress").with_constants(keep_out_any_area=False)


def full_list(engine, S, proposer, seats):
    """Every listed deal, built in full (the order the option ids have always had)."""
    seats = sorted(set(seats))
    shape = [gd[2] for gd in engine.deal_goods]
    goods = sorted(range(len(shape)), key=lambda g: shape[g] == "flag")
    singles, swaps = [], []
    if proposer not in seats:
        return []
    for q in seats:
        if q == proposer:
            continue
        sides = []
        for giver, receiver in ((proposer, q), (q, proposer)):
            items = [
                (g, giver, receiver, x)
                for g in goods
                for x in item_args(engine, S, g, giver, receiver)
            ]
            singles += items
            sides.append([it for it in items if shape[it[0]] != "flag"])
        swaps += [(DEAL, a, b) for a in sides[0] for b in sides[1]]
    return [(DEAL, it) for it in singles] + swaps


def states(spec, games=3, steps=120, first_seed=0):
    """Positions of random games of ``spec``, every few decisions."""
    for seed in range(first_seed, first_seed + games):
        g = Game.new(spec, spec.scenario, seed)
        agent = RandomAgent(seed)
        for step in range(steps):
            if g.finished:
                break
            d = g.pending()[0]
            if step % 7 == 0:
                yield g.raw
            g.apply(d.player, agent.choose(None, d, spec))


def test_the_offer_space_numbers_the_full_list_in_its_order():
    engine = WESTPHALIA.engine
    seen = 0
    for S in states(WESTPHALIA):
        for p in range(len(WESTPHALIA.seats)):
            seats = range(len(WESTPHALIA.seats))
            offers = Offers(engine, S, p, seats)
            full = full_list(engine, S, p, seats)
            assert len(offers) == len(full)
            assert list(offers) == full
            rng = random.Random(p)
            for i in rng.sample(range(len(full)), min(len(full), 30)):
                assert offers[i] == full[i]
                assert offers[i - len(full)] == full[i]  # negative indexes count from the end
                assert deal_id(WESTPHALIA, offers[i]) == deal_id(WESTPHALIA, full[i])
            seen += len(full)
    assert seen > 1000  # the positions had deals to offer


def test_an_offer_index_out_of_range_is_refused():
    S = next(states(WESTPHALIA, games=1))
    offers = Offers(WESTPHALIA.engine, S, 0, range(len(WESTPHALIA.seats)))
    n = len(offers)
    assert n > 0
    for i in (n, n + 5, -n - 1):
        with pytest.raises(IndexError):
            offers[i]


def test_a_proposer_outside_the_window_has_no_offers():
    S = next(states(WESTPHALIA, games=1))
    offers = Offers(WESTPHALIA.engine, S, 0, (1, 2))
    assert len(offers) == 0 and list(offers) == []
    with pytest.raises(IndexError):
        offers[0]


def test_the_offer_space_is_a_value_that_pickles():
    S = next(states(WESTPHALIA, games=1))
    seats = range(len(WESTPHALIA.seats))
    a = Offers(WESTPHALIA.engine, S, 1, seats)
    b = Offers(WESTPHALIA.engine, S[:], 1, list(seats)[::-1])
    assert a == b and hash(a) == hash(b)
    assert a != Offers(WESTPHALIA.engine, S, 2, seats)
    c = pickle.loads(pickle.dumps(a))
    assert c == a and len(c) == len(a) and list(c) == list(a)


def test_offers_made_again_in_a_state_a_deal_changed_in_place_are_the_new_state_s():
    """The goods' findings are kept while the state is unchanged (a refused offer); a deal
    carried out in the same list, as a negotiation does, makes them be found again."""
    engine = WESTPHALIA.engine
    seats = range(len(WESTPHALIA.seats))
    changed = 0
    for S in states(WESTPHALIA, games=2):
        S = S[:]
        rng = random.Random(len(S))
        for _ in range(6):
            for p in seats:
                offers = Offers(engine, S, p, seats)
                assert list(offers) == full_list(engine, S, p, seats)
            p = rng.randrange(len(WESTPHALIA.seats))
            offers = Offers(engine, S, p, seats)
            if not len(offers):
                break
            before = list(S)
            carry_out(engine, S, offers[rng.randrange(len(offers))])
            changed += S != before
    assert changed > 10


def test_each_direction_between_two_seats_is_asked_once_in_an_unchanged_state(monkeypatch):
    """Six proposers in one state: each good's query runs once per giver and receiver, not
    once per proposer (the pair (p, q) is in the offers of both p and q); a list that does
    not depend on the receiver (Claims: the giver's areas) once per giver."""
    engine = WESTPHALIA.engine
    calls: list[tuple[str, int, int, int | None]] = []

    def counted(part, g, query, by_receiver=True):
        def ask(S, giver, receiver, *xs):
            calls.append((part, g, giver, receiver if by_receiver else None))
            return query(S, giver, receiver, *xs)

        return ask

    saved = {a: getattr(engine, a) for a in ("deal_queries", "deal_from", "deal_keep")}
    assert any(saved["deal_from"]) and any(saved["deal_keep"])
    monkeypatch.setattr(deals, "_MEMO", deals._Memo())
    for part, fs in saved.items():
        wrapped = tuple(f and counted(part, g, f, part != "deal_from") for g, f in enumerate(fs))
        monkeypatch.setattr(engine, part, wrapped)
    S = next(states(WESTPHALIA, games=1))
    seats = range(len(WESTPHALIA.seats))
    lists = [list(Offers(engine, S, p, seats)) for p in seats]
    n = len(WESTPHALIA.seats)
    assert len(calls) == len(set(calls))
    froms = [c for c in calls if c[0] == "deal_from"]
    assert len(froms) == n * sum(1 for f in saved["deal_from"] if f)
    for part, fs in saved.items():
        monkeypatch.setattr(engine, part, fs)
    monkeypatch.setattr(deals, "_MEMO", deals._Memo())
    assert lists == [full_list(engine, S, p, seats) for p in seats]


def test_every_listed_swap_may_be_made_whatever_its_first_item_gives() -> None:
    """Rules: WEST-1-04. A swap lists each item as the state before the deal allows it: a
    Claim given and, in return, a promise to keep out of its Area (which the giver of the
    promise may make only while the other holds a Claim there) is a deal the proposer may
    make, not one the offers list and then refuse."""
    import re

    from rulecraft.runtime import Game, load_spec

    g = Game.new(load_spec("westphalia", "congress"), None, 0)
    rng = random.Random(0)
    for _ in range(50):
        d = g.pending()[0]
        swap = next(
            (
                o.id
                for o in d.options
                if re.match(r"offer:claim:(\w+)>(\w+)=(\w+);keep_out:\2>\1=\3$", o.id)
            ),
            None,
        )
        if swap is not None:
            break
        g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
    assert swap is not None, "no Claim-for-promise swap offered in 50 decisions"
    assert g.is_legal(d.player, swap)
    g.apply(d.player, swap)


def test_offers_made_in_two_threads_at_once_are_each_their_own_state(monkeypatch) -> None:
    """A server's bots think in threads: the memo of what the goods' queries found is kept
    per thread, so offers made in two states at once (two rooms) never mix them. Thread A
    stops in its first query while thread B makes offers in another state, then goes on."""
    import threading

    engine = WESTPHALIA.engine
    seats = range(len(WESTPHALIA.seats))

    def lists(S: list[Any]) -> list[Any]:
        """What each other seat may give, by the goods whose list is found once per giver."""
        return [f and list(f(S, giver, 0)) for f in engine.deal_from for giver in seats[1:]]

    # two positions in which another seat's list differs (a list found once per giver and
    # state is what a mixed-up memo would hand to the other thread)
    first = second = None
    for S in states(WESTPHALIA, games=3):
        if first is None:
            first = list(S)
        elif lists(S) != lists(first):
            second = list(S)
            break
    assert first is not None and second is not None
    expected = [full_list(engine, S, 0, seats) for S in (first, second)]
    assert expected[0] != expected[1]
    b_done = threading.Event()
    paused = threading.Event()
    queries = engine.deal_queries

    def pausing(g, query):
        def ask(S, *args):
            if threading.current_thread().name == "A" and not paused.is_set():
                paused.set()
                assert b_done.wait(60)
            return query(S, *args)

        return ask

    monkeypatch.setattr(engine, "deal_queries", tuple(pausing(g, q) for g, q in enumerate(queries)))
    monkeypatch.setattr(deals, "_MEMO", deals._Memo())
    got: dict[str, list[Any]] = {}

    def make(name: str, S: list[Any]) -> None:
        if name == "B":
            assert paused.wait(60)
        got[name] = list(Offers(engine, S, 0, seats))
        if name == "B":
            b_done.set()

    threads = [
        threading.Thread(target=make, args=(name, S), name=name)
        for name, S in (("A", first), ("B", second))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == {"A": expected[0], "B": expected[1]}


def test_the_option_rows_of_an_offer_decision_listed_whole_are_its_rows_by_number():
    """Listing every row (views, OpenSpiel's legal actions) makes each item's id and label
    once and walks the offers in order; the rows are those made one by one by number, with
    the ids and labels ``deal_id`` and ``label`` give."""
    from rulecraft.runtime.prelude import PENDING

    spec = WESTPHALIA
    checked = 0
    for S in states(spec, games=2, steps=200):
        for d in S[PENDING] or ():
            if spec.sites[d[1]].options != "offer":
                continue
            rows = spec.options(d, S)
            whole = list(rows)
            assert whole == [rows[i] for i in range(len(rows))]
            for oid, label, v in whole[:-1][::97]:
                assert oid == deal_id(spec, v) and label == deals.label(spec, v, S)
            assert whole[-1][0] == "pass"
            checked += len(whole)
    assert checked > 1000


def test_a_view_names_the_size_of_an_offer_decision_without_listing_it():
    """``Game.view`` gives an offer decision's number of options, the pass included, as it
    gives an allocation's: listing a window's every deal in each view (a frame of the
    browser's, a board at the terminal) took a second in Marlborough."""
    from rulecraft.runtime.prelude import PENDING

    spec = WESTPHALIA
    seen = 0
    for S in states(spec, games=1, steps=200):
        g = Game(spec, S)
        for d in S[PENDING] or ():
            if spec.sites[d[1]].options != "offer":
                continue
            [named] = [x for x in g.view(d[0])["pending"] if x["player"] == d[0]]
            assert "options" not in named
            assert named["offer"] == {"options": len(spec.options(d, S))}
            seen += 1
    assert seen
