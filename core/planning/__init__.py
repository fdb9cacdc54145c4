"""From a prepared request to an answer: plans, the planner (rules, then a model), executors.

The modules are imported by name (`from core.planning.answering import ...`); none is
imported here, so importing one loads only what it needs."""

__all__ = [
    "answering",
    "bounds",
    "catalog",
    "core_lock",
    "executors",
    "model_planner",
    "plan",
    "planner",
]
