"""The league-records API (clubs, players, seasons, standings, histories, ratings)."""
