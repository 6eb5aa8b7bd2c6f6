"""FLDA dashboard entry point: ``streamlit run app.py``.

``streamlit run`` serves the ``st.App`` below (its lifespan warms the server up); every
visitor's run executes this file as a script (also under ``AppTest``).
"""

from contextlib import asynccontextmanager

import streamlit as st


def run():
    """One visitor's run: page configuration, shared controls, the chosen page."""
    from explorer.ui import navigation, serving, state, widgets

    # In presentation mode (?present=1) the sidebar starts collapsed: the figures get
    # the projector's full width, and the arrow at the top left still opens it.
    st.set_page_config(
        page_title="FLDA explorer",
        page_icon="🔀",
        layout="wide",
        initial_sidebar_state="collapsed" if state.presentation_mode() else "auto",
    )

    st.html(widgets.FOCUS_CSS)  # visible keyboard focus on every page (a constant)
    # Started (and finished) by the server's start under `streamlit run`; here for runs
    # without it (AppTest): the first visitor's Home shows while it imports.
    warm_up = serving.warm_up_imports()
    state.start_run()
    state.keep_widget_state()
    state.restore_from_url([state.Setting(state.SEED_KEY, 0, lo=0, hi=2**31 - 1)])
    with st.sidebar:
        st.number_input(
            "Random seed",
            min_value=0,
            max_value=2**31 - 1,
            step=1,
            key=state.SEED_KEY,
            help="Seed for every random draw on every page (synthetic data, splits, "
            "repeats). The same seed always reproduces the same numbers.",
        )
    state.write_to_url([state.Setting(state.SEED_KEY, 0)])
    state.keep_presentation_in_url()

    page = st.navigation(navigation.app_pages())
    if page.url_path:
        # Every page but Home imports those modules itself: let it find them loaded rather
        # than import them concurrently with the warm-up thread.
        warm_up.join()
    page.run()


if __name__ == "__main__":
    run()
else:  # imported by `streamlit run app.py` to serve the app

    @asynccontextmanager
    async def lifespan(app):
        """Server start (``serving.server_lifespan``); the modules holding Streamlit caches
        (``explorer.ui.caches``, ``explorer.ui.charts``) are imported there, once
        Streamlit's runtime exists, so that their caches attach to it."""
        async with serving.server_lifespan(app):
            yield

    from explorer.ui import serving  # no Streamlit cache in it

    # The chart element's plotly.js bundle and the typeset equations are served by this app.
    app = st.App(__file__, lifespan=lifespan, routes=serving.routes())
