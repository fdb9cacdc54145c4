"""The disclosure property of tests/test_disclosure_property.py, run longer: many random
knowledge bases (hierarchies, fiscal year ends, periods stored, missing cells, central costs),
each checked exactly for a restricted figure an uncleared chat could work out.

    python bench/bench_disclosure_property.py --examples 5000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, settings

from tests.disclosure_model import World, disclosed, worlds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    checked = [0]

    @settings(max_examples=args.examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(worlds())
    def check(world: World) -> None:
        checked[0] += 1
        found = disclosed(world)
        assert found == [], f"restricted cells determined: {found}\n{world}"

    start = time.perf_counter()
    import random

    random.seed(args.seed)
    check()
    print(f"{checked[0]} knowledge bases checked in {time.perf_counter() - start:.1f} s: "
          "no restricted figure can be worked out by an uncleared chat")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
