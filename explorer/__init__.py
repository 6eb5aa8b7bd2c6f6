"""explorer: the FLDA dashboard's own code, beside the library ``flda_core``.

The dependency goes one way: ``explorer`` uses ``flda_core``, never the reverse.

* ``explorer.data``: the data sets the pages use (offline digit stand-in, OpenML
  MNIST/USPS, the UCI sets in ``sample_data/``, skada's benchmark fetchers) and the
  readers of uploaded CSV files, with their memory limits.
* ``explorer.experiments``: one module per experiment of the paper, each with an
  entry point that returns a result the figures and captions read.
* ``explorer.figures``: plotly figure builders, one style, export.
* ``explorer.teaching``: captions computed from results, notes on the paper, the
  equations, the lesson.
* ``explorer.ui``: the only part that imports streamlit: state (URL and session),
  widgets, charts, errors, downloads, the page registry and the server start-up.

Only ``explorer.ui``, ``pages/`` and ``app.py`` import streamlit.
"""
