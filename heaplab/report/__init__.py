"""What a run's reader sees: report.md, figures, sweeps' tables, the verdict tables and the generated handout
tables."""
