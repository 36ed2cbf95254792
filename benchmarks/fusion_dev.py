"""The dev sets that ``FusionParams.lexical_weight`` and ``lexical_weight_turns`` are
chosen on, and the sweeps.

    python -m voxmem.benchmarks.fusion_dev [--seed 0] [--turns]

Spoken questions to a text corpus, as in SQuTR, but with questions and passages of
its own (no wording of ``facts.FACTS``, which every mini edition is built from) and
backgrounds SQuTR-mini does not use. The voices are the same engines (the project
has about ten identities in all); each question gets a different voice than the
same position would in SQuTR-mini. With ``--turns`` the same facts are said aloud and
stored as turns of a memory (questions, answers and related sentences), and each
spoken question asks for the turn that answers it, as a dialogue's next turn would.
Role: ``dev``. No test edition is ever read here.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from voxmem.benchmarks.retrieval.common import bench_settings
from voxmem.benchmarks.synth import ClipCache, Utterance, distinct_voices, render
from voxmem.memory.records import Segment

#: (question, answering passage, related passage that does not answer)
DEV_FACTS: tuple[tuple[str, str, str], ...] = (
    (
        "Where did Marguerite leave the van keys?",
        "Marguerite left the van keys in the blue drawer by the reception desk.",
        "The van needs new tyres before the winter.",
    ),
    (
        "How many chairs did we rent for the wedding?",
        "We rented one hundred and twenty folding chairs for the wedding.",
        "The wedding cake will be lemon and raspberry.",
    ),
    (
        "Which dentist did Oskar recommend?",
        "Oskar recommended Doctor Abernathy on Willow Street, she is very gentle.",
        "Oskar has a dentist appointment every six months.",
    ),
    (
        "What time does the swimming pool open on Sundays?",
        "On Sundays the swimming pool opens at eight thirty in the morning.",
        "The swimming pool was closed for repairs last summer.",
    ),
    (
        "Why did the bakery close early yesterday?",
        "The bakery closed early yesterday because the oven broke down at noon.",
        "The bakery sells the best sourdough in the neighbourhood.",
    ),
    (
        "What colour are we painting the nursery?",
        "We decided to paint the nursery a soft sage green.",
        "The nursery furniture arrives next Tuesday.",
    ),
    (
        "Who is bringing the projector to the workshop?",
        "Priyanka is bringing the projector to the workshop on Thursday.",
        "The workshop will cover spreadsheets and budgeting.",
    ),
    (
        "How long is the hike to the glacier?",
        "The hike to the glacier takes about four hours each way.",
        "Glaciers in the region have shrunk a lot in recent decades.",
    ),
    (
        "What is the password for the guest network?",
        "The guest network password is pelican seventy seven.",
        "The guest room has its own bathroom and a small desk.",
    ),
    (
        "When does the ferry to the island leave?",
        "The last ferry to the island leaves at a quarter past six.",
        "The island is famous for its lighthouse and its cheese.",
    ),
    (
        "What did the vet say about the cat?",
        "The vet said the cat is healthy but should lose a little weight.",
        "Our cat loves sleeping on the warm windowsill.",
    ),
    (
        "Which hotel did they book in Vienna?",
        "They booked the Hotel Lindenhof near the opera in Vienna.",
        "Vienna is known for its coffee houses and concerts.",
    ),
    (
        "How much did the new bicycle cost?",
        "The new bicycle cost six hundred and forty euros with the lights.",
        "Cycling to work saves me almost an hour a day.",
    ),
    (
        "Where is the quarterly review being held?",
        "The quarterly review is being held in the Sycamore room on the fifth floor.",
        "The last quarterly review ran over by an hour.",
    ),
    (
        "What is wrong with the dishwasher?",
        "The dishwasher leaks from the door seal whenever it runs hot.",
        "We bought the dishwasher when we moved in four years ago.",
    ),
    (
        "Who won the chess tournament at the library?",
        "Tobias won the chess tournament at the library after a long final.",
        "The library hosts a board game night every Friday.",
    ),
    (
        "What should I bring to the picnic?",
        "Please bring a blanket and some fruit salad to the picnic.",
        "Last year's picnic was rained out completely.",
    ),
    (
        "Why is the train to Glasgow cancelled?",
        "The train to Glasgow is cancelled because of a signal failure near Carlisle.",
        "Glasgow has a lively music scene.",
    ),
    (
        "When is the plumber coming?",
        "The plumber is coming on Wednesday between nine and eleven.",
        "Plumbers are hard to find during the holidays.",
    ),
    (
        "Which language is Hendrik learning?",
        "Hendrik is learning Portuguese because he is moving to Porto.",
        "Learning a language gets easier with daily practice.",
    ),
)
#: backgrounds SQuTR-mini does not use
DEV_NOISES = ("white-noise", "brown-noise", "hum", "wind", "clock", "camera", "trash")
CONDITIONS = {"clean": None, "20 dB": 20.0, "10 dB": 10.0, "0 dB": 0.0}
WEIGHTS = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0)


def main() -> None:
    """``--turns``: the spoken-turns sweep; otherwise the text passages' sweep."""
    args = _args()
    if args.turns:
        turns_main(args.seed)
    else:
        passages_main(args.seed)


def passages_main(seed: int) -> None:
    """Spoken questions to text passages; the weight chosen here is
    ``FusionParams.lexical_weight``."""
    from voxmem.memory.perception import Perception
    from voxmem.memory.store import AudioMemory
    from voxmem.retrievers.baselines import Query, retrieve
    from voxmem.retrievers.metrics import mean_scores, trec_scores
    from voxmem.retrievers.recall import FusionParams, Reference, recall

    settings = bench_settings(mini=True)
    cache = ClipCache(settings.cache_dir / "synth")
    perception = Perception.from_settings(settings)
    memory = AudioMemory.open(
        Path(tempfile.mkdtemp(prefix="voxmem-fusion-dev-")),
        settings=settings,
        perception=perception,
    )
    texts = [a for _, a, _ in DEV_FACTS] + [r for _, _, r in DEV_FACTS]
    vecs = perception.text.passages(texts)
    pool = [
        Segment(f"d{i}", "dev", "dev", f"d{i}", 0.0, 0.0, transcript=t, vectors={"text": v})
        for i, (t, v) in enumerate(zip(texts, vecs, strict=True))
    ]
    n = len(DEV_FACTS)
    voices = [v.id for v in distinct_voices()] + ["festival-slt-hts"]
    rng = np.random.default_rng(seed)
    out: dict[str, dict[str, float]] = {}
    for cond, snr in CONDITIONS.items():
        refs = []
        for i, (question, _, _) in enumerate(DEV_FACTS):
            u = _spoken_question(question, voices[(i + 5) % len(voices)], snr, rng, 1000 + i)
            refs.append(Reference.encode(memory, render(u, cache)))
        rows: dict[str, list[dict[str, float]]] = {}
        for i, ref in enumerate(refs):
            qrels = {f"d{i}": 2, f"d{i + n}": 1}
            for name in ("bm25", "dense"):
                q = Query("", ref, instruction_in_text=False, pool=pool)
                ranked = retrieve(name, memory, "dev", q, k=len(pool))
                rows.setdefault(name, []).append(
                    trec_scores({t.segment.id: t.score for t in ranked}, qrels)
                )
            for w in WEIGHTS:
                res = recall(
                    memory,
                    "dev",
                    "Find the passage that answers this spoken question.",
                    reference=ref,
                    pool=pool,
                    k=len(pool),
                    params=FusionParams(lexical_weight=w),
                )
                rows.setdefault(f"w={w}", []).append(
                    trec_scores({t.segment.id: t.score for t in res.turns}, qrels)
                )
        out[cond] = {k: mean_scores(v)["nDCG@10"] for k, v in rows.items()}
        _print(cond, out[cond])
    _print("mean", {k: float(np.mean([out[c][k] for c in out])) for k in out["clean"]})
    memory.close()


def turns_main(seed: int) -> None:
    """The same facts said aloud and stored as turns of the memory (the questions too, as
    in a conversation), each turn's words from the memory's own ASR: the spoken question
    asks for the turn that answers it (grade 2; the related turn 1), its own turn left
    out. The weight chosen here is ``FusionParams.lexical_weight_turns``."""
    from voxmem.memory.perception import Perception
    from voxmem.memory.store import AudioMemory
    from voxmem.retrievers.baselines import Query, retrieve
    from voxmem.retrievers.metrics import mean_scores, trec_scores
    from voxmem.retrievers.recall import FusionParams, Reference, recall

    settings = bench_settings(mini=True)
    cache = ClipCache(settings.cache_dir / "synth")
    perception = Perception.from_settings(settings)
    memory = AudioMemory.open(
        Path(tempfile.mkdtemp(prefix="voxmem-fusion-dev-turns-")),
        settings=settings,
        perception=perception,
    )
    voices = [v.id for v in distinct_voices()] + ["festival-slt-hts"]
    rng = np.random.default_rng(seed)
    which: dict[str, tuple[int, str]] = {}  # segment id -> (fact, "q" | "a" | "r")
    for i, fact in enumerate(DEV_FACTS):
        for j, (part, text) in enumerate(zip("qar", fact, strict=True)):
            u = Utterance(text, voices[(i + 3 * j + 5) % len(voices)], seed=2000 + 3 * i + j)
            for seg in memory.ingest(render(u, cache), tenant="dev", session=f"f{i}{part}"):
                which[seg.id] = (i, part)
    out: dict[str, dict[str, float]] = {}
    for cond, snr in CONDITIONS.items():
        rows: dict[str, list[dict[str, float]]] = {}
        for i, (question, _, _) in enumerate(DEV_FACTS):
            u = _spoken_question(question, voices[(i + 7) % len(voices)], snr, rng, 3000 + i)
            ref = Reference.encode(memory, render(u, cache))
            grade = {"a": 2, "r": 1}
            qrels = {s: grade[p] for s, (f, p) in which.items() if f == i and p in grade}
            own = {s for s, (f, p) in which.items() if f == i and p == "q"}

            for name in ("bm25", "dense"):
                q = Query("", ref, instruction_in_text=False)
                ranked = retrieve(name, memory, "dev", q, k=len(which))
                rows.setdefault(name, []).append(trec_scores(_scored(ranked, own), qrels))
            for w in WEIGHTS:
                res = recall(
                    memory,
                    "dev",
                    "Find the turn that answers this spoken question.",
                    reference=ref,
                    k=len(which),
                    params=FusionParams(lexical_weight_turns=w),
                )
                rows.setdefault(f"w={w}", []).append(trec_scores(_scored(res.turns, own), qrels))
        out[cond] = {k: mean_scores(v)["nDCG@10"] for k, v in rows.items()}
        _print(cond, out[cond])
    _print("mean", {k: float(np.mean([out[c][k] for c in out])) for k in out["clean"]})
    memory.close()


def _spoken_question(
    question: str, voice: str, snr: float | None, rng: np.random.Generator, seed: int
) -> Utterance:
    """A dev question said by ``voice``, over a dev background at ``snr`` (drawn from
    ``rng``) with a little reverberation, or clean."""
    return Utterance(
        question,
        voice,
        background=DEV_NOISES[int(rng.integers(len(DEV_NOISES)))] if snr is not None else None,
        snr_db=snr,
        rt60=0.3 if snr is not None else None,
        seed=seed,
    )


def _print(label: str, scores: dict[str, float]) -> None:
    print(label, json.dumps({k: round(v, 4) for k, v in scores.items()}), flush=True)


def _scored(turns: list[Any], leave_out: set[str]) -> dict[str, float]:
    """Each ranked turn's score, the query's own turn left out."""
    return {t.segment.id: t.score for t in turns if t.segment.id not in leave_out}


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--turns",
        action="store_true",
        help="the facts stored as spoken turns of the memory, not as text passages",
    )
    return parser.parse_args()


if __name__ == "__main__":
    main()
