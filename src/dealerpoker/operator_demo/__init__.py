"""The reference operator: the casino's side of the seamless-wallet protocol (docs/operators.md).

``dealerpoker operator-demo`` serves a small wallet with its own SQLite ledger (players' balances
per currency, every wallet transaction with the answer it got), fault injection for testing a
game server against a misbehaving operator, and a casino page that launches dealerpoker sessions
into an iframe. Written from the protocol alone: nothing here imports ``dealerpoker.server``.
"""
