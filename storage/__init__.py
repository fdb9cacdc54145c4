"""ricorda storage."""
