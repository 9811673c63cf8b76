"""The stones and CAMAT arithmetic (R22–R27), pure Python without Django."""

from scoring.core.ledger import TABLE, Ledger, Transfer
from scoring.core.settlement import camat_election, pass_award, round_award

__all__ = ["TABLE", "Ledger", "Transfer", "camat_election", "pass_award", "round_award"]
