"""The join QR code, drawn here as SVG with ``segno`` (no network, no image service)."""

from __future__ import annotations

import io

__all__ = ["qr_svg"]


def qr_svg(url, scale=6):
    """An SVG (text) of a QR code holding ``url`` (error correction M, dark on white, a
    quiet zone of 4 modules, as scanners expect)."""
    import segno

    buffer = io.BytesIO()
    segno.make(url, error="m", micro=False).save(
        buffer, kind="svg", scale=scale, dark="#000000", light="#ffffff", border=4, xmldecl=False
    )
    return buffer.getvalue().decode("utf-8")
