"""ricorda's own small exception hierarchy: library errors are translated at the boundary."""


class RicordaError(Exception):
    """Base class; the message is a sentence a user can act on."""


class ConfigError(RicordaError):
    """Bad settings or a bad glossary; names the file, line and key where it can."""


class IngestError(RicordaError):
    """A knowledge-base file could not be read."""


class StorageError(RicordaError):
    """The database or vector store failed."""


class ModelError(RicordaError):
    """An embedder or LLM call failed or timed out."""


class EmbedderMismatchError(StorageError):
    """The vector collection was built with another embedding model than the configured one."""


class Unresolvable(RicordaError):
    """A slot the plan needs is not in the current request: the plan must not be served (a
    cached plan that does not fit is a miss, never an answer)."""
