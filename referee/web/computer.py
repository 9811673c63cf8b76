"""The organiser's page for computer seats (R39): make a seat the computer's, enter its hand.

Plain form posts back to the organiser's game page (``organiser_game``); each
calls one service of ``referee.services.computer`` and says what happened with
Django's messages.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from referee.engine import RefereeError
from referee.engine.strategies import STRATEGIES
from referee.exceptions import ServiceError
from referee.models import Game
from referee.services import Actor, computer


@login_required
@require_POST
def organiser_computer(request: HttpRequest, game_id: Any) -> HttpResponse:
    """POST ``seat`` with ``strategy`` (empty: a person) or with ``tiles`` (its hand, R31)."""
    game = get_object_or_404(Game, pk=game_id)
    user = request.user
    if not (user.is_staff or game.created_by_id == user.pk):
        raise Http404
    actor = Actor(user=user)
    seat_text = request.POST.get("seat", "")
    seat = int(seat_text) if seat_text in {"0", "1", "2", "3", "4"} else None
    strategy = request.POST.get("strategy") or None
    try:
        if seat is None or (strategy is not None and strategy not in STRATEGIES):
            messages.error(request, gettext("Choose a seat 0 to 4 and a strategy."))
        elif "tiles" in request.POST:
            tiles = request.POST["tiles"].replace(",", " ").split()
            computer.computer_hand_declare(game_id=game.pk, seat=seat, tiles=tiles, actor=actor)
            messages.success(request, gettext("The computer's hand is entered."))
        else:
            computer.seat_strategy_set(game_id=game.pk, seat=seat, strategy=strategy, actor=actor)
            messages.success(request, gettext("Seat %(seat)s is set.") % {"seat": seat})
    except RefereeError as error:
        message = gettext(error.template)
        messages.error(request, message % error.params if error.params else message)
    except ServiceError as error:
        messages.error(request, error.detail)
    return redirect("web:organiser-game", game_id=game.pk)
