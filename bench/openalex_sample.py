"""A reproducible synthetic OpenAlex works snapshot (JSONL), for the bulk import's tests and
benchmark: `manage.py generate_openalex --works 100000 --references 1000000 --output FILE`.

Each line is one work shaped as the OpenAlex API returns it: `id`, `doi` (most works), `ids`,
`title`/`display_name`, `publication_date` and `publication_year`, `authorships` with author
positions and institutions, a primary location with its source, an arXiv landing page for some
works, an inverted-index abstract for some, and `referenced_works`. References point at works of
the file, popular ones more often (a Zipf-like curve), and a share at works outside it (which
an import keeps as pending edges). The file is written as it is generated: memory stays flat.
"""

import datetime
import json
import random

from bench.corpus import (
    ABSTRACT_SENTENCES,
    FIRST_NAMES,
    INSTITUTIONS,
    LAST_NAMES,
    TITLE_TEMPLATES,
    CorpusGenerator,
    zipf_cum_weights,
)

FIRST_WORK = 4_100_000_000  # OpenAlex-looking work ids: W4100000001 ...
OUTSIDE_FIRST = 2_000_000_000  # works named only as references, never in the file
VENUES = ["NeurIPS", "ICML", "ICLR", "Transactions on Machine Learning Research", "arXiv"]


def work_id(number):
    return f"https://openalex.org/W{number}"


def generate(output, works, references, seed=0, outside_share=0.05):
    """Write `works` works citing `references` works in all to the open text file `output`;
    returns (works, references) written."""
    if works < 2:
        raise ValueError("works must be at least 2.")
    if not 0 <= references <= works * 50:
        raise ValueError("references must be between 0 and 50 per work.")
    rng = random.Random(f"openalex:{seed}")
    counts = reference_counts(rng, works, references)
    popularity = zipf_cum_weights(works, 0.8)
    order = list(range(works))
    rng.shuffle(order)  # which work is how popular: not simply the first ones
    arxiv_numbers = {}
    written = 0
    for index in range(works):
        work = make_work(rng, index, seed, arxiv_numbers)
        cited = set()
        while len(cited) < counts[index]:
            if rng.random() < outside_share:
                cited.add(work_id(OUTSIDE_FIRST + rng.randrange(works * 2)))
            else:
                other = order[bisect_choice(rng, popularity)]
                if other != index:
                    cited.add(work_id(FIRST_WORK + other + 1))
        work["referenced_works"] = sorted(cited)
        work["referenced_works_count"] = len(cited)
        output.write(json.dumps(work, ensure_ascii=False) + "\n")
        written += len(cited)
    return works, written


def bisect_choice(rng, cum_weights):
    return rng.choices(range(len(cum_weights)), cum_weights=cum_weights)[0]


def reference_counts(rng, works, references):
    """How many works each work cites: `references` in all, spread unevenly."""
    base, extra = divmod(references, works)
    counts = [base + (index < extra) for index in range(works)]
    for _ in range(works):
        giver, taker = rng.randrange(works), rng.randrange(works)
        moved = rng.randint(0, counts[giver] // 2)
        if counts[taker] + moved < works:
            counts[giver] -= moved
            counts[taker] += moved
    return counts


def make_work(rng, index, seed, arxiv_numbers):
    number = FIRST_WORK + index + 1
    words = CorpusGenerator.title_words(rng)
    title = rng.choice(TITLE_TEMPLATES).format(**words)
    if rng.random() < 0.5 and "{name}" not in title:
        title = f"{words['name']}: {title}"
    day = datetime.date(2015, 1, 1) + datetime.timedelta(days=rng.randrange(11 * 365))
    authors = []
    for position in range(rng.randint(1, 6)):
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        institution = rng.randrange(len(INSTITUTIONS))
        authors.append(
            {
                "author_position": "first" if position == 0 else "middle",
                "author": {
                    "id": f"https://openalex.org/A{5000000000 + rng.randrange(10**6)}",
                    "display_name": name,
                },
                "institutions": [
                    {
                        "id": f"https://openalex.org/I{100000 + institution}",
                        "display_name": INSTITUTIONS[institution],
                        "country_code": rng.choice(["US", "GB", "CN", "DE", "FR", "JP", "CA"]),
                        "type": "education",
                    }
                ],
                "raw_author_name": name,
            }
        )
    if len(authors) > 1:
        authors[-1]["author_position"] = "last"
    doi = f"https://doi.org/10.5555/rl.{seed}.{index + 1}" if rng.random() < 0.6 else None
    work = {
        "id": work_id(number),
        "doi": doi,
        "title": title,
        "display_name": title,
        "publication_year": day.year,
        "publication_date": day.isoformat(),
        "ids": {"openalex": work_id(number), **({"doi": doi} if doi else {})},
        "type": "article",
        "authorships": authors,
        "primary_location": {
            "is_oa": True,
            "landing_page_url": doi,
            "source": {"display_name": rng.choice(VENUES), "type": "conference"},
        },
        "locations": [],
        "cited_by_count": 0,
    }
    if rng.random() < 0.3:
        month = f"{day.year % 100:02d}{day.month:02d}"
        arxiv_numbers[month] = arxiv_numbers.get(month, 10000 + seed % 1000 * 50) + 1
        url = f"https://arxiv.org/abs/{month}.{arxiv_numbers[month]:05d}"
        work["locations"].append({"landing_page_url": url, "source": {"display_name": "arXiv"}})
    if rng.random() < 0.3:
        sentence = CorpusGenerator.sentence(rng, ABSTRACT_SENTENCES, words)
        index_of = {}
        for position, word in enumerate(sentence.split()):
            index_of.setdefault(word, []).append(position)
        work["abstract_inverted_index"] = index_of
    return work
