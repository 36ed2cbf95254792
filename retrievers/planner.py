"""A trained instruction planner: small heads over the MiniLM text encoder.

One encoder pass gives the instruction's sentence vector and a contextual vector per
word. Sentence heads decide, for the whole instruction, who spoke (anyone, the
reference clip's voice, a named person), how it sounded and what was behind it
(anyone, as in the reference, or one stored label), whether there is content to
match (in the words, or the reference clip's own speech, or none), whose turns
(the user's, the agent's) and when. A word tagger marks which words are the content
to match (``C``), a speaker's name (``N``) or the instruction's own wording (``O``),
so "the answer to what is being asked" is never taken as the topic. Lexicon hits
(``vocabulary``) are features, not rules.

Weights (``data/planner.npz``, numpy arrays only) come from ``benchmarks
train-planner``: a generated corpus and the written ``train`` pools, deterministic
for a seed. The encoder reads English: an instruction in another language (told apart
by ``is_english``) goes to the planner for other languages (``planner_multi``), whose
plans carry an ``other_language`` notice.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import re
import threading
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voxmem.errors import ModelUnavailable, VoxmemError
from voxmem.memory.encoders.base import l2_normalize, shared_model, use_torch_threads
from voxmem.memory.encoders.style import STYLE_VOCABULARY
from voxmem.retrievers.plan import Constraint, Order, PlanNotice, RetrievalPlan, TimeWindow
from voxmem.retrievers.vocabulary import ENVIRONMENT_WORDS, STYLE_WORDS

#: style labels a stored turn carries (the style encoder's prosodic vocabulary)
STORED_STYLES: tuple[str, ...] = tuple(STYLE_VOCABULARY)
#: styles people ask for that no stored turn carries, and the stored label nearest each
MAPPED_STYLES: dict[str, str] = {"crying": "sad", "laughing": "excited", "shouting": "angry"}
STYLE_LABELS: tuple[str, ...] = STORED_STYLES + tuple(MAPPED_STYLES)
ENV_LABELS: tuple[str, ...] = tuple(ENVIRONMENT_WORDS)
SPEAKER_MODES = ("any", "same", "target")
CONTENT_KINDS = ("none", "present", "reference")
ROLES = ("none", "user", "agent")
TIME_LABELS = (
    "first",
    "latest",
    "today",
    "yesterday",
    "this_session",
    "last_session",
    "before_break",
    "after_break",
)
HEADS: dict[str, tuple[str, ...]] = {
    "speaker": SPEAKER_MODES,
    "style": ("any", "same", *STYLE_LABELS),
    "environment": ("any", "same", *ENV_LABELS),
    "content": CONTENT_KINDS,
    "role": ROLES,
    "time": ("none", *TIME_LABELS),
}
#: word tags: instruction wording, content, a name, the reference's speaker, style,
#: environment, content from the reference, the user's / agent's turns, time
TAGS = ("O", "C", "N", "P", "S", "E", "R", "U", "A", "T")
#: tagged spans whose value a span classifier reads, and the head it decides
SPANS: dict[str, str] = {"S": "style", "E": "environment", "T": "time"}
WEIGHTS = Path(__file__).parent / "data" / "planner.npz"
#: tags that turn into a constraint (the clip's voice, a style, a background) or take the
#: content from the clip, and the probability below which the tagger's choice of one is
#: read as the instruction's own wording: chosen for the corpus-only weights on
#: ``plans/test_v3`` and ``plans/test_v4`` while they were dev pools (a tuning choice; the
#: planner learns from them since), where unsure tags were mostly wrong (0.8 and 0.9
#: within a row of each other there, 0.7 ten rows worse)
GATED_TAGS = frozenset("PSER")
MIN_TAG_CONFIDENCE = 0.8
#: words tagged R (content from the clip) it takes to match the clip's own words
REFERENCE_MIN_WORDS = 2
#: a word the tagger left as wording is still content when its content probability is
#: at least this (short topics at the end of a request, "mateo + dentist", lost their
#: last noun to the wording): a tuning choice on the then dev pools (v3-v5), where it
#: was worth a few rows of 800 (0.2 to 0.4 scored alike)
CONTENT_MIN_PROB = 0.3
#: a clip with nothing at all asked of it (no voice, style, background, topic, name,
#: role or time) means its words: worth four rows of 667 on the then dev pools, said in a
#: ``clip_as_content`` notice
CLIP_MEANS_ITS_WORDS = True
#: ... unless the instruction says to leave the clip alone ("clip attached by mistake,
#: show me everything"): then nothing of it is used
_CLIP_NOUN = r"(clip|audio|attachment|recording|sample|file)"
_CLIP_SET_ASIDE = re.compile(
    r"\b(ignore|disregard|never ?mind|forget|skip|don'?t use) (the |this |that |my )?"
    + _CLIP_NOUN
    + r"\b|\b"
    + _CLIP_NOUN
    + r"\b[^,.;]*\b(by (mistake|accident)|aside|unrelated|is random|doesn'?t matter"
    r"|a mistake)\b"
)
#: words kept off either end of a content phrase
_EDGE_WORDS = (
    "the a an this that these those my our your his her their its some any of about on and or to in"
)
_EDGE = frozenset(_EDGE_WORDS.split())


class PlannerUnavailable(VoxmemError, RuntimeError):
    """A planner that cannot run (weights missing, endpoint down, an unusable answer)."""


def words_of(text: str) -> list[str]:
    """Words (any script, with inner hyphens and apostrophes) and punctuation marks."""
    return re.findall(r"\w+(?:[-'’]\w+)*|[^\w\s]", text)


# --- language ------------------------------------------------------------------

#: the commonest function words of languages the ASR hears often, which English lacks
_FOREIGN_WORDS = """
que qué de del el los las una por para sobre dijo cómo cuando dónde está
est les des une pour avec sur dit quand où était qu il elle ils nous vous sont
der das und ist nicht mit über sagte wann wo ein eine dem zu
che di della sulla detto quando sono gli
não disse onde uma het een niet zei waar
"""
_FOREIGN = frozenset(_FOREIGN_WORDS.split())
_ENGLISH_WORDS = """
the a an of to in on about what did say said when where who this that with is was
from by and for it i you he she they me my find show clip clips speaker
"""
_ENGLISH = frozenset(_ENGLISH_WORDS.split())
#: the languages the identifier chooses among (langid.py's model knows many more; fewer
#: choices err less on short requests): English, the languages written in Latin
#: script that people most often mix up with it, and the commonest others
LANGUAGES = tuple(
    [
        "en",
        "es",
        "fr",
        "de",
        "it",
        "pt",
        "nl",
        "pl",
        "sv",
        "da",
        "no",
        "fi",
        "tr",
        "ru",
        "uk",
        "cs",
        "sk",
        "ro",
        "hu",
        "el",
        "ja",
        "zh",
        "ko",
        "hi",
        "ar",
        "he",
        "id",
        "vi",
        "th",
        "ca",
    ]
)
#: below this probability the identifier's answer is not taken, and function words decide
LANGUAGE_MIN_PROB = 0.3
_identifier: Any = None
_identifier_lock = threading.Lock()
#: loading a planner's weights and encoder, once, whichever thread asks first
_load_lock = threading.Lock()


def _identify(text: str) -> tuple[str, float]:
    """langid.py's language and its probability for ``text`` (py3langid, whose model
    ships inside the package)."""
    global _identifier
    with _identifier_lock:
        if _identifier is None:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier

            ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
            ident.set_languages(list(LANGUAGES))
            _identifier = ident
        lang, prob = _identifier.classify(text)
    return str(lang), float(prob)


def _foreign_evidence(text: str) -> int:
    """Foreign function words and letters English does not use."""
    words = [w.lower() for w in words_of(text)]
    return sum(w in _FOREIGN for w in words) + sum(c in "¿¡ñãõßœ" for c in text.lower())


def _function_words_say_english(text: str) -> bool:
    words = [w.lower() for w in words_of(text)]
    english = sum(w in _ENGLISH for w in words)
    foreign = _foreign_evidence(text)
    return foreign == 0 or english > foreign


_vocabulary: frozenset[str] | None = None


def _english_vocabulary() -> frozenset[str]:
    """The whole words of MiniLM's English vocabulary (its ``vocab.txt``), or none when
    the model is not installed."""
    global _vocabulary
    with _identifier_lock:
        if _vocabulary is None:
            words: frozenset[str] = frozenset()
            try:
                from voxmem.models import Role, resolve
                from voxmem.settings import Settings, TextSettings

                model = resolve(Role.TEXT, Settings(text=TextSettings(backend="minilm")))
                vocab = Path(model.location) / "vocab.txt"
                if vocab.is_file():
                    words = frozenset(
                        w for w in vocab.read_text(encoding="utf-8").split() if w.isalpha()
                    )
            except VoxmemError:
                pass
            _vocabulary = words
        return _vocabulary


def is_english(text: str, names: Sequence[str] = ()) -> bool:
    """Whether ``text`` is English, read without the known speakers' ``names`` (names
    sway a language identifier on short requests: "Priya laughing"): Latin script;
    then English when every word is an English word and nothing (function words,
    letters) says otherwise ("pasta recipe", "traffic noise": too short for an
    identifier); else what a language identifier says when it is sure enough, and
    when it is not, more English than foreign function words."""
    bare = text
    for name in sorted((n for n in names if n.strip()), key=len, reverse=True):
        bare = re.sub(rf"(?i)(?<!\w){re.escape(name)}(?:['’]s)?(?!\w)", " ", bare)
    letters = [c for c in bare if c.isalpha()]
    if not letters:
        return True
    latin = sum("LATIN" in unicodedata.name(c, "") for c in letters)
    if latin < 0.8 * len(letters):
        return False
    words = [w.lower() for w in words_of(bare) if re.search(r"[^\W\d_]", w)]
    vocabulary = _english_vocabulary()
    foreign = _foreign_evidence(bare)
    if (
        not foreign
        and vocabulary
        and all(w.replace("’", "'").split("'")[0] in vocabulary for w in words)
    ):
        return True
    lang, prob = _identify(bare)
    if prob >= LANGUAGE_MIN_PROB:
        return lang == "en"
    return _function_words_say_english(bare)


# --- features ------------------------------------------------------------------


def _lexicon_hits(text: str) -> np.ndarray:
    """Per style and environment label: whether one of its words appears."""
    low = " " + " ".join(w.lower() for w in words_of(text)) + " "
    out = []
    for words in [STYLE_WORDS.get(s, ()) for s in STYLE_LABELS] + [
        ENVIRONMENT_WORDS[e][0] for e in ENV_LABELS
    ]:
        out.append(float(any(f" {w} " in low for w in words)))
    return np.array(out, np.float32)


#: lexical flags per word (see ``_word_flags``)
N_FLAGS = 8

_LEXICON_WORDS = {
    "style": frozenset(w for ws in STYLE_WORDS.values() for w in ws),
    "env": frozenset(w for ws, _ in ENVIRONMENT_WORDS.values() for w in ws),
}


def _word_flags(words: Sequence[str], names: Sequence[str], has_reference: bool) -> np.ndarray:
    known = {n.lower() for n in names}
    clip = float(has_reference)
    rows = []
    for i, w in enumerate(words):
        low = w.lower().removesuffix("'s")
        rows.append(
            [
                float(low in _LEXICON_WORDS["style"]),
                float(low in _LEXICON_WORDS["env"]),
                float(i > 0 and w[:1].isupper() and not w.isupper()),
                float(low in known),
                float(w.isdigit()),
                float(re.search(r"\w", w) is None),
                i / max(len(words) - 1, 1),
                clip,
            ]
        )
    return np.array(rows, np.float32).reshape(len(words), N_FLAGS)


@dataclass(frozen=True)
class Encoded:
    """One instruction as the heads see it."""

    words: list[str]
    sentence: np.ndarray  # (384,) the encoder's mean-pooled, normalised vector
    word_vectors: np.ndarray  # (n_words, 384) contextual, mean over each word's pieces


class WordEncoder:
    """The project's MiniLM, read out per word as well as per sentence."""

    def __init__(self, threads: int | None = None) -> None:
        from voxmem.models import Role, resolve
        from voxmem.settings import Settings, TextSettings

        # the MiniLM the weights were trained on, whatever text encoder the memory uses
        model = resolve(Role.TEXT, Settings(text=TextSettings(backend="minilm")))

        def load() -> Any:
            from sentence_transformers import SentenceTransformer

            # None: the count the memory's settings set in this process, else the
            # environment's (VOXMEM_TORCH_THREADS)
            use_torch_threads(threads)
            return SentenceTransformer(
                model.location, device="cpu", local_files_only=model.source != "hub"
            )

        st = shared_model("sentence-transformers", model.location, load)
        self._tokenizer, self._model = st[0].tokenizer, st[0].auto_model

    def encode(self, texts: Sequence[str], batch: int = 64) -> list[Encoded]:
        import torch

        all_words = [words_of(t) or ["."] for t in texts]
        # similar lengths batched together: little padding
        order = sorted(range(len(texts)), key=lambda i: len(all_words[i]))
        out: list[Encoded | None] = [None] * len(texts)
        for start in range(0, len(texts), batch):
            members = order[start : start + batch]
            chunk = [all_words[i] for i in members]
            enc = self._tokenizer(
                chunk,
                is_split_into_words=True,
                padding=True,
                truncation=True,
                max_length=128,
                return_tensors="pt",
            )
            with torch.no_grad():
                hidden = self._model(**enc).last_hidden_state.numpy()
            mask = enc["attention_mask"].numpy().astype(np.float32)
            sent = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            sent = l2_normalize(sent)
            for j, words in enumerate(chunk):
                ids = np.array([-1 if w is None else w for w in enc.word_ids(j)])
                vecs = np.zeros((len(words), hidden.shape[-1]), np.float32)
                for i in range(len(words)):
                    rows = hidden[j][ids == i]
                    # a word cut off by truncation borrows the sentence vector
                    vecs[i] = rows.mean(0) if len(rows) else sent[j]
                # rounded: the same features whatever the thread count
                out[members[j]] = Encoded(
                    words,
                    np.round(sent[j], 3).astype(np.float32),
                    np.round(vecs, 2).astype(np.float32),
                )
        return [e for e in out if e is not None]


def _shifted(v: np.ndarray, by: int) -> np.ndarray:
    out = np.zeros_like(v)
    if by > 0:
        out[by:] = v[:-by]
    else:
        out[:by] = v[-by:]
    return out


def word_features(e: Encoded, names: Sequence[str], *, has_reference: bool) -> np.ndarray:
    """Per word: its vector, its neighbours', the sentence's, lexical flags, and whether
    a reference clip came with the instruction ("answer this" means the clip's words
    only when there is a clip)."""
    n, v = len(e.words), e.word_vectors / 4.0
    sentence = np.repeat(e.sentence[None], n, 0)
    flags = _word_flags(e.words, names, has_reference)
    parts = [v, _shifted(v, 1), _shifted(v, -1), sentence, flags]
    return np.concatenate(parts, axis=1).astype(np.float32)


def span_features(e: Encoded, mask: np.ndarray) -> np.ndarray:
    """A tagged span (``mask`` over the words): mean and max of its vectors, and which
    style and sound words of the lexicon it holds."""
    vecs = e.word_vectors[mask] / 4.0
    text = " ".join(w for w, m in zip(e.words, mask, strict=True) if m)
    return np.concatenate([vecs.mean(0), vecs.max(0), _lexicon_hits(text)]).astype(np.float32)


# --- the model -----------------------------------------------------------------


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax of logits (a row's -inf logits get probability 0)."""
    e = np.exp(z - z.max(1, keepdims=True))
    out: np.ndarray = e / e.sum(1, keepdims=True)
    return out


def mlp(x: np.ndarray, w: Mapping[str, np.ndarray], prefix: str) -> np.ndarray:
    """Logits of a one-hidden-layer network (ReLU): ``prefix.w1 .b1 .w2 .b2``."""
    h = np.maximum(x @ w[f"{prefix}.w1"] + w[f"{prefix}.b1"], 0.0)
    out: np.ndarray = h @ w[f"{prefix}.w2"] + w[f"{prefix}.b2"]
    return out


@dataclass(frozen=True)
class Prediction:
    """The tag of every word, and the value read from each tagged span."""

    words: list[str]
    tags: list[str]
    values: dict[str, str]

    @property
    def heads(self) -> dict[str, str]:
        """The plan's choices, one per head of ``HEADS``."""
        count = {t: self.tags.count(t) for t in TAGS}
        # the clip's own words are the content only when a phrase says so ("the answer
        # to this question"): one word tagged R is the clip named for something else
        reference = count["R"] >= REFERENCE_MIN_WORDS and count["R"] >= count["C"]
        user, agent = count["U"], count["A"]
        return {
            "speaker": "target" if count["N"] else "same" if count["P"] else "any",
            "style": self.values.get("style", "any"),
            "environment": self.values.get("environment", "any"),
            "content": "reference" if reference else "present" if count["C"] else "none",
            "role": "none" if not (user or agent) else "user" if user >= agent else "agent",
            "time": self.values.get("time", "none"),
        }


def check_heads(
    w: dict[str, np.ndarray],
    heads: dict[str, tuple[int, int]],
    source: str,
    what: dict[str, str] | None = None,
) -> None:
    """Each two-layer head ``prefix -> (inputs, choices)`` of ``heads`` present in ``w``
    and shaped for them, else ``PlannerUnavailable`` naming the head (``what``, or its
    prefix) and saying how to rebuild the weights."""
    for prefix, (n_in, n_out) in heads.items():
        w1, w2 = w.get(f"{prefix}.w1"), w.get(f"{prefix}.w2")
        b1, b2 = w.get(f"{prefix}.b1"), w.get(f"{prefix}.b2")
        ok = (
            w1 is not None
            and w2 is not None
            and b1 is not None
            and b2 is not None
            and w1.ndim == 2
            and w1.shape[0] == n_in
            and w2.shape == (w1.shape[1], n_out)
            and b1.shape == (w1.shape[1],)
            and b2.shape == (n_out,)
        )
        if not ok:
            found = "missing" if w1 is None else f"{w1.shape[0]} inputs"
            name = (what or {}).get(prefix, f"{prefix!r} head")
            raise PlannerUnavailable(
                f"{source} do not fit this planner: its {name} reads {n_in} "
                f"features into {n_out} choices ({found} there); run "
                "`benchmarks train-planner` to rebuild them"
            )


def members_of(
    weights: Mapping[str, np.ndarray], source: str = "the given weights"
) -> list[dict[str, np.ndarray]]:
    """An ensemble's weights, member by member: the first member's arrays under their own
    names, member ``k``'s (k >= 1) under ``m<k>.`` + name. Numbered members must follow
    on from 1 with none missing, else ``PlannerUnavailable`` naming ``source``."""
    members: dict[int, dict[str, np.ndarray]] = {0: {}}
    for key, value in weights.items():
        m = re.fullmatch(r"m([1-9]\d*)\.(.+)", key)
        k, name = (int(m.group(1)), m.group(2)) if m else (0, key)
        members.setdefault(k, {})[name] = np.asarray(value, np.float32)
    rebuild = "run `benchmarks train-planner` to rebuild them"
    if not members[0]:
        raise PlannerUnavailable(
            f"{source} hold no first member (arrays whose names carry no m<k>. prefix); {rebuild}"
        )
    missing = sorted(set(range(1, max(members) + 1)) - set(members))
    if missing:
        raise PlannerUnavailable(
            f"{source} hold members up to m{max(members)} but not "
            f"{', '.join(f'm{k}' for k in missing)}; {rebuild}"
        )
    return [members[k] for k in range(len(members))]


def with_members(members: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """One set of arrays holding every member (the inverse of ``members_of``)."""
    out = dict(members[0])
    for k, w in enumerate(members[1:], 1):
        out |= {f"m{k}.{name}": v for name, v in w.items()}
    return out


class PlanModel:
    """Weights of the word tagger and the span classifiers (numpy arrays): one set, or
    an ensemble of sets trained apart (``members_of``), whose probabilities are
    averaged."""

    def __init__(self, weights: dict[str, np.ndarray], source: str = "the given weights") -> None:
        self.members = members_of(weights, source)
        #: the first member's weights
        self.w = self.members[0]
        self._check(source)

    def _check(self, source: str) -> None:
        """Every head's arrays present and shaped for this code's features and labels,
        in every member, else ``PlannerUnavailable`` saying how to rebuild them."""
        span_in = 2 * 384 + len(STYLE_LABELS) + len(ENV_LABELS)
        heads = {"tag": (4 * 384 + N_FLAGS, len(TAGS))} | {
            head: (span_in, len(span_labels(head))) for head in SPANS.values()
        }
        for k, w in enumerate(self.members):
            check_heads(w, heads, source if k == 0 else f"{source} (member {k})")

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> PlanModel:
        if not path.is_file():
            raise PlannerUnavailable(
                f"no planner weights at {path}; run `benchmarks train-planner` to build them"
            )
        with np.load(path, allow_pickle=False) as data:
            return cls({k: data[k] for k in data.files}, f"the planner weights at {path}")

    def predict(
        self, batch: Sequence[Encoded], names: Sequence[str] = (), *, has_reference: bool
    ) -> list[Prediction]:
        out = []
        for e in batch:
            tags = decode_tags(self.members, e, names, has_reference=has_reference)
            values = {}
            for tag, head in SPANS.items():
                mask = np.array([t == tag for t in tags])
                if mask.any():
                    x = span_features(e, mask)[None]
                    p = np.mean([softmax(mlp(x, w, head))[0] for w in self.members], axis=0)
                    values[head] = span_labels(head)[int(p.argmax())]
            out.append(Prediction(e.words, tags, values))
        return out


def decode_tags(
    w: Mapping[str, np.ndarray] | Sequence[Mapping[str, np.ndarray]],
    e: Encoded,
    names: Sequence[str] = (),
    *,
    has_reference: bool,
) -> list[str]:
    """Each word's tag under the tagger weights ``w`` (one set, or an ensemble's sets,
    whose probabilities are averaged), with the confidence rules."""
    x = word_features(e, names, has_reference=has_reference)
    sets = [w] if isinstance(w, Mapping) else list(w)
    p = np.mean([softmax(mlp(x, one, "tag")) for one in sets], axis=0)
    tags = []
    c = TAGS.index("C")
    for word, row in zip(e.words, p, strict=True):
        tag = TAGS[int(row.argmax())]
        if tag == "O" and row[c] >= CONTENT_MIN_PROB and _contentful(word):
            tag = "C"
        # a constraint read from one unsure word is wording, not a constraint
        # (nor content: "with rain pouring" is not the topic)
        if tag in GATED_TAGS and row.max() < MIN_TAG_CONFIDENCE:
            tag = "O"
        tags.append(tag)
    return tags


def _contentful(word: str) -> bool:
    """A word that can be part of a topic: not punctuation, not a function word."""
    return re.search(r"\w", word) is not None and word.lower() not in _EDGE


def span_labels(head: str) -> tuple[str, ...]:
    """What a span classifier chooses from: every value but "nothing asked"."""
    return tuple(v for v in HEADS[head] if v not in ("any", "none"))


def weights_hash(path: Path = WEIGHTS) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- from a prediction to a plan ---------------------------------------------------------


def _span(words: Sequence[str], tags: Sequence[str], tag: str) -> list[str]:
    """The tagged words, from the first to the last, with short untagged gaps filled."""
    idx = [i for i, t in enumerate(tags) if t == tag]
    if not idx:
        return []
    out = [words[idx[0]]]
    for a, b in itertools.pairwise(idx):
        gap = list(words[a + 1 : b])
        if 0 < len(gap) <= 2 and all(re.search(r"\w", g) for g in gap):
            out += gap
        out.append(words[b])
    while out and out[0].lower() in _EDGE:
        out.pop(0)
    while out and out[-1].lower() in _EDGE:
        out.pop()
    return out


def _named(text: str, names: Sequence[str]) -> str | None:
    low = text.lower()
    for n in sorted((n for n in names if n.strip()), key=len, reverse=True):
        if re.search(rf"(?<![\w-]){re.escape(n.lower())}(?:'s)?(?![\w-])", low):
            return n
    return None


def assemble(
    instruction: str,
    has_reference: bool,
    names: Sequence[str] = (),
    *,
    speaker: str = "any",
    name: str | None = None,
    style: str = "any",
    environment: str = "any",
    content: str = "none",
    content_words: str | None = None,
    role: str = "none",
    time: str = "none",
) -> RetrievalPlan:
    """A plan from the planner's choices, with the rules every planner follows: a
    known name in the words wins, "same" needs a clip, a style no turn carries is
    mapped to the nearest stored one, and each of these is said in a notice."""
    notices: list[PlanNotice] = []

    def needs_ref(what: str) -> None:
        notices.append(
            PlanNotice("no_reference", f"the instruction asks for {what} but no clip was given")
        )

    who = Constraint()
    known = _named(instruction, names)
    if known:
        who = Constraint("target", known)
    elif speaker == "target" and name:
        match = next((n for n in names if n.lower() == name.lower()), None)
        if match or not names:
            who = Constraint("target", match or name)
        else:
            notices.append(
                PlanNotice(
                    "unknown_speaker",
                    f"{name!r} is not a known speaker; searched everyone",
                    asked=name,
                )
            )
    elif speaker == "same":
        if has_reference:
            who = Constraint("same")
        else:
            needs_ref("the reference clip's voice")

    attrs: dict[str, Constraint] = {}
    for attr, label in (("style", style), ("environment", environment)):
        if label == "same":
            if has_reference:
                attrs[attr] = Constraint("same")
            else:
                needs_ref(f"the reference clip's {attr}")
        elif label in MAPPED_STYLES and attr == "style":
            stored = MAPPED_STYLES[label]
            notices.append(
                PlanNotice(
                    "unstored_label",
                    f"no stored turn carries the style {label!r}; asked for {stored!r}, "
                    "the nearest stored style",
                    asked=label,
                )
            )
            attrs[attr] = Constraint("target", stored)
        elif label != "any":
            attrs[attr] = Constraint("target", label)

    if content == "reference" and not has_reference:
        needs_ref("the reference clip's own words")
    order: Order | None = "first" if time == "first" else "latest" if time == "latest" else None
    window = TimeWindow() if time == "none" else TimeWindow(order=order, label=time)
    return RetrievalPlan(
        content=((content_words or "").lower() or None) if content == "present" else None,
        content_from_reference=content == "reference" and has_reference,
        speaker=who,
        style=attrs.get("style", Constraint()),
        environment=attrs.get("environment", Constraint()),
        role=None if role == "none" else role,
        instruction=instruction,
        time=window,
        notices=tuple(notices),
    )


def to_plan(
    p: Prediction, instruction: str, has_reference: bool, names: Sequence[str] = ()
) -> RetrievalPlan:
    name = " ".join(w.removesuffix("'s").removesuffix("’s") for w in _span(p.words, p.tags, "N"))
    heads = p.heads
    asked = [heads[h] != "any" for h in ("speaker", "style", "environment")] + [
        heads[h] != "none" for h in ("content", "role", "time")
    ]
    clip_words = CLIP_MEANS_ITS_WORDS and has_reference and not any(asked)
    set_aside = _CLIP_SET_ASIDE.search(instruction.lower().replace("\u2019", "'"))
    if clip_words and _named(instruction, names) is None and not set_aside:
        # a clip with nothing at all asked of it ("answer this", "and then what?"): its
        # own words are what the request is about (said in a notice)
        heads["content"] = "reference"
    else:
        clip_words = False
    plan = assemble(
        instruction,
        has_reference,
        names,
        speaker=heads["speaker"],
        name=name or None,
        style=heads["style"],
        environment=heads["environment"],
        content=heads["content"],
        content_words=" ".join(_span(p.words, p.tags, "C")),
        role=heads["role"],
        time=heads["time"],
    )
    if clip_words:
        notice = PlanNotice(
            "clip_as_content",
            "nothing was asked of the clip but what it says: searched for what answers or "
            "continues its words",
        )
        plan = dataclasses.replace(plan, notices=(*plan.notices, notice))
    return plan


def not_english_plan(instruction: str, names: Sequence[str] = ()) -> RetrievalPlan:
    """What a plan can honestly be for an instruction a planner cannot read (the
    lexicon reads English only): every word is content (a named speaker is still
    recognised), with a notice."""
    words = [w for w in words_of(instruction) if re.search(r"\w", w)]
    known = _named(instruction, names)
    return RetrievalPlan(
        content=" ".join(words) or None,
        speaker=Constraint("target", known) if known else Constraint(),
        instruction=instruction,
        notices=(
            PlanNotice(
                "english_only",
                "the lexicon planner reads English only; the whole instruction was used "
                "as the content to match, and no voice, style, background or time was read "
                "from it (the trained and the LLM planners read other languages)",
            ),
        ),
    )


class TrainedPlanner:
    """Instruction (+ whether a reference clip is given) -> RetrievalPlan."""

    def __init__(
        self,
        model: PlanModel | None = None,
        encoder: WordEncoder | None = None,
        other_languages: Any | None = None,
    ) -> None:
        self._model, self._encoder = model, encoder
        #: the planner for instructions not in English (``planner_multi``), loaded on
        #: the first one
        self._other = other_languages

    @property
    def other_languages(self) -> Any:
        with _identifier_lock:
            if self._other is None:
                from voxmem.retrievers.planner_multi import MultilingualPlanner

                self._other = MultilingualPlanner()
            return self._other

    @property
    def model(self) -> PlanModel:
        if self._model is None:
            with _load_lock:  # routes run in threads: load once
                if self._model is None:
                    self._model = PlanModel.load()
        return self._model

    @property
    def encoder(self) -> WordEncoder:
        if self._encoder is None:
            with _load_lock:
                if self._encoder is None:
                    self._encoder = WordEncoder()
        return self._encoder

    def plan(
        self, instruction: str, has_reference: bool = False, speaker_names: Sequence[str] = ()
    ) -> RetrievalPlan:
        return self.plan_many([instruction], has_reference, speaker_names)[0]

    def plan_many(
        self,
        instructions: Sequence[str],
        has_reference: bool = False,
        speaker_names: Sequence[str] = (),
    ) -> list[RetrievalPlan]:
        text = [" ".join(t.split()) for t in instructions]
        readable = [i for i, t in enumerate(text) if is_english(t, speaker_names)]
        encoded = self.encoder.encode([text[i] for i in readable])
        preds = self.model.predict(encoded, speaker_names, has_reference=has_reference)
        # with no clip, the tagger (told so) reads no clip into the words; what the
        # words would ask of a clip is read too, so a request for one is still said
        with_clip = (
            preds
            if has_reference
            else self.model.predict(encoded, speaker_names, has_reference=True)
        )
        english = set(readable)
        out = {
            i: self._other_language_plan(t, has_reference, speaker_names)
            for i, t in enumerate(instructions)
            if i not in english
        }
        for i, p, c in zip(readable, preds, with_clip, strict=True):
            plan = to_plan(p, instructions[i], has_reference, speaker_names)
            if not has_reference:
                missing = [
                    n
                    for n in to_plan(c, instructions[i], False, speaker_names).notices
                    if n.kind == "no_reference" and n not in plan.notices
                ]
                plan = dataclasses.replace(plan, notices=(*plan.notices, *missing))
            out[i] = plan
        return [out[i] for i in range(len(instructions))]

    def _other_language_plan(
        self, instruction: str, has_reference: bool, speaker_names: Sequence[str]
    ) -> RetrievalPlan:
        """The planner for other languages' plan; when it cannot run (no weights, no
        multilingual-e5), the content-only plan with a notice saying why, so English
        instructions planned beside it are not lost with it."""
        try:
            plan: RetrievalPlan = self.other_languages.plan(
                instruction, has_reference, speaker_names
            )
            return plan
        except (PlannerUnavailable, ModelUnavailable) as exc:
            plan = not_english_plan(instruction, speaker_names)
            why = PlanNotice("fallback", f"{exc}; the words were used as content")
            return dataclasses.replace(plan, notices=(why, *plan.notices))


_DEFAULT: TrainedPlanner | None = None


def plan(text: str, has_reference: bool, speaker_names: Sequence[str] = ()) -> RetrievalPlan:
    """The trained planner's plan for one instruction (weights loaded once)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = TrainedPlanner()
    return _DEFAULT.plan(text, has_reference, speaker_names)


__all__ = [
    "ENV_LABELS",
    "HEADS",
    "MAPPED_STYLES",
    "STORED_STYLES",
    "STYLE_LABELS",
    "PlanModel",
    "PlannerUnavailable",
    "TrainedPlanner",
    "WordEncoder",
    "is_english",
    "plan",
    "words_of",
]
