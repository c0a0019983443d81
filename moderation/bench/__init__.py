"""Benchmarks that print tables, write JSON and plots, and compare variants in one run."""
