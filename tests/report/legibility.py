"""Which texts of a figure are printed over each other (the "n=42n=8n=1" of a reliability
diagram whose bins are close): the texts the renderer really draws, as laid out."""

from __future__ import annotations

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.transforms import Bbox


def overlapping_texts(fig, *, min_px: float = 1.0) -> list[tuple[str, str]]:
    """Pairs of drawn texts whose boxes share more than ``min_px`` pixels each way.

    Only what the renderer draws counts: a tick label outside the axis limits is an artist
    but is never drawn, so it cannot hide anything."""
    FigureCanvasAgg(fig)
    renderer = fig.canvas.get_renderer()
    drawn = []
    draw_text = renderer.draw_text

    def record(gc, x, y, s, prop, angle, ismath=False, mtext=None):
        if mtext is not None and s.strip():
            drawn.append(mtext)
        return draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)

    renderer.draw_text = record
    fig.draw(renderer)
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in dict.fromkeys(drawn)]
    hits = []
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            both = Bbox.intersection(box_a, box_b)
            if both is not None and both.width > min_px and both.height > min_px:
                hits.append((a, b))
    return hits
