"""The constructs of negotiation games on an invented game (tests/fixtures/games/merchants/):
negotiation windows over declared goods and promises (`negotiation:`, `negotiate`,
`propose`, `carry_out`, `promised`), deals as decisions (ids, refusals with a reason,
visibility to their parties), a shared face-down deck (`deck: true`, `shuffled`), a random
order of play, graph helpers (`reachable`, `path_cost`) and shared victory."""

from __future__ import annotations

import random

import pytest
from compile_helpers import compile_errors
from fixtures.merchants import ROOT, SPEC
from rulecraft.runtime import Game, IllegalDecision
from rulecraft.runtime.deals import Offers, is_deal
from rulecraft.runtime.layout import PENDING, STACK
from rulecraft.runtime.tools.agents import MonteCarloAgent, RandomAgent, TraderAgent, offer_in
from rulecraft.runtime.view import determinize, view

RED, GREEN, BLUE = 0, 1, 2


def to_window(seed: int = 1) -> Game:
    """A game at its first negotiation window (the first seat in the order proposes)."""
    g = Game.new(SPEC, None, seed)
    assert g.pending()[0].kind == "propose"
    return g


def proposer(g: Game) -> int:
    return g.pending()[0].player


def play_random(g: Game, rng: random.Random) -> None:
    agents = [RandomAgent(rng.randrange(1 << 30)) for _ in SPEC.seats]
    while not g.finished:
        d = g.pending()[0]
        g.apply(d.player, agents[d.player].choose(None, d, g.spec))


# -- deals as decisions


def test_a_trade_is_offered_accepted_and_carried_out():
    g = to_window()
    p = proposer(g)
    q = (p + 1) % 3
    me, you = SPEC.seats[p], SPEC.seats[q]
    gold = g.state["p"][p]["gold"]
    g.apply(p, f"offer:gold:{me}>{you}=2;wares:{you}>{me}=1")
    d = g.pending()[0]
    assert (d.player, d.kind) == (q, "yes-no")
    g.apply(q, "yes")
    assert g.state["p"][p]["gold"] == gold - 2
    assert g.state["p"][q]["gold"] == gold + 2
    assert g.state["p"][p]["wares"] == 3
    label = SPEC.seat_labels
    assert f"Agreed: {label[p]} gives {label[q]} 2 Gold; {label[q]} gives {label[p]} 1 Wares" in (
        g.log_for(None)
    )


def test_a_refused_trade_changes_nothing():
    g = to_window()
    p = proposer(g)
    q = (p + 1) % 3
    before = [dict(x) for x in g.state["p"]]
    g.apply(p, f"offer:gold:{SPEC.seats[p]}>{SPEC.seats[q]}=1")
    g.apply(q, "no")
    assert [x["gold"] for x in g.state["p"]] == [x["gold"] for x in before]
    assert f"{SPEC.seat_labels[q]} refuses the offer of {SPEC.seat_labels[p]}" in g.log_for(None)


@pytest.mark.parametrize(
    ("offer", "reason"),
    [
        ("gold:{me}>{you}=9", "can give at most 4 Gold"),
        ("wares:{you}>{other}=1", "may only propose a deal they are a party to"),
        ("gold:{me}>{me}=1", "cannot give something to themselves"),
        ("gold:{me}>{you}=3;gold:{me}>{other}=3", "can give at most 1 Gold"),
        ("silver:{me}>{you}=1", "unknown good 'silver'"),
        ("gold:{me}>{you}", "say how many"),
    ],
)
def test_an_illegal_offer_is_refused_with_its_reason(offer, reason):
    g = to_window()
    p = proposer(g)
    names = {"me": SPEC.seats[p], "you": SPEC.seats[(p + 1) % 3], "other": SPEC.seats[(p + 2) % 3]}
    with pytest.raises(IllegalDecision, match=reason):
        g.apply(p, "offer:" + offer.format(**names))


def test_a_goods_condition_refuses_with_the_designers_words():
    g = to_window()
    p = proposer(g)
    q = (p + 1) % 3
    g.state["p"][q]["wares"] = 6
    g.reask()
    with pytest.raises(IllegalDecision, match="a merchant carries at most 6 wares"):
        g.apply(p, f"offer:wares:{SPEC.seats[p]}>{SPEC.seats[q]}=1")


def test_listed_offers_are_single_items_and_swaps_and_all_legal():
    g = to_window()
    p = proposer(g)
    d = g.pending()[0]
    ids = [o.id for o in d.options]
    assert ids[-1] == "pass"
    assert len(ids) == len(set(ids))
    raw = g.raw[PENDING][0]
    offers = raw[2]
    assert isinstance(offers, Offers)
    assert any(len(offers[i]) == 3 for i in range(len(offers)))  # a swap
    for oid in ids[:-1]:
        assert g.is_legal(p, oid), oid


def test_a_window_closes_when_every_seat_passes_in_succession():
    g = to_window()
    order = []
    for _ in range(3):
        d = g.pending()[0]
        assert d.kind == "propose"
        order.append(d.player)
        g.apply(d.player, "pass")
    assert sorted(order) == [RED, GREEN, BLUE]
    assert g.pending()[0].kind == "choose-town"  # travel: the window is over


def test_a_window_closes_at_its_round_cap():
    g = to_window()
    proposals = 0
    while g.pending()[0].kind in ("propose", "yes-no"):
        d = g.pending()[0]
        if d.kind == "propose":
            proposals += 1
            you = SPEC.seats[(d.player + 1) % 3]
            g.apply(d.player, f"offer:gold:{SPEC.seats[d.player]}>{you}=1")
        else:
            g.apply(d.player, "no")
    assert proposals == 3 * 2  # trade_rounds rounds of three seats, nobody passing


# -- promises


def test_a_promise_binds_until_its_phase_ends():
    g = to_window()
    p = proposer(g)
    q = (p + 1) % 3
    g.apply(p, f"offer:safe_passage:{SPEC.seats[p]}>{SPEC.seats[q]}")
    g.apply(q, "yes")
    players = g.state["p"]
    assert q in players[p]["promised_safe_passage"]
    assert p in players[q]["promised_safe_passage"]  # mutual
    # promised twice is refused: the good's `when`
    d = g.pending()[0]
    if d.kind == "propose" and d.player == p:
        with pytest.raises(IllegalDecision, match="cannot give Safe passage"):
            g.apply(p, f"offer:safe_passage:{SPEC.seats[p]}>{SPEC.seats[q]}")
    while g.pending() and g.pending()[0].kind == "propose":
        g.apply(g.pending()[0].player, "pass")
    while g.pending() and g.pending()[0].kind == "choose-town":
        d = g.pending()[0]
        g.apply(d.player, d.options[0].id)
    assert all(not x["promised_safe_passage"] for x in g.state["p"])  # the travel phase ended


# -- visibility


def test_an_offer_is_seen_by_its_parties_only():
    g = to_window()
    p = proposer(g)
    q, r = (p + 1) % 3, (p + 2) % 3
    g.apply(p, f"offer:gold:{SPEC.seats[p]}>{SPEC.seats[q]}=2")
    text = f"{SPEC.seat_labels[p]} offers: {SPEC.seat_labels[p]} gives {SPEC.seat_labels[q]} 2 Gold"
    assert text in g.log_for(p) and text in g.log_for(q)
    assert text not in g.log_for(r) and text not in g.log_for(None)
    assert f"{SPEC.seat_labels[p]} makes an offer to {SPEC.seat_labels[q]}" in g.log_for(r)
    assert offer_in(g.view_state(q), q) is not None
    for who in (r, None):
        V = view(SPEC, g.raw, who)
        frames = []
        node = V[STACK]
        while node is not None:
            frames.append(node[0])
            node = node[1]
        assert not any(is_deal(x) for F in frames for x in F[2:])


def test_a_hand_is_private_and_the_deck_face_down():
    g = Game.new(SPEC, None, 4)
    v = g.view(RED)
    assert v["p"][GREEN]["hand"] == {"hidden": 1}
    assert isinstance(v["g"]["market"], dict)  # face down: only its size
    assert len(v["p"][RED]["hand"]) == 1


def test_bots_sample_the_unseen_cards_of_a_deck():
    g = Game.new(SPEC, None, 4)
    V = g.view_state(RED)
    mine = set(g.state["p"][RED]["hand"])
    seen: set[tuple[str, ...]] = set()
    for k in range(40):
        S = determinize(SPEC, V, random.Random(k))
        T = Game(SPEC, S)
        hands = [tuple(T.state["p"][i]["hand"]) for i in range(3)]
        market = tuple(T.state["g"]["market"])
        assert set(hands[RED]) == mine
        every = [c for h in hands for c in h] + list(market)
        assert sorted(every) == list(range(len(SPEC.ids["contract"])))  # each card in one place
        seen.add(hands[GREEN])
    assert len(seen) > 2  # Green's card is sampled, not fixed


# -- order, graph, shared victory, bots


def test_the_order_of_play_is_drawn_at_random():
    orders = {tuple(Game.new(SPEC, None, s).state["g"]["order"]) for s in range(30)}
    assert len(orders) > 3


def test_reachable_and_path_cost_follow_the_map():
    g = to_window()
    while g.pending()[0].kind != "choose-town":
        g.apply(g.pending()[0].player, "pass")
    d = g.pending()[0]
    here = SPEC.ids["town"][g.state["p"][d.player]["at"]]
    assert sorted(o.id for o in d.options) == sorted(
        f"town:{t}" for t in SPEC.ids["town"] if t != here
    )


def test_a_toll_costs_gold_unless_safe_passage_was_promised():
    g = to_window(3)
    p = proposer(g)
    q = (p + 1) % 3
    towns = g.state["e"]["town"]
    for t in towns:
        t["toll"] = q
    g.state["p"][p]["at"] = SPEC.ids["town"].index("north")
    g.reask()
    while g.pending()[0].kind != "choose-town":
        g.apply(g.pending()[0].player, "pass")
    while g.pending()[0].player != p:
        d = g.pending()[0]
        g.apply(d.player, d.options[0].id)
    gold = g.state["p"][p]["gold"]
    g.apply(p, "town:market")  # north - east|west - south - market: 2 toll houses passed
    assert g.state["p"][p]["gold"] == gold - 2


def test_several_winners_share_the_victory_and_none_share_defeat():
    results = []
    for seed in range(60):
        g = Game.new(SPEC, None, seed)
        play_random(g, random.Random(seed))
        results.append(g.result)
    assert all(not r["tie"] for r in results)
    assert any(len(r["winners"]) > 1 for r in results)
    assert any(not r["winners"] for r in results)


@pytest.mark.parametrize("kind", ["random", "trader", "mc"])
def test_bots_take_part_in_windows_and_finish(kind):
    make = {
        "random": lambda s: RandomAgent(s),
        "trader": lambda s: TraderAgent(s),
        "mc": lambda s: MonteCarloAgent(s, playouts=2),
    }[kind]
    agents = [make(s) for s in range(3)]
    g = Game.new(SPEC, None, 11)
    while not g.finished:
        d = g.pending()[0]
        a = agents[d.player]
        g.apply(d.player, a.choose(g.view_state(d.player), d, g.spec))
    assert g.result is not None


def test_a_trader_proposes_what_raises_its_value_and_refuses_a_loss():
    g = to_window()
    p = proposer(g)
    q = (p + 1) % 3
    t = TraderAgent(1)
    g.apply(p, f"offer:gold:{SPEC.seats[q]}>{SPEC.seats[p]}=2")  # q asked to give 2 gold
    d = g.pending()[0]
    assert t.choose(g.view_state(q), d, SPEC) == "no"
    g.apply(q, "no")
    d = g.pending()[0]
    if d.kind == "propose":
        picked = t.choose(g.view_state(d.player), d, SPEC)
        assert picked == "pass" or picked.startswith("offer:")


def test_a_save_in_a_window_loads_and_plays_on():
    g = to_window()
    p = proposer(g)
    q = (p + 1) % 3
    g.apply(p, f"offer:gold:{SPEC.seats[p]}>{SPEC.seats[q]}=1")
    h = Game.from_json(g.to_json(), SPEC)
    assert h.pending()[0].player == q
    h.apply(q, "yes")
    g.apply(q, "yes")
    assert h.state["p"][q]["gold"] == g.state["p"][q]["gold"]


# -- errors a designer sees


def test_negotiation_errors_name_the_file_and_say_what_to_do(tmp_path):
    import shutil

    root = tmp_path
    (root / "rules").mkdir()
    shutil.copytree(ROOT / "rules" / "merchants", root / "rules" / "merchants")
    rules = root / "rules" / "merchants" / "rules.yaml"
    text = rules.read_text()
    text = text.replace("promise: {until: travel, mutual: true}", "promise: {until: sailing}")
    text = text.replace("value: worth", "value: free_for")
    rules.write_text(text)
    errors = "\n".join(f"{d.pos}: {d.message} ({d.hint})" for d in compile_errors(root))
    assert "rules/merchants/rules.yaml" in errors
    assert "lasts until phase 'sailing'" in errors and "order, draw, trade, travel" in errors
    assert "is not a function (p: player) -> int" in errors
