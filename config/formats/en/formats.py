"""English dates and times as the club's pages show them: day before month (``1 December
2026``, ``01/12/2026``) and a 24-hour clock (``19:00``), as an English rule card or score
sheet writes them outside the United States. Read through ``FORMAT_MODULE_PATH``; what is
not set here is Django's English. French, Polish and Indonesian keep Django's own formats.
A date typed in a form may be ISO (``2026-12-01``) or day first (``01/12/2026``), never
month first."""

DATE_FORMAT = "j F Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "j F Y, H:i"
YEAR_MONTH_FORMAT = "F Y"
MONTH_DAY_FORMAT = "j F"
SHORT_DATE_FORMAT = "d/m/Y"
SHORT_DATETIME_FORMAT = "d/m/Y H:i"
FIRST_DAY_OF_WEEK = 1  # Monday

DATE_INPUT_FORMATS = [
    "%Y-%m-%d",  # '2026-12-01'
    "%d/%m/%Y",  # '01/12/2026'
    "%d/%m/%y",  # '01/12/26'
    "%d %b %Y",  # '1 Dec 2026'
    "%d %B %Y",  # '1 December 2026'
]
DATETIME_INPUT_FORMATS = [
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M:%S.%f",
    "%Y-%m-%d %H:%M",
    "%d/%m/%Y %H:%M:%S",
    "%d/%m/%Y %H:%M",
    "%d/%m/%y %H:%M:%S",
    "%d/%m/%y %H:%M",
]
