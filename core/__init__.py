"""ricorda core."""
