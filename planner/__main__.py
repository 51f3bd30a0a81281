"""``python -m planner`` runs the command-line interface."""

from planner.cli import main

main()
