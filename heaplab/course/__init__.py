"""A course: graded notebooks, submissions, grading, the student edition and the exercises."""
