"""The words a family reads, through the real GameApp: a whole game of each kind read in
each language — every event as the admin, each seat and a spectator read it, every
seat's legal moves and their choices at every version, the outcome, the kind's own
words — has no raw key or placeholder, no enum name, no English word in French text
(outside the players' names), no French name in English text, and no seat counted from
0; a seat without a name is "Player 1" / « Joueur 1 ». And the rulebooks' names and
natural French on the points families found wrong."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from google.protobuf.message import Message
from ludotheque.text.v1.description_pb2 import Description
from ludotheque.v1 import game_pb2
from ludotheque.v1 import game_service_pb2 as api

from engines.describers import DESCRIBERS
from engines.registry import ENGINES
from service.app import GameApp
from service.app.model import envelopes
from service.app.views.descriptions import Audience
from service.app.words.catalogs import catalogs
from tests.support.aio import async_test
from tests.support.apps import ADMIN, new_app

NAMES = ("Cléo", "Robin", "Lou", "Sam")
# Words that are English and not French: none may be in a French text.
_ENGLISH_WORDS = """
    the and with from draws draw walks walk wins win seat seats player players bot bots greedy random card
    cards tile tiles turn rain night tent friend friends stars star round rounds pile left right you your his
    her their they is are of to for back lid keeps keep kept discards discard shown showing hidden underneath
    spider spiders legendary trophy trophies sun moon leaf seashell fossil rabbit squirrel frog hedgehog mole
    bear sailboat bottle parrot sleeping square circle flower lays play plays starts everybody nobody loses
    game goes runs sky over showers
"""
ENGLISH = frozenset(_ENGLISH_WORDS.split())
# The friends' French names: none may be in an English text.
FRENCH = {"Lapin", "Écureuil", "Grenouille", "Hérisson", "Taupe", "Ours", "Joueur", "Robot"}
RAW = re.compile(r"[{}]|\b[a-z]+(?:\.[a-z_]+){2,}|\b[A-Z]{3,}_[A-Z_]+\b")
FROM_ZERO = re.compile(r"\b(?:Player|Joueur|seat|place) 0\b")


def check(text: str, locale: str, names: tuple[str, ...] = NAMES) -> None:
    assert text, "a text is missing"
    assert not RAW.search(text), f"a raw key or placeholder in {text!r}"
    assert not FROM_ZERO.search(text), f"a seat counted from 0 in {text!r}"
    words = text
    for name in names:
        words = words.replace(name, " ")
    found = set(re.findall(r"[A-Za-zÀ-ÿ]+", words))
    if locale == "fr":
        english = {word for word in found if word.lower() in ENGLISH}
        assert not english, f"English words {english} in French text {text!r}"
    else:
        assert not found & FRENCH, f"French names {found & FRENCH} in English text {text!r}"


def descriptions(message: Message) -> Iterator[Description]:
    """Every Description in `message`, however deep."""
    for field, value in message.ListFields():
        if field.message_type is None or field.message_type.GetOptions().map_entry:
            continue
        for item in value if field.is_repeated else (value,):
            if field.message_type is Description.DESCRIPTOR:
                yield item
            else:
                yield from descriptions(item)


async def whole_game(kind: str) -> tuple[GameApp, str, list[str]]:
    """A whole game of bots (it plays itself out when created), its players named."""
    app = new_app(seed=3)
    seats = [game_pb2.SeatSpec(name=NAMES[i], bot="greedy", age=6 + i) for i in range(max(ENGINES[kind].min_seats, 2))]
    created = await app.games.create_game(api.CreateGameRequest(kind=kind, seats=seats), "")
    assert created.game.status == game_pb2.GAME_STATUS_FINISHED
    return app, created.game_id, list(created.seat_tokens)


@pytest.mark.parametrize("kind", sorted(ENGINES))
@async_test
async def test_a_whole_game_reads_in_each_language(kind: str) -> None:
    app, game_id, tokens = await whole_game(kind)
    version = (await app.live.load(game_id)).version
    for locale in ("en", "fr"):
        for token in [ADMIN, "", *tokens]:
            events = (
                await app.history.list_events(api.ListEventsRequest(game_id=game_id, locale=locale), token)
            ).events
            assert len(events) == version
            for event in events:
                check(event.description.text, locale)
        for token in tokens:
            for at in range(1, version + 1):
                replay = await app.history.replay(
                    api.ReplayGameRequest(game_id=game_id, at_version=at, locale=locale), token
                )
                for said in descriptions(replay):
                    check(said.text, locale)
        game = await app.games.get_game(api.GetGameRequest(game_id=game_id, locale=locale), "")
        check(game.outcome.description.text, locale)
        assert game.outcome.description.key.startswith(f"{kind}.event.")
        told = await app.kinds.get_game_kind(api.GetGameKindRequest(kind=kind, locale=locale), "")
        for said in descriptions(told):
            check(said.text, locale, names=())


@pytest.mark.parametrize("kind", sorted(ENGINES))
@async_test
async def test_seats_without_names_are_counted_from_one(kind: str) -> None:
    app, game_id, _ = await whole_game(kind)
    events = (await app.history.list_events(api.ListEventsRequest(game_id=game_id), ADMIN)).events
    for locale, unnamed in (("en", "Player"), ("fr", "Joueur")):
        audience = Audience.of([game_pb2.Seat(index=i) for i in range(4)], locale)
        texts = [
            audience.words.text(DESCRIBERS[kind].describe_event(envelopes.event_payload(e)), audience.names)
            for e in events
        ]
        for text in texts:
            check(text, locale, names=())
        seats = {int(n) for text in texts for n in re.findall(rf"{unnamed} (\d+)", text)}
        assert seats and min(seats) == 1, seats


# --- what families found wrong ----------------------------------------------------------


def french(key: str, count: int = 1) -> str:
    return catalogs().words("fr").template(key, count)


def test_the_rulebook_names_the_sleeping_pirate_pirate_assoupi() -> None:
    assert french("pirates.card_kind.sleeping_pirate") == "Pirate assoupi"
    texts = catalogs().words("fr").catalog.messages.values()
    assert not any("endormi" in (t if isinstance(t, str) else " ".join(t)) for t in texts)


def test_french_speaks_to_a_child_with_tu() -> None:
    for key, text in catalogs().words("fr").catalog.messages.items():
        for form in (text,) if isinstance(text, str) else text:
            assert not re.search(r"\b(?:vous|votre|vos)\b", form, re.IGNORECASE), (key, form)


@async_test
async def test_the_youngest_is_said_only_when_ages_say_it_and_without_a_gender() -> None:
    app = new_app(seed=3)
    aged = [game_pb2.SeatSpec(name="Cléo", age=6), game_pb2.SeatSpec(name="Robin", age=38)]
    unaged = [game_pb2.SeatSpec(name="Cléo"), game_pb2.SeatSpec(name="Robin")]
    said: list[bool | str] = []
    for seats in (aged, unaged):
        created = await app.games.create_game(api.CreateGameRequest(kind="mooki", seats=seats, locale="fr"), "")
        said.append(created.game.options.mooki.HasField("youngest_seat"))
        first = (await app.history.list_events(api.ListEventsRequest(game_id=created.game_id, locale="fr"), "")).events[
            0
        ]
        said.append(first.description.text)
    assert said == [
        True,
        "Les cartes sont mélangées en deux pioches. Cléo commence : c’est la personne la plus jeune.",
        False,
        "Les cartes sont mélangées en deux pioches. Cléo commence.",
    ]


def test_a_list_of_cards_drawn_reads_as_cards_not_counts() -> None:
    from ludotheque.pirates.v1 import pirates_pb2 as pirates

    drawn = pirates.Event(
        cards_drawn=pirates.CardsDrawn(
            seat=0,
            count=2,
            cards=[
                pirates.Card(kind=pirates.CARD_KIND_PIRATE, colour=pirates.COLOUR_SQUARE, value=2),
                pirates.Card(kind=pirates.CARD_KIND_PIRATE, colour=pirates.COLOUR_FLOWER, value=3),
            ],
        )
    )
    phrase = DESCRIBERS["pirates"].describe_event(drawn)
    assert catalogs().words("fr").text(phrase, ["Cléo"]) == "Cléo pioche 2 cartes : Carré 2 et Fleur 3."
    assert catalogs().words("en").text(phrase, ["Cléo"]) == "Cléo draws 2 cards: Square 2 and Flower 3."


def test_a_walk_says_who_walked_and_with_which_tile() -> None:
    from ludotheque.picnic.v1 import picnic_pb2 as picnic

    kept = picnic.Tile(kind=picnic.TILE_KIND_FACTEUR, value=1, back=picnic.TILE_BACK_PLAIN)
    walk = picnic.Event(
        facteur_moved=picnic.FacteurMoved(seat=1, source=picnic.TILE_SOURCE_KEPT, tile=kept, start=27, route=[28])
    )
    keep = picnic.Event(tile_kept=picnic.TileKept(seat=0, tile=kept))
    words = catalogs().words("fr")
    describe = DESCRIBERS["picnic"].describe_event
    assert (
        words.text(describe(walk), ["Cléo", "Robin"])
        == "Robin fait marcher Facteur Souris A4 > B4 avec sa tuile Facteur Souris 1 gardée."
    )
    assert words.text(describe(keep), ["Cléo", "Robin"]) == "Cléo garde la tuile Facteur Souris 1 pour plus tard."
    assert catalogs().words("en").text(describe(keep), ["Cléo"]) == "Cléo keeps the Facteur Souris 1 tile for later."


@async_test
async def test_bots_seated_by_the_host_are_named_in_the_hosts_language() -> None:
    app = new_app(seed=3)
    request = api.CreateGameRequest(
        kind="pirates",
        seats=[game_pb2.SeatSpec(name="Cléo"), game_pb2.SeatSpec(open=True), game_pb2.SeatSpec(open=True)],
    )
    created = await app.games.create_game(request, "")
    started = await app.seating.start_game(
        api.StartGameRequest(game_id=created.game_id, locale="fr"), created.host_token
    )
    assert [seat.name for seat in started.game.seats] == ["Cléo", "Robot malin 1", "Robot malin 2"]


@async_test
async def test_outcomes_are_told_in_the_readers_language_and_listed_so() -> None:
    app, game_id, tokens = await whole_game("mooki")
    fr = await app.games.get_game(api.GetGameRequest(game_id=game_id, locale="fr"), tokens[0])
    en = await app.games.get_game(api.GetGameRequest(game_id=game_id, locale="en"), tokens[0])
    assert fr.outcome.description.key == en.outcome.description.key
    assert fr.outcome.description.text != en.outcome.description.text and " gagne " in fr.outcome.description.text
    assert fr.outcome.summary == en.outcome.summary  # the English sentence, kept for programs
    replay = await app.history.replay(api.ReplayGameRequest(game_id=game_id, locale="fr"), "")
    assert replay.outcome.description == fr.outcome.description
    listed = await app.games.list_games(api.ListGamesRequest(locale="fr"), ADMIN)
    assert listed.games[0].outcome.description == fr.outcome.description


def test_a_friend_tile_is_named_by_its_steps_and_a_lids_place_by_the_lid() -> None:
    # "Friend 2" / « Ami 2 » read as a second friend, "place 19" as nowhere on the board.
    from ludotheque.picnic.v1 import picnic_pb2 as picnic

    friend_tile = picnic.Tile(kind=picnic.TILE_KIND_FRIEND, value=2, back=picnic.TILE_BACK_PLAIN)
    walk = picnic.Event(friend_moved=picnic.FriendMoved(seat=0, friend=0, tile=friend_tile, start=27, route=[28, 29]))
    rain = picnic.Event(rain_fell=picnic.RainFell(place=18, shelter=picnic.SHELTER_HOUSE, cell=27))
    describe = DESCRIBERS["picnic"].describe_event
    en, fr = catalogs().words("en"), catalogs().words("fr")
    assert en.text(describe(walk), ["Cléo"]) == "Cléo walks Rabbit A4 > B4 > C4 with the 2-step Friend tile."
    assert fr.text(describe(walk), ["Cléo"]) == "Cléo fait marcher Lapin A4 > B4 > C4 avec la tuile Ami à 2 pas."
    assert en.text(describe(rain), ["Cléo"]).endswith("goes back face down into the lid, at number 19.")
    assert fr.text(describe(rain), ["Cléo"]).endswith("retourne face cachée dans le couvercle, au numéro 19.")
    view = picnic.View(lid=[picnic.LidPlace(back=picnic.TILE_BACK_PLAIN)] * 20)
    (draw,) = DESCRIBERS["picnic"].describe_commands([picnic.Command(draw=picnic.Draw(place=18))], view)
    assert fr.text(draw.phrase, []) == "Prendre une tuile du couvercle : numéro 19 (dos ordinaire)"
