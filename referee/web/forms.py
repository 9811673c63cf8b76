"""The phone form's inputs: parsed here, checked by the rules core in the services.

Every form that writes carries ``version`` (the game's version the page showed:
a stale one is refused as ``version_mismatch``, nothing applied) and ``key``
(a fresh UUID rendered with the form: a retried or doubled tap re-sends it and
the services answer it once, ``Idempotency``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from referee import conditional
from referee.league import LeagueChoice
from referee.services import verification
from referee.web.pieces import TILE_NAMES

SEAT_CHOICES = [(str(seat), str(seat)) for seat in range(5)]
TILE_CHOICES = [(name, name) for name in TILE_NAMES]


class JoinCodeForm(forms.Form):
    code = forms.CharField(
        label=_("Join code"),
        max_length=32,
        widget=forms.TextInput(
            attrs={
                "autocomplete": "off",
                "autocapitalize": "characters",
                "spellcheck": "false",
                "autofocus": True,
                "placeholder": "K7QH-2MXP-9R",
            }
        ),
    )


class SeatForm(forms.Form):
    """A seat 0–4, or empty for the scorekeeper of the whole table."""

    seat = forms.TypedChoiceField(
        choices=[("", "scorekeeper"), *SEAT_CHOICES],
        coerce=int,
        empty_value=None,
        required=False,
    )


class VersionField(forms.Field):
    """The game's version the page showed: plain ASCII digits, as ``referee.conditional``
    reads a version (``"٣"``, ``"+3"``, ``"03"`` or 5,000 digits are invalid, never a 500)."""

    widget = forms.HiddenInput
    default_error_messages = {"invalid": _("The page's version is not a version number.")}

    def to_python(self, value: Any) -> int | None:
        if value in self.empty_values:
            return None
        try:
            return conditional.parse_version(str(value))
        except ValueError:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from None


class WriteForm(forms.Form):
    """A tap's form: the version its page showed (``precondition``) and its own key, sent
    again with a retry (``idempotency``, ``referee.web.taps``)."""

    version = VersionField()
    key = forms.UUIDField(widget=forms.HiddenInput)


class MoveForm(WriteForm):
    """A play ``{seat, tile, on?}`` or, with ``pass``, a pass ``{seat, pass: true}``."""

    seat = forms.TypedChoiceField(choices=SEAT_CHOICES, coerce=int)
    tile = forms.ChoiceField(choices=TILE_CHOICES, required=False)
    on = forms.IntegerField(min_value=0, max_value=6, required=False)
    is_pass = forms.BooleanField(required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("is_pass") and not data.get("tile"):
            raise forms.ValidationError(_("Tap a tile or PASS."), code="move_missing")
        return data

    def payload(self) -> dict[str, Any]:
        """The move in record form (R30: a pass carries no tile)."""
        data = self.cleaned_data
        if data.get("is_pass"):
            return {"seat": data["seat"], "pass": True}
        payload: dict[str, Any] = {"seat": data["seat"], "tile": data["tile"]}
        if data.get("on") is not None:
            payload["on"] = data["on"]
        return payload


class RevealForm(WriteForm):
    """A blocked round's remaining tiles of one seat, or its pip sum (R18)."""

    seat = forms.TypedChoiceField(choices=SEAT_CHOICES, coerce=int)
    tiles = forms.MultipleChoiceField(choices=TILE_CHOICES, required=False)
    pips = forms.IntegerField(label=_("or the pip sum"), min_value=0, required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if bool(data.get("tiles")) == (data.get("pips") is not None):
            raise forms.ValidationError(
                _("Pick the remaining tiles or type their pip sum (one of the two)."),
                code="reveal_missing",
            )
        return data

    def payload(self) -> dict[str, Any]:
        data = self.cleaned_data
        if data.get("pips") is not None:
            return {"seat": data["seat"], "pips": data["pips"]}
        return {"seat": data["seat"], "tiles": list(data["tiles"])}


class UndoForm(WriteForm):
    pass


class NoticeForm(WriteForm):
    """ "Dismiss" under the notices of the organiser's corrections: the newest one shown."""

    seen = forms.IntegerField(min_value=1, max_value=2**31 - 1, widget=forms.HiddenInput)


class HandForm(WriteForm):
    """Five distinct tiles of this phone's seat (R31); ``position`` amends the declared one."""

    tiles = forms.MultipleChoiceField(choices=TILE_CHOICES)
    position = forms.IntegerField(min_value=0, required=False, widget=forms.HiddenInput)

    def clean_tiles(self) -> list[str]:
        tiles = list(self.cleaned_data["tiles"])
        if len(set(tiles)) != 5:
            raise forms.ValidationError(
                gettext("Tick exactly five tiles: your hand for this round (R31)."),
                code="hand_not_five",
            )
        return tiles


class VerifyForm(WriteForm):
    """Confirm or dispute (with a reason, ≤ 200 characters) settled round ``round``."""

    round = forms.IntegerField(min_value=1)
    # Not "action": an input of that name would hide the form's own ``action`` from scripts.
    verdict = forms.ChoiceField(choices=[("confirm", "confirm"), ("dispute", "dispute")])
    reason = forms.CharField(
        required=False, max_length=verification.VERIFICATION_REASON_MAX, strip=True
    )


class GameCreateForm(forms.Form):
    """Five players, seat 0 to seat 4 clockwise (R3), and, for an organiser of a club,
    ``league``: the club (or club season) the game counts for, one of ``leagues``
    (``referee.league.LeagueChoice``); empty: no club. A club the user does not organise
    is refused (``invalid_choice``). With club players, each seat also offers them
    (``seat_N_player``): only the players of the club the form is for (``league`` posted,
    else ``for_league``, the page's ``?league=``, else the user's only club); a seat takes
    the player chosen or the name typed, never both."""

    seat_0 = forms.CharField(label=_("Seat 0"), max_length=80)
    seat_1 = forms.CharField(label=_("Seat 1"), max_length=80)
    seat_2 = forms.CharField(label=_("Seat 2"), max_length=80)
    seat_3 = forms.CharField(label=_("Seat 3"), max_length=80)
    seat_4 = forms.CharField(label=_("Seat 4"), max_length=80)

    def __init__(
        self,
        *args: Any,
        leagues: Sequence[LeagueChoice] = (),
        for_league: str = "",
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.leagues = {choice.key: choice for choice in leagues}
        clubs = [choice for choice in leagues if choice.season is None]
        # The clubs whose own form the page links to (``?league=``) when it is for none yet.
        self.club_links: list[LeagueChoice] = []
        if leagues:
            initial = for_league if for_league in self.leagues else ""
            if not initial and len(clubs) == 1:
                initial = clubs[0].key
            # The club the form is for: the one posted, else the one the page was opened
            # for. Its players alone are offered and accepted: a seat never takes another
            # club's player, nor a club's player in a friendly game.
            key = str(self.data.get(self.add_prefix("league")) or "") if self.is_bound else initial
            club_key = key.split("/", 1)[0]
            club = next((c for c in clubs if c.key == club_key), None)
            if club is not None and club.players:
                offered: list[Any] = [(str(club.label), [(str(pk), n) for pk, n in club.players])]
            else:
                offered = []
            if offered or self.is_bound:
                self._add_seat_pickers(offered)
            if not self.is_bound and club is None and len(clubs) > 1:
                self.club_links = clubs
            self.fields["league"] = forms.ChoiceField(
                label=_("Counts for"),
                choices=[("", _("No club: a friendly game")), *((c.key, c.label) for c in leagues)],
                required=False,
                initial=initial,
                help_text=_("The club's room view and standings show its games."),
                error_messages={
                    "invalid_choice": _(
                        "You do not organise this club, or its season is archived: choose "
                        "one from the list."
                    )
                },
            )
            # A club player who sits in another open game is refused unless the organiser
            # ticks this after being told who and where (R38): people do move tables.
            self.fields["seat_anyway"] = forms.BooleanField(
                label=_("Seat anyway a player who sits in another open game"),
                required=False,
            )

    def _add_seat_pickers(self, offered: list[Any]) -> None:
        """Each seat: one of ``offered`` (a club's players, by club) chosen, or a name typed."""
        fields: dict[str, forms.Field] = {}
        for seat in range(5):
            fields[f"seat_{seat}_player"] = forms.ChoiceField(
                label=gettext("Seat %(seat)s: a player of the club") % {"seat": seat},
                choices=[("", gettext("— a name typed below —")), *offered],
                required=False,
                error_messages={
                    "invalid_choice": _(
                        "Choose one of the players of the club the game counts for."
                    )
                },
            )
            fields[f"seat_{seat}"] = self.fields.pop(f"seat_{seat}")
            fields[f"seat_{seat}"].required = False
        self.fields = {**fields, **self.fields}

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for seat in range(5):
            if f"seat_{seat}_player" in self.errors:
                continue  # a bad choice is said once, on its field
            if data.get(f"seat_{seat}_player") and (data.get(f"seat_{seat}") or "").strip():
                self.add_error(  # which of the two was meant is not ours to guess
                    f"seat_{seat}",
                    forms.ValidationError(
                        gettext("Choose a player or type a name, not both."),
                        code="player_and_name",
                    ),
                )
                continue
            if f"seat_{seat}_player" in self.fields and not (
                data.get(f"seat_{seat}_player") or data.get(f"seat_{seat}")
            ):
                self.add_error(
                    f"seat_{seat}", gettext("Choose a player of the club or type a name.")
                )
        return data

    def players(self) -> list[str | int]:
        """Each seat's player: a club player's id where one is chosen, else the name typed."""
        chosen = [self.cleaned_data.get(f"seat_{seat}_player") for seat in range(5)]
        return [
            int(pk) if pk else self.cleaned_data[f"seat_{seat}"] for seat, pk in enumerate(chosen)
        ]

    def league(self) -> LeagueChoice | None:
        """The club (and season) chosen, or ``None``: no club."""
        return self.leagues.get(self.cleaned_data.get("league") or "")
