import os

from django.core.asgi import get_asgi_application
from django.utils.module_loading import import_string

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rlscaling.settings")

application = get_asgi_application()

# Each server process builds the API schema as it starts, not on a reader's first request
# for it (docs/decisions/0015); named by path, as it can be imported only once apps are loaded.
import_string("apikit.schema.BuiltOnceSchemaGenerator").build_served()
