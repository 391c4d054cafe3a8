"""Django's JSON fixture format, except that timestamps keep their microseconds.

DjangoJSONEncoder cuts datetimes and times to milliseconds (ECMA-262 style), so a plain
`dumpdata` backup would not restore history timestamps exactly. The files are ordinary JSON
fixtures: `loaddata` reads them with the standard deserializer.
"""

import datetime

from django.core.serializers import json
from django.core.serializers.json import DjangoJSONEncoder

FORMAT = "json-precise"


class PreciseJSONEncoder(DjangoJSONEncoder):
    def default(self, o):
        if isinstance(o, datetime.datetime | datetime.time):
            text = o.isoformat()
            return text.removesuffix("+00:00") + "Z" if text.endswith("+00:00") else text
        return super().default(o)


class Serializer(json.Serializer):
    def _init_options(self):
        super()._init_options()
        self.json_kwargs["cls"] = PreciseJSONEncoder


Deserializer = json.Deserializer
