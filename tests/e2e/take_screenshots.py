"""Regenerate the README screenshots: ``python3 tests/e2e/take_screenshots.py``.

Starts ``streamlit run app.py`` headless on a free port, opens every page in
Debian's Chromium (1280 px wide, the window grown to the page's full height),
does what a visitor does first on pages that start empty (loads a sample on
"Your data"), and writes ``docs/screenshots/<page>.png`` in the light theme,
plus ``docs/screenshots/<page>-dark.png`` in the dark theme for the pages in
``--dark-pages`` (the browser reports a dark system preference, which the app
follows).  PNGs above ``--max-kb`` are reduced to a 256-colour palette (which
bands colour scales, so keep pages under the limit where possible).

Options: ``--out DIR``, ``--pages synthetic transfer``, ``--dark-pages all``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import e2e_harness as h  # noqa: E402


def shrink_png(path, max_kb):
    """Re-save ``path`` optimised; fall back to a 256-colour palette if still too big."""
    from PIL import Image

    image = Image.open(path).convert("RGB")
    image.save(path, optimize=True)
    if path.stat().st_size > max_kb * 1024:
        image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
            path, optimize=True
        )
    return path.stat().st_size


#: Presentation mode on a 1920 x 1080 projector: (URL path and query, file name).
PRESENTATION_SHOTS = (
    ("synthetic?present=1", "presentation-synthetic"),
    ("transfer?present=1&delta_1=0.2", "presentation-transfer"),
)


def capture(browser, server, spec, theme, path, url_path=None, width=h.VIEWPORT["width"]):
    context = h.new_context(browser, color_scheme=theme)
    try:
        page = context.new_page()
        if width != h.VIEWPORT["width"]:
            page.set_viewport_size({"width": width, "height": 1080})
        tracker = h.RunTracker(page)
        h.open_page(page, tracker, f"{server.url}/{url_path or spec.path}")
        if spec is not None and spec.prepare:
            spec.prepare(page, tracker)
        errors = h.error_texts(page)
        if spec is None:  # what the projector shows: one 1920 x 1080 screen
            page.mouse.move(width - 1, 1)
            page.screenshot(path=str(path), animations="disabled", caret="hide")
        else:
            h.full_page_screenshot(page, tracker, path, width=width)
        return errors
    finally:
        context.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=h.ROOT / "docs" / "screenshots")
    parser.add_argument(
        "--dark-pages",
        nargs="*",
        default=["synthetic"],
        choices=["all"] + [s.slug for s in h.PAGES],
        help="pages also captured in the dark theme (default: synthetic)",
    )
    parser.add_argument(
        "--pages", nargs="+", default=[s.slug for s in h.PAGES], choices=[s.slug for s in h.PAGES]
    )
    parser.add_argument("--max-kb", type=int, default=600)
    parser.add_argument(
        "--presentation",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also capture presentation mode at 1920 x 1080",
    )
    args = parser.parse_args(argv)
    if not h.chromium_available():
        sys.exit(h.SKIP_NO_CHROMIUM)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sys.exit(h.SKIP_NO_PLAYWRIGHT)

    args.out.mkdir(parents=True, exist_ok=True)
    log = Path(tempfile.gettempdir()) / "flda-screenshots-streamlit.log"
    server = h.StreamlitServer(log_path=log)
    failed = []
    try:
        with sync_playwright() as playwright:
            browser = h.launch_chromium(playwright)
            for spec in (s for s in h.PAGES if s.slug in args.pages):
                themes = ["light"]
                if "all" in args.dark_pages or spec.slug in args.dark_pages:
                    themes.append("dark")
                for theme in themes:
                    name = spec.slug + ("" if theme == "light" else f"-{theme}")
                    path = args.out / f"{name}.png"
                    start = time.monotonic()
                    errors = capture(browser, server, spec, theme, path)
                    size = shrink_png(path, args.max_kb)
                    print(
                        f"{path.relative_to(h.ROOT) if path.is_relative_to(h.ROOT) else path}"
                        f"  {size / 1024:.0f} KB  {time.monotonic() - start:.1f} s"
                        + (f"  ERROR BOX: {errors}" if errors else "")
                    )
                    if errors:
                        failed.append(name)
            if args.presentation:
                for url_path, name in PRESENTATION_SHOTS:
                    path = args.out / f"{name}.png"
                    errors = capture(browser, server, None, "light", path, url_path, 1920)
                    size = shrink_png(path, args.max_kb)
                    print(f"{name}.png  {size / 1024:.0f} KB" + (f"  ERROR BOX: {errors}" if errors else ""))
                    if errors:
                        failed.append(name)
            browser.close()
    finally:
        server.stop()
    if failed:
        sys.exit(f"pages showing an error box: {failed} (server log: {log})")


if __name__ == "__main__":
    main()
