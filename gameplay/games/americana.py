"""Șeptică Americană as the table shows it: the pile, the suit in force, what is owed, the charges."""

from collections.abc import Mapping, Sequence
from typing import Any

from gameplay.engine.americana import AmericanaView

from .screen import Button, Finished, Presenter, Screen, SheetCell, SheetRow, players_count_label
from .words import card_name, gettext_noop, ngettext
from .words import gettext as _


class AmericanaPresenter(Presenter[AmericanaView]):
    game = "americana"
    label = gettext_noop("Șeptică Americană")
    summary_keys = ("round", "dealer", "out", "charges", "totals", "hands")
    averaged = "charges"

    def goal(self, options: Mapping[str, Any]) -> str:
        return _("target %(target)d") % {"target": options["target"]}

    def option_labels(self, options: Mapping[str, Any]) -> list[str]:
        labels = [players_count_label(options["players"]), self.goal(options)]
        if options.get("jokers"):
            labels.append(_("jokers"))
        if options.get("jack_draws_two"):
            labels.append(_("jack draws two"))
        if options.get("court_follows"):
            labels.append(_("court follows"))
        return labels

    def subtitle(self, view: AmericanaView) -> str:
        return self.goal(view["options"])

    def sheet_row(self, done: Finished, names: Sequence[str], options: Mapping[str, Any]) -> SheetRow:
        summary, target = done.summary, options["target"]
        out = summary["out"]
        cells = [
            SheetCell(
                value=charge, total=total, went_out=seat == out, reached=total >= target > total - charge
            )
            for seat, (charge, total) in enumerate(zip(summary["charges"], summary["totals"], strict=True))
        ]
        return SheetRow(
            number=done.number,
            cells=cells,
            note=_("nobody out") if out is None else _("%(name)s went out") % {"name": names[out]},
            dealer=names[summary["dealer"]],
            reached=[names[seat] for seat, cell in enumerate(cells) if cell.reached],
        )

    def buttons(self, view: AmericanaView, kinds: set[str]) -> list[Button]:
        buttons = []
        if "draw" in kinds:
            buttons.append(Button("draw", _("Draw a card"), "d"))
        if "take" in kinds:
            buttons.append(Button("take", _("Take %(count)d cards") % {"count": view["owed"]}, "t"))
        if "sit_out" in kinds:
            buttons.append(
                Button("sit_out", _("Sit out a turn"), "")
            )  # no key of its own: S opens the scores
        return buttons

    def between_rounds(self, view: AmericanaView) -> bool:
        return view["awaiting_deal"]

    def round_outcome(self, view: AmericanaView, sides: Sequence[str]) -> str:
        out = view["out"]
        if out is None:
            return _("Round %(round)d is over: nobody went out.") % {"round": view["round"]}
        return _("Round %(round)d is over: %(name)s went out.") % {"round": view["round"], "name": sides[out]}

    def fill(self, screen: Screen, view: AmericanaView, team_of: Mapping[int, int]) -> None:
        screen.top = view["top"]
        screen.suit = view["suit"] or ""
        if screen.to_act is not None:
            screen.aimed_text = self._aimed_text(view, screen.names, screen.seat, screen.to_act)
            if view["owed"]:
                screen.hit = ngettext("+%(n)s card", "+%(n)s cards", view["owed"]) % {"n": view["owed"]}
            elif view["skip"]:
                screen.hit = _("ace: skips a turn")
        if view["hands"] is not None:
            charges = view["charges"] or [0] * len(screen.names)
            screen.laid_open = [
                {"name": name, "cards": cards, "charge": charge}
                for name, cards, charge in zip(screen.names, view["hands"], charges, strict=True)
            ]

    def replay_deal_line(self, view: AmericanaView, names: Sequence[str]) -> str:
        return _("Round %(round)d is dealt by %(name)s; the first card is the %(card)s.") % {
            "round": view["round"],
            "name": names[view["dealer"]],
            "card": card_name(view["pile"][0]),
        }

    @staticmethod
    def _aimed_text(view: AmericanaView, names: Sequence[str], seat: int | None, to_act: int) -> str:
        """What waits for the seat to act (``to_act``): owed cards or a skip."""
        owed = view["owed"]
        mine = to_act == seat
        if owed:
            if mine:
                return ngettext(
                    "%(count)d card is waiting for you: take it or answer with a draw card.",
                    "%(count)d cards are waiting for you: take them or answer with a draw card.",
                    owed,
                ) % {"count": owed}
            return ngettext(
                "%(count)d card is waiting for %(name)s.", "%(count)d cards are waiting for %(name)s.", owed
            ) % {"count": owed, "name": names[to_act]}
        if not view["skip"]:
            return ""
        if mine:
            return _("An ace: sit out a turn, or pass it on with an ace.")
        return _("An ace: %(name)s misses a turn unless they answer with an ace.") % {"name": names[to_act]}


PRESENTER = AmericanaPresenter()
