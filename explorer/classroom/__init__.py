"""A class in the room (issue 35): one class session shared by the lecturer's
presenter view, the projector and every student's device.

``codes`` makes and checks join codes, lecturer keys and student ids; ``store`` keeps
the sessions, votes and solves in one SQL database (SQLite in WAL mode in the cache
folder by default, any SQLAlchemy URL with ``FLDA_CLASS_DB_URL``) shared by every
server process.  Nothing here imports streamlit: the views are in
``explorer.ui.classroom`` and ``pages/classroom.py``.
"""
