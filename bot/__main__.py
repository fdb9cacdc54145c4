"""`python -m bot` is the same as the `ricorda` command."""

from bot.entry import main

main()
