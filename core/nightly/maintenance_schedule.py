"""When the nightly maintenance runs next: pure time arithmetic, the clock passed in.

The job runs at a local wall-clock time (`maintenance_time`, "03:30") in the bot's zone. On a
daylight-saving change the wall time may not exist (spring forward) or exist twice (fall back):
the next run is the first instant at or after it, so the job runs once that night either way.
"""

from __future__ import annotations

import datetime as dt
import re

_HHMM = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


def parse_time(value: str) -> dt.time:
    """"03:30" -> 03:30; ValueError for anything else."""
    match = _HHMM.match(value.strip())
    if match is None:
        raise ValueError(f"maintenance time {value!r} is not HH:MM (00:00-23:59)")
    return dt.time(int(match.group(1)), int(match.group(2)))


def next_run(now: dt.datetime, at: dt.time, tz: dt.tzinfo | None = None) -> dt.datetime:
    """The first moment strictly after `now` whose local time (in `tz`, default `now`'s own
    zone) is `at`, as an aware datetime."""
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    zone = tz or now.tzinfo
    local = now.astimezone(zone)
    day = local.date()
    for _ in range(3):
        candidate = _at_local(day, at, zone)
        if candidate > now:
            return candidate
        day += dt.timedelta(days=1)
    raise AssertionError("unreachable: a day later is always after now")  # pragma: no cover


def _at_local(day: dt.date, at: dt.time, zone: dt.tzinfo) -> dt.datetime:
    """`day` at `at` in `zone`; a wall time skipped by a DST jump maps past the gap."""
    naive = dt.datetime.combine(day, at)
    aware = naive.replace(tzinfo=zone, fold=0)
    round_trip = aware.astimezone(dt.UTC).astimezone(zone).replace(tzinfo=None)
    if round_trip != naive:  # inside a spring-forward gap: the first valid instant after it
        return aware.astimezone(dt.UTC).astimezone(zone)
    return aware
