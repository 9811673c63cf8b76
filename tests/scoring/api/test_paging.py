"""Pages that hold still (issue 32, point 8): a list read page by page while it grows
repeats no row and skips none — a player's history, their games, the lists of games (by
cursor) and the audit trail (oldest first: what is added goes after the last page)."""

from __future__ import annotations

from typing import Any

import pytest

from referee import services as referee_services
from referee.services.guard import Actor
from tests.referee.conftest import table_client
from tests.scoring.conftest import API, token_client

pytestmark = pytest.mark.django_db

G101 = "g101_generated_40_rounds"


def _play_round(game: Any, data: dict[str, Any], actor: Actor) -> None:
    """One record round as the table enters it: moves, then reveals seat 0 to 4 (R34)."""
    events: list[tuple[str, dict[str, Any]]] = [("move", move) for move in data["moves"]]
    for seat in range(5):
        if str(seat) in (data.get("reveal") or {}):
            events.append(("reveal", {"seat": seat, "tiles": data["reveal"][str(seat)]}))
        elif str(seat) in (data.get("pips") or {}):
            events.append(("reveal", {"seat": seat, "pips": data["pips"][str(seat)]}))
    for kind, payload in events:
        referee_services.event_submit(game_id=game.pk, kind=kind, payload=payload, actor=actor)


@pytest.fixture
def live(organiser, club, players, load_scenario) -> dict[str, Any]:
    """A club game played live, six rounds so far, and the rest of its record."""
    rounds = load_scenario(G101)["record"]["rounds"]
    game = referee_services.game_create(
        players=[p.pk for p in players[:5]], created_by=organiser, club=club
    )
    actor = Actor(user=organiser)
    for data in rounds[:6]:
        _play_round(game, data, actor)
    return {"game": game, "actor": actor, "rounds": rounds}


def test_a_round_settled_between_two_pages_of_a_history_moves_no_row_R27(
    live, member_client, club, players
):
    """Page 1 shows rounds 6, 5, 4; round 7 settles; page 2 shows 3, 2, 1 (not 4, 3, 2)."""
    url = f"{API}/clubs/{club.slug}/players/{players[0].pk}/rounds/?page_size=3"

    first = member_client.get(url).json()
    _play_round(live["game"], live["rounds"][6], live["actor"])
    second = member_client.get(first["next"]).json()
    again = member_client.get(url).json()

    assert [r["round"] for r in first["results"]] == [6, 5, 4]
    assert [r["round"] for r in second["results"]] == [3, 2, 1]
    assert second["next"] is None
    assert [r["round"] for r in again["results"]] == [7, 6, 5]  # the new round: page 1
    previous = member_client.get(second["previous"]).json()
    assert [r["round"] for r in previous["results"]] == [6, 5, 4]  # just before page 2


def test_a_game_played_between_two_pages_of_a_players_games_moves_no_row(
    member_client, organiser, club, players, import_game, load_scenario
):
    record = load_scenario("01_plain_finish")["record"]
    made = [import_game(record, players[:5]) for _ in range(4)]
    url = f"{API}/clubs/{club.slug}/players/{players[0].pk}/games/?page_size=2"

    first = member_client.get(url).json()
    made.append(import_game(record, players[:5]))
    second = member_client.get(first["next"]).json()
    third = member_client.get(second["next"]).json() if second["next"] else {"results": []}

    read = [g["game"] for page in (first, second, third) for g in page["results"]]
    assert read == [str(g.pk) for g in reversed(made[:4])]  # each once, none skipped


@pytest.mark.parametrize("listing", ["games", "club_games"])
def test_a_game_created_between_two_pages_of_a_list_of_games_moves_no_row(
    organiser, club, players, listing
):
    client = token_client(organiser)
    url = f"{API}/games/" if listing == "games" else f"{API}/clubs/{club.slug}/games/"

    def create() -> Any:
        return referee_services.game_create(
            players=["Gita", "Hasan", "Irma", "Joko", "Kiki"], created_by=organiser, club=club
        )

    made = [create() for _ in range(5)]
    first = client.get(f"{url}?page_size=2").json()
    made.append(create())
    read = [g["id"] for g in first["results"]]
    page = first
    while page["next"]:
        page = client.get(page["next"]).json()
        read += [g["id"] for g in page["results"]]
        made.append(create())  # one more before every page read

    assert read == [str(g.pk) for g in reversed(made[:5])]


@pytest.mark.parametrize(
    "query", ["cursor=nonsense", "cursor=cD0yMDI2LTEx", "page_size=0", "page_size=501"]
)
@pytest.mark.parametrize(
    "path", ["/games/", "/clubs/{slug}/games/", "/clubs/{slug}/players/{id}/rounds/"]
)
def test_a_malformed_cursor_or_page_size_is_a_400_problem_naming_it(
    organiser, club, players, path, query
):
    url = API + path.replace("{slug}", club.slug).replace("{id}", str(players[0].pk))

    response = token_client(organiser).get(f"{url}?{query}")

    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == query.split("=")[0]


def test_refusals_entered_between_two_pages_of_the_audit_trail_move_no_row(
    organiser, club, players
):
    """The trail lists oldest first: what is entered meanwhile comes after the last page."""
    game = referee_services.game_create(
        players=[p.pk for p in players[:5]], created_by=organiser, club=club
    )
    key, _ = referee_services.table_join(join_code=game.join_code, seat=1)
    phone = table_client(key)
    client = token_client(organiser)

    def refuse() -> None:
        phone.post(f"{API}/games/{game.pk}/moves/", {"seat": 1, "tile": "1-2"}, format="json")

    for _ in range(5):
        refuse()
    url = f"{API}/games/{game.pk}/events/?page_size=2"
    read: list[str] = []
    page = client.get(url).json()
    read += [r["created_at"] for r in page["refused"]]
    while page["next"]:
        refuse()
        page = client.get(page["next"]).json()
        read += [r["created_at"] for r in page["refused"]]

    assert len(read) == len(set(read))  # none repeated
    assert read == sorted(read)
    assert len(read) >= 5  # none of the first five skipped


def test_an_imported_games_rounds_page_once_each_while_new_rounds_settle_R27(
    member_client, organiser, club, players, import_game, load_scenario
):
    """QA: an import settles every round at one instant; a history paged through that tie
    while the game goes on live repeats no round and skips none."""
    rounds = load_scenario(G101)["record"]["rounds"]
    record = {**load_scenario(G101)["record"], "rounds": rounds[:12]}
    game = import_game(record, players[:5])
    actor = Actor(user=organiser)
    url = f"{API}/clubs/{club.slug}/players/{players[0].pk}/rounds/?page_size=2"

    read, page, pages = [], member_client.get(url).json(), 0
    while True:
        read += [r["round"] for r in page["results"]]
        pages += 1
        if pages in (2, 4):  # a round of the game settles while the history is read
            _play_round(game, rounds[11 + pages // 2], actor)
        if not page["next"]:
            break
        page = member_client.get(page["next"]).json()

    assert sorted(read, reverse=True) == read
    assert read == list(range(12, 0, -1))  # the import's rounds, each once
