"""The score sheet as CSV, in the reader's language, for a spreadsheet or the printer."""

import csv
import io

from django.utils.translation import gettext as _

from gameplay.games.screen import ScoreSheet

BOM = "\ufeff"
"""Spreadsheets read the file as UTF-8 (Romanian letters intact) when it starts with this mark."""


def sheet_csv(sheet: ScoreSheet) -> str:
    """One header line, one line per round or deal, then the totals and the result."""
    out = io.StringIO()
    writer = csv.writer(out)
    if sheet.game == "americana":
        writer.writerow(
            [_("Round"), _("Dealer"), _("Went out")]
            + [
                column % {"name": side}
                for side in sheet.sides
                for column in (_("%(name)s: charged"), _("%(name)s: total"))
            ]
        )
        for row in sheet.rows:
            out_name = next(
                (side for side, cell in zip(sheet.sides, row.cells, strict=True) if cell.went_out), ""
            )
            writer.writerow(
                [row.number, row.dealer, out_name or _("nobody out")]
                + [value for cell in row.cells for value in (cell.value, cell.total)]
            )
        writer.writerow([_("Total"), "", ""] + [value for total in sheet.totals for value in ("", total)])
    else:
        writer.writerow(
            [_("Deal"), _("Deal winner")]
            + [
                column % {"name": side}
                for side in sheet.sides
                for column in (_("%(name)s: points"), _("%(name)s: total"), _("%(name)s: games won"))
            ]
        )
        for row in sheet.rows:
            winner = next((side for side, cell in zip(sheet.sides, row.cells, strict=True) if cell.won), "")
            writer.writerow(
                [row.number, winner or _("a tie")]
                + [value for cell in row.cells for value in (cell.value, cell.total, cell.games_won)]
            )
        writer.writerow(
            [_("Total"), ""]
            + [
                value
                for total, won in zip(sheet.totals, sheet.games_won, strict=True)
                for value in ("", total, won)
            ]
        )
    writer.writerow([_("Result"), sheet.result])
    return BOM + out.getvalue()
