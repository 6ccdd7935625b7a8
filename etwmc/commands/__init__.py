"""One module per command: arguments, library calls, output and exit status."""
