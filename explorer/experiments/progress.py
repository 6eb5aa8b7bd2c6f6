"""The one progress signature every experiment entry point accepts.

``progress(fraction, text)`` is called with ``fraction`` in [0, 1] (the share
of the work done) and a short sentence saying what runs next, e.g.
``progress(0.5, "Fitting FLDA-Q (4/6)")``; the last call is
``progress(1.0, "Done")``.  A Streamlit page passes the ``progress`` method of
an ``st.progress`` bar (see ``explorer.ui.widgets.progress_bar``); tests pass a list's
``append``; ``None`` means no reporting.
"""

from __future__ import annotations

import time

#: Shortest time between two updates a progress bar shows (seconds, :func:`throttled`).
UPDATE_INTERVAL_S = 0.1


def report(progress, done, total, text):
    """Call ``progress(done / total, text)`` unless ``progress`` is None."""
    if progress is not None:
        progress(done / total if total else 1.0, text)


def finish(progress):
    """Call ``progress(1.0, "Done")`` unless ``progress`` is None."""
    if progress is not None:
        progress(1.0, "Done")


def scaled(progress, start, stop):
    """``progress`` of a sub-task that covers ``[start, stop]`` of the whole work.

    Its fractions are mapped into that interval and its final ``"Done"`` is
    dropped (the caller reports its own), so an entry point can chain
    several experiments behind one progress bar.
    """
    if progress is None:
        return None

    def sub(fraction, text):
        if not (fraction >= 1.0 and text == "Done"):
            progress(start + fraction * (stop - start), text)

    return sub


def throttled(progress, interval=UPDATE_INTERVAL_S, clock=time.monotonic):
    """``progress`` called at most once per ``interval`` seconds, none in the first.

    Each update of a progress bar is a message from the server to the browser.
    Transfer parameters' sweep reports each of its 45 fits; read from the cache
    they take about 30 ms, and their 45 messages cost the server more than the
    sweep itself when a class shares it.  Work shorter than ``interval`` now sends
    none; longer work still moves the bar ten times a second.  The last report
    before a pause is not replayed: the bar shows the latest one that passed.
    """
    last = [clock()]

    def update(fraction, text):
        now = clock()
        if now - last[0] >= interval:
            last[0] = now
            progress(fraction, text)

    return update
