"""Class: one class session for the projector, the presenter and every student (issue 35).

The URL chooses the view (:mod:`explorer.ui.classroom`): ``?code=CODE`` a student
(join, vote in two rounds, after Reveal the step's controls and an exercise),
``?view=projector&code=CODE`` the room's screen, ``?view=presenter&code=CODE&key=KEY``
the lecturer's laptop.  Without a code: the join box and "Start a class".
"""

from __future__ import annotations

from explorer.ui import classroom, guard


def main():
    """Draw the view the URL names."""
    classroom.show()


guard.run_page(main)
