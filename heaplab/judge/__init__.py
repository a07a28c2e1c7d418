"""Claims judged over runs: the verdict rule, its statistics, repeats, A/A calibration, the article beside the
run."""
