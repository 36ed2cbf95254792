"""Does a turn need the memory, and if so, which turns does it ask for?

``Router.route(text, names)`` reads one user utterance and returns a ``Route``: the
intent (``recall``, ``replay``, ``forget``, ``name``, ``chat``), whose turns are
meant (``self``: the person speaking now; ``agent``: the assistant's own words; a
known speaker's name; or anyone), the time words, and a ``RetrievalPlan`` for the
content, style and environment (the instruction parser's). The route is symbolic:
"the person speaking now" and "last session" become a voice, a speaker id and a
time span only in the agent, which knows the conversation (:func:`resolve_time`).

The rules are grammatical, not a list of sentences: a request about the
conversation's past names one of its speakers (I, you, a known name, he/she,
someone) as the subject of a speech verb, or points at a part of it ("the part
where", "earlier", "last time"). Any other English question that names something
("which station does my train leave from?", "when's Ben's math test?", "what did
Churchill say about democracy?") is a *tentative* recall: the agent keeps it only
when a remembered statement holds half its content words (:func:`memory_holds`),
and answers it as chat otherwise. Requests for advice, favours, how-tos, opinions
and the present state stay chat. ``benchmarks run routing`` measures these rules on
pools written apart from them.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from voxmem.retrievers.instruction import InstructionParser
from voxmem.retrievers.lexical import content_terms
from voxmem.retrievers.plan import Constraint, PlanNotice, RetrievalPlan, TimeWindow

Intent = Literal["recall", "replay", "forget", "name", "confirm", "deny", "chat"]
MEMORY_INTENTS: frozenset[str] = frozenset({"recall", "replay", "forget"})

#: fillers and openers at the start of an utterance ("um, so, what did ...")
_FILLERS = re.compile(
    r"^(?:(?:um+|uh+|erm|hmm+|ah|oh|okay|ok|so|well|hey|hi|hello|please|you know|i mean|"
    r"actually|quick question|real quick)\b[,.!]?\s*)+"
)
#: verbs of saying that carry no content of their own ("what did you tell me")
_SAY_PLAIN = (
    r"say|says|said|saying|tell|tells|told|telling|mention|mentions|mentioned|mentioning|"
    r"talk|talks|talked|talking|speak|speaks|spoke|speaking|ask|asks|asked|asking|"
    r"answer|answered|repl(?:y|ied)|respond|responded|bring up|brought up|share|shared|"
    r"note|noted|point(?:ed)? out|state|stated|go on about|went on about|call|called|read|"
    r"give|gave|sound|sounded|sounding"
)
#: verbs of saying whose meaning is part of what is asked for ("what did you recommend")
_SAY_MEANING = (
    r"suggest|suggests|suggested|recommend|recommends|recommended|advise|advises|advised|"
    r"explain|explained|describe|described|complain|complained|claim|claimed|promise|"
    r"promised|discuss|discussed|announce|announced|decide|decided|agree|agreed|propose|"
    r"proposed|warn|warned|remind|reminded|whisper|whispered|yell|yelled|shout|shouted|"
    r"laugh|laughed|cry|cried|ramble|rambled|rant|ranted|offer|offered|insist|insisted|"
    r"predict|predicted|confess|confessed|admit|admitted|plan|planned|pick|picked|"
    r"choose|chose|want|wanted|need|needed|prefer|preferred|like|liked|think|thought"
)
#: verbs of saying, in every form a request uses
_SAY = rf"(?:{_SAY_PLAIN}|{_SAY_MEANING})"
_PRONOUN = r"(?:he|she|they|someone|somebody|anyone|anybody|everyone|we|who)"
_PAST_MARK = (
    r"(?:earlier|before|previously|last time|the other day|yesterday|this morning|"
    r"this afternoon|today|just now|a (?:minute|moment|second|while|few minutes) ago|"
    r"in (?:our|the|this|that) (?:last |previous |earlier )?(?:conversation|call|chat|"
    r"session|meeting|talk|discussion)|last (?:session|conversation|call|chat|week|night)|"
    r"at the (?:start|beginning)|before the break|after the break|back then)"
)
#: the part of a conversation someone points at
_PART = (
    r"(?:the (?:part|bit|moment|time|section|point|place|segment|clip|recording|snippet|"
    r"piece|stretch|turn|thing|stuff|words?|message|note|remark|comment|story)"
    r"(?: of the conversation)? (?:where|when|in which|that|about|with)|"
    r"(?:the )?(?:part|bit|moment) (?:where|when))"
)
_RECALL_CUES = [
    # what did I / you / Dana / she say (about ...)
    rf"\bwhat (?:did|do|does|was it|is it|was that|were|was) (?:{{subj}}) (?:\w+ )?{_SAY}\b",
    rf"\bwhat (?:{{subj}}) (?:just |had |have |has |already |once |actually )?{_SAY}\b",
    rf"\b(?:did|has|have|had|was|were) (?:{{subj}}) (?:ever |already |just |actually )?"
    rf"(?:{_SAY}|been talking|mentioned)\b",
    rf"\b(?:when|where|how|why|who) (?:did|was|were|had|has|have) (?:{{subj}}) "
    rf"(?:\w+ )?{_SAY}\b",
    rf"\bwho (?:{_SAY}|was (?:talking|speaking|whispering|yelling|shouting|laughing|crying))\b",
    rf"\b(?:{{subj}}) (?:{_SAY}) (?:(?:me|you|us|him|her|them) )?(?:about|earlier|before|"
    rf"yesterday|last time|something|that|the other day|this morning)\b.*\?",
    # "the first thing I said", "the restaurant you recommended", "the name Dana gave"
    rf"\b(?:thing|things|stuff|word|words|question|one|bit|part|story|name|number|address|"
    rf"place|idea|advice|tip|recommendation|restaurant|book|movie|song|date|time)s? "
    rf"(?:that |which )?(?:{{subj}}) (?:just |had |have |once |already )?{_SAY}\b",
    # "what was Dana's idea", "what was your suggestion", "what was my answer"
    r"\bwhat(?:'s| is| was| were)\b.*\b(?:{subj_poss}) (?:\w+ )?(?:idea|ideas|suggestion|"
    r"advice|answer|reply|response|story|plan|question|recommendation|point|comment|remark|"
    r"words|opinion|take|news|excuse|reason|tip|joke|argument|complaint|request|message|"
    r"explanation|guess|pick|choice|favorite|favourite)s?\b",
    r"\b(?:remind me|do you remember|can you remember|remember when|do you recall|"
    r"can you recall|recall what|remember what|refresh my memory|jog my memory)\b"
    r"(?! to\b)",
    r"\bremind me (?:what|who|when|how|of what|about what|again)\b",
    r"\bwhat (?:were|was) (?:we|i|you|they) (?:talking|saying|discussing|on about)\b",
    r"\bwhat was (?:said|mentioned|discussed|decided|agreed)\b",
    r"\b(?:repeat|say again|go over|run through|recap|summar(?:ize|ise))\b.*\b(?:what|said|"
    r"told|earlier|before|last time|answer|again)\b",
    r"\bwhat(?:'s| is| was) (?:that|the) (?:thing|name|number|address|place|date|time|"
    r"word|one)\b.*\b(?:said|mentioned|told|talked about|gave|brought up|recommended|"
    r"suggested)\b",
    rf"\b(?:find|get|show|pull up|look up|search|fetch|dig up|bring up|locate|give me|"
    rf"go back to|take me back to|jump to)\b.*{_PART}",
    rf"^{_PART}",
    r"\b(?:i didn't catch|i missed) (?:that|what you said|it|what|the last)\b",
    r"^(?:sorry,? )?what did you (?:just )?say\b",
    r"\b(?:did|have) (?:i|we) (?:ever )?(?:talk|talked|speak|spoken) about\b",
    r"\b(?:who|which one of us|which of us) (?:brought up|mentioned|said|suggested|talked "
    r"about|asked about)\b",
]
_NOT_RECALL = [
    r"\bremind me to\b",
    r"\bdon't (?:forget|let me forget)\b",
    r"\bwhat (?:do|would|should|will|can|could) (?:you|i|we) (?:say|tell|call|suggest|"
    r"recommend|think)\b",
]
_REPLAY = re.compile(
    r"\b(?:play(?: back| me| us| it| that| again)?|replay|let me hear|let's hear|can i hear|"
    r"could i hear|i want to hear|i'd like to hear|hear (?:it|that|\w+) again|listen to)\b"
)
_REPLAY_OBJECT = re.compile(
    r"\b(?:said|say|says|saying|told|mentioned|talked|talking|spoke|asked|whispered|"
    r"recording|clip|audio|voice|words|message|part|bit|moment|again|back|original|"
    r"where|when|the way)\b"
)
_PLAY_MEDIA = re.compile(
    r"\bplay (?:some|a|the|my|me a|me some|us some)? ?(?:music|song|songs|playlist|album|"
    r"radio|podcast|jazz|rock|pop|classical|track|tune|tunes|game|video|movie|white noise|"
    r"rain sounds|sounds of|something relaxing)\b"
)
_FORGET = re.compile(
    r"\b(?:forget|erase|delete|remove|wipe|scrub|purge|get rid of|clear|drop|discard|"
    r"throw away|don't keep|stop remembering|unremember)\b"
)
_FORGET_IDIOM = re.compile(
    r"^(?:oh,? )?(?:just )?(?:forget it|forget about it|never ?mind|forget that,? never mind)"
    r"[.!]?$|\b(?:don't|do not|never|not) (?:forget|delete|erase|remove)\b|\bforget (?:it|"
    r"about it)[,.!]? (?:never ?mind|doesn't matter|it's fine|no worries)|\bforgot\b"
)
_FORGET_OBJECT = re.compile(
    r"\b(?:said|say|told|mentioned|talked|spoke|asked|recording|recordings|clip|audio|"
    r"voice|everything|all of|anything|what|that part|the part|the bit|turns?|messages?|"
    r"conversation|session|history|memory|memories|words|about|my|his|her|their|yesterday|"
    r"today|last time|earlier)\b"
)


def _latin(test: Callable[[str], bool]) -> str:
    """The Latin letters past ASCII (Latin-1, Extended-A and -B, Extended Additional)
    for which ``test`` holds, as the inside of a character class."""
    ranges = ((0xC0, 0x24F), (0x1E00, 0x1EFF))
    return "".join(chr(c) for a, b in ranges for c in range(a, b + 1) if test(chr(c)))


#: the letters a name begins with, and those it goes on with: capitals and small letters
#: never overlap, so a word splits one way only (no backtracking over long words)
_CAP = "A-Z" + _latin(str.isupper)
_LOW = "a-z" + _latin(str.islower)
#: one word of a name: "Dana", "José", "McKenzie", "O'Brien", "Jean-Luc", "Nguyễn"
_NAME_WORD = (
    rf"(?:[{_CAP}]['\u2019][{_CAP}][{_LOW}]+|[{_CAP}][{_LOW}]+(?:[{_CAP}][{_LOW}]+)?)"
    rf"(?:-[{_CAP}][{_LOW}]+)*"
)
#: a name given by "I'm" / "my name is": one word, or two when the second ends the
#: clause and is no function word ("I'm Anna Lee, ..."; "I'm Dana Too." is Dana); never
#: ending in "'s" ("I'm Marco's sister" names no one)
#: function words that are no part of a two-word name ("I'm With Dana", "I'm Dana Too.");
#: short on purpose: Will, Don, Per, Else, Can and An are names
_NAME_STOPS = [
    "with",
    "from",
    "at",
    "in",
    "on",
    "for",
    "by",
    "to",
    "of",
    "and",
    "or",
    "but",
    "is",
    "was",
    "are",
    "the",
    "too",
    "also",
    "just",
    "here",
    "now",
    "again",
    "there",
    "then",
    "not",
    "very",
]
_STOPS = "|".join(_NAME_STOPS)
_STOPSET = frozenset(_NAME_STOPS)
_PERSON = (
    rf"{_NAME_WORD}(?:\s+(?!(?i:{_STOPS})\b){_NAME_WORD}(?=\s*(?:[,.!?;:]|$)))?"
    r"(?!['\u2019]s\b)"
)
#: a name given by "it's" / "this is" or before "here": one word ("It's Taylor Swift."
#: is a song, "It's New York." a place)
_ONE = rf"{_NAME_WORD}(?!['\u2019]s\b)"
_NAME = re.compile(
    r"(?:^|[.!?,]\s*)(?:(?i:hi|hello|hey)[,!]?\s+)?(?:(?i:it's|it is|this is)\s+"
    rf"(?P<a>{_ONE})(?:\s+(?i:here|speaking|again|now|calling|on the line))?\s*[.!]?\s*$|"
    r"(?i:i'm|i am|my name is|my name's|name's|call me|you can call me|the name's|"
    rf"people call me|i go by)\s+(?P<b>{_PERSON})\b(?!\s+(?i:and|said|says|is|was|will|"
    rf"would|told)\b)|(?P<c>{_ONE})\s+(?i:here|speaking)\s*[.!]?\s*$)",
)
#: capitalised words after "I'm" that are not names
_NOT_NAME_WORDS = frozenset(
    [
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "american",
        "canadian",
        "british",
        "english",
        "french",
        "german",
        "italian",
        "spanish",
        "portuguese",
        "dutch",
        "swedish",
        "norwegian",
        "danish",
        "finnish",
        "polish",
        "russian",
        "ukrainian",
        "hungarian",
        "czech",
        "greek",
        "turkish",
        "chinese",
        "japanese",
        "korean",
        "indian",
        "mexican",
        "brazilian",
        "argentinian",
        "australian",
        "irish",
        "scottish",
        "welsh",
        "african",
        "european",
        "asian",
        "christian",
        "muslim",
        "jewish",
        "catholic",
        "vegan",
        "vegetarian",
        # holidays, titles and words for a group, never one voice's name
        "christmas",
        "easter",
        "halloween",
        "thanksgiving",
        "hanukkah",
        "diwali",
        "ramadan",
        "eid",
        "mr",
        "mrs",
        "ms",
        "miss",
        "dr",
        "prof",
        "professor",
        "doctor",
        "sir",
        "madam",
        "us",
        "we",
        "everyone",
        "everybody",
        "nobody",
        "someone",
        # words that open a sentence before "here" or "again" ("Same here", "Look
        # here", "Hello again"), never a name
        "same",
        "look",
        "listen",
        "stop",
        "over",
        "right",
        "come",
        "out",
        "up",
        "in",
        "from",
        "once",
        "thanks",
        "thank",
        "hello",
        "hi",
        "hey",
        "okay",
        "ok",
        "seriously",
        "wait",
        "sign",
        "click",
        "start",
        "go",
        "get",
        "near",
        # short words with a participle's ending, oddly capitalised ("I'm Fed up.")
        "fed",
        "tied",
        "used",
        "red",
        "wed",
        "bed",
        "led",
        "bled",
        "king",
        "sing",
        "ring",
    ]
)
_NOT_NAMES = frozenset(
    [
        "A",
        "Afraid",
        "All",
        "Alright",
        "Also",
        "Always",
        "An",
        "Back",
        "Busy",
        "Calling",
        "Confused",
        "Done",
        "Down",
        "Early",
        "Excited",
        "Fine",
        "Glad",
        "Going",
        "Good",
        "Great",
        "Happy",
        "Her",
        "Here",
        "Him",
        "Home",
        "Hungry",
        "In",
        "It",
        "Just",
        "Late",
        "Listening",
        "Looking",
        "Me",
        "My",
        "Never",
        "Not",
        "Off",
        "Ok",
        "Okay",
        "On",
        "Our",
        "Out",
        "Over",
        "Ready",
        "Really",
        "Sad",
        "Sick",
        "So",
        "Sometimes",
        "Sorry",
        "Still",
        "Sure",
        "Talking",
        "That",
        "The",
        "Them",
        "Thinking",
        "This",
        "Tired",
        "Today",
        "Tomorrow",
        "Trying",
        "Up",
        "Very",
        "Well",
        "Worried",
        "Yesterday",
        "You",
        "Your",
    ]
)
#: a pending forget is confirmed only by a short answer made of these words alone
_CONFIRM_WORDS = frozenset(
    [
        "yes",
        "yeah",
        "yep",
        "yup",
        "sure",
        "correct",
        "right",
        "ok",
        "okay",
        "confirm",
        "confirmed",
        "affirmative",
        "do",
        "it",
        "go",
        "ahead",
        "please",
        "absolutely",
        "definitely",
        "that's",
        "that",
        "is",
        "delete",
        "erase",
        "forget",
        "them",
        "it",
        "all",
        "of",
        "those",
        "please",
    ]
)
_CONFIRM_CORE = re.compile(
    r"\b(?:yes|yeah|yep|yup|sure|correct|confirm|confirmed|affirmative|absolutely|"
    r"definitely|go ahead|do it|delete|erase|forget)\b"
)
_DENY = re.compile(
    r"^(?:no|nope|nah|cancel|don't|do not|stop|keep|never ?mind|wait|hold on|not now|"
    r"actually no)\b"
)
_SELF = r"(?:i|i've|i'd|me|my|myself|mine)"
_AGENT_SUBJ = re.compile(
    rf"\b(?:did you|have you|had you|were you|you (?:just |once |already |had |have )?"
    rf"{_SAY}|your (?:answer|reply|response|suggestion|advice|recommendation|idea|tip|"
    r"explanation|words|last (?:answer|reply|message|sentence)|summary|instructions?)|"
    r"(?:the )?(?:assistant|agent|bot)(?:'s)? (?:said|told|answered|replied|suggested|"
    r"answer|reply))\b"
)
_SELF_SUBJ = re.compile(
    rf"\b(?:did i|have i|had i|was i|were i|i (?:just |once |already |had |have |was |"
    rf"might have |must have |may have )?{_SAY}|my (?:words|question|answer|message|"
    r"request|comment|remark|story|note|own words|own voice|voice)|by me|from me|"
    r"of mine|i was (?:talking|saying|whispering|yelling|laughing|crying|speaking))\b"
)
_TIME = [
    (
        "before_break",
        r"\bbefore (?:the|our|we took (?:a|the|our)|a) (?:break|pause|"
        r"interruption|lunch)\b|\bbefore we (?:paused|stopped|took a break|broke)\b",
    ),
    (
        "after_break",
        r"\bafter (?:the|our|a) (?:break|pause|interruption|lunch)\b|"
        r"\bsince (?:the|our) (?:break|pause)\b|\bafter we (?:came back|resumed|got back)\b",
    ),
    (
        "first",
        r"\b(?:the )?(?:very )?first (?:thing|things|words?|sentence|question|"
        r"time|one)\b|\bat the (?:very )?(?:start|beginning)\b|\bto begin with\b|"
        r"\bstarted (?:with|by)\b|\bopened with\b",
    ),
    (
        "last_session",
        r"\b(?:last|previous|prior|our last|the other|earlier) (?:session|"
        r"conversation|call|chat|talk|meeting)\b|\blast time\b|\bthe time before\b|"
        r"\bthe other day\b",
    ),
    (
        "latest",
        r"\b(?:the )?(?:very )?last (?:thing|things|words?|sentence|answer|reply|"
        r"one|message|bit)\b|\bmost recent(?:ly)?\b|\blatest\b|\bdidn't catch (?:that|it)\b|"
        r"\bi missed (?:that|it)\b|^(?:sorry,? )?what did you (?:just )?say\??$",
    ),
    ("yesterday", r"\byesterday\b|\blast night\b"),
    ("today", r"\b(?:earlier )?today\b|\bthis (?:morning|afternoon|evening)\b|\btonight\b"),
    (
        "this_session",
        r"\b(?:just now|a (?:minute|moment|second|few minutes|little while|"
        r"while) ago|earlier in (?:this|the|our) (?:conversation|call|chat|session)|in this "
        r"(?:conversation|call|chat|session)|so far|(?:i|you|we|he|she) just (?:said|told|"
        r"mentioned|asked|talked))\b",
    ),
]
_TIME_WORDS = re.compile(
    "|".join(p for _, p in _TIME)
    + r"|\b(?:earlier|before|previously|in (?:our|the) (?:conversation|call|chat|session))\b"
)


@dataclass(frozen=True)
class Route:
    """What one user turn asks of the agent."""

    intent: Intent
    #: whose turns: "any", "self" (the person speaking now), "agent", or a known name
    speaker: str = "any"
    #: the content, style and environment to look for (None when no lookup)
    plan: RetrievalPlan | None = None
    #: the time words' meaning: today, yesterday, this_session, last_session, first,
    #: latest, before_break, after_break
    time: str | None = None
    #: the name a self-introduction gives
    name: str | None = None
    #: for reports: which rule decided
    why: str = ""
    notes: list[str] = field(default_factory=list)
    #: a question with no word pointing back at the conversation ("which station does
    #: my train leave from?", "when's Ben's math test?"): a recall that the agent keeps
    #: only when a recalled statement holds half of ``terms``, and answers as chat
    #: otherwise (:func:`memory_holds`)
    tentative: bool = False
    #: a tentative route's content words (stemmed; less function words, words of
    #: asking and greeting, and the agent's name)
    terms: frozenset[str] = frozenset()
    #: the name of the one whose words are meant is no known voice's ("what Carlos
    #: said" with no Carlos): the name as heard, "" when the planner gave none; None
    #: when whose words are meant is known ("what I said to Anna" is the asker's)
    unknown_speaker: str | None = None
    #: a name the turn opens with before asking or saying something else ("This is
    #: Marco speaking, I disagree.", "Hi, I'm Dana. What did Ben say?"): the voice is
    #: named as a self-introduction names it, and the rest is routed on its own
    introduces: str | None = None
    #: with ``introduces``: what the turn says after the introduction
    rest: str | None = None

    @property
    def needs_memory(self) -> bool:
        return self.intent in MEMORY_INTENTS

    @property
    def role(self) -> str | None:
        return "agent" if self.speaker == "agent" else None


class Router:
    """Rules over the utterance's grammar, plus the instruction parser for the plan."""

    def __init__(self, parser: InstructionParser | None = None, agent_name: str = "Vox") -> None:
        self.parser = parser or InstructionParser()
        self.agent_name = agent_name

    def route(
        self,
        text: str,
        speaker_names: Sequence[str] = (),
        pending_confirmation: bool = False,
        opens: bool = True,
    ) -> Route:
        """``opens``: look for an introduction the turn opens with (the rest after one
        is routed with False: one opening per turn)."""
        raw = " ".join(text.replace("’", "'").split())
        low = raw.lower()
        clean = _FILLERS.sub("", low).strip(" ,")
        names = [n for n in speaker_names if n and n.lower() != self.agent_name.lower()]

        if pending_confirmation:
            words = re.sub(r"[^\w' ]", " ", low).split()
            if (
                0 < len(words) <= 5
                and all(w in _CONFIRM_WORDS for w in words)
                and _CONFIRM_CORE.search(" ".join(words))
            ):
                return Route("confirm", why="confirmation")
            if _DENY.search(clean) and len(words) <= 6:
                return Route("deny", why="refusal")

        opening = _opening_introduction(raw, self.agent_name, speaker_names) if opens else None
        if opening is not None and opening[0].lower() != self.agent_name.lower():
            rest = self.route(opening[1], speaker_names, pending_confirmation, opens=False)
            again = rest.name or _introduced_name(opening[1])
            if again and again != opening[0] and again.lower() != self.agent_name.lower():
                # "I'm Dana. I'm Marco.": two names for one voice name neither
                return Route("chat", why="two different names")
            if rest.intent == "name":  # "Hi, I'm Dana. My name is Dana."
                return rest
            if _SMALL_TALK.fullmatch(opening[1]):
                # "I'm Dana, nice to meet you.": an introduction and a pleasantry
                return Route("name", name=opening[0], why="self-introduction")
            return replace(
                rest,
                introduces=opening[0],
                rest=opening[1],
                why=f"{rest.why}; opens with a name",
            )

        name = _introduced_name(raw)
        if name and name.lower() == self.agent_name.lower():
            name = None  # "I'm Vox" is a joke or a test, not a new name for this voice
        if name and not _asks_about_past(clean, names):
            return Route("name", name=name, why="self-introduction")

        if _FORGET.search(clean) and not _FORGET_IDIOM.search(clean):
            target = _FORGET.split(clean, maxsplit=1)[-1]
            if _FORGET_OBJECT.search(target) or _names_in(target, names):
                return self._lookup("forget", raw, clean, names, "forget verb + object")

        if _REPLAY.search(clean) and not _PLAY_MEDIA.search(clean):
            target = _REPLAY.split(clean, maxsplit=1)[-1]
            if _REPLAY_OBJECT.search(target) or _names_in(target, names):
                return self._lookup("replay", raw, clean, names, "play verb + past speech")

        if _asks_about_past(clean, names):
            return self._lookup("recall", raw, clean, names, "question about the past")
        q = self._question_part(clean)
        terms = _question_terms(q)
        if terms:
            return self._tentative(raw, q, names, terms)
        return Route("chat", why="no memory cue")

    def _question_part(self, clean: str) -> str:
        """The last sentence, without openers and the agent's name ("Hey Vox, which
        gate is my flight?" -> "which gate is my flight?")."""
        name = re.escape(self.agent_name.lower())
        return _opened(re.sub(rf"\b{name}\b[,.!]?\s*", "", last_sentence(clean)))

    def _tentative(self, raw: str, q: str, names: Sequence[str], terms: frozenset[str]) -> Route:
        """A tentative recall for the question part ``q`` (``_question_part``)."""
        r = self._lookup("recall", raw, q, names, "a question the memory may answer")
        plan = r.plan
        assert plan is not None
        if r.speaker != "agent":
            # "what's my sister called?" is about the asker; "when's Ben's math test?"
            # is about Ben, not something Ben said; "our", "the" and "I" about anyone
            speaker = "self" if _FIRST_PERSON.search(q) else "any"
            role = "user" if speaker == "self" else None
            plan = replace(plan, speaker=Constraint(), role=role)
            r = replace(r, speaker=speaker)
        if not plan.content:
            # with nothing to rank by, recall would give the latest turns: rank by the
            # question's own content words instead
            words = [w for w in re.findall(r"\w[\w']*", q) if content_terms(w) & terms]
            plan = replace(plan, content=" ".join(dict.fromkeys(words)) or None)
        # its time words are about what is asked ("who is coming to dinner today?"),
        # not about when it was said
        plan = replace(plan, time=TimeWindow())
        return replace(r, plan=plan, time=None, tentative=True, terms=terms)

    def _lookup(
        self, intent: Intent, raw: str, clean: str, names: Sequence[str], why: str
    ) -> Route:
        named = _names_in(clean, names)
        #: whose words are meant was read from the request ("I said", "you told me", a
        #: known name), not guessed from a bare "my" or left open
        read = True
        if _SELF_SUBJ.search(clean) and not (
            _AGENT_SUBJ.search(clean) and _first(_AGENT_SUBJ, clean) < _first(_SELF_SUBJ, clean)
        ):
            speaker = "self"
        elif _AGENT_SUBJ.search(clean) or re.search(
            rf"\b{re.escape(self.agent_name.lower())}\b", clean
        ):
            speaker = "agent"
        elif named:
            speaker = named[0]
        elif re.search(r"\b(?:my|mine|me)\b", clean):
            speaker, read = "self", False  # "what's my favourite colour?": something I said
        else:
            speaker, read = "any", False
        if named and speaker in ("self", "agent") and not _speaks_as_subject(clean, speaker):
            speaker, read = named[0], True
        time = next((label for label, p in _TIME if re.search(p, clean)), None)
        plan = self._plan(clean, names, speaker, time)
        unknown = next((n for n in plan.notices if n.kind == "unknown_speaker"), None)
        return Route(
            intent,
            speaker=speaker,
            plan=plan,
            time=time,
            why=why,
            unknown_speaker=None if unknown is None or read else (unknown.asked or ""),
        )

    def _plan(
        self, clean: str, names: Sequence[str], speaker: str, time: str | None
    ) -> RetrievalPlan:
        if self.parser.kind != "lexicon":
            # the trained planner reads whole requests (it was trained on them, time words,
            # verbs of saying and names included, and tags each itself); cutting words out
            # leaves fragments such as "what was i said in ?" that no request looks like
            plan = self.parser.parse(clean, False, names)
        else:
            plan = self.parser.parse(_lexicon_text(clean), False, [])
        heard = plan.speaker
        if (
            heard.mode == "target"
            and heard.value
            and not any(n.lower() == heard.value.lower() for n in names)
        ):
            # with no voice named yet, the planner takes any name for a speaker: it is
            # a name no voice has all the same
            plan = replace(
                plan,
                notices=(
                    *plan.notices,
                    PlanNotice(
                        "unknown_speaker",
                        f"{heard.value!r} is not a known speaker; searched everyone",
                        asked=heard.value,
                    ),
                ),
            )
        if speaker in ("self", "agent", "any"):
            speaker_c = Constraint()
        else:
            speaker_c = Constraint("target", speaker)
        content = plan.content
        if content:
            drop = {n.lower() for n in names} | {self.agent_name.lower()}
            words = [w for w in content.split() if w.removesuffix("'s") not in drop]
            content = " ".join(words) or None
        return replace(
            plan,
            content=content,
            content_from_reference=False,
            speaker=speaker_c,
            role="agent" if speaker == "agent" else ("user" if speaker == "self" else None),
            time=TimeWindow(label=time),
        )


def _lexicon_text(clean: str) -> str:
    """What the lexicon parser reads of a request: its patterns take every leftover word
    for content, so the request's own words go first."""
    # time words and the request's own verbs are not content
    text = _TIME_WORDS.sub(" ", clean)
    text = re.sub(
        r"\b(?:play(?: back)?|replay|let me hear|can i hear|i want to hear|forget|erase|"
        r"delete|remove|wipe|remind me|do you remember|did you|did i|again|back|please)\b",
        " ",
        text,
    )
    # the verbs of saying carry no content ("what did you tell me" asks for anything)
    text = re.sub(
        rf"\b(?:{_SAY_PLAIN})\b(?! (?:about|regarding|concerning|that|of|on)\b)", " ", text
    )
    # names are handled by the router (a filter), so the lexicon sees none: a named
    # speaker must not make it drop the topic as "leftover words beside an attribute"
    return text


def _first(pattern: re.Pattern[str], text: str) -> int:
    m = pattern.search(text)
    return m.start() if m else 10**9


def _speaks_as_subject(text: str, who: str) -> bool:
    """Whether "I" / "you" is the one who spoke, not just the one asking or being told
    ("what did Dana tell me" is about Dana)."""
    pattern = _SELF_SUBJ if who == "self" else _AGENT_SUBJ
    m = pattern.search(text)
    return bool(m and not re.match(r"(?:by me|from me|of mine)", m.group(0)))


def _names_in(text: str, names: Sequence[str]) -> list[str]:
    found = []
    for n in names:
        if re.search(rf"(?<![\w-]){re.escape(n.lower())}(?:'s)?(?![\w-])", text):
            found.append(n)
    return found


#: a pleasantry after an introduction ("I'm Dana, nice to meet you."): the turn is
#: the introduction alone
_SMALL_TALK = re.compile(
    r"(?i:(?:and\s+)?(?:it's\s+)?(?:(?:very\s+|so\s+)?(?:nice|good|great|glad|pleased|"
    r"lovely)\s+to\s+(?:meet|see|talk\s+to)\s+you(?:\s+too)?|how\s+are\s+you(?:\s+doing)?"
    r"(?:\s+today)?|how's\s+it\s+going|hello(?:\s+there)?|hi(?:\s+there)?|hey|"
    r"good\s+(?:morning|afternoon|evening)|cheers|pleasure)(?:,?\s+\w+)?\s*[.!?]*)"
)
#: what follows an introduction that presents someone else ("I'm Anna, she said",
#: "It's Ben, right? What did he say?")
_ABOUT_SOMEONE = re.compile(r"^(?i:(?:and )?(?:he|she|they)\b|said\b|says\b)")
#: ... and, after "it's / this is NAME" with no "here" or "speaking", what presents a
#: person, place or thing ("This is Marco, my colleague.", "This is Paris, the city",
#: "It's Ben, right?")
_PRESENTS = re.compile(
    r"^(?i:my|our|your|his|her|their|the|a|an|it|its|this|that|is|was|right|isn't|who)\b"
)


@functools.lru_cache(maxsize=8)
def _opening_pattern(agent_name: str) -> re.Pattern[str]:
    """An introduction the turn opens with: "I'm / my name is NAME" after an optional
    greeting, or "it's / this is NAME" with a greeting before it or "here", "speaking"
    after it (alone, "This is Marco, ..." may present someone else), or "NAME here";
    the greeting may name the agent ("Hey Vox, it's Dana here.")."""
    agent = re.escape(agent_name)
    agent = rf"(?i:{agent})"
    hi = (
        rf"(?:(?i:hi|hello|hey|hi there|hello there|good (?:morning|afternoon|evening))"
        rf"(?:,?\s+{agent})?[,!.]?\s+|{agent}[,!]\s+)"
    )
    tag_words = r"(?i:here|speaking|again|calling|now|on the line)"
    one, name = _ONE, _PERSON
    return re.compile(
        rf"^(?:{hi}(?i:it's|it is|this is)\s+(?P<a>{one})(?:\s+(?P<tagged>{tag_words}))?"
        rf"|(?:{hi})?(?i:it's|it is|this is)\s+(?P<d>{one})\s+(?i:here|speaking)"
        rf"|(?:{hi})?(?i:i'm|i am|my name is|my name's)\s+(?P<b>{name})"
        # "NAME here," alone: "Once again", "Same here" and "Right now" are no names
        rf"|(?:{hi})?(?P<c>{one})\s+(?i:here|speaking))"
        r"\s*(?P<pause>[,.!;:]+)\s*(?P<rest>\S.*)$"
    )


def _opening_introduction(
    raw: str, agent_name: str = "Vox", known: Sequence[str] = ()
) -> tuple[str, str] | None:
    """The name a turn opens with and what it says after ("This is Marco speaking, I
    disagree." -> ("Marco", "I disagree.")); None when it opens with no introduction,
    says nothing after it, or goes on about someone else ("This is Marco, he's new").
    The name must be followed by punctuation, as the ASR writes a pause: "I'm Dana and
    ..." is not read as one. Lower-case ASR text counts only for a known voice's name."""
    pattern = _opening_pattern(agent_name)
    m = pattern.match(raw)
    if m is not None:
        name: str | None = m.group("a") or m.group("b") or m.group("c") or m.group("d")
        if not _plausible_name(name or ""):
            return None
    else:
        # lower-case ASR text, read with every word capitalised (the same length)
        m = pattern.match(re.sub(r"[a-z]+", lambda w: w.group(0).capitalize(), raw))
        if m is None:
            return None
        heard = m.group("a") or m.group("b") or m.group("c") or m.group("d")
        name = next((n for n in known if n.lower() == heard.lower()), None)
        if name is None:
            return None
    rest = raw[m.start("rest") :].strip()
    if not re.search(r"\w", rest):
        return None
    if "," in m.group("pause") and _ABOUT_SOMEONE.match(rest):
        return None  # "I'm Anna, she said": someone else's words
    strong = (m.group("tagged") or "").lower() in ("here", "speaking")
    if m.group("a") and not strong and _PRESENTS.match(rest):
        return None  # "Hi, it's Ben now, right?": may present someone else
    return name, rest


def _introduced_name(raw: str) -> str | None:
    m = _NAME.search(raw)
    if m is None:
        # ASR output may be lower case: then only the explicit forms name someone
        m2 = re.search(
            r"\b(?:my name is|my name's|you can call me|please call me)\s+"
            r"([^\W\d_]+(?:-[^\W\d_]+)*)\s*[.!]?\s*$",
            raw.lower(),
        )
        if m2 and _plausible_name(m2.group(1)) and _short_intro(raw):
            return "-".join(part.capitalize() for part in m2.group(1).split("-"))
        return None
    group = next(g for g in ("a", "b", "c") if m.group(g))
    name = m.group(group)
    if " " in name and not _plausible_name(name):
        name = name.split()[0]  # "I'm Dana Thursday": the name is the first word
        if name.lower() in _STOPSET:
            return None  # "I'm With Dana"
    if raw[m.end(group) : m.end(group) + 2] == "'s":
        return None  # "I'm Marco's sister": someone else's name
    after = raw[m.end() :]
    if after.lstrip().startswith(",") and _ABOUT_SOMEONE.match(after.lstrip(" ,")):
        return None  # "I'm Anna, she said": someone else's words
    return name if _plausible_name(name) else None


def _plausible_name(name: str) -> bool:
    """Each word of ``name`` could be a name: not a listed everyday word, and no
    adjective's or participle's ending past four letters ("Tired", "Going"; "Ted",
    "Fred" and "Ming" are names)."""
    words = name.split()
    if len(words) > 1 and any(w.lower() in _STOPSET for w in words):
        return False  # "I'm With Dana": a function word is no part of a name
    return bool(words) and all(_plausible_word(w) for w in words)


def _plausible_word(word: str) -> bool:
    w = word.lower()
    return (
        len(w) > 1
        and w.capitalize() not in _NOT_NAMES
        and w not in _NOT_NAME_WORDS
        and (
            len(w) <= 4
            or not w.endswith(("ing", "ed", "ous", "ful", "less", "ive", "able", "ible"))
        )
    )


def _short_intro(raw: str) -> bool:
    return len(raw.split()) <= 8


def _asks_about_past(clean: str, names: Sequence[str]) -> bool:
    if any(re.search(p, clean) for p in _NOT_RECALL) and not re.search(
        r"\bremind me (?:what|who|when|how|of what|about what)\b", clean
    ):
        return False
    subjects = [_SELF, r"you", _PRONOUN, r"the (?:assistant|agent|bot)"] + [
        re.escape(n.lower()) for n in names
    ]
    subj = "|".join(subjects)
    possessive = "|".join(
        [r"my", r"your", r"his", r"her", r"their", r"our"]
        + [rf"{re.escape(n.lower())}'s" for n in names]
    )
    for cue in _RECALL_CUES:
        if re.search(cue.replace("{subj_poss}", possessive).replace("{subj}", subj), clean):
            # a third party ("what did Churchill say") is not a speaker of this memory
            return True
    # "what did X say" about someone who is not a speaker here is general knowledge,
    # unless the words point back at the conversation
    return bool(
        re.search(rf"\b{_SAY}\b", clean)
        and re.search(_PAST_MARK, clean)
        and re.search(rf"\b(?:{subj})\b", clean)
    )


_WH = (
    r"(?:what|what's|whats|which|where|where's|wheres|when|when's|whens|who|who's|whose|how|how's)"
)
#: a question: it ends with a question mark; or, not ended by a full stop or an
#: exclamation mark (ASR writes those after statements), it opens with a question word
#: that no subject follows ("where am I staying" and not "where I grew up"), opens with
#: an auxiliary and a subject ("is my train late"), or fronts a short topic ("the thai
#: place, what was it called")
_QUESTION = re.compile(
    rf"^(?:{_WH}\b(?! (?:i|we|you|he|she|they|a|an)\b)|"
    r"(?:is|are|was|were|am|do|does|did|have|has|had|will|would|can|could|should) "
    r"(?:i|you|we|he|she|they|it|my|your|our|his|her|their|the|this|that|these|those|"
    r"there|\w+'s)\b|"
    rf"(?:the|my|our|your|that|this|and the) [\w']+(?: [\w']+){{0,3}} ?, {_WH}\b[^,]*$)"
)
#: a question ASR ended with a full stop: which/who/what (not "what a"), or
#: when/where/how with an auxiliary or a measure ("where did", "how much")
_QUESTION_STOPPED = re.compile(
    r"^(?:(?:which|who|whose|who's|what|what's|whats)\b(?! (?:a|an|i|we|you|he|she|they)\b)|"
    r"(?:when|where|how)(?:'s)? (?:is|are|was|were|am|do|does|did|have|has|had|will|would|"
    r"can|could|should|much|many|long|far|often|old)\b|(?:when's|where's|how's|whens|wheres)\b)"
)
#: words English questions are made of and other languages are not: a question in
#: another language is not read by these rules
_ENGLISH = re.compile(
    r"\b(?:i|my|me|we|our|you|your|the|is|are|was|were|do|does|did|what|which|where|"
    r"when|who|how|whose)\b|\b\w+'s\b"
)
#: the asker's own: my, me ("where am I staying" may ask for the agent's advice as
#: well as for what the asker said, so "I" alone filters no one)
_FIRST_PERSON = re.compile(r"\b(?:me|my|mine|myself)\b")
#: asking for something new, not for what was said: advice, a favour, a how-to, an
#: opinion, a present state ("should I", "can you", "how do I", "do I need", "what do
#: you think", "is it safe", "what time is it")
_ASKS_NEW = re.compile(
    r"^(?:should|shall|could|can|would|will|may|might|must) (?:i|we|you)\b|"
    r"\b(?:should|shall|ought to) (?:i|we)\b|\b(?:can|could|would|will) you\b|"
    r"\b(?:what|which)(?: \w+)?(?: else)? (?:can|could|might|may) (?:i|we)\b|"
    r"\bhow (?:do|can|should|would|could) \w+\b|\bdo (?:i|we|you) (?:need|have to)\b|"
    r"\bdo you know (?:any|a|some|of|a good)\b|"
    r"\bwhat do you (?:think|reckon|recommend|suggest)\b|\b(?:any|some) (?:ideas?|tips|"
    r"suggestions|advice)\b|\bwhat(?:'s| is) (?:the best|a good|the weather)\b|"
    r"\b(?:what time is it|what(?:'s| is) the time)\s*[?.!]?$|"
    r"\bis it (?:ok|okay|safe|worth|good|bad|possible|normal|too)\b|"
    r"\b(?:am i|are we) (?:late|early|on time|ok|okay)\b|\bhow am i doing\b|"
    r"\bwhat (?:if|about) (?:i|we)\b"
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+")
#: what opens a question without being part of it ("and", "wait", "thanks", fillers)
_OPENERS = re.compile(
    r"^(?:(?:and|but|so|wait|then|also|thanks|thank you|sorry|right|alright|now|oh|okay|"
    r"ok|um+|uh+|erm|hmm+|ah|hey|hi|hello|please|well|you know|i mean|actually|"
    r"quick question|real quick)\b[,.!]?\s*)+"
)


def _opened(text: str) -> str:
    return _OPENERS.sub("", text.lower()).strip(" ,")


def _sentences(text: str) -> list[str]:
    return [x for x in _SENTENCES.split(text.strip()) if x.strip()]


def last_sentence(text: str) -> str:
    """The last sentence of ``text`` ("I'm back. When's Ben's test?" -> "When's Ben's
    test?")."""
    parts = _sentences(text)
    return parts[-1] if parts else ""


def is_question(text: str) -> bool:
    """Whether the last sentence of ``text`` (lower case, openers dropped) is a
    question: "when's Ben's math test", "and where am I staying", "the salon?", "is my
    train late"; not "when I get home I'll call", "Had the best time at Ben's party.",
    "I lost my keys again", "I met Ben, who was upset about his test."."""
    last = _opened(last_sentence(text))
    if last.endswith("?"):
        return True
    if last.endswith((".", "!")):
        # ASR ends many spoken questions with a full stop: a question word still makes
        # one where no clause or exclamation can open ("which faucet is dripping.",
        # "where did I put the papers.", not "when the kids get home I'll call.")
        return bool(_QUESTION_STOPPED.search(last))
    return bool(last) and bool(_QUESTION.search(last))


def _question_terms(q: str) -> frozenset[str]:
    """The content words of ``q`` (a question part) when it is an English question that
    asks for nothing new; empty for anything else (see :func:`is_question`)."""
    if not is_question(q) or _ASKS_NEW.search(q) or not _ENGLISH.search(q):
        return frozenset()
    return frozenset(content_terms(q) - _ASKING_TERMS)


#: words of asking and greeting, not of what is asked about: a remembered turn sharing
#: only these with a question does not answer it
_ASKING_TERMS = frozenset(
    content_terms(
        "say said tell told mention mentioned talk talked speak spoke ask asked remember "
        "remind recall call called again go going gone get got make made thing things stuff "
        "know want think like yeah okay um uh oh hmm right just really actually mean guess "
        "hey hi hello please wait sorry excuse quick question good morning afternoon evening "
        "thanks thank sure"
    )
)
#: the share of a tentative question's content words one remembered statement must
#: hold to answer it (chosen on routing/personal_dev)
HOLD_SHARE = 0.5


def memory_holds(
    asked: str | frozenset[str], transcripts: Sequence[str], share: float = HOLD_SHARE
) -> bool:
    """Whether one of ``transcripts`` that is not only questions holds at least
    ``share`` of the content words ``asked`` (a route's ``terms``, or a question's text:
    stemmed, less function words and words of asking): what a tentative route's recall
    must find to be an answer. "Where am I staying in Lisbon?" (stay, lisbon) is
    answered by "we're staying in a flat in Lisbon"; "what's the population of Krakow?"
    (popul, krakow) by "we fly to Krakow in May" as well, at a half; "where's my
    umbrella?" neither by a memory of trains nor by an earlier "where's my umbrella?"."""
    terms = asked if isinstance(asked, frozenset) else content_terms(asked) - _ASKING_TERMS
    if not terms:
        return False
    need = share * len(terms)
    return any(
        len(terms & content_terms(t)) >= need and not _only_questions(t) for t in transcripts
    )


def _only_questions(text: str) -> bool:
    """Every sentence of ``text`` a question (it states nothing)."""
    parts = _sentences(text)
    return bool(parts) and all(is_question(x) for x in parts)


def resolve_time(
    label: str | None,
    *,
    session: str,
    sessions: Sequence[tuple[str, float, float]] = (),
    session_times: Sequence[float] = (),
    now: float | None = None,
) -> TimeWindow:
    """The concrete window for a time label.

    ``sessions``: the tenant's sessions as (id, first, last) storage times, oldest
    first; ``session_times``: when the current session's turns were stored. "Last
    session" is the latest other session that began before this one; a break is the
    longest pause between the current session's turns."""
    if label is None:
        return TimeWindow()
    now = dt.datetime.now().timestamp() if now is None else now
    midnight = dt.datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0, microsecond=0)
    if label == "today":
        return TimeWindow(after=midnight.timestamp(), label=label)
    if label == "yesterday":
        start = midnight - dt.timedelta(days=1)
        return TimeWindow(after=start.timestamp(), before=midnight.timestamp(), label=label)
    if label == "this_session":
        return TimeWindow(session=session, label=label)
    if label == "last_session":
        current = next((s for s in sessions if s[0] == session), None)
        began = current[1] if current else now
        earlier = [s for s in sessions if s[0] != session and s[1] <= began]
        if not earlier:
            return TimeWindow(session="\0none", label=label)
        return TimeWindow(session=earlier[-1][0], label=label)
    if label in ("first", "latest"):
        return TimeWindow(order="first" if label == "first" else "latest", label=label)
    if label in ("before_break", "after_break"):
        times = sorted(session_times)
        if len(times) < 2:
            return TimeWindow(session=session, label=label)
        gaps = [(times[i + 1] - times[i], i) for i in range(len(times) - 1)]
        _, i = max(gaps)
        cut = (times[i] + times[i + 1]) / 2
        if label == "before_break":
            return TimeWindow(session=session, before=cut, label=label)
        return TimeWindow(session=session, after=cut, label=label)
    return TimeWindow(label=label)


__all__ = ["MEMORY_INTENTS", "Intent", "Route", "Router", "resolve_time"]
