"""A generated corpus of instructions with their plans, for training the planner.

Every instruction is put together from a grammatical frame (a question about what
someone said, a request for clips, a fronted topic, a bare noun phrase, ...) and
one phrase per asked-for part of the plan (who spoke, how it sounded, what was
behind it, what it was about, when), in random order and register, with fillers,
typos and casing noise. Each word carries a tag: ``C`` (content to match), ``N`` (a speaker's name),
``P`` (the reference clip's speaker), ``S`` (how it sounded), ``E`` (what was behind
it), ``R`` (content taken from the reference clip), ``U`` / ``A`` (the user's / the
agent's own turns), ``T`` (when), or ``O`` (the instruction's own wording).

Every list of phrases is split in two by position: the ``dev`` corpus is built
only from the held-back part of every list (frames, openers, clip nouns, topics,
names, style and sound wordings), so dev accuracy measures wordings the model
never trained on. Both are tuning data of this module: they never score the
planner as a test pool.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from voxmem.retrievers.planner import (
    CONTENT_KINDS,
    ENV_LABELS,
    ROLES,
    SPEAKER_MODES,
    STYLE_LABELS,
    TIME_LABELS,
    words_of,
)

Split = str  # "train" | "dev"


def _phrases(text: str) -> list[str]:
    """Phrases separated by ``|`` (line breaks are spaces)."""
    return [" ".join(p.split()) for p in text.split("|")]


@dataclass(frozen=True)
class Example:
    words: tuple[str, ...]
    tags: tuple[str, ...]
    speaker: str  # any | same | target
    style: str  # any | same | a style label (stored or mapped)
    environment: str  # any | same | an environment label
    content: str  # none | present | reference
    role: str  # none | user | agent
    time: str  # none | a time label
    #: whether a reference clip comes with it: always when something is taken from the
    #: clip, sometimes otherwise (a clip with an instruction that does not use it)
    has_reference: bool = False

    @property
    def text(self) -> str:
        out = ""
        for w in self.words:
            glue = not out or re.fullmatch(r"[,.?!:;]|'s|n't", w) is not None
            out += w if glue else " " + w
        return out

    @property
    def content_words(self) -> list[str]:
        return [w for w, t in zip(self.words, self.tags, strict=True) if t == "C"]


#: (id of the list, split) -> (the list itself, its part): the list is kept so that an
#: id reused by another list after the first is gone never returns the wrong part
_PARTS: dict[tuple[int, Split], tuple[Sequence[str], list[str]]] = {}


def _part(items: Sequence[str], split: Split) -> list[str]:
    """Every fifth item (from the fourth on) is held back for dev; lists of three
    items or fewer are shared."""
    key = (id(items), split)
    if key not in _PARTS or _PARTS[key][0] is not items:
        if len(items) < 4:
            part = list(items)
        else:
            part = [x for i, x in enumerate(items) if (i % 5 == 3) == (split == "dev")]
        _PARTS[key] = (items, part)
    return _PARTS[key][1]


def _pick(rng: np.random.Generator, items: Sequence[str], split: Split | None = None) -> str:
    """One item (of the ``split`` part of ``items`` when given)."""
    pool = _part(items, split) if split else items
    return pool[int(rng.integers(len(pool)))]


# --- who ---------------------------------------------------------------------

_NAMES = """Dana Priya Marco Keiko Tom Aisha Lars Fatima Jonas Mei Olu Sven Rosa Ahmed Nina
Carlos Ingrid Ravi Chloe Mateo Yuki Omar Hannah Felix Zara Diego Leila Pavel Grace Kwame
Elena Tariq Sofia Bruno Amara Hugo Noor Ivan Lucy Kenji Maya Samir Petra Liam Anya Emeka
Clara Raj Ines Otto"""
NAMES = _NAMES.split()
SAME_SUBJECT = _phrases(
    """
    this speaker | the same speaker | this person | the person in this clip | the voice
    in the recording | he | she | this guy | the woman in the sample | whoever is
    talking here | the same person | the one speaking in the reference | the speaker of
    this clip | that voice | the man in this recording | the same voice | the narrator
    here | this caller | the person you just heard | the lady in the clip | the talker
    in this sample | this same individual | the speaker from the query | the one in the
    example | the person speaking here | the voice you hear in this clip | this very
    speaker | the guy in the audio | the girl in this recording | the presenter in the
    clip
    """
)
SAME_BY = _phrases(
    """
    by this speaker | from the same speaker | by the same person | in this voice |
    spoken by the person in the clip | from this voice | by the same voice | with the
    same speaker | featuring the same person | said by him | said by her | from whoever
    is speaking here | by the speaker in the reference | in the same voice | from the
    same talker as this one | by that same person | by the person in this sample |
    uttered by the same individual | in his voice | in her voice | by the voice in the
    query clip | from this exact speaker | voiced by the same person | by the one
    talking in this recording | from the narrator of this clip | with this person
    speaking | by the very same speaker | from the same person as here | by the same guy
    | spoken in this same voice | from whoever this is | by this voice | from this
    person | from the person in it | by whoever's talking here | with this voice |
    from the one speaking here | by this same caller
    """
)
ANY_SUBJECT = _phrases(
    """
    anyone | someone | somebody | people | anybody | they | everyone | a speaker | one
    of them | whoever
    """
)
USER_SUBJECT = ["I", "I", "I myself"]
AGENT_SUBJECT = _phrases(
    """
    you | you | the assistant | the bot | the agent | you yourself
    """
)

# --- what was said (topics; words tagged C) ------------------------------------

_NOUNS = """budget invoice flight dentist recipe deadline contract garden holiday rent
printer interview wedding bakery mortgage vaccine laptop passport parking salary
conference playlist bicycle furniture insurance lasagna kitchen roof basement ticket
concert marathon homework exam tuition pharmacy groceries refund warranty delivery
project launch campaign merger lawsuit election referendum stadium museum library
hospital surgery appointment prescription allergy diet workout gym yoga vacation cruise
hotel airport visa embassy neighbour landlord plumber electrician carpenter painter
puppy kitten aquarium telescope microscope spreadsheet database server firewall password
backup website newsletter podcast documentary novel poem painting sculpture festival
parade fireworks barbecue picnic camping hiking skiing surfing tennis chess football
basketball cricket rugby swimming bakery harvest vineyard orchard tractor greenhouse
compost fence driveway chimney garage attic balcony elevator staircase carpet curtains
sofa mattress fridge oven microwave dishwasher kettle toaster blender coffee tea
sandwich pizza noodles dumplings curry soup salad dessert chocolate cheese bread
invoice receipt pension tax audit quarterly forecast inventory shipment warehouse
supplier customer complaint feedback survey promotion bonus layoff hiring onboarding
training workshop seminar lecture thesis scholarship internship graduation reunion
anniversary birthday funeral christening divorce engagement honeymoon babysitter
daycare kindergarten curriculum uniform allowance chores curfew sleepover"""
NOUNS = list(dict.fromkeys(_NOUNS.split()))
_MODIFIER_WORDS = """new old next last big annual monthly weekly quarterly broken late early
cancelled delayed upcoming second final vegan local company family school office
summer winter spring autumn morning evening weekend holiday team project client"""
_MODIFIERS = _MODIFIER_WORDS.split()
_DETS = ["the", "the", "the", "our", "my", "your", "their", "his", "her", "that", ""]
_OF = _phrases(
    """
    for | of | with | at | from
    """
)
CLAUSE_SUBJECTS = _phrases(
    """
    the meeting | the train | we | they | the shop | the package | the doctor | my
    sister | the team | the flight | the landlord | the kids | the bank | our neighbour
    | the client | the printer
    """
)
CLAUSE_PREDICATES = _phrases(
    """
    was moved to Friday | would be late | should cancel the order | needs a new battery
    | is closed on Sundays | arrives at noon | costs too much | wants a refund | got
    lost on the way | will call back tomorrow | is out of stock | ran over budget |
    changed the password | missed the bus | is moving to Berlin | won the match | forgot
    the keys | needs to be signed by Monday | should repaint the hallway | booked two
    rooms
    """
)


def clause(rng: np.random.Generator, split: Split) -> str:
    """Something reported as said: "the train would be late"."""
    subj = _pick(rng, CLAUSE_SUBJECTS, split)
    return f"{subj} {_pick(rng, CLAUSE_PREDICATES, split)}"


def topic(rng: np.random.Generator, split: Split) -> str:
    """A topic noun phrase."""
    nouns, mods = _part(NOUNS, split), _part(_MODIFIERS, split)
    r = rng.random()
    det = _pick(rng, _DETS)
    noun = _pick(rng, nouns)
    if r < 0.35:
        noun = f"{_pick(rng, mods)} {noun}"
    elif r < 0.5:
        noun = f"{noun} {_pick(rng, nouns)}"
    elif r < 0.6:
        noun = f"{noun} {_pick(rng, _OF)} the {_pick(rng, nouns)}"
    elif r < 0.65:
        noun = f"{noun} in room {int(rng.integers(2, 500))}"
    elif r < 0.72:
        noun = f"{noun} {_pick(rng, nouns)} {_pick(rng, HEADS_OF_COMPOUNDS)}"
    elif r < 0.8:
        place = _pick(rng, PLACES, split)
        noun = f"{noun} {_pick(rng, ['in', 'to', 'from', 'near'])} {place}"
    elif r < 0.86:
        return f"the {_pick(rng, PLACES, split)} {noun}"
    elif r < 0.92:
        verb = _pick(rng, GERUNDS, split)
        return f"{verb} {_pick(rng, ['the', 'a', 'our', 'my', 'a new'])} {noun}"
    return f"{det} {noun}".strip()


HEADS_OF_COMPOUNDS = [
    "time",
    "policy",
    "rate",
    "plan",
    "list",
    "schedule",
    "date",
    "code",
    "hours",
    "situation",
]
PLACES = _phrases(
    """
    Oslo | Lisbon | Portugal | Berlin | Nairobi | Osaka | Toronto | Lima | Prague | Cairo
    | Seattle | Dublin | Manila | Chile | Vienna | Hanoi | Denver | Krakow | Ghana |
    Melbourne | Quebec | Sicily | Bristol | Austin | Kyoto | Marseille | Accra | Bogota |
    Madrid | Iceland
    """
)
GERUNDS = _phrases(
    """
    adopting | resetting | fixing | booking | cancelling | renewing | selling | buying |
    painting | moving | returning | replacing | upgrading | cleaning | hiring | renting |
    insuring | shipping | printing | planning
    """
)


#: topics that share a word with a style or sound; asked for as content, not as sound
AMBIGUOUS_TOPICS = _phrases(
    """
    the rain forecast | the storm damage | the music festival | the phone bill | the dog
    food | the cat sitter | the alarm code | the clock repair | the flat | the fast
    train | the slow internet | the high rent | the low prices | the bell pepper | the
    wind farm | the water bill | the typing test | the camera settings | the paper
    deadline | the crowd funding | the bird feeder | the engine repair | the sad news |
    the angry customer | the static electricity | the blue sofa | the traffic fine | the
    piano lessons | the coffee shop lease | the ocean cruise | the fan club | the bar
    exam | the radio interview | the party budget | the river cleanup
    """
)

#: sound and mood words that are often part of a topic, and the nouns they make
#: topics with ("the alarm system", "the music theory class", "the rain gutters")
TOPIC_SOUND_WORDS = _phrases(
    """
    rain | storm | thunderstorm | wind | bird | dog | cat | phone | bell | alarm |
    keyboard | clock | engine | car | crowd | music | water | fan | radio | camera |
    paper | noise | traffic | piano | siren | fridge | door | kettle | baby | party
    """
)
TOPIC_MOOD_WORDS = _phrases(
    """
    sad | angry | noisy | loud | quiet | fast | slow | high | low | happy | excited |
    calm | flat | crying | laughing | whispering | shouting | deep | neutral
    """
)
TOPIC_HEADS = _phrases(
    """
    forecast | warning | damage | insurance | bill | repair | system | settings | theory
    | lessons | festival | sitter | walker | food | contract | charger | battery |
    heater | pump | leak | gutters | policy | complaint | permit | schedule | budget |
    subscription | recall | show | club | shop | vet | class | campaign | customers |
    news | review | neighbours | story | jokes | stand | company | trip | season | app
    """
)


#: a sound that is itself what was talked about ("the dog barking all night"), with
#: what it did: content, not a background
SOUND_TOPICS: dict[str, list[str]] = {
    "the dog": _phrases("barking all night | next door | waking the kids | that never stops"),
    "the neighbour's dog": _phrases("barking all night | howling at night | that never stops"),
    "the car alarm": _phrases("going off at night | outside the window | that kept going"),
    "the fire alarm": _phrases("going off at night | during the exam | in the office"),
    "the baby": _phrases("crying at night | waking everyone up | teething"),
    "the music": _phrases("upstairs | next door | being too loud | at three in the morning"),
    "the phone": _phrases("ringing nonstop | buzzing all through dinner | going off in class"),
    "the construction noise": _phrases("next door | starting at seven | on our street"),
    "the church bells": _phrases("every Sunday | waking everyone up | at six in the morning"),
    "the traffic": _phrases("on the bridge | at rush hour | outside the office"),
    "the rain": _phrases("ruining the picnic | flooding the basement | all week"),
    "the wind": _phrases("knocking the fence down | all night | on the coast"),
    "the fridge": _phrases("buzzing all night | leaking again | that keeps humming"),
    "the loud neighbours": _phrases("upstairs | having parties | stomping around"),
}
_SOUND_SUBJECTS = list(SOUND_TOPICS)


def ambiguous_topic(rng: np.random.Generator, split: Split) -> str:
    """A topic holding a sound or mood word: content, not a constraint."""
    r = rng.random()
    if r < 0.2:
        subject = _pick(rng, _SOUND_SUBJECTS, split)
        if rng.random() < 0.4:
            return subject
        return f"{subject} {_pick(rng, SOUND_TOPICS[subject], split)}"
    r = rng.random()
    if r < 0.3:
        return _pick(rng, AMBIGUOUS_TOPICS, split)
    head = _pick(rng, TOPIC_HEADS, split)
    words = TOPIC_SOUND_WORDS if r < 0.75 else TOPIC_MOOD_WORDS
    noun = f"{_pick(rng, words, split)} {head}"
    r = rng.random()
    if r < 0.2:
        noun = f"{noun} {_pick(rng, ['for', 'in', 'at', 'of'])} the {_pick(rng, NOUNS, split)}"
    elif r < 0.35:
        return f"{_pick(rng, GERUNDS, split)} the {noun}"
    return f"{_pick(rng, _DETS)} {noun}".strip()


# --- how it sounded -----------------------------------------------------------

STYLE_ADJ: dict[str, list[str]] = {
    "sad": _phrases(
        """
        sad | unhappy | gloomy | downcast | sorrowful | melancholy | miserable | down |
        heartbroken | depressed | blue | dejected | mournful | glum | forlorn |
        low-spirited | despondent | crestfallen | woeful | upset
        """
    ),
    "excited": _phrases(
        """
        excited | happy | cheerful | thrilled | joyful | upbeat | enthusiastic |
        delighted | elated | giddy | bubbly | overjoyed | ecstatic | psyched | animated
        | jubilant | exhilarated | buoyant | gleeful | stoked
        """
    ),
    "angry": _phrases(
        """
        angry | furious | mad | annoyed | irritated | livid | irate | enraged | cross |
        frustrated | fuming | outraged | heated | exasperated | hostile | indignant |
        seething | agitated | grumpy | incensed
        """
    ),
    "whisper": _phrases(
        """
        whispery | hushed | breathy | barely audible | murmured | muted | whispering |
        soft and breathy | very quiet | sotto voce
        """
    ),
    "fast": _phrases(
        """
        fast | rushed | hurried | rapid | speedy | quick | breathless | rapid-fire |
        hasty | brisk
        """
    ),
    "slow": _phrases(
        """
        slow | unhurried | leisurely | drawn-out | drawling | sluggish | deliberate |
        plodding | measured | languid
        """
    ),
    "monotone": _phrases(
        """
        monotone | monotonous | flat | robotic | expressionless | deadpan | bored |
        lifeless | droning | toneless
        """
    ),
    "high": _phrases(
        """
        high-pitched | squeaky | shrill | piping | falsetto | high | squeaking | treble
        | reedy | chirpy-voiced
        """
    ),
    "low": _phrases(
        """
        low-pitched | deep | gravelly | husky | booming | bass | rumbling | baritone |
        deep-voiced | throaty
        """
    ),
    "neutral": _phrases(
        """
        neutral | calm | even | matter-of-fact | composed | plain | normal | relaxed |
        level | unemotional
        """
    ),
    "crying": _phrases(
        """
        crying | tearful | sobbing | weeping | teary | in tears | choked up | weepy |
        sniffling | bawling
        """
    ),
    "laughing": _phrases(
        """
        laughing | giggling | chuckling | amused | cracking up | in stitches | tittering
        | snickering | guffawing | laughing out loud
        """
    ),
    "shouting": _phrases(
        """
        shouting | yelling | screaming | bellowing | hollering | raising their voice |
        loud | roaring | at the top of their lungs | shrieking
        """
    ),
}
STYLE_ADV: dict[str, list[str]] = {
    "sad": _phrases(
        """
        sadly | gloomily | mournfully | miserably | dejectedly
        """
    ),
    "excited": _phrases(
        """
        excitedly | happily | cheerfully | joyfully | enthusiastically
        """
    ),
    "angry": _phrases(
        """
        angrily | furiously | irritably | heatedly | crossly
        """
    ),
    "whisper": _phrases(
        """
        in a whisper | quietly | under their breath | softly | in hushed tones
        """
    ),
    "fast": _phrases(
        """
        quickly | rapidly | hurriedly | at a breakneck pace | in a rush
        """
    ),
    "slow": _phrases(
        """
        slowly | leisurely | at a crawl | deliberately | without hurry
        """
    ),
    "monotone": _phrases(
        """
        flatly | in a monotone | without any intonation | robotically | tonelessly
        """
    ),
    "high": _phrases(
        """
        in a high voice | in a squeaky voice | in a shrill voice | in falsetto | in a
        high register
        """
    ),
    "low": _phrases(
        """
        in a deep voice | in a low voice | in a gravelly voice | in a husky voice | in a
        low register
        """
    ),
    "neutral": _phrases(
        """
        calmly | evenly | plainly | in a normal voice | matter-of-factly
        """
    ),
    "crying": _phrases(
        """
        through tears | tearfully | while sobbing | while crying | in tears
        """
    ),
    "laughing": _phrases(
        """
        while laughing | with a laugh | through giggles | laughingly | between chuckles
        """
    ),
    "shouting": _phrases(
        """
        loudly | at full volume | while yelling | with a raised voice | at the top of
        their voice
        """
    ),
}
#: a style said as what the speaker was doing ("whispering", "yelled")
STYLE_VERBS: dict[str, list[str]] = {
    "sad": _phrases("sounding down | moping | sighing sadly | close to tears | grieving"),
    "excited": _phrases("beaming | cheering | gushing | buzzing with excitement | squealing"),
    "angry": _phrases("ranting | fuming | snapping | raging | losing it | blowing up"),
    "whisper": _phrases(
        "whispering | whispered | murmuring | murmured | speaking under their breath"
    ),
    "fast": _phrases(
        "rushing | rattling on | racing through it | gabbling | speed-talking | talking "
        "really fast | talking a mile a minute"
    ),
    "slow": _phrases(
        "drawling | dragging the words out | taking their time | plodding | talking really slowly"
    ),
    "monotone": _phrases("droning | droning on | speaking flatly | reading it flat"),
    "high": _phrases("squeaking | piping up | speaking in falsetto"),
    "low": _phrases("rumbling | growling low | speaking in a deep rumble"),
    "neutral": _phrases("speaking normally | just talking plainly | speaking evenly"),
    "crying": _phrases("crying | sobbing | cried | weeping | in tears | bawling | tearing up"),
    "laughing": _phrases("laughing | giggling | laughed | chuckling | cracking up | in stitches"),
    "shouting": _phrases("shouting | yelling | yelled | screaming | hollering | bellowing"),
}
#: a style said as a past verb that takes "about" ("something Rosa whispered about
#: ...")
STYLE_PAST: dict[str, list[str]] = {
    "whisper": _phrases("whispered | murmured | mumbled"),
    "shouting": _phrases("shouted | yelled | screamed | hollered"),
    "crying": _phrases("cried | sobbed | wept"),
    "laughing": _phrases("laughed | giggled | chuckled"),
    "angry": _phrases("ranted | fumed | raged"),
    "excited": _phrases("gushed | raved"),
    "monotone": _phrases("droned on | droned"),
}
#: styles as verbs that make a passive ("which turns were whispered")
STYLE_PASSIVE_VERBS: dict[str, list[str]] = {
    "whisper": _phrases("whispered | murmured | mumbled"),
    "shouting": _phrases("shouted | yelled | screamed"),
    "fast": _phrases("rushed | rattled off | blurted out"),
}
STYLE_PAST_TOPIC = _phrases(
    """
    something {s} {v} about {t} | anything {s} {v} about {t} | what {s} {v} about {t} |
    when {s} {v} about {t} | the part {s} {v} about {t} | whatever {s} {v} regarding {t}
    """
)
STYLE_PASSIVE = _phrases(
    """
    which {c} were {v} | the {c} that were {v} | any {c} {v} | {c} that got {v} | what
    was {v}
    """
)
#: frames where the style comes before what is asked for, or is the verb
STYLE_VERB_FRAMES = _phrases(
    """
    every time {s} was {v} | {s} {v} | when {s} was {v} | the clips of {s} {v} | moments
    of {s} {v} | find {s} {v} | where {s} is {v}
    """
)
STYLE_FRAMES = _phrases(
    """
    sounding {a} | in a {a} voice | in a {a} tone | with a {a} delivery | in a {a} way |
    where the voice is {a} | that sound {a} | in a {a} manner | with a {a} tone of voice
    | where it sounds {a} | spoken in a {a} way | with {a} speech
    """
)
STYLE_SAME = _phrases(
    """
    in the same tone | with the same emotion as this clip | delivered the same way |
    matching the mood of this recording | in this same style | with the same tone of
    voice | sounding the same way as the reference | with the same manner of speaking |
    in the same mood | said like this | with a similar delivery | in the same emotional
    tone | with the emotion heard here | in the style of this clip | with the same
    feeling | sounding like the example | with matching intonation | with the same vibe
    as this one | in the same speaking style | spoken the way this one is | with the
    same affect | with identical prosody | in the same way of speaking as the sample |
    with that same tone | expressed the same way | with a matching emotional tone | in a
    similar mood | with the tone of this sample | in the very same manner | with the
    same attitude in the voice | with this kind of energy | the way this is said | same
    delivery | same vibe | same emotion | with this energy | in this tone | sounding
    like this | the same way of talking | just as worked up as here | with this feel |
    like this one sounds | mood-wise like this | same feel as the ref | in the same
    spirit as this | with the same energy as the sample | the same kind of tone | said
    the way it's said here | with a tone like this | that match the mood in this clip |
    where people sound the way they do in this clip | the way this person is speaking
    here | whose tone mirrors this recording | with the mood of this one | matching how
    they sound here | that feel like this one | in the emotional register of this clip
    """
)

# --- what was behind it ---------------------------------------------------------

ENV_NP: dict[str, list[str]] = {
    "rain": _phrases(
        """
        rain | heavy rain | rainfall | a downpour | raindrops | drizzle | rain on the
        window | pouring rain | a rain shower | rain on the roof
        """
    ),
    "thunderstorm": _phrases(
        """
        thunder | a thunderstorm | a storm | rolling thunder | lightning and thunder | a
        thunderclap | a raging storm | thunder rumbling | a storm outside | thunderclaps
        """
    ),
    "wind": _phrases(
        """
        wind | strong wind | gusts of wind | a breeze | howling wind | wind noise | a
        gale | wind blowing | whistling wind | blustery wind
        """
    ),
    "birds": _phrases(
        """
        birds | birdsong | birds chirping | tweeting birds | a bird | seagulls |
        songbirds | pigeons cooing | birds singing | a crow cawing
        """
    ),
    "dog": _phrases(
        """
        a dog | a barking dog | dogs barking | a puppy | a dog yapping | barking | a
        growling dog | a dog howling | the neighbour"s dog | woofing
        """
    ),
    "cat": _phrases(
        """
        a cat | a meowing cat | purring | a cat meowing | a kitten | cats | a hissing
        cat | mewing | a purring cat | meows
        """
    ),
    "phone": _phrases(
        """
        a phone ringing | a ringing telephone | a ringtone | a cell phone | a mobile
        ringing | the phone | a telephone | a buzzing phone | a phone going off | a
        landline ringing
        """
    ),
    "bell": _phrases(
        """
        bells | a bell | church bells | a doorbell | chimes | a bell ringing | a bicycle
        bell | jingling bells | a ringing bell | wind chimes
        """
    ),
    "alarm": _phrases(
        """
        an alarm | a siren | beeping | a buzzer | an alarm clock | a smoke alarm | a car
        alarm | sirens wailing | a beeper | an alarm going off
        """
    ),
    "typing": _phrases(
        """
        typing | a keyboard | keystrokes | someone typing | a typewriter | clacking keys
        | keyboard clicks | tapping on a keyboard | key clicks | a laptop keyboard
        """
    ),
    "clock": _phrases(
        """
        a clock | a ticking clock | ticking | a clock ticking | tick-tock | a
        grandfather clock | a wall clock | the tick of a clock | a clock chiming | a
        loud clock
        """
    ),
    "engine": _phrases(
        """
        traffic | an engine | car engines | a motor | cars passing | a running engine |
        honking | a truck | road noise | an idling car
        """
    ),
    "footsteps": _phrases(
        """
        footsteps | steps | someone walking | shoes on the floor | heels clicking |
        people walking | footfalls | stomping | boots on gravel | shuffling feet
        """
    ),
    "crowd": _phrases(
        """
        a crowd | chatter | people talking | a busy room | babble | a noisy crowd |
        voices in the background | a hubbub | people chatting | a murmuring crowd
        """
    ),
    "music": _phrases(
        """
        music | a song | piano music | a guitar | a radio playing | a band | background
        music | someone singing | jazz | a playlist playing
        """
    ),
    "water": _phrases(
        """
        water | running water | waves | the sea | a river | a stream | a fountain | the
        ocean | a waterfall | a dripping tap
        """
    ),
    "hum": _phrases(
        """
        a hum | a buzzing fan | an air conditioner | a fridge humming | electrical hum |
        a droning fan | mains hum | a whirring fan | a humming machine | a buzz
        """
    ),
    "static": _phrases(
        """
        static | hiss | white noise | crackling static | hissing | radio static | a
        hissing line | fuzz | tape hiss | noise
        """
    ),
    "camera": _phrases(
        """
        a camera | camera clicks | a shutter | a camera shutter | clicking cameras |
        photos being taken | a shutter clicking | flash photography | a snapping camera
        | cameras clicking
        """
    ),
    "paper": _phrases(
        """
        paper | rustling paper | crumpling paper | pages turning | papers shuffling |
        crinkling | a newspaper rustling | paper tearing | flipping pages | crinkling
        wrappers
        """
    ),
}
ENV_PLACE: dict[str, list[str]] = {
    "crowd": [
        "in a busy cafe",
        "at a party",
        "in a crowded bar",
        "in a packed restaurant",
        "at a noisy pub",
        "in a busy station",
    ],
    "engine": ["in traffic", "next to a busy road", "in a moving car", "on the highway"],
    "water": ["by the sea", "at the beach", "next to a river", "near a fountain"],
    "hum": ["next to the fridge", "in a server room", "under the air conditioning"],
    "birds": ["in a forest full of birds", "in an aviary"],
    "music": ["at a concert", "in a music shop", "with the radio on"],
    "typing": ["in an office full of typing", "at a busy keyboard"],
}
ENV_FRAMES = _phrases(
    """
    with {n} in the background | where you can hear {n} | with {n} behind them | over
    the sound of {n} | against a backdrop of {n} | with the sound of {n} | with {n}
    audible | with background {n} | and {n} can be heard | while {n} can be heard | with
    {n} going on nearby | where {n} is audible behind the voice | with noise from {n} |
    recorded with {n} nearby | while there is {n} in the background | with {n} heard
    behind the speech | with {n} somewhere in the back | where there's {n} in the
    backdrop | with {n} around | accompanied by {n}
    """
)
ENV_SAME = _phrases(
    """
    in the same background | recorded in the same place | with the same ambient noise |
    in the same acoustic setting as this clip | with the same background sound | with
    the same noise behind it | in the same environment | from the same location | with a
    matching background | with the same surroundings as this one | in the same room as
    the reference | with identical background noise | with the same sounds in the back |
    in a similar acoustic environment | with the same ambience | where the background
    matches this clip | recorded in the same spot | with the same backdrop | in the same
    setting as the sample | with the background of this recording | with a similar
    soundscape | with the same noise floor | where the surroundings sound the same | in
    the same acoustic space | with the same background hum as here | same env as the
    ref | from the same setting | with this background | from wherever this was taken |
    from there | with whatever noise is in the back here | with this exact background |
    where this was recorded | in the same kitchen | in the same room | from the same
    place as this | same surroundings | with that noise behind it | same ambience as the
    reference | from this location | with the same sounds behind | recorded where this
    was | in this same spot | with these background sounds | same backdrop as here |
    matching the background sound of this clip | somewhere that sounds like this | in a
    place that sounds like this one | with the same acoustic setting as this | with the
    noise in the back of this clip | that match the room sound here
    """
)

# --- content taken from the reference clip -----------------------------------------

REFERENCE_CONTENT = _phrases(
    """
    the answer to what is being asked | the reply to this question | what comes next |
    the second half of this conversation | the continuation of this clip | the rest of
    this exchange | what was said right after this | the response to this | the
    follow-up to this recording | how the conversation continues | the turn that answers
    this question | the next line of this dialogue | the answer to the question in the
    clip | what follows this | the same topic as this clip | what someone said back to
    this | the response to the question asked here | something that says the same thing
    as this recording | the part that comes after this | the answer to this spoken
    question | whatever answers this | the reply to the query | the continuation of what
    is being said | what happens next in this conversation | the ending of this exchange
    | the answer to the clip's question | the remainder of this dialogue | how this
    exchange ends | the reaction to this | the passage this clip is asking about | the
    same content as the reference | the other half of this dialogue | the next thing
    said after this clip | a matching answer to this question | the subsequent turn |
    what the reply to this was
    """
)

#: the reference clip as a question or a dialogue, in words a request may use
REF_CLIP = _phrases(
    """
    this clip | the clip | this recording | the recording | this audio | the attached
    audio | the query audio | this sample | the sample | this voice note | my voice memo
    | the audio I sent | the example | this snippet | the reference | what I just played
    | this message | the given audio | the provided clip | this one | this exchange |
    this dialogue | this discussion
    """
)
REF_QUESTION = _phrases(
    """
    the question | the query | what is asked | the thing being asked | the enquiry | the
    spoken question | the question posed | what I'm asking | the question raised | the
    request
    """
)
REF_FRAMES = _phrases(
    """
    the answer to {q} in {c} | whatever answers {q} in {c} | the reply to {q} in {c} |
    the part that resolves {q} in {c} | a response that addresses {q} in {c} | the
    passage that responds to {q} in {c} | where {q} in {c} gets answered | the spot
    where {q} in {c} is answered | the turn that satisfies {q} in {c} | something that
    explains {q} in {c} | the information {q} in {c} is after | what answers {c} | where
    {c} gets answered | the reply to {c} | the line that comes after {c} | what was said
    next after {c} | the turn following {c} | what the other person said back to {c} |
    how the other side responded to {c} | the rest of the exchange in {c} | the second
    half of {c} | a fitting reply to {c} | the natural continuation of {c} | where {c}
    leaves off and what follows | the next thing said after {c} | the follow-up to {c} |
    a plausible next turn for {c} | how the dialogue in {c} goes on | what comes after
    {c} in the conversation | the response to {c}
    """
)


#: the clip's own words asked for briefly, as people type or say it to an assistant
REFERENCE_SHORT = _phrases(
    """
    answer this | answer it | the answer | and then what | what came next | what comes
    after | keep going | keep going from here | continue from here | continue this |
    carry on from this | what did they say after this | what got said after | who
    answered this | what's the reply | did anyone answer this | any answer to this | how
    did it go on | what happened after this bit | finish this | the rest of it | the next
    bit | what's next | respond to this | the response | the comeback to this | what was
    said back | the rest of this talk | where does this go next | what follows | the
    reply to it | who responded and what they said | the answer please | find the
    answer | what's the answer to this | how it carried on | the next part | what did
    they reply | and after that | what was the answer | the follow-up | pick up where
    this stops | what came after | how does it go on | dig out the answer | what
    response did they get | which answer was given | the continuation | resume from the
    end of this | has this come up anywhere else | where else does this come up | other
    places this gets talked about | has this subject been mentioned elsewhere | the rest
    of the conversation | what was said in reply | who answered and how | the bit after
    this | how did the other person respond
    """
)
#: what people say about the clip before asking for its answer or continuation (the
#: instruction's own wording: never the content)
REFERENCE_CONTEXT = _phrases(
    """
    this is a question from the meeting | I'm playing you my question again | the
    question's in the audio | here's what I asked | this is from the call | I recorded
    this question | the call dropped right here | I heard this on the call | this is
    from yesterday's chat | this bit is from the interview | here's the clip | listen to
    this | I'm asking this out loud | so this is the question | this was cut off | my
    question is in the recording | this is someone asking something | this is where the
    audio stops | that's the question | I just recorded this | I only have this bit of
    it | this cuts off mid-discussion | the clip ends right before the punchline | I
    remember this moment but not the reply | this question came up a while ago | this is
    from a quiz night recording | she asks something in this snippet | my friend sent me
    this clip | I recorded this on my phone | this is all I have of it | it stops
    mid-question | someone asks a question here | this came from an old voice memo | he
    asks something as it finishes | the recording ends before the reply
    """
)


def reference_phrase(rng: np.random.Generator, split: Split) -> str:
    """Content taken from the reference clip, worded with the clip and the question."""
    r = rng.random()
    if r < 0.25:
        return _pick(rng, REFERENCE_SHORT, split)
    if r < 0.5:
        return _pick(rng, REFERENCE_CONTENT, split)
    frame = _pick(rng, REF_FRAMES, split)
    return frame.format(q=_pick(rng, REF_QUESTION, split), c=_pick(rng, REF_CLIP, split))


#: "nothing asked" said out loud: no constraint, the instruction's own wording (O)
ANY_SAID: dict[str, list[str]] = {
    "speaker": _phrases(
        """
        any speaker | whoever it is | regardless of who is speaking | never mind whose
        voice it is | from anyone | it doesn't matter who said it | by anybody | any
        voice | no matter who | whoever said it | from any person | not the same voice |
        not necessarily this person | not the person, just that | doesn't have to be the
        same speaker | other people too | not just this speaker | anyone at all
        """
    ),
    "style": _phrases(
        """
        any mood | in any tone | doesn't matter how it sounds | however it was said | no
        matter the tone | whatever the mood | in whatever voice | any delivery
        """
    ),
    "environment": _phrases(
        """
        any background | wherever it was recorded | whatever the background | no matter
        the surroundings | in any setting | background doesn't matter
        """
    ),
    "content": _phrases(
        """
        regardless of what is said | whatever the topic | doesn't matter what they talk
        about | ignore the content | any topic | whatever they say | no matter the subject
        | never mind the words
        """
    ),
}

# --- when --------------------------------------------------------------------

TIME_PHRASES: dict[str, list[str]] = {
    "first": _phrases(
        """
        first | the very first time | at the start | at the beginning | initially | to
        begin with | in the opening | the first time
        """
    ),
    "latest": _phrases(
        """
        most recently | the last time | latest | just before this | most recent | the
        latest time | last of all | right at the end | recently | the newest | lately
        | the most recent time | the most recent | the last time around | most lately
        """
    ),
    "today": _phrases(
        """
        today | this morning | this afternoon | earlier today | tonight | this evening
        | from earlier today | earlier this morning | sometime today | at some point today
        | from this morning
        """
    ),
    "yesterday": _phrases(
        """
        yesterday | last night | yesterday afternoon | the day before | yesterday
        morning
        """
    ),
    "this_session": _phrases(
        """
        in this conversation | just now | a minute ago | so far | earlier in this call |
        a moment ago | in this session | earlier | earlier on | a little while ago | in
        this chat
        """
    ),
    "last_session": _phrases(
        """
        last session | in our previous call | last time | the other day | in the last
        conversation | in our previous chat | the time before
        """
    ),
    "before_break": _phrases(
        """
        before the break | before we paused | before lunch | before the interruption |
        before we took a break | before we stopped for a bit | before the pause | right
        before we broke off
        """
    ),
    "after_break": _phrases(
        """
        after the break | since the pause | after we came back | after lunch | after we
        resumed | after we took the break | once we were back from the break | after the
        pause | when we picked it back up
        """
    ),
}

# --- frames ------------------------------------------------------------------

#: what was said after a topic: the topic is the content; no time ("after the break" is
#: one, "after the bit about the heater" is not)
TOPIC_AFTER = _phrases(
    """
    what was said after the bit about {t} | what came next after the part about {t} |
    how did the talk continue once {t} came up | continue the conversation from where
    they discussed {t} | the next turn after the one about {t} | after the part on
    {t}, what was said | right after {t} came up, what did they say | what followed the talk
    about {t} | what was the next thing said after we talked about {t} | so after the
    bit about {t} what did they say next | what did people say right after {t} was
    mentioned | the reply after the mention of {t} | what was said once we got past {t}
    | the turn that came after {t} | what did they move on to after {t} | the part
    right after the one on {t} | and after {t}, what then | what happened in the
    conversation after {t} | what came up right after {t}
    """
)
#: a background as an adjective of the clips ("the rainy one about rent")
ENV_ADJ: dict[str, list[str]] = {
    "rain": _phrases("rainy | drizzly | rain-soaked | rainy-day | wet and rainy"),
    "wind": _phrases("windy | blustery | breezy | wind-blown | gusty"),
    "static": _phrases("crackly | staticky | crackling | fuzzy | hissy | scratchy"),
    "thunderstorm": _phrases("stormy | thundery | storm-filled | thunderous"),
    "crowd": _phrases("crowded | packed | busy and loud | noisy crowded"),
    "music": _phrases("musical | music-filled | tuneful background"),
    "typing": _phrases("clacky | keyboard-heavy | typing-filled"),
    "birds": _phrases("birdsong-filled | chirpy | birdy"),
    "hum": _phrases("humming | buzzy | droning"),
}
ENV_ADJ_HEADS = _phrases(
    "one | ones | clip | clips | recording | recordings | bit | call | bits | turns | part"
)
#: a clip that came with the instruction and is not what it asks about
IGNORED_CLIP = _phrases(
    """
    I attached a clip but ignore it | clip attached by mistake | never mind the clip |
    attached clip aside | the clip's just there by accident | ignore the attachment |
    here's a recording, but what I actually need is | not looking for this voice, just |
    the attached audio is unrelated | disregard the audio | forget the sample I sent |
    (clip attached by accident) | I sent a clip but I'm after | the recording is random,
    ignore it | don't use the clip | the attachment doesn't matter | skip the audio |
    whatever's in the clip, | attached is just a random clip | the clip is a mistake
    """
)

OPENERS = [
    "",
    "",
    "",
    "find",
    "show me",
    "can you find",
    "I need",
    "please pull up",
    "get me",
    "search for",
    "give me",
    "I'm looking for",
    "look for",
    "fetch",
    "bring up",
    "list",
    "could you locate",
    "help me find",
    "I want",
    "retrieve",
    "dig up",
    "play",
    "go find",
    "would you find",
    "point me to",
    "track down",
    "surface",
    "grab",
    "I'd like",
    "return",
    "can I get",
    "look up",
    "pull",
    "locate",
    "I'm after",
    "kindly retrieve",
    "search my memory for",
    "would you be able to find",
    "is there",
    "do I have",
    "are there any",
    "show me which clips have",
    "I'd love it if you found",
    "could you please get",
    "need",
    "using the audio as the query, fetch",
    "go through my recordings for",
    "check for",
    "find me",
    "what about",
]
CLIPS_PLURAL = _phrases(
    """
    recordings | clips | moments | parts | bits | turns | snippets | passages | messages
    | voice notes | segments | lines
    """
)
CLIPS = _phrases(
    """
    the clip | clips | recordings | the part | moments | the segment | turns | the bit |
    audio | utterances | the recording | passages | lines | the moment | sections |
    snippets | excerpts | the passage | anything | stuff | the section | parts | the
    bits | the fragment | all clips | every turn | the place | documents | speech |
    samples | voice notes | the utterance | stored clips | the audio | my recordings |
    the exchange | entries | the spot | memories
    """
)
SAY = _phrases(
    """
    say | talk | speak | mention | discuss | bring up | go on | comment | tell us |
    ramble | chat | complain | ask | explain | rant | report | joke | argue
    """
)
_ABOUT = _phrases(
    """
    about | about | regarding | concerning | on | on the subject of | related to | as to
    | with respect to | re | touching on | in connection with
    """
)
ABOUT_NP = _phrases(
    """
    about {t} | mentioning {t} | discussing {t} | that mentions {t} | regarding {t} | on
    {t} | that talks about {t} | where {t} comes up | concerning {t} | that refers to
    {t} | on the topic of {t} | where they bring up {t} | covering {t} | that deals with
    {t} | with talk of {t} | where {t} is discussed | touching on {t} | that brings up
    {t} | to do with {t} | featuring {t} | involving {t} | that cover {t} | where
    someone mentions {t} | which mention {t}
    """
)
QUESTION_WHAT = _phrases(
    """
    what did {s} say about {t} | what did {s} {v} about {t} | when did {s} mention {t} |
    where does {s} talk about {t} | what was {s}'s take on {t} | what {s} said {a} {t} |
    did {s} say anything about {t} | what {s} had to say about {t} | the part where {s}
    {v}s about {t} | anything {s} said {a} {t} | the time {s} brought up {t} | whatever
    {s} said on {t} | what did {s} tell us about {t} | how did {s} describe {t} | what
    were {s}'s thoughts on {t} | the bit where {s} discusses {t} | what did {s} think of
    {t} | what did {s} say {a} {t} | when was {s} talking about {t} | where did {s}
    bring up {t} | remind me what {s} said about {t} | what was it {s} said about {t} |
    find where {s} mentions {t} | tell me what {s} said about {t} | what's {s}'s opinion
    on {t} | where {s} goes on about {t} | everything {s} said about {t} | the clip of
    {s} talking about {t} | what {s} said regarding {t} | what was said by {s} about {t}
    """
)
QUOTE = _phrases(
    """
    when {s} said that {t} | the part where {s} says {t} | {s} saying {t} | where {s}
    says that {t} | the moment {s} said {t} | when {s} told us {t}
    """
)
#: short requests for more of the clip's speaker ("this guy again"): {o} is the person
SAME_SHORT = _phrases(
    """
    {o} again | more from {o} | any more from {o} | more of {o} | anything else from {o}
    | play {o} again | everything from {o} | other turns by {o} | I want to hear {o}
    again | more stuff from {o} | all of {o} | I know {o},
    what else did they talk about | {o} again, what else did they say | I want to hear
    {o} again, what else was said | what else is there from {o}
    """
)
SAME_OBJECT = _phrases(
    """
    her | him | them | this guy | this woman | this person | this speaker | this voice |
    that lady | the same guy | this man | this caller | the girl in this clip | whoever
    this is | the person speaking here | this one | whoever's speaking here | this
    speaker's other comments | the one talking | this fella | that person
    """
)
QUESTION_NOTOPIC = _phrases(
    """
    what did {s} say | everything {s} said | when did {s} speak | all of {s}'s turns |
    the clips of {s} | what {s} said | anything {s} said | when {s} was talking | what
    did {s} talk about | the parts with {s} | whatever {s} said | find {s} speaking
    """
)
FRONTED_TOPIC = _phrases(
    """
    anything on that | what was said | find it | that part | any mention | where is it |
    the bit on that | who said what about it | the clip on that
    """
)
NAMED_BY = _phrases(
    """
    by {s} | from {s} | of {s} | where {s} speaks | with {s} talking | said by {s} | {s}'s |
    that {s} said | spoken by {s}
    """
)
USER_BY = _phrases("that I said | from me | of mine | where I spoke | I said | in my own words")
AGENT_BY = _phrases(
    "that you said | from you | where you answered | the assistant said | you told me | your answer"
)
CLAUSE_NP = _phrases(
    """
    saying that {t} | where someone says {t} | that says {t} | mentioning that {t} |
    where they said that {t} | in which somebody says {t} | claiming that {t} | where it
    was said that {t}
    """
)
PASSIVE_TOPIC = _phrases(
    """
    what was said about {t} | anything about {t} | where {t} was discussed | the
    discussion of {t} | talk about {t} | the conversation about {t} | mentions of {t} |
    whatever was said on {t} | the discussion on {t} | anything on {t} | what was
    mentioned about {t} | stuff about {t}
    """
)
STYLE_PREDICATE = _phrases(
    """
    when did {s} sound {a} | when was {s} {a} | where {s} sounds {a} | the moments {s}
    was {a} | when {s} got {a} | times {s} sounded {a} | whenever {s} seemed {a}
    """
)
#: the user's own turns asked for in a conversation with the agent ("you" is the agent,
#: spoken to: not the turns asked for)
USER_FRAMES = _phrases(
    """
    what did {s} tell you about {t} | what {s} told you about {t} | can you recall what
    {s} told you about {t} | remind me what {s} said to you about {t} | the thing {s}
    mentioned to you about {t} | what was {s}'s answer when you asked about {t} | what
    {s} answered when you asked about {t} | do you remember what {s} said about {t} |
    what did {s} reply when you brought up {t} | {s} told you something about {t}, what
    was it | the {t} {s} gave you | did {s} give you {t} | what did {s} just say about
    {t} | {s} mentioned {t} to you earlier, what was it | the thing {s} asked you about
    {t} | what have {s} asked you about {t} | what did {s} ask you about {t} | the
    questions {s} asked you about {t} | what {s} said to you about {t}
    """
)
#: the agent's turns ("I" is the user, asking: not the turns asked for)
AGENT_FRAMES = _phrases(
    """
    what did {s} tell me about {t} | what {s} said when I asked about {t} | what did {s}
    say when I asked about {t} | remind me what {s} told me about {t} | the explanation
    {s} gave me about {t} | what were the instructions {s} gave me about {t} | {s}
    mentioned {t} to me, what was it | what was {s}'s answer when I asked about {t} |
    what did {s} recommend for {t} | when I brought up {t}, what did {s} say | {s} told
    me {t}, what was it again | what did {s} say {t} was | the {t} {s} gave me | what was
    {s}'s advice on {t} | what did {s} suggest about {t} | what did {s} recommend about
    {t} | {s}'s instructions for {t} | {s}'s suggestion about {t} | {s} explained {t} to
    me, say it again | {s} explained {t} to me | what was {s}'s recommendation on {t} |
    what did {s} propose for {t} | what did {s} advise on {t}
    """
)
FILLERS = _phrases(
    """
    um | uh | like | you know | I mean | so | okay | hmm | basically | er | well |
    actually | kind of | please | hey
    """
)
CLOSERS = [
    "",
    "",
    "",
    "please",
    "thanks",
    "if you can",
    "for me",
    "real quick",
    "again",
    "if possible",
    "when you get a chance",
]


@dataclass
class _Draw:
    speaker: str = "any"
    name: str | None = None
    style: str = "any"
    environment: str = "any"
    content: str = "none"
    topic: str | None = None
    clause: bool = False
    role: str = "none"
    time: str = "none"


def _draw(rng: np.random.Generator, split: Split) -> _Draw:
    d = _Draw()
    r = rng.random()
    if r < 0.3:
        d.speaker = "same"
    elif r < 0.5:
        d.speaker, d.name = "target", _pick(rng, NAMES, split)
    elif r < 0.62:
        d.role = "user"
    elif r < 0.7:
        d.role = "agent"
    labels = list(STYLE_ADJ)
    r = rng.random()
    d.style = "same" if r < 0.15 else _pick(rng, labels) if r < 0.45 else "any"
    r = rng.random()
    d.environment = "same" if r < 0.15 else _pick(rng, list(ENV_NP)) if r < 0.45 else "any"
    r = rng.random()
    if r < 0.55:
        d.content = "present"
        r = rng.random()
        d.clause = r < 0.1
        d.topic = (
            clause(rng, split)
            if d.clause
            else ambiguous_topic(rng, split)
            if r < 0.3
            else topic(rng, split)
        )
    elif r < 0.72:
        d.content = "reference"
    if rng.random() < 0.15:
        d.time = _pick(rng, list(TIME_PHRASES))
    return d


_POSSESSIVE = {
    "i": "my",
    "i myself": "my",
    "you": "your",
    "you yourself": "your",
    "he": "his",
    "she": "her",
    "they": "their",
    "people": "people's",
    "whoever": "whoever's",
}


class _Builder:
    """Pieces of an instruction, each a (text, tag) pair."""

    def __init__(self) -> None:
        self.pieces: list[tuple[str, str]] = []
        #: the background is already said (as an adjective of the clips)
        self.env_used = False

    def add(self, template: str, tag: str = "O", **slots: tuple[str, str]) -> None:
        """``template`` with ``{x}`` slots; literal text is tagged ``tag``; a possessive
        joins the slot before it ("Dana's", "my")."""
        for chunk in re.split(r"(\{\w\})", template):
            m = re.fullmatch(r"\{(\w)\}", chunk)
            if m:
                self.pieces.append(slots[m.group(1)])
                continue
            if chunk.startswith("'s") and self.pieces:
                text, slot_tag = self.pieces.pop()
                owner = _POSSESSIVE.get(text.lower())
                self.pieces.append((owner or text + "'s", slot_tag))
                chunk = chunk[2:]
            if chunk.strip():
                self.pieces.append((chunk, tag))


def _style_phrase(rng: np.random.Generator, label: str, split: Split) -> str:
    if label == "same":
        return _pick(rng, STYLE_SAME, split)
    if rng.random() < 0.35:
        return _pick(rng, STYLE_ADV[label], split)
    adj = _pick(rng, STYLE_ADJ[label], split)
    return _pick(rng, STYLE_FRAMES, split).format(a=adj)


#: what was behind it told as something happening ("with the line crackling")
ENV_CLAUSES: dict[str, list[str]] = {
    "rain": _phrases(
        "while it was pouring outside | with rain hammering the roof | as it rained | when "
        "it was bucketing down | with the rain coming down"
    ),
    "thunderstorm": _phrases(
        "while the storm raged | with thunder rolling in | during the thunderstorm | as "
        "it thundered outside"
    ),
    "wind": _phrases(
        "with the wind howling | while it was blowing a gale | as the wind roared | with "
        "the wind whipping the mic"
    ),
    "birds": _phrases(
        "with birds chirping away | while the birds sang | with gulls screeching | as the "
        "birds were tweeting"
    ),
    "dog": _phrases(
        "with the dog barking | while the pup was yapping | with a dog going nuts | as "
        "the dog kept barking"
    ),
    "cat": _phrases(
        "with the cat meowing | while the cat purred | as the kitten mewed | with a cat yowling"
    ),
    "phone": _phrases(
        "when someone's phone went off | with a phone ringing nonstop | as the phone "
        "rang | while a cell buzzed"
    ),
    "bell": _phrases(
        "while the bells rang | with the doorbell going | as church bells chimed | when "
        "the bell rang"
    ),
    "alarm": _phrases(
        "while an alarm was going off | with a siren wailing | as the smoke alarm "
        "beeped | when the alarm blared"
    ),
    "typing": _phrases(
        "while someone was typing | with keys clacking | as somebody hammered the "
        "keyboard | with the keyboard clattering"
    ),
    "clock": _phrases(
        "with a clock ticking | while the clock ticked away | as the clock chimed | with "
        "the clock tocking"
    ),
    "engine": _phrases(
        "with the motor idling | while the engine ran | with cars roaring past | as a "
        "truck rumbled by"
    ),
    "footsteps": _phrases(
        "with someone pacing around | while people walked past | as footsteps "
        "echoed | with heels clicking by"
    ),
    "crowd": _phrases(
        "with everyone talking at once | while the room buzzed with chatter | as a crowd "
        "murmured | with people milling about"
    ),
    "music": _phrases(
        "with a song playing | while music blared | as the band played | with the radio going"
    ),
    "water": _phrases(
        "with the tap running | while waves crashed | as the river rushed by | with water splashing"
    ),
    "hum": _phrases(
        "with the fridge buzzing | while the fan droned | as the air conditioning "
        "whirred | with a low buzz going"
    ),
    "static": _phrases(
        "with the line crackling | while the signal hissed | as the connection "
        "crackled | with the radio fizzing"
    ),
    "camera": _phrases(
        "with shutters clicking | while photos were taken | as cameras snapped | with "
        "the camera clicking away"
    ),
    "paper": _phrases(
        "with pages rustling | while papers were shuffled | as someone flipped pages | "
        "with paper crinkling"
    ),
}


def _env_phrase(rng: np.random.Generator, label: str, split: Split) -> str:
    if label == "same":
        return _pick(rng, ENV_SAME, split)
    if rng.random() < 0.2:
        return _pick(rng, ENV_CLAUSES[label], split)
    if label in ENV_PLACE and rng.random() < 0.25:
        return _pick(rng, ENV_PLACE[label], split)
    np_ = _pick(rng, ENV_NP[label], split)
    return _pick(rng, ENV_FRAMES, split).format(n=np_)


def _subject(rng: np.random.Generator, d: _Draw, split: Split) -> tuple[str, str]:
    if d.speaker == "same":
        return _pick(rng, SAME_SUBJECT, split), "P"
    if d.speaker == "target":
        return d.name or "", "N"
    if d.role == "user":
        return _pick(rng, USER_SUBJECT), "U"
    if d.role == "agent":
        return _pick(rng, AGENT_SUBJECT, split), "A"
    return _pick(rng, ANY_SUBJECT, split), "O"


def _head(b: _Builder, rng: np.random.Generator, d: _Draw, split: Split) -> tuple[bool, bool]:
    """The instruction's main clause; whether it used the subject and the style."""
    topic_slot = (d.topic or "", "C")
    subj = _subject(rng, d, split)
    asks_who = d.speaker != "any" or d.role != "none"
    if d.content == "reference":
        if rng.random() < 0.25:
            b.add(_pick(rng, REFERENCE_CONTEXT, split) + _pick(rng, [",", ".", ";", " -"]))
        b.add(_pick(rng, OPENERS, split))
        b.add(reference_phrase(rng, split), "R")
        return False, False
    if d.speaker == "same" and d.content == "none" and rng.random() < 0.3:
        b.add(_pick(rng, SAME_SHORT, split), o=(_pick(rng, SAME_OBJECT, split), "P"))
        return True, False
    past = STYLE_PAST.get(d.style)
    if past and d.content == "present" and not d.clause and rng.random() < 0.2:
        subj = subj if asks_who else (_pick(rng, ANY_SUBJECT, split), "O")
        verb = (_pick(rng, past, split), "S")
        b.add(_pick(rng, STYLE_PAST_TOPIC, split), s=subj, v=verb, t=topic_slot)
        return True, True
    passive = STYLE_PASSIVE_VERBS.get(d.style)
    if passive and d.content == "none" and not asks_who and rng.random() < 0.15:
        verb = (_pick(rng, passive, split), "S")
        b.add(_pick(rng, STYLE_PASSIVE, split), c=(_pick(rng, CLIPS_PLURAL, split), "O"), v=verb)
        return False, True
    if d.content == "present" and not asks_who and not d.clause and rng.random() < 0.08:
        b.add(_pick(rng, TOPIC_AFTER, split), t=topic_slot)
        return False, False
    if d.environment in ENV_ADJ and not asks_who and rng.random() < 0.2:
        b.add(_pick(rng, OPENERS, split))
        b.add(_pick(rng, ["the", "any", "all the", "some", ""]))
        b.add(_pick(rng, ENV_ADJ[d.environment], split), "E")
        b.add(_pick(rng, ENV_ADJ_HEADS, split))
        if d.content == "present":
            b.add(_pick(rng, CLAUSE_NP if d.clause else ABOUT_NP, split), t=topic_slot)
        b.env_used = True
        return False, False
    if d.content == "present" and d.role != "none" and rng.random() < 0.5:
        frames = USER_FRAMES if d.role == "user" else AGENT_FRAMES
        b.add(_pick(rng, frames, split), s=subj, t=topic_slot)
        return True, False
    if d.content == "present" and (asks_who or rng.random() < 0.5):
        if rng.random() < 0.5 or not asks_who:
            frames = QUOTE if d.clause else QUESTION_WHAT
            verb, about = _pick(rng, SAY, split), _pick(rng, _ABOUT, split)
            frame = _pick(rng, frames, split).replace("{v}", verb).replace("{a}", about)
            b.add(frame, s=subj, t=topic_slot)
            return True, False
        b.add(_pick(rng, OPENERS, split) + " " + _pick(rng, CLIPS, split))
        b.add(_pick(rng, CLAUSE_NP if d.clause else ABOUT_NP, split), t=topic_slot)
    elif d.content == "present" and (d.clause or rng.random() < 0.35):
        b.add(_pick(rng, OPENERS, split) + " " + _pick(rng, CLIPS, split))
        b.add(_pick(rng, CLAUSE_NP if d.clause else ABOUT_NP, split), t=topic_slot)
    elif d.content == "present" and rng.random() < 0.6:
        b.add(_pick(rng, PASSIVE_TOPIC, split), t=topic_slot)
    elif d.content == "present":
        # the topic fronted: "the budget, anything on that"
        b.add("{t},", t=topic_slot)
        b.add(_pick(rng, FRONTED_TOPIC))
    elif d.style not in ("any", "same") and rng.random() < 0.3:
        # the style as the verb ("Lena whispering") or before the noun ("angry clips")
        if rng.random() < 0.5:
            verb = (_pick(rng, STYLE_VERBS[d.style], split), "S")
            b.add(_pick(rng, STYLE_VERB_FRAMES, split), s=subj, v=verb)
            return True, True
        adj = _pick(rng, STYLE_ADJ[d.style], split)
        if rng.random() < 0.2:
            adj += "-sounding"
        b.add(_pick(rng, OPENERS, split))
        b.add(_pick(rng, ["the", "any", "all the", "some", ""]))
        b.add(adj, "S")
        b.add(_pick(rng, CLIPS_PLURAL, split))
        return False, True
    elif d.style not in ("any", "same") and asks_who and rng.random() < 0.5:
        adj = (_pick(rng, STYLE_ADJ[d.style], split), "S")
        b.add(_pick(rng, STYLE_PREDICATE, split), s=subj, a=adj)
        return True, True
    elif asks_who:
        b.add(_pick(rng, QUESTION_NOTOPIC, split), s=subj)
        return True, False
    else:
        b.add(_pick(rng, OPENERS, split) + " " + _pick(rng, CLIPS, split))
    return False, False


_Head = Callable[["_Builder", np.random.Generator, _Draw, Split], tuple[bool, bool]]


def _render(
    rng: np.random.Generator, d: _Draw, split: Split, head_of: _Head | None = None
) -> list[tuple[str, str]]:
    b = _Builder()
    subject_used, style_used = (head_of or _head)(b, rng, d, split)
    mods: list[tuple[str, str]] = []
    if not subject_used:
        if d.speaker == "same":
            mods.append((_pick(rng, SAME_BY, split), "P"))
        elif d.speaker == "target":
            mods.append((_pick(rng, NAMED_BY), "O"))
        elif d.role == "user":
            mods.append((_pick(rng, USER_BY), "U"))
        elif d.role == "agent":
            mods.append((_pick(rng, AGENT_BY), "A"))
    if d.style != "any" and not style_used:
        mods.append((_style_phrase(rng, d.style, split), "S"))
    if d.environment != "any" and not b.env_used:
        mods.append((_env_phrase(rng, d.environment, split), "E"))
    if d.time != "none":
        mods.append((_pick(rng, TIME_PHRASES[d.time], split), "T"))
    # "nothing asked" said out loud, for a part the plan leaves open
    asked = {
        "speaker": d.speaker != "any" or d.role != "none",
        "style": d.style != "any",
        "environment": d.environment != "any",
        "content": d.content != "none",
    }
    for part, said in ANY_SAID.items():
        if not asked[part] and rng.random() < 0.1:
            mods.append((_pick(rng, said, split), "O"))
    rng.shuffle(mods)
    fronted = mods and rng.random() < 0.12
    head = b.pieces
    b.pieces = []
    for i, (m, tag) in enumerate(mods):
        if i and rng.random() < 0.3:
            b.add(_pick(rng, ["and", ",", "and also", ", and"]))
        b.add(m, tag, s=(d.name or "", "N"))
    tail = b.pieces
    pieces = [*tail, (",", "O"), *head] if fronted else head + tail
    closer = _pick(rng, CLOSERS)
    if closer:
        pieces.append((closer, "O"))
    return pieces


def _noisy_word(rng: np.random.Generator, w: str) -> str:
    if len(w) < 4 or not w.isalpha():
        return w
    i = int(rng.integers(1, len(w) - 1))
    op = rng.integers(0, 4)
    if op == 0:
        return w[:i] + w[i + 1 :]
    if op == 1:
        return w[:i] + w[i + 1] + w[i] + w[i + 2 :]
    if op == 2:
        return w[:i] + w[i] + w[i:]
    return w[:i] + _pick(rng, "aeiourstnl") + w[i + 1 :]


def example(
    rng: np.random.Generator,
    split: Split,
    draw: Callable[[np.random.Generator, Split], _Draw] = _draw,
    head_of: _Head | None = None,
) -> Example:
    d = draw(rng, split)
    pieces = _render(rng, d, split, head_of)
    uses_clip = "same" in (d.speaker, d.style, d.environment) or d.content == "reference"
    has_reference = uses_clip or rng.random() < 0.3
    if has_reference and not uses_clip and rng.random() < 0.35:
        said = _pick(rng, IGNORED_CLIP, split)
        pieces = [(said, "O"), *([] if said[-1] in ",(" else [(",", "O")]), *pieces]
    words: list[str] = []
    tags: list[str] = []
    typo_rate = 0.04 if rng.random() < 0.5 else 0.0
    for text, tag in pieces:
        for w in words_of(text):
            if tag == "O" and rng.random() < 0.02:
                filler = words_of(_pick(rng, FILLERS))
                words, tags = words + filler, tags + ["O"] * len(filler)
            words.append(_noisy_word(rng, w) if rng.random() < typo_rate else w)
            tags.append(tag if re.search(r"\w", w) else "O")
    if rng.random() < 0.15:
        lead = words_of(_pick(rng, FILLERS) + ",")
        words, tags = lead + words, ["O"] * len(lead) + tags
    case = rng.random()
    if case < 0.25:
        words = [w.lower() for w in words]
    elif case < 0.3:
        words = [w.upper() for w in words]
    elif words:
        words[0] = words[0][:1].upper() + words[0][1:]
    end = _pick(rng, ["?", "?", ".", "", "", "!"])
    if end:
        words, tags = [*words, end], [*tags, "O"]
    return Example(
        tuple(words),
        tuple(tags),
        d.speaker,
        d.style,
        d.environment,
        d.content,
        d.role,
        d.time,
        has_reference=has_reference,
    )


def generate(n: int, seed: int, split: Split = "train") -> list[Example]:
    """``n`` labelled instructions from the ``split`` half of every wording list."""
    rng = np.random.default_rng([seed, 0 if split == "train" else 1])
    out = [example(rng, split) for _ in range(n)]
    for e in out:
        assert words_of(e.text) == list(e.words), e.words
        assert e.speaker in SPEAKER_MODES and e.role in ROLES and e.content in CONTENT_KINDS
        assert e.style in ("any", "same", *STYLE_LABELS) and e.time in ("none", *TIME_LABELS)
        assert e.environment in ("any", "same", *ENV_LABELS)
    return out


# --- conversations with the assistant: who is "you", who is "I" ------------------
#
# In a conversation with the assistant, "you" is the assistant and "I" the person
# asking, and both often stand in one request ("what did you end up recommending
# for the move?", "find where I mentioned the lease to you"). Requests for the
# assistant's turns (tag A for its subject, the user's "I" wording) and for the
# user's own (tag U, "you" wording), learnt from beside ``generate``'s corpus
# (``dialogue_roles``) so that corpus stays as it was.

#: the assistant's turns: {y} the assistant, {t} the topic
AGENT_DIALOGUE = _phrases(
    """
    find where {y} talked about {t} | find where {y} said something about {t} | the part
    where {y} explained {t} | what did {y} say when I told you about {t} | what did {y}
    end up recommending for {t} | what did {y} say back when I asked about {t} | when I
    asked you about {t}, what did {y} tell me | a while back we went over {t}, what did
    {y} recommend | {y} mentioned {t} a while ago, what was it | show me where {y}
    answered my question about {t} | play back what {y} told me about {t} | can you find
    where {y} explained {t} | what did {y} reply when I mentioned {t} | I told you about
    {t}, what did {y} say | look for the turn where {y} brought up {t} | go back to where
    {y} walked me through {t} | pull up what {y} said about {t} | when we discussed {t},
    what was {y}'s advice | what did {y} answer when I brought up {t} | get me the part
    where {y} gave me advice on {t} | you and I talked about {t}, what did {y} suggest |
    remember when I asked about {t}? what did {y} say | search for where {y} told me
    about {t} | I need what {y} said about {t} | where did {y} tell me about {t} | what
    was it {y} said about {t} when I asked | the answer {y} gave me on {t} | we were
    chatting about {t} and {y} said something, what was it | find {y}'s reply about {t}
    | after I mentioned {t}, what did {y} come back with
    """
)
#: the assistant's turns answering the clip: {y} the assistant, {r} the clip's words
AGENT_DIALOGUE_CLIP = _phrases(
    """
    the clip is me asking you {r}, what did {y} say back | when I asked you {r}, what did
    {y} tell me | I asked you {r} before, what was {y}'s answer | here I am asking {r},
    how did {y} answer | I asked you {r}, find where {y} answered | what did {y} reply
    when I asked {r} | you were asked {r} by me, what did {y} say | this is me asking you
    {r}, what did {y} come back with | find how {y} responded when I said {r} | what did
    {y} answer after I asked you {r}
    """
)
#: the user's own turns: {i} the person asking, {t} the topic
USER_DIALOGUE = _phrases(
    """
    can you find where {i} talked about {t} | find where {i} mentioned {t} to you | what
    did {i} ask you about {t} | when {i} told you about {t}, what exactly did {i} say |
    what was {i}'s question about {t} | what did {i} say to you about {t} | you remember
    when {i} brought up {t}? what did {i} say | show me where {i} asked you about {t} |
    could you pull up what {i} said about {t} | what did {i} tell you about {t} back
    then | find the part where {i} explained {t} to you | {i} told you something about
    {t}, what was it | look up what {i} asked you regarding {t} | where did {i} mention
    {t} to you | search for where {i} talked to you about {t} | what was it {i} told you
    about {t}
    """
)
#: the user's own turns answering the clip: {i} the person asking, {r} the clip's words
USER_DIALOGUE_CLIP = _phrases(
    """
    after {r}, what did {i} say back | when you asked me {r}, what did {i} say | you asked
    me {r}, how did {i} answer | find what {i} replied to {r} | what did {i} answer when
    you asked {r} | here you are asking me {r}, what was {i}'s reply
    """
)
DIALOGUE_CLIP_WORDS = _phrases(
    """
    this | this question | what's in the clip | this one | the question in this clip |
    this exact thing | what I'm asking here | this exchange
    """
)


def _dialogue_draw(rng: np.random.Generator, split: Split) -> _Draw:
    """A draw of ``_draw``'s attributes for a request with a role, "you" and "I"."""
    d = _draw(rng, split)
    d.speaker, d.name, d.clause = "any", None, False
    d.role = "agent" if rng.random() < 0.65 else "user"
    d.content = "reference" if rng.random() < 0.2 else "present"
    d.topic = topic(rng, split) if d.content == "present" else None
    return d


def _dialogue_head(
    b: _Builder, rng: np.random.Generator, d: _Draw, split: Split
) -> tuple[bool, bool]:
    agent, clip = d.role == "agent", d.content == "reference"
    frames = {
        (True, False): AGENT_DIALOGUE,
        (True, True): AGENT_DIALOGUE_CLIP,
        (False, False): USER_DIALOGUE,
        (False, True): USER_DIALOGUE_CLIP,
    }[agent, clip]
    who = (_pick(rng, AGENT_SUBJECT, split), "A") if agent else (_pick(rng, USER_SUBJECT), "U")
    said = (_pick(rng, DIALOGUE_CLIP_WORDS, split), "R") if clip else ("", "O")
    b.add(_pick(rng, frames, split), y=who, i=who, t=(d.topic or "", "C"), r=said)
    return True, False


def dialogue_roles(n: int, seed: int, split: Split = "train") -> list[Example]:
    """``n`` labelled requests for the assistant's or the user's own turns, worded as
    people talk to an assistant ("what did you reply when I mentioned ...", "what did I
    say to you about ..."), drawn apart
    from ``generate`` (its corpus does not change)."""
    rng = np.random.default_rng([seed, 2 if split == "train" else 3])
    out = [example(rng, split, _dialogue_draw, _dialogue_head) for _ in range(n)]
    for e in out:
        assert words_of(e.text) == list(e.words), e.words
        assert e.role in ("user", "agent") and e.speaker == "any"
    return out


# --- asides that ask for nothing ---------------------------------------------------
#
# Words people add that restrict nothing: a reach over every conversation ("from our
# past conversations", "at some point": no time) and the asker's own "I" around the
# clip ("the snippet I just played": no role). Learnt from beside ``generate``'s
# corpus (``asides``). (Backgrounds to ignore, "ignore the rain", were tried and left
# out: they taught the sound words alone to mean no background.)

#: no time asked: every conversation, whenever
TIME_FREE = _phrases(
    """
    from our past conversations | in any of our chats | at some point | across all our
    sessions | in our conversations | ever | from before | in any session | whenever it
    was | at any point | over all my recordings | in our past talks | at any time |
    anywhere in my history | from all our calls | in everything we've recorded | during
    our talks | back whenever | in any conversation we had | over the months | in all
    the chats so far | from the archive | going back as far as you can | in our
    sessions | from any day
    """
)
#: the asker speaking of the clip or the search, before the request
I_ASIDES_CLIP = _phrases(
    """
    I recorded this myself | I just played you a clip | here's something I recorded | I
    think I've heard this before | this is the snippet I just played | I played you a
    question | I recorded myself asking this | I'm sending you this voice note | I
    grabbed this from my phone | I remember this one | I can't place this | I recorded
    this bit on my phone | here's the audio I mentioned | I clipped this from a call | I
    found this in my recordings
    """
)
I_ASIDES = _phrases(
    """
    I'm trying to remember something | I was wondering | I need this for a meeting | I
    forgot the details | I'm looking for something | I keep thinking about this | I
    want to double-check | I can't recall exactly | I need a quick favour | I'm curious
    | I think I missed it | I have a question
    """
)


def _aside_draw(rng: np.random.Generator, split: Split) -> _Draw:
    """A draw of ``_draw``'s attributes with no role and no time asked."""
    d = _draw(rng, split)
    d.role, d.time = "none", "none"
    return d


def _aside_head(b: _Builder, rng: np.random.Generator, d: _Draw, split: Split) -> tuple[bool, bool]:
    uses_clip = "same" in (d.speaker, d.style, d.environment) or d.content == "reference"
    r = rng.random()
    if r < 0.4:
        lead = _pick(rng, I_ASIDES_CLIP if uses_clip else I_ASIDES, split)
        b.add(lead + _pick(rng, [",", ".", ";", " -", " and"]))
    used = _head(b, rng, d, split)
    if r >= 0.4 or rng.random() < 0.2:
        b.add(_pick(rng, TIME_FREE, split))
    return used


def asides(n: int, seed: int, split: Split = "train") -> list[Example]:
    """``n`` labelled requests with words that ask for nothing: no time in a reach over
    every conversation, no role in the asker's "I" about the clip; drawn apart from
    ``generate`` (its corpus does not change)."""
    rng = np.random.default_rng([seed, 4 if split == "train" else 5])
    out = [example(rng, split, _aside_draw, _aside_head) for _ in range(n)]
    for e in out:
        assert words_of(e.text) == list(e.words), e.words
        assert e.role == "none" and e.time == "none"
    return out
