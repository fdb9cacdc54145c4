"""ricorda adapters."""
