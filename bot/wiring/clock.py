"""The clock of scheduled deliveries: the machine's, in UTC; in tests, a file's.

`RICORDA_TEST_CLOCK_FILE` (tests only, not a setting): a file holding an ISO time that the
scheduler and the subscription commands read as "now", so a test moves time forward by
writing it instead of waiting for Monday. Read nowhere else.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path

TEST_CLOCK = "RICORDA_TEST_CLOCK_FILE"


def delivery_clock() -> Callable[[], dt.datetime]:
    """The machine's clock in UTC; in tests, the time written in RICORDA_TEST_CLOCK_FILE."""
    path = os.environ.get(TEST_CLOCK)
    if not path:
        return lambda: dt.datetime.now(dt.UTC)
    clock_file = Path(path)

    def read() -> dt.datetime:
        return dt.datetime.fromisoformat(clock_file.read_text().strip()).astimezone(dt.UTC)

    return read
