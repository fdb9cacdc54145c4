"""Alerts evaluated after every ingest that changes the facts: a message only when a condition
becomes true, not again until it has been false.

Every replica watches the facts' version (the knowledge-base version another process bumps on
ingest); when it moves, each alert is checked against the fact table as it is now (exactly,
core.subscriptions.alert_rules) and its state recorded with a conditional UPDATE: the one
replica that turns it from false to true sends the message, with the figures and their sources.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from core.catalog.lookup import say
from core.contracts.subscriptions import AlertRecord, SubscriptionStore
from core.scheduled.deliveries import Target
from core.subscriptions.alert_rules import Check, comparison

log = logging.getLogger("ricorda.subscriptions")


@dataclass
class AlertWatch:
    store: SubscriptionStore
    targets: Mapping[str, Target]
    # the alert checked against the facts as they are now (None: the figures it needs are not
    # there, or the chat may no longer see them); run on the core worker
    evaluate: Callable[[AlertRecord], Check | None]
    version: Callable[[], object]  # the facts' version: a change means an ingest
    observe: Callable[[str], None] = lambda outcome: None
    _seen: object = field(default=None, init=False)

    async def tick(self) -> int:
        """Check every alert when the facts moved (and at the first tick); messages sent."""
        version = await asyncio.to_thread(self.version)
        if self._seen is not None and version == self._seen:
            return 0
        sent = 0
        for alert in await asyncio.to_thread(self.store.alerts):
            target = self.targets.get(alert.platform)
            if target is None:
                continue
            services = target.turns.s
            check = await services.run(self.evaluate, alert)
            holds = check is not None and check.holds
            if not await asyncio.to_thread(self.store.flip, alert.id, holds) or not holds:
                continue
            assert check is not None
            text = say("alert_fired", alert.language, id=alert.id, condition=alert.condition,
                       comparison=comparison(check, alert.language))
            try:
                await target.port_for(alert.chat).reply(text)  # type: ignore[attr-defined]
            except Exception as exc:  # the state stands: not sent again until it resets
                log.warning("alert #%s not sent to %s: %s", alert.id, alert.chat,
                            exc.__class__.__name__)
                self.observe("failed")
                continue
            log.info("alert #%s fired in %s", alert.id, alert.chat)
            self.observe("alert")
            sent += 1
        self._seen = version  # only once every alert was checked: a failed tick tries again
        return sent
