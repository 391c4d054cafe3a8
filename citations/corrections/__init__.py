"""Readers' suggestions to correct an edge's classification: the model and the public form
(its admin is in citations/admin/corrections.py)."""
