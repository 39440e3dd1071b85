"""The embedded engine: the scoring plan and formulas in numpy over Arrow, in this process."""
