"""Examples shown in the OpenAPI schema for the league API."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

CLUB = {
    "id": 3,
    "slug": "makassar-domeng",
    "name": "Makassar Domeng Club",
    "is_public": False,
    "time_zone": "Asia/Makassar",
    "created_at": "2026-01-10T18:00:00Z",
    "role": "organiser",
}
PLAYER = {
    "id": 17,
    "display_name": "Andi",
    "member_number": "MDC-004",
    "merged_into": None,
    "created_at": "2026-01-10T18:05:00Z",
}
SEASON = {
    "id": 5,
    "name": "2026 first half",
    "starts_on": "2026-01-01",
    "ends_on": "2026-06-30",
    "is_archived": False,
    "archived_at": None,
    "created_at": "2026-01-01T09:00:00Z",
}
STANDING = {
    "player": 17,
    "display_name": "Andi",
    "member_number": "MDC-004",
    "rounds_played": 40,
    "rounds_won": 11,
    "first_cappu": 9,
    "ceki": 2,
    "pollo": 1,
    "manguno": 3,
    "mattikkeng": 4,
    "cucuq": 7,
    "passes": 21,
    "passebunge": 6,
    "stones_received": 52,
    "stones_given": 9,
    "net_stones": 43,
    "camat_elected": 2,
    "average_stones": 1.3,
}
STANDINGS_CSV = (
    "player,display_name,member_number,rounds_played,rounds_won,first_cappu,ceki,pollo,"
    "manguno,mattikkeng,cucuq,passes,passebunge,stones_received,stones_given,net_stones,"
    "camat_elected,average_stones\r\n"
    "17,Andi,MDC-004,40,11,9,2,1,3,4,7,21,6,52,9,43,2,1.3\r\n"
)
ROUND = {
    "game": "0b7a4c1e-3f59-4d38-9a0e-6a8d2f0c9e11",
    "season": 5,
    "season_name": "2026 first half",
    "played_at": "2026-02-03T20:41:12Z",
    "round": 14,
    "seat": 2,
    "won": True,
    "named": ["FIRST CAPPU", "CEKI", "CAMAT"],
    "passes": 0,
    "passebunge": 0,
    "stones_received": 0,
    "stones_given": 0,
    "stones_held": 0,
}
GAME_TOTALS = {
    "game": "0b7a4c1e-3f59-4d38-9a0e-6a8d2f0c9e11",
    "season": 5,
    "season_name": "2026 first half",
    "seat": 2,
    "status": "closed",
    "started_at": "2026-02-03T19:02:00Z",
    "last_played_at": "2026-02-03T22:15:40Z",
    "rounds_played": 40,
    "rounds_won": 9,
    "first_cappu": 8,
    "ceki": 1,
    "pollo": 0,
    "manguno": 1,
    "mattikkeng": 2,
    "cucuq": 6,
    "passes": 12,
    "passebunge": 3,
    "stones_received": 31,
    "stones_given": 4,
    "camat_elected": 1,
}
LINE = {
    "rounds_won": 6,
    "first_cappu": 5,
    "ceki": 1,
    "pollo": 0,
    "manguno": 1,
    "mattikkeng": 1,
    "cucuq": 3,
    "passes": 9,
    "passebunge": 2,
    "stones_received": 20,
    "stones_given": 3,
    "camat_elected": 1,
    "cycles_ahead": 2,
}
HEAD_TO_HEAD = {
    "games_together": 2,
    "rounds_together": 80,
    "a": {"player": PLAYER, "totals": LINE},
    "b": {
        "player": {**PLAYER, "id": 18, "display_name": "Besse", "member_number": ""},
        "totals": {**LINE, "rounds_won": 8, "cycles_ahead": 3},
    },
    "seasons": [
        {
            "season": 5,
            "season_name": "2026 first half",
            "games_together": 2,
            "rounds_together": 80,
            "a": LINE,
            "b": {**LINE, "rounds_won": 8, "cycles_ahead": 3},
        }
    ],
}
RATINGS = {
    "model": "openskill.BradleyTerryFull",
    "season": 5,
    "cycles": 10,
    "results": [
        {
            "rank": 1,
            "player": 17,
            "display_name": "Andi",
            "mu": 27.91,
            "sigma": 6.52,
            "ordinal": 8.35,
            "cycles": 10,
            "last_played_at": "2026-02-03T22:15:40Z",
        }
    ],
}


def response(name: str, value: object, *, media_type: str = "application/json") -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, media_type=media_type)
