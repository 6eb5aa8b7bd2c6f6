"""The one error boundary of every page: problems and exceptions shown as a user should
see them, and :func:`run_page`, the last line of every page."""

from __future__ import annotations

import functools
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import streamlit as st

from explorer.error_report import describe_error
from explorer.safe_text import escape_markdown
from explorer.ui import memory
from explorer.ui.charts import deferred_controls
from explorer.ui.state import REST_OWED_KEY
from explorer.ui.navigation import leave_pages_directory_mode
from explorer.ui.serving import freeze_long_lived_objects

#: Session key of an exception a widget callback raised (shown by the next run).
CALLBACK_ERROR_KEY = "_flda_callback_error"


def show_problems(problems, where="in the sidebar"):
    """One ``st.error`` per problem (escaped: problems quote typed values), each saying
    where to fix it; True if there were any."""
    for problem in problems:
        st.error(
            escape_markdown(f"{problem} Fix it {where}; nothing else was changed."), icon=":material/error:"
        )
    return bool(problems)


def show_error(error, action="updating this page", headline=None):
    """Show any exception as :func:`explorer.error_report.describe_error` words it (known
    problems: ``headline``, problem and fix; others: an incident code), all text escaped;
    returns its :class:`explorer.error_report.UserError`."""
    report = describe_error(error, action)
    if report.expected:
        head = f"**{escape_markdown(headline)}** " if headline else ""
        st.error(
            f"{head}{escape_markdown(report.message)}\n\n**Fix:** {escape_markdown(report.hint)}",
            icon=":material/error:",
        )
    else:
        st.error(
            f"{escape_markdown(report.message)}\n\n{escape_markdown(report.hint)}", icon=":material/report:"
        )
    return report


@dataclass
class Outcome:
    """What an :func:`error_boundary` caught: ``error`` (a ``UserError``) or None."""

    error: Any = None

    @property
    def failed(self):
        return self.error is not None


@contextmanager
def error_boundary(action, headline=None):
    """The one error boundary of every page: run a read, a parse or a fit inside it.

    An ``Exception`` in the block is shown by :func:`show_error` and swallowed; session
    state stays; ``st.rerun``/``st.stop`` (``BaseException``) pass.  Yields an
    :class:`Outcome`::

        with guard.error_boundary("fitting the classifiers") as outcome:
            result = run_experiment(...)
        if outcome.failed:
            return
    """
    outcome = Outcome()
    try:
        yield outcome
    except Exception as error:
        outcome.error = show_error(error, action, headline)


def callback(action):
    """A widget callback whose exception (else sent to the browser: callbacks run outside
    :func:`run_page`) is kept for the next run to show with :func:`show_error`."""

    def decorate(function):
        @functools.wraps(function)
        def guarded(*args, **kwargs):
            try:
                return function(*args, **kwargs)
            except Exception as error:
                st.session_state[CALLBACK_ERROR_KEY] = (action, error)

        return guarded

    return decorate


def run_page(main, action="drawing this page"):
    """Run a page's ``main()`` inside :func:`error_boundary` and
    :func:`explorer.ui.charts.deferred_controls`."""
    leave_pages_directory_mode()
    memory.note_run()  # this tab is not idle; tabs idle too long lose their data
    st.session_state.pop(REST_OWED_KEY, None)  # a full run draws the whole page
    failed = st.session_state.pop(CALLBACK_ERROR_KEY, None)
    if failed is not None:
        show_error(failed[1], failed[0])
    with error_boundary(action), deferred_controls():
        main()
    freeze_long_lived_objects()  # this page's imports stay out of every later rerun's GC
