"""ricorda bot."""
