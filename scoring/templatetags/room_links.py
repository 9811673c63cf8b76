"""``{% room_links %}``: the room view links an organiser may share (``scoring.room``).

An inclusion tag, so a page shows them without its view computing them: one query
(the clubs the signed-in user organises), each link signed afresh.
"""

from __future__ import annotations

from typing import Any

from django import template

from scoring.room import ROOM_LINK_MAX_AGE, organised_clubs, room_url

register = template.Library()


@register.inclusion_tag("scoring/_room_links.html", takes_context=True)
def room_links(context: dict[str, Any]) -> dict[str, Any]:
    """The user's clubs with their room links (``[]`` for a user who organises none)."""
    request = context.get("request")
    user = getattr(request, "user", None)
    links = [{"club": club, "url": room_url(club)} for club in organised_clubs(user)]
    return {"links": links, "hours": ROOM_LINK_MAX_AGE // 3600}
