"""One module per ``fray`` subcommand; each defines ``add_parser(subparsers)``."""
