"""What a lab is: experiment.yml's schema and parser, the subjects, the metric catalogue, the `local` sizing,
the articles' numbers."""
