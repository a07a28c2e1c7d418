"""`heaplab run`: a lab's variants through the playbooks, and what a run records about itself."""
