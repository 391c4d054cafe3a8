"""What is counted from the papers and their edges: stored citing counts, facet counts, the hub's
timeline and its role × polarity matrix."""
