"""Classic Șeptică as the table shows it: the trick, what cuts, who holds it, the points per deal."""

from collections.abc import Mapping, Sequence
from typing import Any

from gameplay.engine.classic import GAME, MATCHES, ClassicView
from gameplay.engine.classic import teams as engine_teams

from .screen import Button, Finished, Presenter, Screen, SheetCell, SheetRow, players_count_label
from .words import gettext as _
from .words import gettext_noop, ngettext


class ClassicPresenter(Presenter[ClassicView]):
    game = "classic"
    label = gettext_noop("Classic Șeptică")
    summary_keys = ("deal", "captured", "deal_points", "deal_winner", "totals", "games_won")
    averaged = "captured"

    def goal(self, options: Mapping[str, Any]) -> str:
        kind, number = MATCHES[options["match"]]
        if kind == "points":
            return _("points to %(target)d") % {"target": number}
        return ngettext("first to win %(count)d game", "first to win %(count)d games", number) % {
            "count": number
        }

    def option_labels(self, options: Mapping[str, Any]) -> list[str]:
        players = options["players"]
        return [
            _("2 v 2 in teams") if players == 4 else players_count_label(players),
            self.goal(options),
            _("winner leads") if options["lead"] == "winner" else _("lead rotates"),
        ]

    def teams(self, options: Mapping[str, Any]) -> list[list[int]]:
        return engine_teams(GAME.options_from_json(dict(options)))

    def plays_to_games(self, options: Mapping[str, Any]) -> bool:
        return MATCHES[options["match"]][0] == "games"

    def subtitle(self, view: ClassicView) -> str:
        return _("deal %(deal)s") % {"deal": view["deal"]}

    def games_won(self, view: ClassicView) -> list[int] | None:
        return list(view["games_won"])

    def sheet_row(self, done: Finished, names: Sequence[str], options: Mapping[str, Any]) -> SheetRow:
        summary = done.summary
        winner = summary["deal_winner"]
        sides = self.sides(names, options)
        cells = [
            SheetCell(value=points, total=total, won=side == winner, games_won=games)
            for side, (points, total, games) in enumerate(
                zip(summary["deal_points"], summary["totals"], summary["games_won"], strict=True)
            )
        ]
        note = _("a tie") if winner is None else _("%(name)s won the deal") % {"name": sides[winner]}
        return SheetRow(number=done.number, cells=cells, note=note)

    def buttons(self, view: ClassicView, kinds: set[str]) -> list[Button]:
        buttons = []
        if "end" in kinds:
            buttons.append(Button("end", _("End the trick"), "e"))
        if "take" in kinds:
            buttons.append(Button("take", _("Take the trick"), "t"))
        return buttons

    def play_label(self, view: ClassicView) -> str:
        return _("Continue") if view["awaiting"] == "continue" else _("Play")

    def between_rounds(self, view: ClassicView) -> bool:
        return view["deal_over"]

    def round_outcome(self, view: ClassicView, sides: Sequence[str]) -> str:
        winner = view["deal_winner"]
        if winner is None:
            return _("Deal %(deal)d is over: a tie.") % {"deal": view["deal"]}
        return _("Deal %(deal)d is over: %(name)s won it.") % {"deal": view["deal"], "name": sides[winner]}

    def fill(self, screen: Screen, view: ClassicView, team_of: Mapping[int, int]) -> None:
        screen.captured = list(view["captured"])
        for info in screen.seats:
            info.captured = view["captured"][info.position]
        screen.cutting_rank = view["cutting_rank"] or ""
        # The card that holds the trick is the holder's last cutting card.
        holding = max(
            (
                i
                for i, played in enumerate(view["trick"])
                if played["cuts"] and played["seat"] == view["holder"]
            ),
            default=-1,
        )
        screen.trick = [
            {"card": played["card"], "name": screen.names[played["seat"]], "holds": i == holding}
            for i, played in enumerate(view["trick"])
        ]
        screen.holder_text = self._holder_text(view["holder"], screen.names, screen.seat, team_of)

    def replay_deal_line(self, view: ClassicView, names: Sequence[str]) -> str:
        return _("Deal %(deal)d is dealt; %(name)s leads.") % {
            "deal": view["deal"],
            "name": names[view["leader"]],
        }

    @staticmethod
    def _holder_text(
        holder: int | None, names: Sequence[str], seat: int | None, team_of: Mapping[int, int]
    ) -> str:
        if holder is None:
            return ""
        if holder == seat:
            return _("The trick is yours for now.")
        if seat is not None and team_of and team_of.get(holder) == team_of.get(seat):
            return _("The trick is your team's for now (%(name)s).") % {"name": names[holder]}
        return _("The trick is %(name)s's for now.") % {"name": names[holder]}


PRESENTER = ClassicPresenter()
