"""What the referee announces about stored games; the league (``scoring``) listens.

The referee never calls the league: it sends these Django signals *inside* the
transaction of the write that caused them, with the game's own values, and
whoever listens writes in that same transaction. An exception raised by a
receiver (``Signal.send`` does not catch it) refuses the whole write, so the
league's rows always follow the referee's atomically. ``scoring.apps``
connects the league's receivers in ``ready()``.

Signals and their keyword arguments (``sender`` is always ``referee.models.Game``):

``round_settled``
    An accepted event settled a round (R18–R25): ``game`` (the locked row,
    already saved at its new version), ``engine`` (the fold that applied the
    event: its last round is the settled one, with its named outcomes, passes
    and PASSEBUNGEs, transfers and CAMAT), ``snapshot`` (``Game.state["snapshot"]``
    the fold resumed from: the standing at the start of its first round) and
    ``played_at`` (the event's time, a datetime).

``game_created``
    A game was created (``game_create``, and so every import): ``game`` (saved,
    its five seats too), ``club_id`` and ``season_id`` (the league it counts
    for as ``League.seating`` resolved it, or ``None``) and ``players`` (seat
    0–4 → the registered player id, or ``None`` for a guest) with ``seats`` (the
    five saved ``Seat`` rows, seat 0–4). The league keeps them: the referee
    stores none of them.

``seat_reseated``
    Who sits a seat from the game's start changed (a re-seating, R38): ``game``
    (saved), ``seat`` (the ``Seat`` row, saved) and ``player`` (the registered
    player id, or ``None`` for a guest's name). Sent before that write's
    ``rounds_changed``.

``rounds_changed``
    Any settled round of the game may have changed or appeared: a game
    imported, a correction of any round (amend, insert, remove, batch,
    a void R35, an adjustment R36, a substitute R38, a replaced record R37) or
    its seats re-named (R38). ``game`` (saved), ``engine`` (the fold of every
    live event from the game's start, or ``None`` if the sender has none; or,
    with ``snapshot`` — ``{"round": k, "rounds_played": k - 1, "standing"}`` —
    the fold from round k on, resumed there: a correction of round k, whose
    earlier rounds did not change, issue 29) and
    ``played_at`` (an import's date for its rounds, or ``None``: each round
    keeps the time it was settled at the table), and ``settled_at`` if the
    sender knows it with ``engine`` (round number → the time of the event that
    settled it; else the receiver folds the live events to find it).
"""

from __future__ import annotations

from django.dispatch import Signal

game_created = Signal()
seat_reseated = Signal()
round_settled = Signal()
rounds_changed = Signal()
