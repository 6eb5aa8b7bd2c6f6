"""What a page shows when something fails: the problem and the fix, never a traceback.

Known problems keep their message and hint; anything else gets a short sentence with an
incident code and no exception text (it may hold server paths or data), the traceback
logged under that code.  No streamlit here.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass

from explorer.errors import DataValidationError, DigitDataUnavailable

#: Logger that receives the details of unexpected errors.
LOGGER_NAME = "flda"


@dataclass(frozen=True)
class UserError:
    """An error as a user should see it.

    Attributes
    ----------
    message : str
        What went wrong (plain text: escape it before rendering as markdown).
    hint : str
        What the user can do about it.
    expected : bool
        True for a problem with the user's input or the network, False for a
        bug or an exhausted server (logged with its traceback).
    incident : str or None
        Code under which an unexpected error was logged.
    """

    message: str
    hint: str
    expected: bool
    incident: str | None = None


def describe_error(error, action="updating this page"):
    """The :class:`UserError` for ``error``, logging unexpected ones with their traceback.

    Parameters
    ----------
    error : BaseException
    action : str
        What the page was doing, e.g. ``"reading your files"`` (used in the
        message of unexpected errors).

    Returns
    -------
    UserError
    """
    if isinstance(error, DataValidationError):
        return UserError(error.message, error.hint, True)
    if isinstance(error, DigitDataUnavailable):
        return UserError(
            str(error),
            "Use the offline digits (no network needed), or try again when this machine can reach OpenML.",
            True,
        )
    incident = secrets.token_hex(4)
    logging.getLogger(LOGGER_NAME).error(
        "incident %s while %s", incident, action, exc_info=(type(error), error, error.__traceback__)
    )
    if isinstance(error, MemoryError):
        return UserError(
            f"The server ran out of memory while {action}.",
            "Use smaller data (fewer rows or features) and try again; everything "
            f"loaded before is kept. (Incident {incident}.)",
            False,
            incident,
        )
    return UserError(
        f"Something went wrong while {action}; everything loaded before is kept.",
        "Try again or change a setting. If it keeps happening, tell whoever runs "
        f"this server the incident code {incident} (the details are in its log).",
        False,
        incident,
    )
