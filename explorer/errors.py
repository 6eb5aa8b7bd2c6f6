"""Errors the data readers raise: problems a user can fix or data that cannot be had.

Shared here by the readers of :mod:`explorer.data` without importing one another.
"""

from __future__ import annotations


class DataValidationError(ValueError):
    """A problem with user data that the user can fix.

    Parameters
    ----------
    message : str
        What is wrong, naming the file, column, row or value concerned.
    hint : str, default=""
        How to fix it.
    """

    def __init__(self, message, hint=""):
        self.message = str(message)
        self.hint = str(hint)
        super().__init__(f"{self.message} {self.hint}".strip())


class DigitDataUnavailable(RuntimeError):
    """MNIST/USPS could not be loaded (no network, OpenML down, bad download)."""
