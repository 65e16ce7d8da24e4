"""The simulated shoe (pure): a shuffled deck dealt in the order the table asks for it.

It reads the dealer stream's ``expect`` messages (``{"round", "position", "cards", "to"}``)
and answers with the messages a card reader would send: the deck's card at that position, now
and then first a misread (a wrong card, then ``void``, then the right one) and now and then a
``misdeal``. Randomness is injected (``random.Random``), so a seeded shoe deals the same way
every time; the delays between messages are the client's business
(``dealerpoker.server.live.shoe_client``).

>>> import random
>>> shoe = Shoe(random.Random(7))
>>> shoe.on_expect({"round": "t/1", "position": 0, "cards": 2, "to": "player"})
[{'type': 'card', 'card': '6d', 'source': 'shoe'}]
>>> shoe.on_expect({"round": "t/1", "position": 0, "cards": 2, "to": "player"})   # already dealt
[]
>>> shoe.deck("t/1")[:2]
['6d', 'Js']
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dealerpoker.cards.encoding import index_to_card

SOURCE = "shoe"


@dataclass(frozen=True, slots=True)
class ShoeRates:
    """How often the shoe goes wrong: a card misread (then voided and read again), a round
    misdealt (at a random card of it). Each is a probability in [0, 1]."""

    misread: float = 0.0
    misdeal: float = 0.0

    def __post_init__(self) -> None:
        for name in ("misread", "misdeal"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise ValueError(f"{name} rate must be a probability in [0, 1], got {value!r}")


class Shoe:
    """One shuffled deck per round; answers each ``expect`` once (a repeated one is ignored)."""

    def __init__(self, rng: random.Random, rates: ShoeRates = ShoeRates(), *, source: str = SOURCE) -> None:
        self.rng = rng
        self.rates = rates
        self.source = source
        self._round: str | None = None
        self._deck: list[int] = []
        self._misdeal_at: int | None = None
        self._done: set[int] = set()       # positions answered in this round
        self._misread: tuple[int, int] | None = None  # (position, the wrong card) awaiting its void
        self.misdeals = 0
        self.misreads = 0

    def deck(self, round_id: str) -> list[str]:
        """The current round's deck as text (for tests and logs)."""
        assert round_id == self._round, f"the shoe is at round {self._round}, not {round_id}"
        return [str(index_to_card(i)) for i in self._deck]

    def _new_round(self, round_id: str) -> None:
        self._round = round_id
        self._deck = list(range(52))
        self.rng.shuffle(self._deck)
        self._done = set()
        self._misread = None
        self._misdeal_at = self.rng.randrange(9) if self.rng.random() < self.rates.misdeal else None

    def _card(self, index: int) -> dict[str, Any]:
        return {"type": "card", "card": str(index_to_card(index)), "source": self.source}

    def on_expect(self, expect: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The messages to send for one ``expect`` (in order; empty when nothing is to be done)."""
        round_id, position, cards = str(expect["round"]), int(expect["position"]), int(expect["cards"])
        if round_id != self._round:
            self._new_round(round_id)
        if self._misread is not None:
            wrong_at, _wrong = self._misread
            if position == wrong_at + 1:  # the misread was taken: void it
                return [{"type": "void"}]
            if position == wrong_at:      # voided: now the right card
                self._misread = None
                self._done.add(position)
                return [self._card(self._deck[position])]
        if position in self._done:
            return []
        if self._misdeal_at is not None and position >= self._misdeal_at:
            self._misdeal_at = None
            self.misdeals += 1
            self._done.update(range(position, 52))
            return [{"type": "misdeal", "reason": "simulated misdeal"}]
        # A misread can be voided only while its street is incomplete: never on a street's last card.
        if cards > 1 and self.rng.random() < self.rates.misread:
            wrong = self.rng.choice(self._deck[position + 1:])
            self._misread = (position, wrong)
            self.misreads += 1
            return [self._card(wrong)]
        self._done.add(position)
        return [self._card(self._deck[position])]

    def on_error(self) -> list[dict[str, Any]]:
        """The server refused the last message: a refused misread is dropped for the right card."""
        if self._misread is None:
            return []
        position, _wrong = self._misread
        self._misread = None
        self._done.add(position)
        return [self._card(self._deck[position])]
