"""The cost of a chart: a table's points drawn as a PNG (adapters/charts.py), as the chat
adapters send it with a series, a breakdown or a ranking.

Prints one line per chart: p50 and p99 wall-clock time, the CPU time of the drawing thread
(what the chart costs the machine, whatever else runs on it) and the PNG's size; then the first
chart of a process (matplotlib and the fonts loaded), and one chart through `chart_for` (the
chart thread, from an event loop). Target (issue 17): a 20-point chart in <= 150 ms p50.

    python bench/bench_charts.py [--n 50]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchkit import quantile  # noqa: E402

from core.contracts.types import Answer, Line, Route, Table  # noqa: E402


def series(n: int, *, chinese: bool = False) -> Table:
    """n fiscal years of one metric, two of them without a figure (gaps in the line)."""
    points = tuple((f"FY{2026 - n + i}", None if i in (3, 11) else 700.0 + 37.5 * i)
                   for i in range(n))
    title = "中国收入（百万欧元）" if chinese else f"Orbis China revenue, last {n} years"
    return Table(kind="series", title=title, columns=(), rows=(), points=points,
                 unit="百万欧元" if chinese else "€M")


def ranking(n: int) -> Table:
    points = tuple((f"Orbis unit {i:02d}", 1200.0 - 55.5 * i) for i in range(n))
    return Table(kind="ranking", title=f"Revenue by entity, FY2025 (top {n})", columns=(),
                 rows=(), points=points, unit="€M")


def measure(table: Table, n: int) -> tuple[float, float, float, int]:
    """(p50 ms, p99 ms, CPU p50 ms, PNG bytes) over n renders after one warm-up."""
    from adapters.charts import render_chart

    png = render_chart(table)
    walls, cpus = [], []
    for _ in range(n):
        started, cpu = time.perf_counter(), time.thread_time()
        render_chart(table)
        cpus.append((time.thread_time() - cpu) * 1000)
        walls.append((time.perf_counter() - started) * 1000)
    return quantile(walls, 50), quantile(walls, 99), quantile(cpus, 50), len(png)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50, help="renders per chart")
    args = parser.parse_args()

    started = time.perf_counter()
    from adapters.charts import chart_for, font_families, render_chart

    render_chart(series(20))
    first_ms = (time.perf_counter() - started) * 1000

    print(f"fonts: {', '.join(font_families())}")
    print(f"{'chart':44} {'p50 ms':>8} {'p99 ms':>8} {'CPU p50':>8} {'PNG KB':>7}")
    for label, table in (("20-point series (en)", series(20)),
                         ("20-point series (zh labels)", series(20, chinese=True)),
                         ("5-point series (en)", series(5)),
                         ("20-bar ranking (en)", ranking(20))):
        p50, p99, cpu, size = measure(table, args.n)
        print(f"chart, {label:37} {p50:8.1f} {p99:8.1f} {cpu:8.1f} {size / 1024:7.1f}")
    print(f"first chart of a process (imports, fonts)   {first_ms:8.1f} ms")

    answer = Answer(turn_id="bench", route=Route.STRUCTURED, served_by="planner", text="",
                    segments=[Line("fact", "China revenue:"), series(20)])

    async def through_the_chart_thread() -> list[float]:
        await chart_for(answer, render_chart)  # warms the chart thread's fonts
        times = []
        for _ in range(args.n):
            t0 = time.perf_counter()
            await chart_for(answer, render_chart)
            times.append((time.perf_counter() - t0) * 1000)
        return times

    times = asyncio.run(through_the_chart_thread())
    print(f"chart_for (chart thread, from the loop): p50 {quantile(times, 50):.1f} ms")


if __name__ == "__main__":
    main()
