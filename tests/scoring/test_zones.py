"""A club's time zone (``scoring.zones``, issue 28): the local day an instant falls on is
the one whose bounds hold it, over daylight-saving changes too; names are IANA's, exactly."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import room, zones

ZONES = ["Asia/Makassar", "America/Montreal", "Europe/Warsaw", "Pacific/Chatham", "UTC"]


@given(
    name=st.sampled_from(ZONES),
    instant=st.datetimes(
        min_value=dt.datetime(2020, 1, 1),
        max_value=dt.datetime(2035, 12, 31),
        timezones=st.just(dt.UTC),
    ),
)
def test_an_instant_lies_within_its_local_days_bounds(name, instant):
    tz = zoneinfo.ZoneInfo(name)
    day = instant.astimezone(tz).date()

    assert zones.day_start(day, tz) <= instant < zones.day_end(day, tz)
    assert zones.day_end(day, tz) == zones.day_start(day + dt.timedelta(days=1), tz)


@given(
    name=st.sampled_from(ZONES),
    instant=st.datetimes(
        min_value=dt.datetime(2020, 1, 1),
        max_value=dt.datetime(2035, 12, 31),
        timezones=st.just(dt.UTC),
    ),
)
def test_the_evening_began_at_six_local_at_most_a_day_before(name, instant):
    tz = zoneinfo.ZoneInfo(name)

    start = room.evening_start(instant, tz)

    assert start.astimezone(tz).time() == dt.time(room.EVENING_STARTS_AT)
    assert start <= instant < start + dt.timedelta(hours=26)  # 25 h on a day the clocks go back


@pytest.mark.parametrize(
    ("name", "known"),
    [
        ("Asia/Makassar", True),
        ("America/Montreal", True),
        ("UTC", True),
        ("asia/makassar", False),
        ("Mars/Olympus", False),
        ("+08:00", False),
        ("/etc/localtime", False),
        ("localtime", False),  # the server's own zone, whatever it is: not an IANA name
        ("Factory", False),
        ("../zoneinfo/UTC", False),
        ("", False),
        (None, False),
    ],
)
def test_a_zone_name_is_an_iana_name_spelt_exactly(name, known):
    assert zones.is_time_zone(name) is known


def test_the_forms_offer_only_the_names_the_check_accepts():
    names = zones.time_zone_names()
    assert "Asia/Makassar" in names
    assert "localtime" not in names
    assert all(zones.is_time_zone(name) for name in names)


def test_an_unknown_or_missing_zone_is_the_servers(settings):
    settings.TIME_ZONE = "America/Montreal"

    assert zones.zone(None) == zoneinfo.ZoneInfo("America/Montreal")
    assert zones.zone("Mars/Olympus") == zoneinfo.ZoneInfo("America/Montreal")
    assert zones.default_time_zone() == "America/Montreal"
