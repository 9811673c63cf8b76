"""The organiser's forms: corrections (R37), rulings (R35, R36, R38), sittings, closing.

Every form that writes carries ``version`` (the game's version the page showed: a
stale one is refused, nothing applied) and ``key`` (a fresh UUID rendered with the
form: a doubled submission is answered once, ``Idempotency``). Reasons are required:
a ruling always carries one (R35, R36) and the audit trail shows it (R37).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from referee.engine.names import reorders_text
from referee.web.forms import SEAT_CHOICES, TILE_CHOICES, VersionField

# A Correction's reason is stored in at most this many characters (``Correction.reason``).
REASON_MAX_LENGTH = 200

WHAT_CHOICES = [
    ("play", pgettext_lazy("correction", "a play")),
    ("pass", pgettext_lazy("correction", "a pass")),
    ("tiles", pgettext_lazy("correction", "a reveal: its tiles")),
    ("pips", pgettext_lazy("correction", "a reveal: its pip sum")),
]
END_CHOICES = [("", pgettext_lazy("end", "no end named")), *((str(v), str(v)) for v in range(7))]
HOLDER_CHOICES = [("table", pgettext_lazy("stones", "the table")), *SEAT_CHOICES]


def _shown_text(value: str) -> None:
    """A reason is shown on every phone: no direction-changing character (as the API's
    ``ReasonField``)."""
    if reorders_text(value):
        raise forms.ValidationError(
            _("A text may not hold characters that change its direction."), code="text_invalid"
        )


def _reason_field() -> forms.CharField:
    return forms.CharField(
        label=_("Reason"),
        max_length=REASON_MAX_LENGTH,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
        validators=[_shown_text],
    )


class OrganiserForm(forms.Form):
    """The version the page showed and the submission's key (hidden)."""

    version = VersionField()
    key = forms.UUIDField(widget=forms.HiddenInput)


class CorrectionForm(OrganiserForm):
    """Amend, insert before or remove one event (R37), with a reason.

    ``op``: ``amend`` the event at ``position``, ``insert`` a new event before it
    (or, without ``position``, at the end of the round), ``remove`` it. The event
    is a play ``{seat, tile, on?}``, a pass ``{seat, pass}``, or a reveal's tiles
    or pip sum ``{seat, tiles|pips}`` (R18).
    """

    op = forms.ChoiceField(  # the submit button pressed
        choices=[("amend", "amend"), ("insert", "insert"), ("remove", "remove")]
    )
    position = forms.IntegerField(min_value=0, required=False, widget=forms.HiddenInput)
    what = forms.ChoiceField(label=_("Event"), choices=WHAT_CHOICES, required=False)
    seat = forms.TypedChoiceField(label=_("Seat"), choices=SEAT_CHOICES, coerce=int, required=False)
    tile = forms.ChoiceField(label=_("Tile"), choices=[("", "—"), *TILE_CHOICES], required=False)
    on = forms.TypedChoiceField(
        label=_("On the end"), choices=END_CHOICES, coerce=int, empty_value=None, required=False
    )
    tiles = forms.CharField(
        label=_("Tiles revealed"),
        max_length=60,
        required=False,
        widget=forms.TextInput(attrs={"autocomplete": "off", "placeholder": "1-2 3-4"}),
    )
    pips = forms.IntegerField(label=_("Pip sum"), min_value=0, max_value=999, required=False)
    reason = _reason_field()
    # The answer to the page's question after an ``end_required`` refusal (R11): the later
    # play at ``answer_position`` lies on the end showing ``answer_on``.
    answer_position = forms.IntegerField(min_value=0, required=False, widget=forms.HiddenInput)
    answer_on = forms.TypedChoiceField(
        label=_("On the end"), choices=END_CHOICES, coerce=int, empty_value=None, required=False
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("op") == "remove":
            if data.get("position") is None:
                raise forms.ValidationError(_("Choose the event to remove."), code="position")
            return data
        if data.get("op") == "amend" and data.get("position") is None:
            raise forms.ValidationError(_("Choose the event to amend."), code="position")
        if "what" in self.errors or "seat" in self.errors:
            return data  # a bad choice is said once, on its field
        if not data.get("what") or data.get("seat") is None:
            raise forms.ValidationError(_("Choose the event and its seat."), code="event")
        what = data["what"]
        if what == "play" and not data.get("tile"):
            raise forms.ValidationError(_("A play needs its tile."), code="tile")
        if what == "tiles" and not data.get("tiles", "").strip():
            raise forms.ValidationError(_("Type the tiles revealed."), code="tiles")
        if what == "pips" and data.get("pips") is None:
            raise forms.ValidationError(_("Type the pip sum."), code="pips")
        return data

    @property
    def kind(self) -> str:
        """The event's kind as stored: ``move`` or ``reveal``."""
        return "reveal" if self.cleaned_data.get("what") in {"tiles", "pips"} else "move"

    def payload(self) -> dict[str, Any] | None:
        """The event in record form (the rules core judges it), ``None`` for a removal."""
        data = self.cleaned_data
        if data["op"] == "remove":
            return None
        seat, what = data["seat"], data["what"]
        if what == "pass":
            return {"seat": seat, "pass": True}
        if what == "tiles":
            return {"seat": seat, "tiles": data["tiles"].replace(",", " ").split()}
        if what == "pips":
            return {"seat": seat, "pips": data["pips"]}
        payload: dict[str, Any] = {"seat": seat, "tile": data["tile"]}
        if data.get("on") is not None:
            payload["on"] = data["on"]
        return payload


class VoidForm(OrganiserForm):
    """Void a round (R35): always with a reason."""

    reason = _reason_field()


class AdjustForm(OrganiserForm):
    """Move stones after a round (R36): from the table or a seat, to another, with a reason."""

    source = forms.ChoiceField(label=_("From"), choices=HOLDER_CHOICES)
    to = forms.ChoiceField(label=_("To"), choices=HOLDER_CHOICES)
    stones = forms.IntegerField(label=_("Stones"), min_value=1, max_value=999)
    reason = _reason_field()

    def holders(self) -> tuple[Any, Any]:
        """``from`` and ``to`` as the service takes them: ``"table"`` or a seat 0–4."""

        def holder(value: str) -> Any:
            return value if value == "table" else int(value)

        return holder(self.cleaned_data["source"]), holder(self.cleaned_data["to"])


class _OccupantForm(OrganiserForm):
    """Who sits a seat: a guest's ``name`` or, in a club's game, a registered ``player``
    (one of the two; ``players``: the club's, as ``(id, label)``)."""

    name = forms.CharField(label=_("Name"), max_length=80, required=False)
    player = forms.TypedChoiceField(
        label=_("or a club player"), coerce=int, empty_value=None, required=False
    )

    def __init__(self, *args: Any, players: Sequence[tuple[int, str]] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if players:
            field = self.fields["player"]
            assert isinstance(field, forms.TypedChoiceField)
            field.choices = [("", "—"), *players]
        else:
            del self.fields["player"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        name, player = (data.get("name") or "").strip(), data.get("player")
        if "player" in self.errors:
            return data  # a bad choice is said once, on its field
        if bool(name) == (player is not None):
            if "player" in self.fields:
                message = _("Type a name or choose a club player (one of the two).")
            else:
                message = _("Type a name.")
            raise forms.ValidationError(message, code="occupant")
        return data


class SeatNameForm(_OccupantForm):
    """Re-seat: who sat a seat from the game's start (R38)."""

    reason = _reason_field()


class SubstituteForm(_OccupantForm):
    """A substitute sits a seat from a round on (R38)."""

    from_round = forms.IntegerField(
        label=_("From round"),
        min_value=1,
        required=False,
        help_text=_("Empty: the round in play, else the next."),
    )
    reason = _reason_field()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["name"].label = _("Substitute's name")
        self.order_fields(["name", "player", "from_round", "reason"])


class CloseForm(forms.Form):
    """Closing is on the version the organiser saw (the API's ``If-Match``)."""

    version = VersionField()
