from django.apps import AppConfig


class EvidenceConfig(AppConfig):
    """Claims, failure signals, discriminating tests and the diagnosis: the evidence on each
    layer of the framework, drawn from papers and notes (so it sits above both).

    Its models keep the `bottlenecks` app label they were created under: no table moved."""

    name = "evidence"
    verbose_name = "Evidence"

    def ready(self):
        from evidence import receivers  # noqa: F401  (wires the claim-review receivers)
