"""Run by Python at the start of a process whose PYTHONPATH has this folder (and the repository):
a test's ``dealerpoker`` process hashes staff passwords at argon2's floor, as the test processes
do (tests/support/passwords.py: ``in_processes``). Only tests put it there; a deployment never
has it."""

from tests.support import passwords

passwords.install()
