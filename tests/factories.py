import datetime

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils import timezone

from bottlenecks.models import Dimension, Layer, LoopStage
from citations.models import Citation, CitationPolarity, CitationRole, DatePrecision, Paper
from notes.models import CommunityPost, Question, ResearchNote
from publishing.editors import EDITORS_GROUP
from publishing.models import Status

USER_PASSWORD = "a-long-test-password"


def _join_editors(user, create, extracted, **kwargs):
    if create:
        user.groups.add(Group.objects.get(name=EDITORS_GROUP))


class UserFactory(factory.django.DjangoModelFactory):
    """An account with no editorial rights; `UserFactory(editor=True)` is a staff member of the
    Editors group, as editors are set up on the site. Every account's password is USER_PASSWORD."""

    username = factory.Sequence(lambda n: f"user-{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.org")
    password = factory.django.Password(USER_PASSWORD)
    editors_group = factory.Maybe("editor", factory.PostGeneration(_join_editors))

    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    class Params:
        editor = factory.Trait(is_staff=True)


class PublishedFactory(factory.django.DjangoModelFactory):
    status = Status.PUBLISHED
    published_at = factory.LazyFunction(lambda: timezone.now() - timezone.timedelta(days=1))

    class Meta:
        abstract = True

    class Params:
        draft = factory.Trait(status=Status.DRAFT, published_at=None)


class PaperFactory(PublishedFactory):
    title = factory.Sequence(lambda n: f"Scaling Study {n}")
    slug = factory.Sequence(lambda n: f"scaling-study-{n}")
    byline = "Test Lab"
    institution = "Test University"
    publication_date = factory.Faker("date_between", start_date="-3y", end_date="-1d")
    summary = factory.Faker("sentence", nb_words=16)
    in_research_index = True

    class Meta:
        model = Paper


class CitationRoleFactory(factory.django.DjangoModelFactory):
    name = factory.Sequence(lambda n: f"Role {n}")
    slug = factory.Sequence(lambda n: f"role-{n}")

    class Meta:
        model = CitationRole
        django_get_or_create = ["slug"]


class CitationPolarityFactory(factory.django.DjangoModelFactory):
    name = factory.Sequence(lambda n: f"Polarity {n}")
    slug = factory.Sequence(lambda n: f"polarity-{n}")

    class Meta:
        model = CitationPolarity
        django_get_or_create = ["slug"]


class CitationFactory(PublishedFactory):
    citing_paper = factory.SubFactory(PaperFactory, in_research_index=False)
    cited_paper = factory.SubFactory(PaperFactory)

    class Meta:
        model = Citation


class LayerFactory(PublishedFactory):
    name = factory.Sequence(lambda n: f"Layer {n}")
    slug = factory.Sequence(lambda n: f"layer-{n}")
    failure_signal = "Reward rises while downstream tests get worse."
    diagnostic_question = "What can the policy exploit?"
    order = factory.Sequence(lambda n: n)

    class Meta:
        model = Layer


class DimensionFactory(PublishedFactory):
    name = factory.Sequence(lambda n: f"Dimension {n}")
    slug = factory.Sequence(lambda n: f"dimension-{n}")
    description = "What the dimension covers."

    class Meta:
        model = Dimension


class LoopStageFactory(PublishedFactory):
    name = factory.Sequence(lambda n: f"Stage {n}")
    slug = factory.Sequence(lambda n: f"stage-{n}")
    description = "What the stage does."

    class Meta:
        model = LoopStage


class ResearchNoteFactory(PublishedFactory):
    title = factory.Sequence(lambda n: f"Research note {n}")
    slug = factory.Sequence(lambda n: f"research-note-{n}")
    dek = factory.Faker("sentence", nb_words=20)
    body = "Some **Markdown** body."

    class Meta:
        model = ResearchNote


class CommunityPostFactory(PublishedFactory):
    title = factory.Sequence(lambda n: f"Community post {n}")
    slug = factory.Sequence(lambda n: f"community-post-{n}")
    author = "A. Writer"
    url = "https://www.lesswrong.com/posts/example"
    summary = "An argument about RLVR."

    class Meta:
        model = CommunityPost


class QuestionFactory(PublishedFactory):
    kind = Question.Kind.FAQ
    question = factory.Sequence(lambda n: f"Question {n}?")
    answer = "An answer."

    class Meta:
        model = Question


class ClaimFactory(PublishedFactory):
    slug = factory.Sequence(lambda n: f"claim-{n}")
    statement = factory.Sequence(lambda n: f"Finding number {n} holds in one setup.")
    figure = factory.Sequence(lambda n: f"{n}.5×")
    unit = "higher throughput"

    class Meta:
        model = "bottlenecks.Claim"


class FailureSignalFactory(PublishedFactory):
    slug = factory.Sequence(lambda n: f"signal-{n}")
    text = factory.Sequence(lambda n: f"Observed signal {n}")
    order = factory.Sequence(lambda n: n)

    class Meta:
        model = "bottlenecks.FailureSignal"


class DiscriminatingTestFactory(PublishedFactory):
    slug = factory.Sequence(lambda n: f"test-{n}")
    title = factory.Sequence(lambda n: f"Discriminating test {n}")
    procedure = "Run it."
    interpretation = "Read it."

    class Meta:
        model = "bottlenecks.DiscriminatingTest"


def timeline_hub():
    """A hub whose public citing papers spread over time (tests of the citing timeline):
    2024 Q1: 2 (background and method, both supporting), 2024 Q2 and Q3: none (the only papers
    there are a draft edge and a draft citing paper), 2024 Q4: 1 (dated to the month,
    background, contrasting), 2025 Q1: 1 unclassified; 1 dated only to 2023 (background,
    supporting) and 2 without a known date (precision "unknown", method, contrasting; no date,
    background, supporting). 7 public citing papers in all."""
    hub = PaperFactory(title="A hub over time", slug="a-hub-over-time")
    background = CitationRoleFactory(slug="background", name="Background", order=10)
    method = CitationRoleFactory(slug="method", name="Method", order=20)
    supporting = CitationPolarityFactory(slug="supporting", name="Supporting", order=10)
    contrasting = CitationPolarityFactory(slug="contrasting", name="Contrasting", order=20)

    def cite(date, role=None, polarity=None, precision=DatePrecision.DAY, **edge):
        citing = edge.pop("citing_paper", None) or PaperFactory(
            publication_date=date, date_precision=precision, in_research_index=False
        )
        return CitationFactory(
            cited_paper=hub,
            citing_paper=citing,
            role=role,
            polarity=polarity,
            publish_unclassified=role is None,
            **edge,
        )

    cite(datetime.date(2024, 2, 10), background, supporting)
    cite(datetime.date(2024, 3, 31), method, supporting)
    cite(datetime.date(2024, 11, 1), background, contrasting, DatePrecision.MONTH)
    cite(datetime.date(2025, 1, 15))
    cite(datetime.date(2023, 1, 1), background, supporting, DatePrecision.YEAR)
    cite(datetime.date(2022, 6, 1), method, contrasting, DatePrecision.UNKNOWN)
    cite(None, background, supporting)
    # Not public, so counted nowhere: a draft edge, an edge from a draft paper.
    cite(datetime.date(2024, 5, 5), background, supporting, draft=True)
    cite(
        None,
        method,
        supporting,
        citing_paper=PaperFactory(publication_date=datetime.date(2024, 8, 8), draft=True),
    )
    # Another hub's citing paper.
    CitationFactory(citing_paper=PaperFactory(publication_date=datetime.date(2024, 7, 1)))
    return hub
