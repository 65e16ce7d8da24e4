"""Live tables as a pure layer: the round's state machine, its stored record and the tables' config.

One shuffle per round, every seated player on their own bets and decisions, time only as the
``now`` argument: :mod:`dealerpoker.tables.table` computes, the server's runner
(``dealerpoker.server.live.runner``) moves the money, stores, broadcasts and keeps the clock.
:mod:`dealerpoker.tables.record` turns a round into stored JSON and back (by replaying the
engine); :mod:`dealerpoker.tables.config` reads the operator's ``[[tables]]`` TOML. No I/O here
beyond reading a tables or rules file, as ``dealerpoker.games`` reads rules files.
"""
