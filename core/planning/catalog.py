"""The executor catalog of one application: the built-in tools plus the composite executors
(macros) that admins approved from recurring multi-step plans (design section 4.4).

A catalog is built per application and passed in, never a module global, so two applications
in one process (or one test and the next) never see each other's macros. Composite executors
live in the database (`storage.promotion_store`); the catalog reloads them at most every
`refresh_seconds`, so a macro approved or retired on another replica is seen here soon after.

`complete` says whether every composite could be read: maintenance lets plans die for a missing
tool only when it is True (a database hiccup must not look like a retired executor).
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from core.contracts.composites import CompositeSpec
from core.contracts.errors import RicordaError, Unresolvable
from core.figures.step_context import ExecutionContext
from core.planning.executors import BUILTIN, ExecutionState, Executor, resolve_args
from core.planning.plan import Plan

log = logging.getLogger("ricorda.catalog")

_NAME = re.compile(r"^[a-z][a-z0-9_]{2,63}$")


def macro_plan(spec: CompositeSpec, plan: Plan) -> Plan:
    """The one-step plan naming the macro `spec`, keeping the request's shape and intent."""
    return Plan(
        route=plan.route,
        steps=[{"tool": spec.name, "args": {}}],
        shape=dict(plan.shape),
        assumed=list(plan.assumed),
        query_specific=plan.query_specific,
        intent=plan.intent,
    )


def valid_name(name: str) -> bool:
    return bool(_NAME.match(name))


def macro_name(intent: str, framework_hash: str) -> str:
    """A readable default name: `macro_composite_revenue_3f2a1c`."""
    slug = re.sub(r"[^a-z0-9]+", "_", intent.casefold()).strip("_")[:40] or "plan"
    return f"macro_{slug}_{framework_hash[:6]}"


class Catalog(Mapping[str, Executor]):
    """Name -> executor for one application; thread-safe; a read-only Mapping to `execute`."""

    def __init__(
        self,
        builtins: Mapping[str, Executor] = BUILTIN,
        *,
        composites: Callable[[], Iterable[CompositeSpec]] | None = None,
        refresh_seconds: float = 30.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._builtins = dict(builtins)
        self._load = composites
        self._refresh_seconds = refresh_seconds
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._tools: dict[str, Executor] = dict(self._builtins)
        self._specs: dict[str, CompositeSpec] = {}
        self._by_steps: dict[tuple[str, str], CompositeSpec] = {}
        self._loaded_at: float | None = None
        self.complete = composites is None
        # moves whenever the approved macros change: a plan made before is then made again
        self.generation = 0

    # -- Mapping -------------------------------------------------------------------------------

    def __getitem__(self, name: str) -> Executor:
        return self._current()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._current())

    def __len__(self) -> int:
        return len(self._current())

    # -- composites ----------------------------------------------------------------------------

    @property
    def builtin_names(self) -> frozenset[str]:
        return frozenset(self._builtins)

    def composites(self) -> list[CompositeSpec]:
        self._current()
        return sorted(self._specs.values(), key=lambda s: s.name)

    def reload(self) -> bool:
        """Read the composites now; False (and `complete` False) when they cannot be read."""
        if self._load is None:
            return True
        try:
            specs = list(self._load())
        except RicordaError as exc:
            log.warning("cannot load the composite executors: %s", exc)
            with self._lock:
                self.complete = False
                self._loaded_at = self._monotonic()
            return False
        self._install(specs)
        return True

    def substitute(self, plan: Plan) -> Plan:
        """The macro plan when an approved macro has exactly this plan's steps, else the plan.

        Query-specific plans hold literals from the question the macro does not: never."""
        if plan.query_specific or len(plan.steps) < 2:
            return plan
        self._current()
        spec = self._by_steps.get((_steps_key(plan.steps), plan.framework_hash()))
        if spec is None or spec.intent != plan.intent:
            return plan
        return macro_plan(spec, plan)

    # -- internals -----------------------------------------------------------------------------

    def _current(self) -> dict[str, Executor]:
        if self._load is not None:
            loaded_at = self._loaded_at
            if loaded_at is None or self._monotonic() - loaded_at >= self._refresh_seconds:
                self.reload()
        return self._tools

    def _install(self, specs: list[CompositeSpec]) -> None:
        tools = dict(self._builtins)
        by_name: dict[str, CompositeSpec] = {}
        for spec in specs:
            if spec.name in self._builtins:
                log.warning("composite %s shadows a built-in tool; ignored", spec.name)
                continue
            by_name[spec.name] = spec
        for spec in by_name.values():
            missing = [s["tool"] for s in spec.steps if s["tool"] not in tools]
            if missing:  # a built-in it needs is gone: the macro cannot run
                log.warning("composite %s needs missing tools %s; not loaded", spec.name, missing)
                continue
            tools[spec.name] = Executor(
                spec.name,
                _macro_runner(spec, tools),
                cacheable=all(tools[s["tool"]].cacheable for s in spec.steps),
            )
        loaded = {n: s for n, s in by_name.items() if n in tools}
        with self._lock:
            by_steps = {(_steps_key(s.steps), s.framework_hash): s for s in loaded.values()}
            if by_steps != self._by_steps or set(tools) != set(self._tools):
                self.generation += 1
            self._tools = tools
            self._specs = loaded
            self._by_steps = by_steps
            self._loaded_at = self._monotonic()
            self.complete = True


def _macro_runner(
    spec: CompositeSpec, tools: Mapping[str, Executor]
) -> Callable[[dict[str, Any], ExecutionContext, ExecutionState], None]:
    """Resolve every inner step against the current request first (Unresolvable before any
    tool runs, as `execute` does), then run them on the shared state."""

    def run(args: dict[str, Any], ctx: ExecutionContext, state: ExecutionState) -> None:
        resolved = []
        for step in spec.steps:
            executor = tools.get(step["tool"])
            if executor is None:
                raise Unresolvable(f"macro {spec.name} needs missing tool {step['tool']!r}")
            resolved.append((executor, resolve_args(step.get("args", {}), ctx)))
        for executor, resolved_args in resolved:
            executor.run(resolved_args, ctx, state)

    return run


def _steps_key(steps: list[dict[str, Any]]) -> str:
    return json.dumps(steps, sort_keys=True, default=str)
