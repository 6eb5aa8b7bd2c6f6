"""Streamlit helpers of the dashboard: the only package (with pages/ and app.py) that imports
streamlit.  One concern per module: ``state`` (URL and session state, seed, presentation
mode), ``widgets`` (shared controls), ``domain_controls`` (the synthetic domains' settings),
``caches`` (shared caches and fits), ``charts`` (every chart, the equations panel, the notes
on the paper), ``chart`` (the chart element; imports nothing of the project),
``equations`` (the typeset formulas), ``guard`` (the error boundary and ``run_page``),
``tables`` (number columns, CSV downloads), ``navigation`` (the page list for
``st.navigation``, page links, the pages-directory fix) and ``serving`` (the server: routes,
start-up, warm-up, GC freezing, ``TCP_NODELAY``).  The page list itself is
:mod:`explorer.registry`."""
