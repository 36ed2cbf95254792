"""Instructions with known plans, for measuring the instruction parser.

Three pools of wordings that share no template: ``tune`` (the parser was built
and its thresholds chosen looking at these), ``heldout`` (written apart and first
measured untouched; the parser's later fixes looked at its errors, so it is now
seen), ``fresh`` (written after those fixes; later fixes looked at its errors) and
``unseen`` (written before those later fixes, never used to change the parser).
``benchmarks run plans`` reports every pool.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TOPICS = [
    "the budget",
    "the train tickets",
    "the hotel booking",
    "the doctor's appointment",
    "the new printer",
    "the birthday party",
    "the quarterly report",
    "the flight delay",
    "the garden",
    "the football match",
    "the museum opening",
    "the apartment move",
]

WORDINGS: dict[str, dict[str, list[str]]] = {
    "tune": {
        "speaker_same": ["this speaker", "the same speaker", "the same voice", "this person"],
        "style_same": ["in the same tone", "with the same emotion", "in the same style"],
        "env_same": [
            "with the same background",
            "in the same environment",
            "with the same background noise",
        ],
        "style_target": ["sounding {v}", "in a {v} voice", "speaking {v}"],
        "env_target": ["with {v} in the background", "where you can hear {v}"],
        "content": ["talking about {t}", "about {t}", "that mentions {t}"],
        "frame": ["find clips {parts}", "retrieve recordings {parts}", "show me turns {parts}"],
    },
    "heldout": {
        "speaker_same": [
            "the individual heard in this sample",
            "whoever is talking here",
            "the identical voice",
            "that narrator",
            "the one speaking in the clip",
            "the person in the reference",
        ],
        "style_same": [
            "delivered in a matching manner",
            "with an identical mood",
            "sounding the same way",
            "with similar intonation",
        ],
        "env_same": [
            "recorded in the same place",
            "with matching ambience",
            "in identical surroundings",
            "with similar background sound",
        ],
        "style_target": [
            "where the talker is {v}",
            "with a {v} delivery",
            "said {v}",
            "in which they sound {v}",
        ],
        "env_target": [
            "while {v} can be heard",
            "with some {v} going on behind",
            "against a backdrop of {v}",
            "recorded near {v}",
        ],
        "content": [
            "discussing {t}",
            "regarding {t}",
            "in which {t} comes up",
            "on the subject of {t}",
        ],
        "frame": [
            "I need the audio {parts}",
            "pull up every segment {parts}",
            "can you locate the moments {parts}",
            "bring me speech {parts}",
            "which recordings are {parts}",
        ],
    },
}

WORDINGS["fresh"] = {
    "speaker_same": [
        "the same talker as in my recording",
        "this particular person",
        "the guy in this clip",
        "the woman speaking here",
        "the voice you just heard",
        "that same caller",
    ],
    "style_same": [
        "with the same emotional tone",
        "in a similar mood to this one",
        "spoken with the same feeling",
        "using the same delivery",
    ],
    "env_same": [
        "in the same surroundings as this",
        "with the same noise behind it",
        "recorded in a similar environment",
        "from the same location",
    ],
    "style_target": [
        "where someone sounds {v}",
        "spoken in a {v} way",
        "where the voice is {v}",
        "that come across as {v}",
    ],
    "env_target": [
        "with {v} audible in the background",
        "where {v} is heard behind the speech",
        "recorded with {v} nearby",
        "with the sound of {v}",
    ],
    "content": [
        "where they talked about {t}",
        "concerning {t}",
        "that mention {t}",
        "where {t} was discussed",
    ],
    "frame": [
        "search for audio {parts}",
        "list the clips {parts}",
        "get me anything {parts}",
        "look for turns {parts}",
        "give me the recordings {parts}",
    ],
}
# written before the parser's paraphrase work that looked at the fresh pool's errors
WORDINGS["unseen"] = {
    "speaker_same": [
        "the lady you can hear in my sample",
        "him, the one on this recording",
        "the exact same narrator",
        "this voice right here",
        "the person whose voice I just played",
        "that specific speaker",
    ],
    "style_same": [
        "in a matching tone of voice",
        "with that same attitude",
        "said with similar emotion",
        "with the same vibe as this",
    ],
    "env_same": [
        "with the same ambient noise",
        "taken in that same room",
        "with an identical acoustic backdrop",
        "in the same kind of setting",
    ],
    "style_target": [
        "in which the speaker seems {v}",
        "with a {v} tone",
        "where the delivery is {v}",
        "spoken {v}",
    ],
    "env_target": [
        "while {v} plays in the background",
        "with background {v}",
        "with {v} going on",
        "with {v} behind the talking",
    ],
    "content": [
        "on {t}",
        "mentioning {t}",
        "where the topic was {t}",
        "that discuss {t}",
    ],
    "frame": [
        "fetch the bits of audio {parts}",
        "are there any recordings {parts}",
        "show every clip {parts}",
        "dig up segments {parts}",
        "i am looking for speech {parts}",
    ],
}
STYLE_VALUES = {
    "tune": {
        "sad": "sad",
        "excited": "happy",
        "angry": "angry",
        "whisper": "whispering",
        "fast": "fast",
    },
    "heldout": {
        "sad": "melancholy",
        "excited": "cheerful",
        "angry": "furious",
        "whisper": "hushed",
        "fast": "hurried",
        "slow": "unhurried",
        "laughing": "giggling",
    },
}
STYLE_VALUES["fresh"] = {
    "sad": "gloomy",
    "excited": "thrilled",
    "angry": "irritated",
    "whisper": "whispery",
    "slow": "drawn out",
    "crying": "tearful",
}
STYLE_VALUES["unseen"] = {
    "sad": "sorrowful",
    "excited": "joyful",
    "angry": "enraged",
    "whisper": "whispered",
    "fast": "rushed",
    "monotone": "flat",
}
ENV_VALUES = {
    "tune": {
        "rain": "rain",
        "dog": "a dog barking",
        "typing": "typing",
        "phone": "a phone ringing",
    },
    "heldout": {
        "rain": "a downpour",
        "birds": "birdsong",
        "engine": "traffic",
        "crowd": "people chattering in a cafe",
        "wind": "gusting wind",
        "clock": "a ticking clock",
        "thunderstorm": "thunder",
    },
}


ENV_VALUES["fresh"] = {
    "rain": "rain on the roof",
    "dog": "dogs barking",
    "music": "music playing",
    "wind": "a strong breeze",
    "alarm": "an alarm going off",
    "typing": "clacking keys",
}


ENV_VALUES["unseen"] = {
    "rain": "raindrops",
    "engine": "a motor running",
    "birds": "birds chirping",
    "crowd": "crowd noise",
    "phone": "a telephone",
    "clock": "ticking",
}


@dataclass(frozen=True)
class LabelledInstruction:
    text: str
    has_reference: bool
    speaker: str  # any | same
    style: str  # any | same | target:<label>
    environment: str
    content: str | None


def generate(pool: str, n: int, seed: int = 0) -> list[LabelledInstruction]:
    """``n`` instructions from one pool, each asking for 1-3 attributes."""
    w = WORDINGS[pool]
    rng = np.random.default_rng(seed)
    out: list[LabelledInstruction] = []
    while len(out) < n:
        parts, labels = [], {"speaker": "any", "style": "any", "environment": "any"}
        content = None
        kinds = rng.choice(
            ["content", "speaker", "style", "environment"],
            size=int(rng.integers(1, 4)),
            replace=False,
        )
        if "speaker" in kinds:
            parts.append("from " + str(rng.choice(w["speaker_same"])))
            labels["speaker"] = "same"
        if "content" in kinds:
            content = str(rng.choice(TOPICS))
            parts.append(str(rng.choice(w["content"])).format(t=content))
        if "style" in kinds:
            if rng.random() < 0.4:
                parts.append(str(rng.choice(w["style_same"])))
                labels["style"] = "same"
            else:
                label, word = list(STYLE_VALUES[pool].items())[
                    int(rng.integers(len(STYLE_VALUES[pool])))
                ]
                parts.append(str(rng.choice(w["style_target"])).format(v=word))
                labels["style"] = f"target:{label}"
        if "environment" in kinds:
            if rng.random() < 0.4:
                parts.append(str(rng.choice(w["env_same"])))
                labels["environment"] = "same"
            else:
                label, word = list(ENV_VALUES[pool].items())[
                    int(rng.integers(len(ENV_VALUES[pool])))
                ]
                parts.append(str(rng.choice(w["env_target"])).format(v=word))
                labels["environment"] = f"target:{label}"
        frame = str(rng.choice(w["frame"]))
        text = frame.format(parts=" ".join(parts))
        has_ref = "same" in labels.values()
        out.append(
            LabelledInstruction(
                text, has_ref, labels["speaker"], labels["style"], labels["environment"], content
            )
        )
    return out
