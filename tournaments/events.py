"""What a tournament tells the pages that show it, once the transaction commits: ids and numbers only
(the messages cross Redis); each process renders what its pages show, once for all of them."""

from tables.events import send_on_commit, table_group


def tournament_group(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"


def tournament_changed(tournament_id: int) -> None:
    """The standings, the status or the round changed: the pages showing it render it anew (at most
    every ``TOURNAMENT_PUSH_SECONDS``)."""
    send_on_commit(
        tournament_group(tournament_id), {"type": "tournament.changed", "tournament": tournament_id}
    )


def tournament_seated(tournament_id: int, tables: dict[int, int]) -> None:
    """People were sent to tables (person id → table id): their tournament pages open them."""
    seats = {str(user_id): table_id for user_id, table_id in tables.items()}
    send_on_commit(
        tournament_group(tournament_id),
        {"type": "tournament.seated", "tournament": tournament_id, "seats": seats},
    )


def table_scored(table_id: int, tournament_id: int) -> None:
    """A tournament table's match has scored: its players' pages go back to the tournament. (The table's
    news names its table: each process hands it to that table's pages.)"""
    send_on_commit(
        table_group(table_id), {"type": "tournament.scored", "table": table_id, "tournament": tournament_id}
    )
