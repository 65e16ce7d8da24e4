"""``SeatMap`` behaves as the dict it replaces: the same items in the same order after any
sequence of seats set and removed, and it never changes a map made before."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dealerpoker.tables.seatmap import SeatMap

KEYS = st.sampled_from([f"p{number}" for number in range(60)])
CHANGES = st.lists(st.tuples(KEYS, st.one_of(st.none(), st.integers(0, 9))), max_size=400)


@given(CHANGES)
def test_a_seatmap_is_the_dict_built_the_same_way_in_the_same_order(
        changes: list[tuple[str, int | None]]) -> None:
    seats: SeatMap[int] = SeatMap()
    plain: dict[str, int] = {}
    history: list[tuple[SeatMap[int], dict[str, int]]] = []
    for key, value in changes:  # None: the player leaves (as place_bets builds the dict)
        if value is None:
            seats, plain = seats.without(key), {k: v for k, v in plain.items() if k != key}
        else:
            seats, plain = seats.set(key, value), {**plain, key: value}
        history.append((seats, plain))
        assert list(seats.items()) == list(plain.items())
        assert len(seats) == len(plain) and seats == plain and dict(seats) == plain
        assert all((key in seats) == (key in plain) for key in ("p0", "p59", "nobody"))
    for earlier, expected in history:  # every map made on the way is as it was
        assert list(earlier.items()) == list(expected.items())


def test_of_keeps_a_seatmap_and_copies_a_dict() -> None:
    seats = SeatMap({"a": 1})
    assert SeatMap.of(seats) is seats
    source = {"a": 1}
    copied = SeatMap.of(source)
    source["b"] = 2
    assert dict(copied) == {"a": 1}
    assert repr(copied) == "SeatMap({'a': 1})"


def test_thousands_of_seats_fold_their_changes_and_keep_every_seat() -> None:
    """Past the square root of the base (here 3,000 seats: 54), the changes fold into a new base."""
    seats: SeatMap[int] = SeatMap()
    plain: dict[str, int] = {}
    for number in range(3_000):
        seats, plain = seats.set(f"p{number}", number), {**plain, f"p{number}": number}
    for number in range(0, 3_000, 7):  # decisions: each seat changed in place
        seats, plain = seats.set(f"p{number}", -number), {**plain, f"p{number}": -number}
    assert list(seats.items()) == list(plain.items()) and len(seats) == 3_000
    assert len(seats._changes) <= 54
