"""The process runtime: compiled-code caches, child processes, interrupts, folder locks and
per-thread switches."""
