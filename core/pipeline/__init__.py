"""One answer's order, written once: resolve, gates, plan cache, plan (rules, then a model),
run, clarify or finish, remember (core.pipeline.pipeline); and the service a long-running
process calls, which brings the knowledge base up to date first.

It sits above planning (the steps) and fastpath (the plan cache): both are asked and told by
the pipeline, neither calls the other. The modules are imported by name; none is imported here."""

__all__ = [
    "answering_service",
    "pipeline",
    "request_memo",
]
