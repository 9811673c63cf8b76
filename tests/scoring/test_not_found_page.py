"""A page that is not there is the site's own page, in the page's language (QA: a room
link without its key got Django's bare English "Not Found")."""

from __future__ import annotations

import pytest
from django.test import Client

from scoring.models import Club


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "Nothing is at this address"), ("pl", "Pod tym adresem nic nie ma")],
)
@pytest.mark.parametrize("path", ["/room/{slug}/", "/room/{slug}/?key=wrong", "/no-such-page/"])
def test_a_missing_page_is_the_sites_own_in_its_language(
    client: Client, club: Club, path: str, language: str, words: str
) -> None:
    response = client.get(path.format(slug=club.slug), HTTP_ACCEPT_LANGUAGE=language)

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert words in page
    assert 'href="/"' in page  # back to the table, in the site's layout
    assert "<h1>Not Found</h1>" not in page  # not Django's bare default
