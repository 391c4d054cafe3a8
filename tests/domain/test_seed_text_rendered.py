"""A display rule never drops seed text: the Bottleneck Map's opening sentence (seed 000)
differs from its standfirst (seed 001) and is rendered; only a true repeat is left out."""

import pytest

from core.templatetags.rendering import after_standfirst

SEED_SENTENCE = (
    "A practical framework for locating the binding constraint in an RL system across "
    "environments, rollout generation, reward quality, optimization, and evaluation."
)


@pytest.mark.django_db
def test_the_bottleneck_map_renders_the_seeds_opening_sentence(client, demo):
    page = client.get("/bottlenecks/").content.decode()
    assert SEED_SENTENCE in page


def test_only_a_true_repeat_of_the_standfirst_is_left_out():
    body = "The Same Sentence, said twice!\n\nThe rest."
    assert after_standfirst(body, "the same sentence said twice") == "The rest."
    similar = "A sentence much like the standfirst.\n\nThe rest."
    assert after_standfirst(similar, "A sentence much like the standfirst, but longer.") == similar
