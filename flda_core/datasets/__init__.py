"""Data sets of the dashboard: synthetic domains, handwritten digits, user CSVs."""
