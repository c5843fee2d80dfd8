"""Why a hinted move of the picnic is good, in a child's words (engines/hinting.py):
read from the move's own words for the seat (engines/picnic/describe.py, from its view:
the board, the backs in the lid, the tile in hand), which say what it leads to — a
friend invited, the picnic reached, shelter from the rain."""

from __future__ import annotations

from ludotheque.picnic.v1 import picnic_pb2 as pb

from engines.phrases import Phrase, phrase
from engines.picnic.describe import describe_commands
from engines.picnic.state import PicnicState

# The reason of each move's words (picnic.command.* -> picnic.hint.*), with the same
# arguments: a hint says the move, then why it helps the team.
REASONS = {
    "picnic.command.draw": "picnic.hint.draw",
    "picnic.command.draw_envelope": "picnic.hint.draw_envelope",
    "picnic.command.move_facteur": "picnic.hint.move_facteur",
    "picnic.command.move_facteur_invites": "picnic.hint.move_facteur_invites",
    "picnic.command.move_facteur_picnic": "picnic.hint.move_facteur_picnic",
    "picnic.command.keep_tile": "picnic.hint.keep_tile",
    "picnic.command.discard_tile": "picnic.hint.discard_tile",
    "picnic.command.move_friend": "picnic.hint.move_friend",
    "picnic.command.move_friend_invited": "picnic.hint.move_friend_invited",
    "picnic.command.place_tent": "picnic.hint.place_tent",
    "picnic.command.take_shelter_tent": "picnic.hint.take_shelter_tent",
    "picnic.command.take_shelter_house": "picnic.hint.take_shelter_house",
    "picnic.command.move_dragon": "picnic.hint.move_dragon",
}


def explain(state: PicnicState, view: pb.View, seat: int, command: pb.Command) -> Phrase:
    """Why `command` is good for the team now ("Walk Facteur Souris to C4: Rabbit is invited!")."""
    said = describe_commands([command], view)[0].phrase
    reason = REASONS.get(said.key)
    return Phrase(reason, said.args) if reason else phrase("hint.generic", move=said)
