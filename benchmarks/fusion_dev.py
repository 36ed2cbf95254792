"""The dev sets that ``FusionParams.lexical_weight``, ``lexical_weight_turns`` and
``asr_doubt_power`` are chosen on, and the sweeps.

    python -m voxmem.benchmarks.fusion_dev [--seed 0] [--turns | --speakers]

Spoken questions to a text corpus, as in SQuTR, but with questions and passages of
its own (no wording of ``facts.FACTS``, which every mini edition is built from) and
backgrounds SQuTR-mini does not use. The voices are the same engines (the project
has about ten identities in all); each question gets a different voice than the
same position would in SQuTR-mini. With ``--turns`` the same facts are said aloud and
stored as turns of a memory (questions, answers and related sentences), and each
spoken question asks for the turn that answers it, as a dialogue's next turn would.
Sixty facts: the first twenty written with the first sweep, forty more on 2026-12-06
(a third of them answered in other words than the question's, a third sharing two or
so of its words, the rest more). Each fusion function (``FusionParams.lexical_fusion``)
is swept with each weight. With ``--speakers`` the facts are said by several voices,
some over noise so that the ASR mishears them, and a clip of one voice asks what that
voice said about a fact (``FusionParams.asr_doubt_power`` and
``FusionParams.speaker_gate``).
Role: ``dev``. No test edition is ever read here.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import replace
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
    (
        "Who borrowed the ladder from the Okonkwo family?",
        "Desmond from number eleven took the Okonkwo family's ladder to clean his windows last "
        "weekend.",
        "The Okonkwo family bought a new aluminium ladder at the hardware store in spring.",
    ),
    (
        "When does the Ferncliff library open on Sundays?",
        "The reading rooms at Ferncliff unlock their doors at eleven each Sunday morning.",
        "Ferncliff library runs a children's story hour on Sundays this autumn.",
    ),
    (
        "How much did Priyanka pay for the new sofa?",
        "Priyanka's couch cost eight hundred and forty pounds, delivery included, from the "
        "Harwell showroom.",
        "Priyanka's new sofa is too wide to fit through the living room door.",
    ),
    (
        "What time is Grandpa Tobias's eye appointment tomorrow?",
        "The optician is seeing Tobias at quarter past two on Thursday afternoon.",
        "Grandpa Tobias needs someone to drive him home after his eye appointment.",
    ),
    (
        "Where is the spare key for the Lindqvist cottage?",
        "The Lindqvists keep a duplicate under the stone frog beside the back porch steps.",
        "The Lindqvist cottage key ring has a little wooden lighthouse attached to it.",
    ),
    (
        "When is the recycling collected on Marlowe Street?",
        "Bins along Marlowe get emptied every other Tuesday, early in the morning.",
        "Marlowe Street residents complained that the recycling crates are far too small.",
    ),
    (
        "How old is Benedikt's puppy now?",
        "Benedikt's puppy turned eleven weeks on Monday and is already chewing shoes.",
        "Benedikt's puppy needs its second vaccination before it can go to the park.",
    ),
    (
        "Who is picking up the kids from school Friday?",
        "Auntie Rosalind will collect the children at the gates at three fifteen that afternoon.",
        "School finishes early on Friday because of the staff training day.",
    ),
    (
        "How much is the monthly fee for Oakhurst tennis club?",
        "Adult membership at the Oakhurst courts is thirty two pounds, collected on the first of "
        "each month.",
        "Oakhurst tennis club is repainting the lines on court three next week.",
    ),
    (
        "When is the plumber coming to fix the Castellano boiler?",
        "Ignatius the plumber is coming on Wednesday morning around ten to replace the "
        "Castellanos' boiler valve.",
        "The Castellano boiler has been making a loud banging noise since the cold snap.",
    ),
    (
        "Who is feeding Pumpernickel while the Ashdowns are away?",
        "Wilhelmina from next door pops round twice daily to give Pumpernickel his meals and "
        "fresh water.",
        "Pumpernickel the cat hides under the Ashdowns' bed whenever they pack suitcases.",
    ),
    (
        "When is Hamish's car due for its next service?",
        "Hamish's car needs its next service at the Brackenridge garage on the twelfth of June.",
        "Hamish's car has a slow puncture in the rear left tyre.",
    ),
    (
        "Which book is the Thornbury book club reading this month?",
        "Members at Thornbury are working through a novel about lighthouse keepers called "
        "Saltwater Lanterns.",
        "The Thornbury book club meets in the back room of the Red Heron pub.",
    ),
    (
        "Is Mum's prescription ready at the Kensal pharmacy yet?",
        "The Kensal pharmacy texted to say Mum's prescription is ready for collection after four "
        "today.",
        "Mum's prescription changed last month to a lower dose of the blood pressure tablets.",
    ),
    (
        "How much does a parking permit cost in Eddington?",
        "Eddington residents pay sixty five pounds a year for on-street parking.",
        "Eddington council is changing the parking permit zones around the train station.",
    ),
    (
        "Who is babysitting the twins on Saturday night?",
        "Cordelia, the student from the flat upstairs, is babysitting the twins on Saturday "
        "night from seven.",
        "The twins have a birthday party to go to on Saturday afternoon.",
    ),
    (
        "What is Ingrid bringing to the school bake sale?",
        "Ingrid promised two trays of lemon drizzle squares for the bake sale at Hollowbrook "
        "Primary.",
        "The school bake sale starts straight after assembly in the main hall.",
    ),
    (
        "What time does Uncle Florian's flight land tomorrow?",
        "Florian's plane from Tallinn touches down at ten past six in the evening.",
        "Uncle Florian's flight tomorrow has only a small cabin bag allowance.",
    ),
    (
        "Did Gwendolyn return the lawnmower she borrowed?",
        "Gwendolyn brought the lawnmower back yesterday evening and left it beside the shed.",
        "The lawnmower Gwendolyn borrowed needs a new blade before the next cut.",
    ),
    (
        "When is Marmalade's vet appointment for her vaccinations?",
        "Marmalade is booked in for her booster jabs at the Pembury animal clinic tomorrow at "
        "eleven.",
        "Marmalade gets very anxious at the vet and needs a blanket in her carrier.",
    ),
    (
        "Where is the Larkspur choir rehearsing this week?",
        "With the church hall flooded, Larkspur singers are gathering in the scout hut on Mill "
        "Lane.",
        "The Larkspur choir is rehearsing carols for the winter concert this week.",
    ),
    (
        "What time is our table booked at Trattoria Vesuvio?",
        "Our table at Trattoria Vesuvio is booked for eight fifteen under the name Abernathy.",
        "Trattoria Vesuvio asks guests to cancel at least a day before their booking.",
    ),
    (
        "How much was the Brightwell electricity bill this quarter?",
        "We owe Brightwell Energy two hundred and twelve pounds for the past three months of "
        "power.",
        "The Brightwell electricity bill is paid by direct debit from the joint account.",
    ),
    (
        "Who took in the parcel for the Fairweathers?",
        "Mr Osei at number nine took in the Fairweathers' parcel and is keeping it in his porch.",
        "The Fairweathers are expecting a parcel with new curtains from the department store.",
    ),
    (
        "Which allotment plot did Teodora get this year?",
        "Teodora was given plot fourteen, the one next to the water trough at Bramblegate "
        "allotments.",
        "Teodora is growing runner beans and courgettes on her allotment this year.",
    ),
    (
        "When does Matilda's ballet class start?",
        "Matilda's dancing lessons begin at half past four in the Corbridge village hall.",
        "Matilda needs new ballet shoes because her old pair pinches her toes.",
    ),
    (
        "Who is repairing the cracked kitchen window?",
        "A glazier called Rupert Vane is replacing the cracked kitchen window pane early next "
        "week.",
        "The cracked kitchen window was hit by the Pennington boys' football.",
    ),
    (
        "How much does Lachlan owe me for the concert tickets?",
        "Lachlan still owes you forty eight pounds for his share of the concert tickets.",
        "Lachlan is driving everyone to the concert in his sister's estate car.",
    ),
    (
        "When is my next haircut with Esperanza?",
        "Esperanza has you booked in for a haircut on the second of March at ten.",
        "Esperanza recommended a new conditioner after my last haircut at her salon.",
    ),
    (
        "When is parents' evening at Kingsmead Academy?",
        "Parents' evening at Kingsmead Academy is on the ninth, from four until seven in the "
        "sports hall.",
        "Kingsmead Academy asks parents to book evening slots through the school app.",
    ),
    (
        "What did Cressida ask us to get from the shop?",
        "Cressida asked for oat milk, two lemons and a bag of basmati rice.",
        "Cressida says the corner shop on Albury Road closes early at weekends.",
    ),
    (
        "Where are the Nakamuras going on holiday this summer?",
        "The Nakamuras are spending two weeks of their holiday in a farmhouse near Lake Bled.",
        "The Nakamuras are going on holiday once their son finishes his exams.",
    ),
    (
        "How much has Ezekiel raised for the charity run?",
        "Ezekiel has raised three hundred and sixty pounds so far for the hospice charity run.",
        "Ezekiel is training for the charity run by jogging around Whitmore Park.",
    ),
    (
        "Who has our cordless drill at the moment?",
        "Your brother Caspar borrowed the cordless drill to put up shelves in his new flat.",
        "The cordless drill needs a new battery because the old one won't charge.",
    ),
    (
        "What time is the last bus from Dunmore to town?",
        "The final service leaving Dunmore for the town centre departs at eleven forty at night.",
        "The bus from Dunmore to town is often late because of roadworks.",
    ),
    (
        "When should Grandma Philippa take her new tablets?",
        "Philippa needs one pill with breakfast and another with her evening meal.",
        "Grandma Philippa's new tablets sometimes make her feel a little dizzy.",
    ),
    (
        "Where is the Elmstead residents' meeting being held?",
        "The Elmstead residents' meeting will be held upstairs at the Gilded Acorn cafe this time.",
        "The Elmstead residents' meeting will discuss speeding on the high road.",
    ),
    (
        "How much did the roofer quote for the gutters?",
        "Barnaby the roofer quoted four hundred and fifty pounds to replace all the gutters.",
        "The roofer says the gutters are blocked with leaves from the sycamore tree.",
    ),
    (
        "What does Thaddeus need to pack for the school trip?",
        "Thaddeus must bring a packed lunch, waterproof coat and wellies for the field trip to "
        "Hexley Marsh.",
        "The school trip to Hexley Marsh costs twelve pounds, payable through the office.",
    ),
    (
        "When is the rent due to Mrs Kowalczyk?",
        "Mrs Kowalczyk expects the rent by the first working day of every month.",
        "Mrs Kowalczyk is raising the rent slightly when the new lease starts.",
    ),
)
#: backgrounds SQuTR-mini does not use
DEV_NOISES = ("white-noise", "brown-noise", "hum", "wind", "clock", "camera", "trash")
CONDITIONS = {"clean": None, "20 dB": 20.0, "10 dB": 10.0, "0 dB": 0.0}
WEIGHTS = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0)
#: the ways of putting dense and lexical scores on one scale (``FusionParams.lexical_fusion``)
FUSIONS = ("z", "minmax", "rrf")


#: ``FusionParams.asr_doubt_power`` values swept by ``--speakers``
DOUBT_POWERS = (0.0, 1.0, 2.0, 4.0)
#: ``FusionParams.speaker_gate`` values swept by ``--speakers`` (None: off; 0.65 is the
#: memory's own rule for a voice being a known speaker, ``SpeakerParams.match_threshold``)
SPEAKER_GATES = (None, 0.5, 0.65)
#: what every voice also says in ``--speakers``, about nothing (off-topic turns that the
#: ASR may be unsure of: they must not rise for it)
CHATTER = (
    "Yeah, yeah, I know, right.",
    "Okay, sure, that sounds fine to me.",
    "Hmm, let me think about that for a second.",
    "Sorry, could you say that again?",
)
#: the stored turns' conditions in ``--speakers`` (None: clean), drawn per turn
STORED_SNRS = (None, None, 10.0, 5.0, 0.0)


def main() -> None:
    """``--turns``: the spoken-turns sweep; ``--speakers``: who said what; otherwise the
    text passages' sweep."""
    args = _args()
    if args.speakers:
        speakers_main(args.seed)
    elif args.turns:
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
            for how, w in _sweep():
                res = recall(
                    memory,
                    "dev",
                    "Find the passage that answers this spoken question.",
                    reference=ref,
                    pool=pool,
                    k=len(pool),
                    params=FusionParams(lexical_weight=w, lexical_fusion=how),
                )
                rows.setdefault(_label(how, w), []).append(
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
            for how, w in _sweep():
                res = recall(
                    memory,
                    "dev",
                    "Find the turn that answers this spoken question.",
                    reference=ref,
                    k=len(which),
                    params=FusionParams(
                        lexical_weight_turns=w, lexical_fusion=how, asr_doubt_power=0.0
                    ),
                )
                rows.setdefault(_label(how, w), []).append(
                    trec_scores(_scored(res.turns, own), qrels)
                )
            for power in DOUBT_POWERS[1:]:
                res = recall(
                    memory,
                    "dev",
                    "Find the turn that answers this spoken question.",
                    reference=ref,
                    k=len(which),
                    params=replace(FusionParams(), asr_doubt_power=power),
                )
                rows.setdefault(f"shipped weights, doubt^{power:g}", []).append(
                    trec_scores(_scored(res.turns, own), qrels)
                )
        out[cond] = {k: mean_scores(v)["nDCG@10"] for k, v in rows.items()}
        _print(cond, out[cond])
    _print("mean", {k: float(np.mean([out[c][k] for c in out])) for k in out["clean"]})
    memory.close()


def speakers_main(seed: int) -> None:
    """Who said what: each fact's answer said by one voice and two turns on the same
    topic (its question, its related sentence) by two others, and every voice's
    ``CHATTER``; each stored turn clean or over a dev background (``STORED_SNRS``), so
    that some are misheard. Each query is a
    clean clip of the answer's voice saying something else, with the plan "this
    speaker, about <the question>" given as is (no planner), and asks for the answer's
    turn. Swept: ``FusionParams.asr_doubt_power`` (without the speaker gate) and
    ``FusionParams.speaker_gate``, against voiceprint-only and dense;
    "chatter in top 3" counts chatter ranked in the first three, per query."""
    from voxmem.memory.perception import Perception
    from voxmem.memory.store import AudioMemory
    from voxmem.retrievers.baselines import Query, retrieve
    from voxmem.retrievers.metrics import mean_scores, trec_scores
    from voxmem.retrievers.plan import Constraint, RetrievalPlan
    from voxmem.retrievers.recall import FusionParams, Reference, recall

    settings = bench_settings(mini=True)
    cache = ClipCache(settings.cache_dir / "synth")
    perception = Perception.from_settings(settings)
    memory = AudioMemory.open(
        Path(tempfile.mkdtemp(prefix="voxmem-fusion-dev-speakers-")),
        settings=settings,
        perception=perception,
    )
    voices = [v.id for v in distinct_voices()] + ["festival-slt-hts"]
    n, nv = len(DEV_FACTS), len(voices)
    rng = np.random.default_rng(seed)
    answer: dict[int, set[str]] = {}
    certainty: dict[str, list[float]] = {"answer": [], "other": []}
    said_by: dict[str, str] = {}  # each session's voice
    for i, fact in enumerate(DEV_FACTS):
        for part, text, shift in (("a", fact[1], 0), ("q", fact[0], 4), ("r", fact[2], 7)):
            snr = STORED_SNRS[int(rng.integers(len(STORED_SNRS)))]
            u = Utterance(
                text,
                voices[(i + shift) % nv],
                background=DEV_NOISES[int(rng.integers(len(DEV_NOISES)))] if snr else None,
                snr_db=snr,
                seed=4000 + 3 * i + "aqr".index(part),
            )
            said_by[f"s{i}{part}"] = u.voice
            for seg in memory.ingest(render(u, cache), tenant="dev", session=f"s{i}{part}"):
                probs = [w.probability for w in seg.words]
                certainty["answer" if part == "a" else "other"].append(
                    float(np.mean(probs)) if probs else 1.0
                )
                if part == "a":
                    answer.setdefault(i, set()).add(seg.id)
    chatter: set[str] = set()
    for v, voice in enumerate(voices):
        for c, text in enumerate(CHATTER):
            snr = STORED_SNRS[int(rng.integers(len(STORED_SNRS)))]
            u = Utterance(
                text,
                voice,
                background=DEV_NOISES[int(rng.integers(len(DEV_NOISES)))] if snr else None,
                snr_db=snr,
                seed=6000 + len(CHATTER) * v + c,
            )
            said_by[f"c{v}{c}"] = voice
            for seg in memory.ingest(render(u, cache), tenant="dev", session=f"c{v}{c}"):
                chatter.add(seg.id)
    for who, vals in certainty.items():
        print(
            f"mean word probability, {who} turns: quartiles",
            np.round(np.quantile(vals, [0.1, 0.25, 0.5, 0.75]), 3),
        )
    rows: dict[str, list[dict[str, float]]] = {}
    voice_sims: dict[str, list[float]] = {"same voice": [], "other voices": []}
    # ``doubt^0, no gate`` is the gate off
    runs = [
        (f"doubt^{p:g}, no gate", FusionParams(asr_doubt_power=p, speaker_gate=None))
        for p in DOUBT_POWERS
    ] + [(f"gate {g:g}", FusionParams(speaker_gate=g)) for g in SPEAKER_GATES[1:]]
    for i, (question, _, _) in enumerate(DEV_FACTS):
        other = DEV_FACTS[(i + n // 2) % n][2]
        ref = Reference.encode(
            memory, render(Utterance(other, voices[i % nv], seed=5000 + i), cache)
        )
        qrels = dict.fromkeys(answer.get(i, ()), 1)
        for name in ("speaker", "dense"):
            q = Query(question, ref, instruction_in_text=True)
            ranked = retrieve(name, memory, "dev", q, k=10_000)
            rows.setdefault(name, []).append(
                trec_scores({t.segment.id: t.score for t in ranked}, qrels)
            )
        plan = RetrievalPlan(content=question, speaker=Constraint("same"), instruction=question)
        for label, params in runs:
            res = recall(memory, "dev", question, reference=ref, plan=plan, k=10_000, params=params)
            scored = trec_scores({t.segment.id: t.score for t in res.turns}, qrels)
            scored["chatter in top 3"] = float(sum(t.segment.id in chatter for t in res.turns[:3]))
            rows.setdefault(label, []).append(scored)
        for t in res.turns:  # the reference's voice similarity to every turn
            same = said_by[t.segment.session] == voices[i % nv]
            voice_sims["same voice" if same else "other voices"].append(t.evidence["speaker"].raw)
    for name, scores in rows.items():
        _print(name, mean_scores(scores))
    for who, sims in voice_sims.items():
        print(
            f"voice similarity to the reference, {who}: quantiles 5/25/50/75/95 %",
            np.round(np.quantile(sims, [0.05, 0.25, 0.5, 0.75, 0.95]), 3),
        )
    memory.close()


def _sweep() -> list[tuple[str, float]]:
    """Each fusion with each weight; a weight of 0 (vectors only) once."""
    return [("z", 0.0)] + [(how, w) for how in FUSIONS for w in WEIGHTS if w > 0]


def _label(how: str, w: float) -> str:
    return "w=0" if w == 0 else f"{how} w={w}"


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
    parser.add_argument(
        "--speakers",
        action="store_true",
        help="who said what: a clip's speaker and a topic (the ASR-doubt sweep)",
    )
    return parser.parse_args()


if __name__ == "__main__":
    main()
