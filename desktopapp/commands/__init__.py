"""CLI subcommands, one module per area, each with ``register(subparsers)``."""
