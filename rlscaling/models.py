"""The site app's own tables: the publishing machinery's bookkeeping (rlscaling/publishing/)."""

from rlscaling.publishing.revisions import DraftRevision  # noqa: F401
from rlscaling.publishing.schedule import ScheduleSweep  # noqa: F401
