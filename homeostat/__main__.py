"""`python -m homeostat` runs the same CLI as the `homeostat` command."""

from homeostat.cli import main_entry

main_entry()
