"""``python -m paperworks`` = the ``paperworks`` command."""

from paperworks.cli.app import main

main()
