"""Drafts, publication, history and draft revisions: the one mechanism every editorial model
shares (models.py holds the rule)."""
