"""One module per subcommand; each wires the core to the adapters."""
