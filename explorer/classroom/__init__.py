"""A class in the room (issues 35, 40-42): one class session shared by the lecturer's
presenter, the projector and every student's device.

``codes`` makes and checks join codes, lecturer keys, screen tokens and signed device
cookies; ``stages`` is the stage machine one "advance" key walks; ``store`` keeps classes,
seats, votes and rounds in one SQL database shared by every server process (SQLite in WAL
mode in ``$FLDA_DATA_DIR``, default ``~/.local/share/flda``, or any SQLAlchemy URL with
``FLDA_CLASS_DB_URL``).  Nothing here imports streamlit: the students' routes are in
``explorer.ui.class_routes``, the projector and presenter in ``explorer.ui.class_lecture``
and ``explorer.ui.presenter``.
"""
