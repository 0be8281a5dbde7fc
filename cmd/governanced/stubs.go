package main

// These subcommands are filled in by their own files as they land.
