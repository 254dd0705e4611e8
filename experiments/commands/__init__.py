"""One module per ``fray`` subcommand; each defines ``add_parser(subparsers)``."""


class UsageError(Exception):
    """A bad argument found after parsing (an unknown agent, a negative seed...): its home
    below every command (experiments.cli re-exports it), so no command imports the CLI."""
