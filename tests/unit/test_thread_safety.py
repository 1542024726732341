"""The text pipeline, the personal-data screen and the encoder give the same answer from 16
threads as from one (issue 43): no process-wide object with per-call state is shared
unguarded (the audit: docs/decisions/0065-one-answer-from-any-thread-and-fair-shares.md).

Each check first forgets what the process cached, so the threads really run the work
together rather than reading an answer a serial run left behind.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from common.datafiles import DATA
from common.language import index
from common.language.citations import unfootnoted
from common.language.sentences import split

T = TypeVar("T")
U = TypeVar("U")
THREADS = 16


def _sentences() -> list[str]:
    guides = sorted((DATA / "knowledge").glob("*.md"))
    texts = [unfootnoted(path.read_text(encoding="utf-8")) for path in guides]
    return [s for text in texts for s in split(text) if len(s) > 20]


def _together(work: Callable[[T], U], items: Sequence[T], rounds: int = 1) -> list[list[U]]:
    """``work`` of every item, from THREADS threads started at once; each thread does all the
    items (in its own order, so that threads meet on different items), ``rounds`` times, and
    gives its answers in the items' order, round after round."""
    start = threading.Barrier(THREADS)

    def one(offset: int) -> list[U]:
        start.wait()
        answers: list[U] = []
        for _ in range(rounds):
            answered: dict[int, U] = {}
            for k in range(len(items)):
                i = (k + offset) % len(items)
                answered[i] = work(items[i])
            answers += [answered[i] for i in range(len(items))]
        return answers

    with ThreadPoolExecutor(THREADS) as pool:
        return list(pool.map(one, [n * 7 for n in range(THREADS)]))


def test_stems_from_many_threads_are_the_serial_stems() -> None:
    words = sorted({w.lower() for s in _sentences() for w in s.split() if w.isalpha()})
    index.stem.cache_clear()
    serial = [index.stem(w) for w in words]
    index.stem.cache_clear()
    # Without the cache every call stems: the stemmer objects themselves are exercised.
    for answers in _together(index.stem.__wrapped__, words, rounds=3):
        assert answers == serial * 3
    index.stem.cache_clear()
    for answers in _together(index.stem, words):
        assert answers == serial
    assert [index.stem(w) for w in words] == serial  # nothing wrong was cached


def test_terms_from_many_threads_are_the_serial_terms() -> None:
    sentences = _sentences()
    index.stem.cache_clear()
    serial = [index.terms(s) for s in sentences]
    index.stem.cache_clear()
    for answers in _together(index.terms, sentences):
        assert answers == serial


def test_the_screen_from_many_threads_gives_the_serial_verdicts() -> None:
    from common.privacy import screen_many

    sentences = [
        *[s for s in _sentences() if len(s) < 120][:6],
        "Priya Okafor, the chief executive, missed the AGM.",
        "Her chemotherapy starts next week.",
        "You'll find Jon Whitfield at the Bluebell Café on Mill Lane most mornings.",
        "JON WHITFIELD REVEALS CANCER BATTLE",
    ]
    index.stem.cache_clear()
    serial = screen_many(sentences, in_text=True)
    assert any(serial)  # the check sees both verdicts
    assert not all(serial)

    def whole(_: int) -> list[str | None]:
        return screen_many(sentences, in_text=True)

    for answers in _together(whole, [0]):
        assert answers == [serial]


def test_the_encoder_from_many_threads_gives_the_serial_vectors() -> None:
    import numpy as np

    from common.language.minilm import get_model

    model = get_model()
    batches = [_sentences()[n : n + 4] for n in range(0, 8, 4)]
    serial = [np.array(model.embed(batch)) for batch in batches]
    for answers in _together(model.embed, batches):
        for vectors, expected in zip(answers, serial, strict=True):
            np.testing.assert_allclose(np.array(vectors), expected, atol=1e-5)


def test_the_relevance_judge_from_many_threads_gives_the_serial_scores() -> None:
    """The judge (issue 44) holds one model and the encoder; every score from many threads is
    the serial one."""
    import numpy as np

    from common.search import relevance

    sentences = _sentences()
    requests = [sentences[n] for n in range(0, 8, 2)]
    serial = [relevance.relevance(request, sentences[:6]) for request in requests]
    for answers in _together(lambda request: relevance.relevance(request, sentences[:6]), requests):
        for scores, expected in zip(answers, serial, strict=True):
            np.testing.assert_allclose(scores, expected, atol=1e-6)


def test_topics_memory_and_request_cuts_from_many_threads_are_the_serial_ones() -> None:
    """Decision 0092's cached patterns (topic mentions, memory's roles by verb, a topic's
    asking clause) hold no per-call state."""
    from common.offline import entities, memory
    from common.offline.entities import topics_in
    from common.offline.memory import extract_memory
    from functions.content import service
    from functions.content.texts import instruction

    texts = [
        *_sentences()[:40],
        "I coordinate volunteers for Paws Place in Leeds. I'm vegan.",
        "Hot dogs, and dogs in shelters - can u do a thread on it",
        "Hallam & Rowe: get farrowing crates out of your own-brand pork",
    ]

    def work(text: str) -> tuple[object, ...]:
        said = [{"role": "user", "content": text}]
        return topics_in(text), extract_memory(said), service.about_of(text[:500])

    serial = [work(text) for text in texts]
    for cached in (entities._mention, entities._unless, memory._doing, instruction):
        cached.cache_clear()
    for answers in _together(work, texts):
        assert answers == serial
