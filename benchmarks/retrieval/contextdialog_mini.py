"""ContextDialog-mini: spoken user-assistant dialogues in voxmem's ContextDialog format.

Each dialogue talks about two topics. For each topic the user states one fact and the
assistant one (asked about later), and each has a near miss: the same kind of fact
about something else, said by the same side, and in dialogues with two users, the
same kind of fact said by the other user. So the words of a question match several
turns, and only who said it (the asking voice, or the assistant) and what exactly
was said pick the supporting one. Four questions per dialogue, two about user turns
and two about assistant turns, each spoken by the user who asks. Every answer is
said exactly once in its dialogue (checked when the edition is written).

``test_freq`` speaks in common styles, ``test_rare`` in rare ones (whisper, fast,
angry, sad); both are made of the same twelve topics, paired differently, so no
dialogue repeats and the splits differ mainly in how the users speak. Questions were
written as a user would ask them, before the agent's router was run on them, and are
never reworded to suit it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from voxmem.audio import write_flac
from voxmem.benchmarks.pools import Wordings
from voxmem.benchmarks.retrieval import common
from voxmem.benchmarks.retrieval.contextdialog_data import SPLITS, write_split_jsonl
from voxmem.benchmarks.synth import ClipCache, Utterance, render
from voxmem.errors import BenchmarkDataError

#: bump when the scripts or the generator change, so stale editions are not reused
MINI_VERSION = 3
STYLES = {
    "test_freq": ("neutral", "excited", "slow"),
    "test_rare": ("whisper", "fast", "angry", "sad"),
}
#: Users: distinct voices other than the agent's (piper's joe) that whisper base follows.
#: Measured once on four of the scripts' user sentences, neutral / whisper style, WER:
#: flite-slt 0.10/0.07, flite-awb 0.00/0.00, flite-rms 0.05/0.10, flite-kal 0.05/0.07,
#: festival-ked 0.10/0.14, espeak-gb-m 0.07/0.10; left out: espeak-us-f 0.33/0.19,
#: espeak-sc-f 0.50/0.45, espeak-us-m 0.33/0.14. ContextDialog's speech is human; a voice
#: the ASR cannot follow would measure the synthesiser, not recall.
USER_VOICES = ("flite-slt", "flite-awb", "flite-rms", "flite-kal", "festival-ked", "espeak-gb-m")


@dataclass(frozen=True)
class Topic:
    """One topic of a dialogue: a fact from each side, asked about, and near misses."""

    user_fact: str
    user_answer: str
    user_question: str
    agent_fact: str
    agent_answer: str
    agent_question: str
    #: the same kind of fact about something else, by the same user / by the assistant
    user_near: str
    agent_near: str
    #: the same kind of fact, by the other user of a two-user dialogue
    other_user: str


TOPICS: tuple[Topic, ...] = (
    Topic(
        "I'm planning to cook a big pot of chicken curry for dinner tonight.",
        "chicken curry",
        "What did I say I was cooking for dinner?",
        "For dessert I'd recommend a simple lemon tart, it goes well after something spicy.",
        "lemon tart",
        "What dessert did you recommend?",
        "Yesterday we just had leftover pizza for lunch.",
        "As a side dish, plain rice with a little butter is always safe.",
        "Honestly, I'd rather have mushroom soup for dinner.",
    ),
    Topic(
        "My sister's name is Emma, and she's visiting us next week.",
        "Emma",
        "What did I say my sister's name was?",
        "A nice gift for a visiting sister would be a framed family photo.",
        "framed family photo",
        "What did you suggest I give my sister?",
        "My brother Daniel can't make it, he's working abroad.",
        "For your brother, a long phone call might mean more than a present.",
        "And my sister is called Laura, she lives in Boston.",
    ),
    Topic(
        "My train to the conference leaves from the north station.",
        "north station",
        "Which station did I say my train leaves from?",
        "You should book a window seat on the left side for the best view of the coast.",
        "window seat",
        "What kind of seat did you tell me to book on the train?",
        "My flight back home lands at the city airport.",
        "On the flight back, an aisle seat makes it easier to stretch your legs.",
        "My train leaves from the central station, not the same one.",
    ),
    Topic(
        "I just finished reading a novel about a lighthouse keeper.",
        "lighthouse keeper",
        "What did I tell you the novel I finished was about?",
        "Next you might enjoy a mystery set in an old library.",
        "old library",
        "What book did you recommend I read next?",
        "My daughter is reading a comic about a space pirate.",
        "For your daughter, a graphic novel about dragons could be fun.",
        "I'm halfway through a biography of a famous chef.",
    ),
    Topic(
        "This spring I planted tomatoes along the back fence.",
        "tomatoes",
        "What did I say I planted along the fence?",
        "To keep snails away, you can scatter crushed eggshells around the plants.",
        "crushed eggshells",
        "What did you suggest for keeping the snails away?",
        "In the front yard I put in a row of sunflowers.",
        "For aphids, a spray of soapy water usually works.",
        "I planted strawberries in pots on the balcony.",
    ),
    Topic(
        "We adopted a grey cat and named him Pepper.",
        "Pepper",
        "What did I say we named the cat?",
        "Cats settle in faster if you give them a quiet room with a cardboard box to hide in.",
        "cardboard box",
        "What did you say would help the cat settle in?",
        "Our old dog was called Rusty, he lived to fifteen.",
        "Dogs settle in faster with a fixed walking routine.",
        "My parents have a parrot called Mango.",
    ),
    Topic(
        "I've started running along the river every morning before work.",
        "river",
        "Where did I say I go running?",
        "To avoid sore knees, stretch your calves for five minutes after each run.",
        "stretch your calves",
        "What did you recommend to avoid sore knees?",
        "On weekends I go swimming at the public pool.",
        "For swimming, a pair of good goggles makes a big difference.",
        "I jog in the park near the old stadium.",
    ),
    Topic(
        "My son's birthday party will be at the bowling alley downtown.",
        "bowling alley",
        "Where did I say my son's party is going to be?",
        "For the cake, a chocolate cake with strawberries on top is always popular with kids.",
        "chocolate cake",
        "What kind of cake did you suggest?",
        "Last year we had his party at the science museum.",
        "For party games, a treasure hunt keeps everyone busy.",
        "My niece is having her party at the ice rink.",
    ),
    Topic(
        "In August we're going camping by a lake in Canada.",
        "Canada",
        "Where did I say we're going camping?",
        "Bring a good bug spray, the mosquitoes near lakes can be brutal in summer.",
        "bug spray",
        "What did you tell me to bring camping?",
        "At Christmas we usually visit my aunt in Florida.",
        "For Florida, pack plenty of sunscreen.",
        "I'd rather go hiking in the mountains of Scotland.",
    ),
    Topic(
        "The mechanic said my car needs new brake pads.",
        "brake pads",
        "What did I say the mechanic told me the car needs?",
        "I'd suggest getting a second quote from another garage before you pay.",
        "second quote",
        "What did you advise me to do before paying for the repair?",
        "My bicycle has a flat tire again.",
        "For the bike, a patch kit is cheaper than a new tube.",
        "My car just needs an oil change, luckily.",
    ),
    Topic(
        "I have a job interview on Thursday with a shipping company.",
        "shipping company",
        "Who did I say my interview was with?",
        "Before the interview, practise a short story about a problem you solved at work.",
        "problem you solved",
        "What did you say I should practise before the interview?",
        "My friend got hired last month by an insurance company.",
        "For salary talks, let them name a number first.",
        "My interview is with a bank on Friday.",
    ),
    Topic(
        "I've been learning to play the cello for about a year.",
        "cello",
        "Which instrument did I say I'm learning?",
        "Recording yourself once a week is a great way to hear your progress.",
        "recording yourself",
        "How did you suggest I keep track of my progress?",
        "When I was a kid I played the trumpet in the school band.",
        "For sight reading, try short pieces you have never seen before.",
        "I'm learning the piano, mostly jazz.",
    ),
)
OPENERS = (
    ("Hi, do you have a minute to chat?", "Of course, I'm listening. What's on your mind?"),
    ("Hello again, I could use some advice.", "Sure, happy to help. Go ahead."),
    ("Hey, can I run a few things by you?", "Absolutely, tell me everything."),
)
CLOSERS = (
    ("Thanks, that's really helpful.", "You're welcome. Talk to you soon."),
    ("Okay, that's all for now.", "All right, have a good day."),
    ("Great, I think that covers it.", "Glad I could help."),
)
ACKS = ("That sounds lovely.", "Good to know.", "Nice, thanks for telling me.", "Noted.")


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]", " ", text.lower()).split())


def _said_once(turns: list[dict[str, Any]], answer: str, support: str, conv: str) -> None:
    """The answer must be in the supporting utterance and in no other."""
    where = [
        t["utterance_id"]
        for t in turns
        if re.search(rf"\b{re.escape(_norm(answer))}\b", _norm(t["value"]))
    ]
    if where != [support]:
        raise BenchmarkDataError(
            f"ContextDialog-mini script error: in {conv}, answer {answer!r} is said in "
            f"{where or 'no utterance'}, not only in {support}"
        )


def _script(
    n: int,
    topics: tuple[Topic, Topic],
    users: list[str],
    rng: np.random.Generator,
    wordings: Wordings | None = None,
    phrasing: np.random.Generator | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One dialogue's turns (speaker, from, text) and its four questions (unrendered).
    Each question is drawn by ``phrasing`` from ``wordings[kind][answer]``
    (``pools.wordings("contextdialog-mini", role)``; without them, the topic's own
    question); ``rng`` draws nothing else for them, so the dialogue is the same."""
    conv = f"cd{n:03d}"
    opener, closer = OPENERS[n % len(OPENERS)], CLOSERS[n % len(CLOSERS)]
    lines: list[tuple[str, str, str]] = [(users[0], "human", opener[0]), ("", "gpt", opener[1])]
    asks: list[tuple[Topic, str, int, int]] = []  # topic, asker, user line, agent line
    for k, topic in enumerate(topics):
        main = users[k % len(users)]
        other = users[(k + 1) % len(users)] if len(users) > 1 else None
        facts = [(main, "human", topic.user_fact), ("", "gpt", topic.agent_fact)]
        blocks = [facts, [(main, "human", topic.user_near), ("", "gpt", topic.agent_near)]]
        if other is not None:
            blocks.append([(other, "human", topic.other_user), ("", "gpt", ACKS[(n + k) % 4])])
        order = rng.permutation(len(blocks))
        for b in order:
            if b == 0:
                asks.append((topic, main, len(lines), len(lines) + 1))
            lines += blocks[b]
    lines += [(users[-1], "human", closer[0]), ("", "gpt", closer[1])]
    turns = [
        {
            "conv_id": conv,
            "utterance_id": f"{conv}_u{i:02d}",
            "from": sender,
            "value": text,
            "speaker": speaker or None,
        }
        for i, (speaker, sender, text) in enumerate(lines)
    ]
    questions: list[dict[str, Any]] = []
    draw = phrasing or np.random.default_rng(0)
    for topic, asker, u, a in asks:
        for side, kind, text, answer, line in (
            ("human", "user_question", topic.user_question, topic.user_answer, u),
            ("gpt", "agent_question", topic.agent_question, topic.agent_answer, a),
        ):
            if wordings is not None:
                by_answer = wordings[kind]
                assert isinstance(by_answer, dict), kind
                text = str(draw.choice(by_answer[answer]))
            support = str(turns[line]["utterance_id"])
            _said_once(turns, answer, support, conv)
            questions.append(
                {
                    "qa_id": f"{conv}_q{len(questions)}",
                    "conv_id": conv,
                    "question": text,
                    "answer": answer,
                    "supporting_utterance_id": support,
                    "supporting_from": side,
                    "speaker": asker,
                }
            )
    return turns, questions


def write_mini(
    folder: Path, seed: int, quick: bool, cache: ClipCache, console: Console, wordings: Wordings
) -> Path:
    """ContextDialog-mini, both splits, as JSON lines plus FLAC audio (one dialogue per
    split with ``quick``, six per split otherwise); deterministic per seed. Questions are
    worded from ``wordings`` (``pools.wordings("contextdialog-mini", role)``) on a stream
    of their own, and spoken as worded: the dialogues are the same for every role."""
    done = folder / ".complete"
    if done.exists():
        return folder
    users = list(USER_VOICES)
    per_split = 1 if quick else len(TOPICS) // 2
    with common.progress(console) as bar:
        task = bar.add_task("generating ContextDialog-mini", total=per_split * len(SPLITS))
        for s, split in enumerate(SPLITS):
            rng = np.random.default_rng([seed, s])
            phrasing = common.wording_rng(seed, s)
            utterances: list[dict[str, Any]] = []
            questions: list[dict[str, Any]] = []
            for d in range(per_split):
                n = s * 100 + d
                # the rare split pairs the topics differently, so no dialogue repeats
                pair = (TOPICS[2 * d], TOPICS[2 * d + 1])
                if s == 1:
                    pair = (TOPICS[(2 * d + 1) % len(TOPICS)], TOPICS[(2 * d + 2) % len(TOPICS)])
                two = (d + s) % 2 == 1
                voices = [str(v) for v in rng.choice(users, 2 if two else 1, replace=False)]
                turns, asked = _script(n, pair, voices, rng, wordings, phrasing)
                for t in turns:
                    t["emotion"], t["audpath"] = None, None
                    if t["from"] == "human":
                        style = str(rng.choice(STYLES[split]))
                        clip = render(
                            Utterance(t["value"], t["speaker"], style=style, seed=n), cache
                        )
                        name = f"audio/{t['utterance_id']}.flac"
                        write_flac(clip, folder / split / name)
                        t["emotion"], t["audpath"] = style, name
                for q in asked:
                    style = str(rng.choice(STYLES[split]))
                    clip = render(Utterance(q["question"], q.pop("speaker"), style=style), cache)
                    name = f"audio/{q['qa_id']}.flac"
                    write_flac(clip, folder / split / name)
                    q["question_audio"] = name
                utterances += turns
                questions += asked
                bar.advance(task)
            write_split_jsonl(folder, split, utterances, questions)
    (folder / "README.md").write_text(
        "# ContextDialog-mini\n\nGenerated by voxmem in its ContextDialog format (version 1): "
        "synthetic voices and styles, scripted dialogues; not the real dataset.\n"
    )
    done.write_text(json.dumps({"seed": seed, "quick": quick}))
    return folder
