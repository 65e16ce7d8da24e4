"""The kernels as plain Python (NUMBA_DISABLE_JIT=1), on a small sample, against the reference."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import numpy as np
from hands import random_hands
from reference_evaluator import reference_value_of_indices
from dealerpoker.evaluator import kernels
from dealerpoker.evaluator.exhaustive import _last_card7, SUIT_BIAS, SUIT_RANK_BITS, CARD_KEYS

assert not hasattr(kernels.eval7, "py_func"), "the JIT is on"
for width in (5, 6, 7):
    hands = random_hands(150, width, seed=width)
    out = np.empty(len(hands), dtype=np.int32)
    kernels.eval_rows(hands, out)
    assert out.tolist() == [reference_value_of_indices(row) for row in hands.tolist()], width
    checked = np.empty(len(hands), dtype=np.int32)
    assert kernels.eval_rows_checked(hands, checked) == -1 and (checked == out).all()
    hands[77, 1] = hands[77, 0]
    hands[99, 2] = -1
    assert kernels.eval_rows_checked(hands, checked) == 77
    assert kernels.eval_rows_checked(hands[78:], checked) == 99 - 78
# the innermost step of the 7-card enumeration: six fixed cards, every seventh above the last
for six in ([0, 5, 10, 15, 20, 25], [3, 7, 11, 15, 2, 6], [0, 1, 2, 4, 5, 6]):
    slots = np.zeros(len(kernels.RANK_VALUES_7), dtype=np.int64)
    masks = np.zeros(len(kernels.FLUSH_VALUES), dtype=np.int64)
    six = sorted(six)
    key, bits = SUIT_BIAS + sum(CARD_KEYS[c] for c in six), np.bitwise_or.reduce(SUIT_RANK_BITS[six])
    _last_card7(key, bits, six[-1], slots, masks)
    got = sorted(np.repeat(np.concatenate([kernels.RANK_VALUES_7, kernels.FLUSH_VALUES]),
                           np.concatenate([slots, masks])).tolist())
    assert got == sorted(reference_value_of_indices(six + [c]) for c in range(six[-1] + 1, 52)), six
print("ok")
"""


def test_kernels_without_jit_match_the_reference() -> None:
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    here = Path(__file__).parent
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=here, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
