"""`python -m bot` is the same as the `ricorda` command."""

from bot.cli import main

main()
