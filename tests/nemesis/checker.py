"""The nemesis's checker: what the clients were told (every acknowledgement they
logged) against what the store holds once the cluster has healed.

A client logs each acknowledged move with the events its answer named: version v holds
an event of command c. Then, per game, the final history must say:

- v holds c's event, or a placeholder of a recorded loss (an event with `history_loss`,
  within a loss the game records as not reused): the loss was recorded and the lost
  number never given to another move;
- never another move's event under v (a *fork*: an acknowledged version reused), nor a
  loss recorded as `reused` (the server found such a fork), nor two clients told of two
  different commands at the same version;
- never missing (v past the history's end: a loss nobody recorded);
- with WAIT, nothing of that is allowed but v holding c's own event: no acknowledged move lost;
- each command's events once (no command applied twice), in one line of versions 1, 2, 3...

A game whose creation was acknowledged and that the store no longer has is a lost game:
allowed without WAIT (its players were told DATA_LOSS or NOT_FOUND), not with it."""

from __future__ import annotations

import collections
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ludotheque.v1 import game_pb2


@dataclass(frozen=True, slots=True)
class Ack:
    """A move's acknowledgement as a client logged it: `events` are (version, command id)."""

    game_id: str
    command_id: str
    events: tuple[tuple[int, str], ...]
    replayed: bool = False


@dataclass
class Report:
    games: int = 0
    moves: int = 0  # commands acknowledged
    acknowledged_versions: int = 0
    losses: int = 0  # losses recorded in the games' histories
    lost_versions: int = 0  # acknowledged versions that now hold a placeholder of a recorded loss
    lost_games: list[str] = field(default_factory=list)
    forks: list[str] = field(default_factory=list)
    unrecorded: list[str] = field(default_factory=list)
    lost_moves: list[str] = field(default_factory=list)  # with WAIT: any acknowledged version not its own
    duplicates: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)  # histories that are not one line of versions

    def violations(self, waits: bool) -> list[str]:
        found = [*self.forks, *self.unrecorded, *self.duplicates, *self.broken]
        if waits:
            found += self.lost_moves + [
                f"game {game_id}: its creation was acknowledged, then lost" for game_id in self.lost_games
            ]
        return found


def check(
    created: Iterable[str],
    acks: Sequence[Ack],
    histories: Mapping[str, Sequence[game_pb2.Event] | None],
) -> Report:
    """The report of one run: `created`, the games whose creation was acknowledged;
    `histories`, each one's final events (None: the store no longer has it)."""
    report = Report()
    by_game: dict[str, list[Ack]] = collections.defaultdict(list)
    for ack in acks:
        by_game[ack.game_id].append(ack)
    for game_id in sorted(set(created) | set(by_game)):
        report.games += 1
        history = histories.get(game_id)
        if history is None:
            report.lost_games.append(game_id)
            continue
        _check_game(report, game_id, by_game[game_id], list(history))
    return report


def _check_game(report: Report, game_id: str, acks: list[Ack], history: list[game_pb2.Event]) -> None:
    if [event.version for event in history] != list(range(1, len(history) + 1)):
        report.broken.append(f"game {game_id}: its versions are not 1, 2, 3...")
        return
    applied = collections.Counter(event.command_id for event in history if event.HasField("command"))
    report.duplicates += [f"game {game_id}: command {c} applied {n} times" for c, n in applied.items() if n > 1]
    losses = [
        event.history_loss
        for event in history
        if event.HasField("history_loss") and event.version > event.history_loss.last
    ]
    report.losses += len(losses)
    report.forks += [
        f"game {game_id}: versions {loss.first}-{loss.last} lost and reused (recorded)"
        for loss in losses
        if loss.reused
    ]
    told: dict[int, str] = {}
    for ack in acks:
        report.moves += 0 if ack.replayed else 1
        for version, command_id in ack.events:
            if told.setdefault(version, command_id) != command_id:
                report.forks.append(
                    f"game {game_id}: version {version} acknowledged for {told[version]} and {command_id}"
                )
    report.acknowledged_versions += len(told)
    for version, command_id in sorted(told.items()):
        where = f"game {game_id}: version {version} (command {command_id})"
        if version > len(history):
            report.unrecorded.append(f"{where} is gone and no loss records it")
            report.lost_moves.append(f"{where} was lost")
            continue
        event = history[version - 1]
        if event.HasField("history_loss") and not event.history_loss.reused and not event.HasField("command"):
            report.lost_versions += 1
            report.lost_moves.append(f"{where} was lost (recorded)")
        elif event.command_id != command_id:
            report.forks.append(f"{where} now holds command {event.command_id}")
