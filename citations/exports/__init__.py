"""Papers in the formats other tools read (formats.py) and the downloads that serve them
(downloads.py)."""
