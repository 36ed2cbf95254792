"""Lexical evidence: Lucene-style BM25 over transcripts (k1 0.9, b 0.4, English
stopwords, Snowball stems), shared by the ``bm25`` baseline and ``recall``'s content
score. A caller's pool (a text corpus) is indexed once and reused while it is alive.

The ``bm25`` baseline keeps Lucene's 33 stopwords, as the benchmarks' BM25 does.
``recall``'s content score drops ``CONTENT_STOPWORDS`` as well: spoken questions are
full of "what", "when", "did", "you", and with Lucene's list a stored question shared
those with the asked one and outscored the answer, which shares none (a spoken
question to the turn that answers it, a turn to its continuation)."""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from voxmem.memory.records import Segment

BM25_K1, BM25_B = 0.9, 0.4

#: English function words (scikit-learn's list less its nouns, verbs and numbers that
#: name things people talk about: bill, fire, system, move, call, one, ten ...; plus
#: did, does, doing, and what the tokenizer leaves of contractions the ASR writes:
#: "didn't" gives "didn", "you're" "re"; "won" stays, a word of its own), dropped from
#: the content score's BM25. The mechanism was found on INSPIRE-mini Dialogue's dev
#: wordings; the list was checked on ``fusion_dev --turns``.
_CONTENT_STOPWORDS = """
    a about above across after afterwards again against all almost alone along already
    also although always am among amongst an and another any anyhow anyone anything
    anyway anywhere are around as at be became because become becomes becoming been
    before beforehand behind being below beside besides between beyond both but by can
    cannot could did do does doing done down during each either else elsewhere enough
    even ever every everyone everything everywhere except few for former formerly from
    further had has have he hence her here hereafter hereby herein hereupon hers herself
    him himself his how however i if in indeed into is it its itself latter latterly
    least less many may me meanwhile might mine more moreover most mostly much must my
    myself namely neither never nevertheless next no nobody none noone nor not nothing
    now nowhere of off often on once only onto or other others otherwise our ours
    ourselves out over own per perhaps please rather same seem seemed seeming seems
    several she should since so some somehow someone something sometime sometimes
    somewhere still such than that the their them themselves then thence there
    thereafter thereby therefore therein thereupon these they this those though through
    throughout thru thus to together too toward towards under until up upon us very via
    was we well were what whatever when whence whenever where whereafter whereas whereby
    wherein whereupon wherever whether which while whither who whoever whole whom whose
    why will with within without would yet you your yours yourself yourselves
    aren couldn didn doesn don hadn hasn haven isn ll re shouldn ve wasn weren wouldn
"""
CONTENT_STOPWORDS: tuple[str, ...] = tuple(_CONTENT_STOPWORDS.split())
_CONTENT_STOPSET = frozenset(CONTENT_STOPWORDS)
#: a word as the BM25 tokenizer finds it: two word characters or more
_WORD = re.compile(r"(?u)\b\w\w+\b")

_POOL: dict[tuple[int, bool], tuple[Sequence[Segment], Any]] = {}


def _tokenize(texts: list[str], content: bool = False) -> Any:
    import bm25s
    import Stemmer

    return bm25s.tokenize(
        texts,
        stopwords=list(CONTENT_STOPWORDS) if content else "en",
        stemmer=Stemmer.Stemmer("english"),
        show_progress=False,
    )


def index(segments: Sequence[Segment], cache: bool = False, content: bool = False) -> Any:
    """A BM25 index of the segments' transcripts (``content``: without
    ``CONTENT_STOPWORDS``); with ``cache``, the last pool indexed is kept (keyed by the
    list object itself and the stopwords) and reused."""
    import bm25s

    key = (id(segments), content)
    if cache and key in _POOL and _POOL[key][0] is segments:
        return _POOL[key][1]
    built = bm25s.BM25(k1=BM25_K1, b=BM25_B, method="lucene")
    built.index(_tokenize([s.transcript for s in segments], content), show_progress=False)
    if cache:
        for old in [k for k in _POOL if k[0] != id(segments)]:
            del _POOL[old]  # the last pool only, in either tokenisation
        _POOL[key] = (segments, built)
    return built


def scores(
    segments: Sequence[Segment], query: str, cache: bool = False, content: bool = False
) -> np.ndarray:
    """BM25 score of every segment for ``query`` (zeros when it has no indexable word);
    ``content``: without ``CONTENT_STOPWORDS`` (``recall``'s content score)."""
    if not segments:
        return np.zeros(0)
    q = _tokenize([query], content)
    words = [w for w in q.vocab if w]
    if not words:
        return np.zeros(len(segments))
    return np.asarray(index(segments, cache, content).get_scores(words), dtype=np.float64)


_LOCAL = threading.local()


def content_terms(text: str) -> set[str]:
    """The stemmed words of ``text`` that the content score matches on (the tokenizer's
    words of two letters or more, less ``CONTENT_STOPWORDS``): "which station does my
    train leave from?" gives station, train, leav."""
    stemmer = getattr(_LOCAL, "stemmer", None)
    if stemmer is None:  # one per thread: a stemmer is not safe to share between them
        import Stemmer

        stemmer = _LOCAL.stemmer = Stemmer.Stemmer("english")
    words = _WORD.findall(text.lower())
    return {stemmer.stemWord(w) for w in words if w not in _CONTENT_STOPSET}
