import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils import timezone

from bottlenecks.models import Dimension, Layer, LoopStage
from citations.models import Citation, CitationPolarity, CitationRole, Paper
from notes.models import CommunityPost, Question, ResearchNote
from rlscaling.publishing import Status
from rlscaling.publishing.editors import EDITORS_GROUP

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
