"""The certification pack a test lab asks a supplier for (``dealerpoker certify``).

Pure builders, each turning figures into a JSON document and a printable HTML page:
:mod:`~dealerpoker.certify.par` (PAR sheets from the exact analysis, with a simulation column),
:mod:`~dealerpoker.certify.rng` (the RNG battery on the real shuffle) and
:mod:`~dealerpoker.certify.nist` (NIST SP 800-22 on the generator's bit stream),
:mod:`~dealerpoker.certify.rules_sheet` (the rules as the player reads them, per language),
:mod:`~dealerpoker.certify.pack` (the pack's index and ``SHA256SUMS``). The command line
(:mod:`dealerpoker.cli.certify`) runs the analysis and the simulation and hands them in.
"""
