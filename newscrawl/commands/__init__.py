"""Sub-commands of the `newscrawl` command line."""
