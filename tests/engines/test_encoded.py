"""engines/encoded.py: a repeated field's elements read at once, by the field's name, are
the shared instances reading each element gives; a field EncodedFields cannot hold is
refused by name."""

from __future__ import annotations

import random

import pytest
from ludotheque.pirates.v1 import pirates_pb2 as pb

from engines.encoded import encodings
from engines.pirates.cards import CARDS, DECK
from engines.pirates.rules import deal_round


def test_a_fields_elements_read_at_once_are_the_instances_of_each_element() -> None:
    dealt = deal_round(DECK, 3, 1, 0, False, random.Random(7)).round_dealt
    assert list(encodings(dealt, "draw_pile")) == [card.SerializeToString() for card in dealt.draw_pile]
    pile = CARDS.of_field(dealt, "draw_pile")
    assert pile == tuple(CARDS.of(card) for card in dealt.draw_pile)
    assert all(a is b for a, b in zip(pile, (CARDS.of(card) for card in dealt.draw_pile), strict=True))
    for hand in dealt.hands:
        assert CARDS.of_field(hand, "cards") == tuple(CARDS.of(card) for card in hand.cards)
    assert CARDS.of_field(pb.RoundDealt(), "draw_pile") == ()


def test_a_field_is_named_as_its_message_names_it() -> None:
    with pytest.raises(KeyError):
        encodings(pb.RoundDealt(), "no_such_field")


def test_a_field_beyond_those_encoded_fields_holds_is_refused() -> None:
    with pytest.raises(ValueError, match="field 100"):
        encodings(pb.Event(game_stopped=pb.GameStopped(event_limit=3)), "game_stopped")
