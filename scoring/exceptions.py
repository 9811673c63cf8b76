"""Errors of the league services, as problem details with a stable ``code`` (never changed).

They are ``referee.exceptions.ServiceError``s, so the API's one exception
handler renders them (``status``, ``code``, translated ``title`` and ``detail``).
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from referee.exceptions import SeatedElsewhere, ServiceError

# The field error of a season that ends before it starts, the same from every entry (the
# API's serializer, the model's ``clean``, the services, the database's constraint).
ENDS_BEFORE_START = _("Ends before it starts.")


class NotClubOrganiser(ServiceError):
    status = 403
    code = "not_club_organiser"
    title = _("Not a club organiser")
    default_detail = _("Only an organiser of this club may do this.")


class ClubRequired(ServiceError):
    status = 400
    code = "club_required"
    title = _("Club required")
    default_detail = _("A registered player or a season needs the game's club.")


class PlayerNotInClub(ServiceError):
    status = 400
    code = "player_not_in_club"
    title = _("Player not in club")
    default_detail = _("This player is not one of the club's players.")


class PlayerMerged(ServiceError):
    status = 409
    code = "player_merged"
    title = _("Player merged")
    default_detail = _("This player was merged into another; use that one.")


class PlayerTwice(ServiceError):
    status = 400
    code = "player_twice"
    title = _("Player seated twice")
    default_detail = _("A registered player can sit in only one seat of a game.")


class SeasonNotInClub(ServiceError):
    status = 400
    code = "season_not_in_club"
    title = _("Season not in club")
    default_detail = _("This season belongs to another club.")


class SeasonArchived(ServiceError):
    status = 409
    code = "season_archived"
    title = _("Season archived")
    default_detail = _("This season is archived: no game can be added to it.")


class MemberNumberTaken(ServiceError):
    status = 409
    code = "member_number_taken"
    title = _("Member number taken")
    default_detail = _("Another player of the club has this member number.")


class SeasonNameTaken(ServiceError):
    status = 409
    code = "season_name_taken"
    title = _("Season name taken")
    default_detail = _("The club already has a season with this name.")


class ClubSlugTaken(ServiceError):
    status = 409
    code = "club_slug_taken"
    title = _("Club slug taken")
    default_detail = _("Another club has this slug.")


class MergeInvalid(ServiceError):
    status = 409
    code = "merge_invalid"
    title = _("Merge invalid")
    default_detail = _("These players cannot be merged.")


class UserUnknown(ServiceError):
    status = 400
    code = "user_unknown"
    title = _("User unknown")
    default_detail = _("No user has this username.")


class PlayerSeatedElsewhere(SeatedElsewhere):
    """A club player already sits in another open game (R38); ``game`` names it."""


class SeasonEndsBeforeStart(ServiceError):
    """A season's ``ends_on`` before its ``starts_on``: refused as the API's serializer
    refuses both dates (400 ``invalid``, the error on ``ends_on``), whoever writes it."""

    status = 400
    code = "invalid"
    title = _("Invalid input.")
    default_detail = _("Invalid input.")

    def __init__(self) -> None:
        super().__init__(
            errors=[{"field": "ends_on", "code": "invalid", "detail": ENDS_BEFORE_START}]
        )


class LastOrganiser(ServiceError):
    status = 409
    code = "last_organiser"
    title = _("Last organiser")
    default_detail = _("A club keeps at least one organiser: make another one first.")
