"""Sent after points are written in bulk (an import), which no save signal announces:
`series_ids` and `benchmark_ids` name what the new points are on. Apps that react to a saved
point (claims reviewed against results) listen to it too."""

from django.dispatch import Signal

points_imported = Signal()
