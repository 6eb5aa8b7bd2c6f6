"""The page registry (``explorer.registry``) is the one page list: it names every page file
once, and the navigation, Home and the lesson all follow it."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

from explorer import registry
from explorer.registry import HOME, PAGES
from explorer.teaching import lesson

ROOT = Path(__file__).resolve().parents[2]


def test_the_registry_lists_every_page_file_once():
    scripts = [page.script for page in PAGES]
    assert sorted(scripts) == sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))
    assert len(set(scripts)) == len(scripts)
    assert len({page.title for page in PAGES}) == len(PAGES)


def test_every_page_has_its_url_path_a_title_an_icon_and_but_home_a_blurb():
    assert HOME is PAGES[0] and HOME.default and HOME.url_path == ""
    for page in PAGES[1:]:
        assert not page.default
        # Streamlit's default for a page file: links and bookmarks keep working
        assert page.url_path == Path(page.script).stem, page.script
        assert page.blurb.endswith(")") or page.blurb.endswith("."), page.script
        assert len(page.blurb) > 60, page.script
    for page in PAGES:
        assert page.title and page.icon.startswith(":material/"), page.script
        assert registry.page(page.script) is page
        assert registry.url_path(page.script) == page.url_path
    assert "Table 3" in registry.page("pages/real_data.py").blurb


def test_the_app_folders_are_next_to_app_py():
    assert (registry.APP_DIR / "app.py").is_file()
    assert registry.PAGES_DIR == registry.APP_DIR / "pages"
    assert (registry.SAMPLE_DIR / "README.md").is_file()


def test_the_navigation_declares_the_registry_pages(monkeypatch):
    """``app.py``'s ``st.navigation`` gets one ``st.Page`` per registry entry, in order."""
    from explorer.ui import navigation

    made = []
    app_pages = navigation.app_pages
    monkeypatch.setattr(navigation, "app_pages", lambda: made.append(app_pages()) or made[-1])
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    assert made, "app.py did not take its pages from navigation.app_pages"
    declared = [
        (Path(page._page).relative_to(ROOT).as_posix(), page.title, page.icon, page.url_path, page._default)
        for page in made[0]
    ]
    assert declared == [(page.script, page.title, page.icon, page.url_path, page.default) for page in PAGES]


def test_home_links_to_every_page_with_its_blurb():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    links = [(link.proto.page, link.proto.label, link.proto.icon) for link in at.get("page_link")]
    assert links == [(page.url_path, page.title, page.icon) for page in PAGES if not page.default]
    captions = [caption.value for caption in at.caption]
    for page in PAGES[1:]:
        assert page.blurb in captions, page.title


def test_the_lesson_reads_the_url_paths_from_the_registry():
    assert registry.url_path("pages/lesson.py") == lesson.LESSON_URL_PATH
    assert {page.script: page.url_path for page in PAGES[1:]} == lesson.PAGE_URL_PATHS
    for lesson_step in lesson.LESSON_STEPS:
        url = lesson.full_page_url(lesson_step)
        assert url.startswith(registry.url_path(lesson_step.page) + "?"), url
