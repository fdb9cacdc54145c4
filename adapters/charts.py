"""Charts of computed tables (a series, a breakdown, a ranking) as PNG images, for the chat
adapters to send beside the table.

Drawn with matplotlib's object-oriented API on the Agg canvas (no pyplot and its global figure
list), under one lock: matplotlib's font caches and text layout are shared by every figure, so
two charts are drawn one after the other, never at once. matplotlib is imported on the first
chart, so a bot with charts off never loads it. `chart_for` draws on its own worker thread, off the
event loop, and turns any failure into "no chart": the answer then goes out as text alone.
"""

from __future__ import annotations

import asyncio
import io
import logging
import math
import threading
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from core.contracts.types import Answer, Table

if TYPE_CHECKING:
    from matplotlib.axes import Axes

log = logging.getLogger("ricorda.charts")

MIN_POINTS = 2  # a chart of one number says nothing the table does not
SIZE_INCHES = (8.0, 4.5)
DPI = 120  # 960 x 540 pixels: sharp on a phone, small enough to upload at once
PNG_COMPRESSION = 1
MAX_VALUE_LABELS = 12  # values written beside their points or bars, up to this many
CHAR_PX = 8.5  # the width of a 9-point label character at DPI, on average
LINE_COLOUR = "#1f5fa8"
BAR_COLOUR = "#3a7bd5"
NEGATIVE_COLOUR = "#c0392b"
# fonts with Chinese glyphs, best first; matplotlib falls back to them glyph by glyph after
# DejaVu Sans (which draws Latin, digits and "€" better), so one label may mix both
CJK_FAMILIES = (
    "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN",
    "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Droid Sans Fallback", "Noto Sans CJK JP",
    "Microsoft YaHei", "PingFang SC", "Hiragino Sans GB", "SimHei", "Heiti SC",
    "Arial Unicode MS",
)
# font files worth registering when matplotlib's cached font list predates their install
_CJK_FILE_HINTS = ("wqy", "notosanscjk", "notoserifcjk", "sourcehan", "droidsansfallback",
                   "notosanssc", "msyh", "simhei", "pingfang", "arialuni")
_LOCK = threading.Lock()
# one thread draws every chart: never the event loop, never the core worker (an answer is not
# kept waiting behind a chart), and always the same thread, whose font cache stays warm
# (matplotlib caches loaded fonts per thread)
_WORKER = ThreadPoolExecutor(1, thread_name_prefix="ricorda-chart")
_warned_no_cjk = False

ChartRenderer = Callable[[Table], bytes]


def chart_table(answer: Answer) -> Table | None:
    """The answer's first table with at least MIN_POINTS plotted values, if any."""
    for segment in answer.segments:
        if isinstance(segment, Table) and plotted(segment) >= MIN_POINTS:
            return segment
    return None


def plotted(table: Table) -> int:
    """How many of the table's points have a value a chart can draw."""
    return sum(1 for _, value in table.points if _finite(value))


async def chart_for(answer: Answer, render: ChartRenderer | None
                    ) -> tuple[Table, bytes] | None:
    """(table, PNG) for the answer's chart, drawn on a worker thread; None when charts are off,
    when the answer has nothing to plot, or when drawing failed (logged: the answer is sent
    without its chart, never held back by it)."""
    table = chart_table(answer) if render is not None else None
    if table is None or render is None:
        return None
    try:
        png = await asyncio.get_running_loop().run_in_executor(_WORKER, render, table)
    except Exception as exc:  # a chart is an extra: any failure leaves the text answer
        log.warning("chart for turn %s not drawn: %s: %s", answer.turn_id,
                    exc.__class__.__name__, exc)
        return None
    return table, png


def warm_up(timeout: float = 60.0) -> None:
    """Load matplotlib and the fonts on the chart thread, and draw one chart: the first chart
    of a process otherwise costs a second more than the next ones. Raises what drawing
    raised (the caller logs it: charts then fail one by one, answers still go out)."""
    sample = Table(kind="series", title="预热 warm-up", columns=(), rows=(),
                   points=(("FY2024", 1.0), ("FY2025", 2.0)), unit="€M")
    _WORKER.submit(render_chart, sample).result(timeout)


def render_chart(table: Table) -> bytes:
    """The table's points as a PNG: a line (gaps where a period has no figure) for a series,
    horizontal bars for a breakdown, a ranking or a comparison; the title above, the unit on
    the value axis. Raises ValueError when there is nothing to plot."""
    if plotted(table) < 1:
        raise ValueError("a chart needs at least one plotted value")
    with _LOCK:
        return _render(table)


def _render(table: Table) -> bytes:
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    style = {
        # a list, not "sans-serif": matplotlib falls back glyph by glyph only along this list
        "font.family": list(font_families() if _needs_cjk(table) else font_families()[:1]),
        "text.parse_math": False,  # "$" in a label ("US$") is text, not the start of TeX
        "text.usetex": False,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.titlesize": 13,
        "axes.titleweight": "normal",  # CJK fonts often have no bold face: no fallback warning
        "axes.labelsize": 10,
        "xtick.labelsize": 9,
        "ytick.labelsize": 9,
    }
    with rc_context(style), warnings.catch_warnings():
        # a glyph no installed font has is drawn as a box; once is enough to say so (below)
        warnings.filterwarnings("ignore", message=r"Glyph .* missing from")
        fig = Figure(figsize=SIZE_INCHES, dpi=DPI)
        FigureCanvasAgg(fig)
        draw(fig, table)
        out = io.BytesIO()
        # light compression: a quarter of the encoding time for a file a third larger
        fig.savefig(out, format="png", dpi=DPI, metadata={"Software": None},
                    pil_kwargs={"compress_level": PNG_COMPRESSION})
    return out.getvalue()


def compact_png(png: bytes) -> bytes:
    """The chart in 32 colours (a chart has fewer): about a fifth of matplotlib's PNG, for a
    platform that carries images inside its message size limit (Teams' cards)."""
    from PIL import Image

    out = io.BytesIO()
    with Image.open(io.BytesIO(png)) as image:
        image.convert("RGB").quantize(colors=32).save(out, "PNG", optimize=True)
    return out.getvalue()


def draw(fig: Any, table: Table) -> None:
    """The table's chart on `fig` (what `render_chart` saves; a test reads it back)."""
    ax = fig.add_subplot()
    if table.kind == "series":
        _series(ax, table)
    elif table.groups:
        _grouped_bars(ax, table)
    else:
        _bars(ax, table)
    if table.title:
        # a fixed position: finding one clear of the ticks costs a layout pass
        ax.set_title(table.title, loc="left", y=1.03)
    _margins(fig, table)


def _series(ax: Axes, table: Table) -> None:
    labels = [label for label, _ in table.points]
    values = [v if _finite(v) else math.nan for _, v in table.points]
    xs = list(range(len(values)))
    ax.plot(xs, values, color=LINE_COLOUR, linewidth=2, marker="o", markersize=5)
    step = _label_step(table)  # every period is in the table; the axis names enough of them
    _axis_labels(ax, "x", xs[::step], labels[::step])
    if len(values) <= MAX_VALUE_LABELS:  # each value written at its point, when they fit
        for x, v in zip(xs, values, strict=True):
            if not math.isnan(v):
                ax.annotate(number(v), (x, v), textcoords="offset points", xytext=(0, 7),
                            ha="center", fontsize=8, color="#333333")
    missing = [x for x, v in zip(xs, values, strict=True) if math.isnan(v)]
    for x in missing:  # a gap is shown as a gap, marked on the axis, never as a zero
        ax.axvline(x, color="#bbbbbb", linestyle=":", linewidth=1)
    ax.set_ylabel(table.unit)
    ax.grid(axis="y", color="#e5e5e5")
    ax.yaxis.set_major_formatter(_axis_formatter())
    ax.margins(x=0.04, y=0.15)


def _bars(ax: Axes, table: Table) -> None:
    labels = [label for label, _ in table.points]
    values = [v if _finite(v) else 0.0 for _, v in table.points]
    ys = list(range(len(values)))
    colours = [NEGATIVE_COLOUR if v < 0 else BAR_COLOUR for v in values]
    ax.barh(ys, values, color=colours, height=0.6)
    _axis_labels(ax, "y", ys, labels)
    ax.invert_yaxis()  # the first row (the top of a ranking) at the top
    span = max(abs(v) for v in values) or 1.0
    for y, (_, raw), v in zip(ys, table.points, values, strict=True):
        if len(values) > MAX_VALUE_LABELS:  # beyond a dozen, the grid reads them
            break
        text = number(v) if _finite(raw) else "–"
        gap = span * 0.01 if v >= 0 else -span * 0.01
        ax.text(v + gap, y, text, ha="left" if v >= 0 else "right", va="center", fontsize=8,
                color="#333333")
    if any(v < 0 for v in values):
        ax.axvline(0, color="#666666", linewidth=0.8)
    ax.set_xlabel(table.unit)
    ax.grid(axis="x", color="#e5e5e5")
    ax.set_axisbelow(True)
    ax.xaxis.set_major_formatter(_axis_formatter())
    ax.set_xlim(min(0.0, min(values)) - span * (0.15 if min(values) < 0 else 0),
                max(0.0, max(values)) + span * 0.15)


def _grouped_bars(ax: Axes, table: Table) -> None:
    """A breakdown over several periods: for each member, one bar per period (every period
    charted, a legend naming them), from zero; a period with no figure is an empty slot."""
    members = list(dict.fromkeys(label for label, _ in table.points))
    periods = list(dict.fromkeys(table.groups))
    width = 0.8 / max(1, len(periods))
    value = {(label, group): v for (label, v), group in zip(table.points, table.groups,
                                                            strict=True)}
    colours = _palette(len(periods))
    for j, period in enumerate(periods):
        ys = [i - 0.4 + width * (j + 0.5) for i in range(len(members))]
        vals = [value.get((m, period)) for m in members]
        ax.barh([y for y, v in zip(ys, vals, strict=True) if _finite(v)],
                [v for v in vals if v is not None and _finite(v)], height=width * 0.9,
                color=colours[j], label=period)
    _axis_labels(ax, "y", list(range(len(members))), members)
    ax.invert_yaxis()
    drawn = [v for v in value.values() if v is not None and _finite(v)]
    span = max((abs(v) for v in drawn), default=1.0) or 1.0
    if any(v < 0 for v in drawn):
        ax.axvline(0, color="#666666", linewidth=0.8)
    ax.set_xlabel(table.unit)
    ax.grid(axis="x", color="#e5e5e5")
    ax.set_axisbelow(True)
    ax.xaxis.set_major_formatter(_axis_formatter())
    ax.set_xlim(min([0.0, *drawn]) - span * (0.05 if min([0.0, *drawn]) < 0 else 0),
                max([0.0, *drawn]) + span * 0.08)
    ax.legend(loc="lower right", fontsize=8, frameon=False)


def _palette(n: int) -> list[str]:
    """`n` shades of the bar colour, oldest period lightest."""
    from matplotlib.colors import to_rgb

    base = to_rgb(BAR_COLOUR)
    out = []
    for i in range(n):
        mix = 0.65 * (1 - (i + 1) / n)  # the last period in the bar colour itself
        out.append("#" + "".join(f"{int(255 * (c + (1 - c) * mix)):02x}" for c in base))
    return out


def _axis_labels(ax: Axes, axis: str, positions: list[int], labels: list[str]) -> None:
    """Category names along an axis as plain text beside it: matplotlib's ticks would do the
    same, but each tick is a handful of objects laid out again at every draw, and a chart's
    20 ticks cost more than the rest of it."""
    if axis == "x":
        ax.set_xticks([])
        transform = ax.get_xaxis_transform()  # x in data, y in axes units
        for x, label in zip(positions, labels, strict=True):
            ax.text(x, -0.025, label, transform=transform, ha="center", va="top", fontsize=9)
    else:
        ax.set_yticks([])
        transform = ax.get_yaxis_transform()  # x in axes units, y in data
        for y, label in zip(positions, labels, strict=True):
            ax.text(-0.015, y, label, transform=transform, ha="right", va="center",
                    fontsize=9)


def _margins(fig: Any, table: Table) -> None:
    """Room for the labels, estimated from their length: matplotlib's tight layout would do
    it exactly but draws the whole figure once more, a third of a chart's cost."""
    longest = max((_text_width(label) for label, _ in table.points), default=0)
    width_px = SIZE_INCHES[0] * DPI
    if table.kind == "series":
        fig.subplots_adjust(left=0.1, right=0.97, top=0.88, bottom=0.1)
    else:
        left = min(0.45, 0.03 + (min(longest, 40) * CHAR_PX + 16) / width_px)
        fig.subplots_adjust(left=left, right=0.96, top=0.88, bottom=0.12)


def _label_step(table: Table) -> int:
    """Every n-th period is named on the axis, so that the names fit side by side (a
    series of 20 years names every other one): horizontal, readable, and half the text to
    draw, which is most of a chart's cost."""
    longest = max((_text_width(label) for label, _ in table.points), default=0)
    room = SIZE_INCHES[0] * DPI * 0.85
    return max(1, math.ceil(len(table.points) * (longest + 2) * CHAR_PX / room))


def _needs_cjk(table: Table) -> bool:
    """Whether any text drawn is beyond what DejaVu Sans has (Chinese): the fallback font is
    asked for only then, as looking a glyph up in two fonts slows every label down."""
    texts = [table.title, table.unit, *(label for label, _ in table.points)]
    return any(ord(ch) >= 0x2E80 for text in texts for ch in text)


def _text_width(text: str) -> int:
    """Width in Latin characters: a CJK character is about two."""
    return sum(2 if "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" else 1
               for ch in text)


def number(value: float) -> str:
    """A value as a chart label: thousands separated, one decimal below 100."""
    if abs(value) >= 100 or value == int(value):
        return f"{value:,.0f}"
    return f"{value:,.1f}"


def _axis_formatter() -> Any:
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda v, _pos: number(v))


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


@lru_cache(maxsize=1)
def font_families() -> tuple[str, ...]:
    """DejaVu Sans, then the first installed font with Chinese glyphs. Only installed
    families are named: matplotlib logs a warning for every missing one it is asked for.
    Without any, Chinese labels are drawn as boxes and this is said once in the log."""
    global _warned_no_cjk
    from matplotlib import font_manager

    cjk = _installed_cjk(font_manager)
    if cjk is None:
        _register_cjk_files(font_manager)  # a font installed after matplotlib's cache was built
        cjk = _installed_cjk(font_manager)
    if cjk is None:
        if not _warned_no_cjk:
            log.warning("no font with Chinese glyphs found: Chinese chart labels show as boxes "
                        "(install fonts-wqy-microhei or fonts-noto-cjk)")
            _warned_no_cjk = True
        return ("DejaVu Sans",)
    return ("DejaVu Sans", cjk)


def _installed_cjk(font_manager: Any) -> str | None:
    installed = {f.name for f in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FAMILIES if name in installed), None)


def _register_cjk_files(font_manager: Any) -> None:
    for path in _cjk_files(font_manager.findSystemFonts()):
        try:
            font_manager.fontManager.addfont(path)
        except (OSError, RuntimeError, ValueError) as exc:
            log.info("font %s not usable: %s", path, exc.__class__.__name__)


def _cjk_files(paths: Sequence[str]) -> list[str]:
    return [p for p in paths
            if any(hint in p.lower().replace("-", "").replace("_", "") for hint in
                   _CJK_FILE_HINTS)]
