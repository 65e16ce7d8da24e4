"""Deal the cards a test needs, through the provably fair path (tests never wait for luck).

A round's deck is always ``dealerpoker.fairness.deck_order(server_seed, client_seed, nonce)``;
nothing here changes how the server deals. Instead the server's generator is a ``Dealer``
(``create_app(rng=Dealer())``: the injection point tests already use for a seeded RNG, which
``serve`` never offers), and the test chooses the seed it may choose in play:

* **solo**: the player's client seed. ``dealer.solo(http, token, player="As Ad")`` reads the
  player's committed next server seed (the ``Dealer`` drew it, so it knows the seed behind each
  commitment), finds a client seed whose deck has those cards, and sets it with
  ``PUT /api/fairness/client-seed``, as a player may. The next round deals those cards.
* **live RNG table**: the client seed is fixed by the round id and the accepted bets, so the test
  says which bets it will place; ``dealer.live(table, number, bets, player=...)`` finds a server
  seed for that deck and queues it: the next server seed the server draws (the next round opening
  at any table, or a player's rotated solo seed) is that one. Queue it just before the round opens,
  with that table the only one running (``tests.live.conftest.CASINO_ALONE``): another table's
  runner, woken by the same clock move, could open a round first and take the seed.

Cards are written as ``"As Ad"``; a rank with ``?`` for the suit (``"A? A?"``) or ``"?h"`` (any
heart) or ``"?"`` (any card) leave the rest to the shuffle, and ``where`` takes a predicate on
the whole deck (a dealer who does not qualify, say). A deck is found by trying seeds one after
another (about one HMAC each): every chosen card divides the odds by ~50, so name at most three
exact cards, or ranks, and let ``where`` say the rest; a wish rarer than ``MAX_TRIES`` allows is
refused at once, saying so. The seeds tried are a fixed sequence, so runs repeat exactly.
"""

from __future__ import annotations

import math
import random
import re
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from dealerpoker.cards import RANK_CHARS, SUIT_CHARS
from dealerpoker.cards.encoding import text_from_indices
from dealerpoker.evaluator.api import HandValue, evaluate
from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.fairness import commitment, deck_order, table_client_seed
from dealerpoker.fairness.shuffle import DECK_SIZE, draw_below, stream_words

__all__ = ["MAX_TRIES", "Deal", "Dealer", "Wanted", "best_hand", "dealer_has_no_pair", "dealer_wins",
           "find_client_seed", "find_server_seed", "player_wins", "wanted"]

SEED_BITS = 256  # dealerpoker.server.dealing.draw_server_seed
SLOTS = {"player": range(0, 2), "dealer": range(2, 4), "board": range(4, 9)}
DEALT = 9
MAX_TRIES = 1_500_000  # a wish is refused if it needs more than an eighth of this on average
Deck = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Wanted:
    """Which cards each dealt position may hold (None: any), and a condition on the whole deck."""

    positions: tuple[frozenset[int] | None, ...]
    where: Callable[[Deck], bool] | None = None
    text: str = ""

    def expected_tries(self) -> float:
        """About how many shuffles put the chosen cards in place once (``where`` not counted)."""
        odds = 1.0
        for used, cards in enumerate(self.positions):
            if cards is not None:
                odds *= len(cards) / (DECK_SIZE - used)
        return math.inf if odds == 0 else 1 / odds

    def accepts(self, deck: Deck) -> bool:
        return all(cards is None or deck[i] in cards for i, cards in enumerate(self.positions)) and (
            self.where is None or self.where(deck))


def wanted(player: str = "", dealer: str = "", board: str = "",
           where: Callable[[Deck], bool] | None = None) -> Wanted:
    """The wish ``player="As Ad", dealer="5? 5?", board="?h ?h ?h"``: see the module docstring."""
    positions: list[frozenset[int] | None] = [None] * DEALT
    exact: set[int] = set()
    for slot, text in (("player", player), ("dealer", dealer), ("board", board)):
        tokens = text.split()
        if len(tokens) > len(SLOTS[slot]):
            raise ValueError(f"{slot} has {len(SLOTS[slot])} cards, got {text!r}")
        for position, token in zip(SLOTS[slot], tokens, strict=False):
            cards = _pattern(token)
            if cards is not None and len(cards) == 1:
                if cards & exact:
                    raise ValueError(f"card {token} is asked for twice")
                exact |= cards
            positions[position] = cards
    wish = Wanted(tuple(positions), where, f"player={player!r} dealer={dealer!r} board={board!r}")
    if wish.expected_tries() > MAX_TRIES / 8:
        raise ValueError(f"{wish.text}: about one shuffle in {wish.expected_tries():,.0f} deals that; "
                         f"name fewer exact cards (ranks like 'A?', or a `where` condition)")
    return wish


def _pattern(token: str) -> frozenset[int] | None:
    """``As`` -> that card; ``A?`` -> the four aces; ``?h`` -> the hearts; ``?`` / ``??`` -> None."""
    match = re.fullmatch(r"([2-9TJQKA?])([cdhs?])?", token.replace("10", "T"))
    if match is None:
        raise ValueError(f"invalid card pattern {token!r}: a rank (2-9, T, J, Q, K, A or ?) and a "
                         "suit (c, d, h, s or ?), e.g. 'As', 'A?', '?h'")
    rank, suit = match.group(1), match.group(2) or "?"
    ranks = range(13) if rank == "?" else [RANK_CHARS.index(rank)]
    suits = range(4) if suit == "?" else [SUIT_CHARS.index(suit)]
    cards = frozenset(r * 4 + s for r in ranks for s in suits)
    return None if len(cards) == DECK_SIZE else cards


@dataclass(frozen=True, slots=True)
class Deal:
    """Seeds found for a wish and the deck they give (``deck_order`` of them)."""

    server_seed: str
    client_seed: str
    nonce: int
    deck: Deck

    def cards(self, slot: str) -> str:
        """``"player"``, ``"dealer"`` or ``"board"`` as text (``"As Ad"``)."""
        return text_from_indices(self.deck[SLOTS[slot].start:SLOTS[slot].stop])


def _search(seeds: Iterator[tuple[str, str]], nonce: int, wish: Wanted) -> Deal:
    last = max((i for i, cards in enumerate(wish.positions) if cards is not None), default=-1)
    for _ in range(MAX_TRIES):
        server_seed, client_seed = next(seeds)
        # The dealt positions only, drawn as deck_order draws them, stopping at the first miss.
        words, deck = stream_words(server_seed, client_seed, nonce), list(range(DECK_SIZE))
        for i in range(last + 1):
            j = i + draw_below(DECK_SIZE - i, words)
            deck[i], deck[j] = deck[j], deck[i]
            cards = wish.positions[i]
            if cards is not None and deck[i] not in cards:
                break
        else:
            full = deck_order(server_seed, client_seed, nonce)
            if wish.accepts(full):
                return Deal(server_seed, client_seed, nonce, full)
    raise AssertionError(f"no deck with {wish.text} in {MAX_TRIES:,} shuffles: is the `where` "
                         "condition possible with those cards?")


def find_client_seed(server_seed: str, nonce: int, wish: Wanted) -> Deal:
    """A client seed (``deal-0``, ``deal-1``, ...) whose deck with these seeds is ``wish``."""
    return _search(((server_seed, f"deal-{k}") for k in range(MAX_TRIES)), nonce, wish)


def find_server_seed(client_seed: str, nonce: int, wish: Wanted) -> Deal:
    """A server seed (``00..00``, ``00..01``, ...) whose deck with these seeds is ``wish``."""
    return _search(((f"{k:064x}", client_seed) for k in range(MAX_TRIES)), nonce, wish)


class Http(Protocol):
    """An ``httpx.Client``, or the server tests' ``TestClient``."""

    def request(self, method: str, url: str, **kwargs: Any) -> Any: ...


class Dealer(random.Random):
    """The server's generator in a test: ``create_app(rng=Dealer())``.

    A seeded ``random.Random`` (client seeds, round ids, server seeds repeat from run to run)
    that remembers every server seed it draws, by commitment, and draws a queued one first.
    """

    def __init__(self, seed: int = 2026) -> None:
        self._lock = threading.Lock()
        self._seeds: dict[str, str] = {}
        self._queued: deque[str] = deque()
        super().__init__(seed)

    def getrandbits(self, k: int, /) -> int:
        with self._lock:
            if k != SEED_BITS:
                return super().getrandbits(k)
            seed = self._queued.popleft() if self._queued else f"{super().getrandbits(k):064x}"
            self._seeds[commitment(seed)] = seed
            return int(seed, 16)

    def server_seed(self, committed: str) -> str:
        """The server seed behind a commitment this generator made."""
        with self._lock:
            if committed not in self._seeds:
                raise AssertionError(f"commitment {committed} was not drawn by this Dealer: is it the "
                                     "app's rng (create_app(rng=dealer))?")
            return self._seeds[committed]

    def solo(self, http: Http | str, token: str, *, player: str = "", dealer: str = "", board: str = "",
             where: Callable[[Deck], bool] | None = None) -> Deal:
        """Make the player's next solo round deal these cards (``http``: a client or a base URL)."""
        wish = wanted(player, dealer, board, where)
        client: Any = http
        if isinstance(http, str):
            import httpx

            client = httpx.Client(base_url=http, timeout=60)
        headers = {"Authorization": f"Bearer {token}"}
        info = client.request("GET", "/api/fairness", headers=headers)
        assert info.status_code == 200, info.text
        fairness = info.json()
        deal = find_client_seed(self.server_seed(fairness["next_commitment"]), fairness["next_nonce"], wish)
        answer = client.request("PUT", "/api/fairness/client-seed", headers=headers,
                                json={"client_seed": deal.client_seed})
        assert answer.status_code == 200, answer.text
        if isinstance(http, str):
            client.close()
        return deal

    def live(self, table: str, number: int, bets: Mapping[str, Mapping[str, int]], *, player: str = "",
             dealer: str = "", board: str = "", where: Callable[[Deck], bool] | None = None) -> Deal:
        """Make round ``number`` of a live RNG table deal these cards, if exactly ``bets`` (player
        id -> field -> amount) are accepted in it: queues its server seed (see the docstring)."""
        client_seed = table_client_seed(f"{table}/{number}", {p: dict(b) for p, b in bets.items()})
        deal = find_server_seed(client_seed, number, wanted(player, dealer, board, where))
        self.queue(deal.server_seed)
        return deal

    def queue(self, server_seed: str) -> None:
        """Make ``server_seed`` (64 hex digits) the next server seed this generator draws, after any
        queued before it: a test's deal then depends on what the test chose, never on how many
        seeds the server drew before."""
        if not re.fullmatch(r"[0-9a-f]{64}", server_seed):
            raise ValueError(f"a server seed is 64 lower-case hex digits, got {server_seed!r}")
        with self._lock:
            self._queued.append(server_seed)


# Conditions on a deck for ``where=`` (dealing order: player 0-1, dealer 2-3, board 4-8).
def best_hand(deck: Deck, hole: str) -> HandValue:
    """The best five of ``hole``'s two cards (``"player"`` or ``"dealer"``) and the board."""
    return evaluate([*deck[SLOTS[hole].start:SLOTS[hole].stop], *deck[4:DEALT]])


def player_wins(deck: Deck) -> bool:
    return best_hand(deck, "player") > best_hand(deck, "dealer")


def dealer_wins(deck: Deck) -> bool:
    return best_hand(deck, "dealer") > best_hand(deck, "player")


def dealer_has_no_pair(deck: Deck) -> bool:
    """The dealer's seven cards make no pair (so no Casino Hold'em qualifier either)."""
    return best_hand(deck, "dealer").category is HandCategory.HIGH_CARD
