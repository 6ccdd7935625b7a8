"""The subcommands whose command lines are not argparse's: each parses its own arguments."""
