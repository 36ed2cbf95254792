from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from tests.store_helpers import marker, open_fake, scan, tone, vectors
from voxmem.errors import InvalidAudio
from voxmem.memory import (
    SPACES,
    AudioMemory,
    SchemaTooNew,
    TenantRequired,
    UnknownSegment,
    UnknownSpeaker,
    UnknownTenant,
    WrongDimension,
)
from voxmem.memory.maintenance import IN_FLIGHT_S
from voxmem.settings import Settings


@pytest.fixture
def memory(tmp_path: Path) -> AudioMemory:
    return open_fake(tmp_path / "mem")


def _add(
    memory: AudioMemory,
    tenant: str,
    session: str,
    text: str,
    seed: int,
    freq: float = 300.0,
    **kw: object,
) -> str:
    seg = memory.add_segment(
        tone(freq),
        tenant=tenant,
        session=session,
        transcript=text,
        vectors=vectors(memory, seed),
        **kw,
    )  # type: ignore[arg-type]
    return seg.id


# --- basics ---------------------------------------------------------------------------


def test_add_get_list_search_round_trip(memory: AudioMemory) -> None:
    a = _add(memory, "acme", "s1", "the budget is due friday", 1, role="user")
    b = _add(memory, "acme", "s2", "rain all weekend", 2, role="agent")
    seg = memory.get("acme", a)
    assert (seg.tenant, seg.session, seg.role, seg.transcript) == (
        "acme",
        "s1",
        "user",
        "the budget is due friday",
    )
    assert set(seg.vectors) == set(SPACES)
    np.testing.assert_allclose(memory.audio("acme", a).samples, tone(300).samples, atol=1e-4)
    assert [s.id for s in memory.list("acme")] == [a, b]
    assert [s.id for s in memory.list("acme", session="s2")] == [b]
    assert [s.id for s in memory.list("acme", role="user")] == [a]
    for space in SPACES:
        hits = memory.search("acme", space, memory.get("acme", b).vectors[space], k=2)
        assert hits[0].segment.id == b and hits[0].score == pytest.approx(1.0, abs=1e-4)
    hits = memory.search("acme", "text", vectors(memory, 2)["text"], k=5, where={"session": "s1"})
    assert [h.segment.id for h in hits] == [a]
    stats = memory.stats("acme")
    assert stats["segments"] == 2 and stats["sessions"] == 2 and stats["audio_bytes"] > 0
    assert memory.verify(repair=False).ok


def test_segments_survive_reopening(tmp_path: Path) -> None:
    m = open_fake(tmp_path / "m")
    a = _add(m, "acme", "s1", "hello", 1)
    m.close()
    again = open_fake(tmp_path / "m")
    assert again.get("acme", a).transcript == "hello"
    assert again.search("acme", "speaker", vectors(again, 1)["speaker"], k=1)[0].segment.id == a


async def test_async_twins(memory: AudioMemory) -> None:
    seg = await memory.aadd_segment(
        tone(300), tenant="t1", session="s", transcript="x", vectors=vectors(memory, 5)
    )
    hits = await memory.asearch("t1", "style", seg.vectors["style"], 1)
    assert hits[0].segment.id == seg.id
    assert (await memory.aget("t1", seg.id)).id == seg.id
    assert [s.id for s in await memory.alist("t1")] == [seg.id]
    assert await memory.aforget("t1", segment=seg.id) == 1
    results = await asyncio.gather(
        *[
            memory.aadd_segment(
                tone(200 + i),
                tenant="t1",
                session="p",
                transcript=str(i),
                vectors=vectors(memory, 10 + i),
            )
            for i in range(4)
        ]
    )
    assert len({r.id for r in results}) == 4


# --- tenants --------------------------------------------------------------------------


def test_tenants_are_isolated_everywhere(memory: AudioMemory) -> None:
    mark_a, mark_b = marker(), marker()
    a_ids = [
        _add(memory, "alpha", "shared-session", f"{mark_a} {i}", i, 200 + 50 * i) for i in range(3)
    ]
    b_ids = [
        _add(memory, "beta", "shared-session", f"{mark_b} {i}", 100 + i, 200 + 50 * i)
        for i in range(3)
    ]
    b_vectors = [memory.get("beta", i).vectors for i in b_ids]

    assert {s.id for s in memory.list("alpha", limit=1000)} == set(a_ids)
    assert all(mark_b not in s.transcript for s in memory.list("alpha", limit=1000))
    for space in SPACES:
        for vec in b_vectors:
            hits = memory.search("alpha", space, vec[space], k=50)
            assert {h.segment.id for h in hits} <= set(a_ids)
            hits = memory.search(
                "alpha", space, vec[space], k=50, where={"session": "shared-session"}
            )
            assert {h.segment.id for h in hits} <= set(a_ids)
    for b in b_ids:
        with pytest.raises(UnknownSegment):
            memory.get("alpha", b)
        with pytest.raises(UnknownSegment):
            memory.forget("alpha", segment=b)
    b_speakers = {s.id for s in memory.speakers("beta")}
    assert not b_speakers & {s.id for s in memory.speakers("alpha")}
    for spk in b_speakers:
        with pytest.raises(UnknownSpeaker):
            memory.list("alpha", speaker=spk)
        with pytest.raises(UnknownSpeaker):
            memory.forget("alpha", speaker=spk)
    assert memory.stats("alpha")["segments"] == 3
    # forgetting all of alpha leaves beta whole
    assert memory.forget("alpha", everything=True) == 3
    assert {s.id for s in memory.list("beta")} == set(b_ids)
    assert memory.search("beta", "text", b_vectors[0]["text"], 1)[0].segment.id == b_ids[0]
    with pytest.raises(UnknownTenant):
        memory.list("alpha")


@pytest.mark.parametrize("bad", [None, "", "../etc", "a b", "x" * 65])
def test_every_call_needs_a_valid_tenant(memory: AudioMemory, bad: object) -> None:
    with pytest.raises(TenantRequired):
        memory.add_segment(
            tone(300),
            tenant=bad,
            session="s",
            transcript="x",  # type: ignore[arg-type]
            vectors=vectors(memory, 1),
        )
    with pytest.raises(TenantRequired):
        memory.list(bad)  # type: ignore[arg-type]


def test_unknown_tenant_is_a_clear_error(memory: AudioMemory) -> None:
    for call in (
        lambda: memory.list("ghost"),
        lambda: memory.speakers("ghost"),
        lambda: memory.search("ghost", "text", np.zeros(64, np.float32)),
        lambda: memory.forget("ghost", everything=True),
        lambda: memory.stats("ghost"),
    ):
        with pytest.raises(UnknownTenant, match="nothing stored"):
            call()


# --- forgetting -------------------------------------------------------------------------


@pytest.mark.parametrize("selector", ["segment", "session", "speaker", "everything"])
def test_forget_erases_the_bytes(tmp_path: Path, selector: str) -> None:
    memory = open_fake(tmp_path / "mem")
    keep_mark, gone_mark = marker(), marker()
    tenant = "other" if selector == "everything" else "acme"
    keep = _add(memory, tenant, "keep", keep_mark, 1, freq=300)
    gone_vectors = vectors(memory, 77)
    gone_vectors["speaker"] = -memory.get(tenant, keep).vectors["speaker"]
    gone = memory.add_segment(
        tone(3000), tenant="acme", session="gone", transcript=gone_mark, vectors=gone_vectors
    )
    gone_audio = (tmp_path / "mem" / "audio" / "acme" / f"{gone.id}.flac").read_bytes()
    needles = [
        gone_mark.encode(),
        gone_vectors["text"].tobytes()[:32],
        gone_vectors["environment"].tobytes()[:32],
        gone_audio[-64:],
    ]
    assert scan(tmp_path / "mem", needles)  # the test can see them while they exist

    kw = {
        "segment": {"segment": gone.id},
        "session": {"session": "gone"},
        "speaker": {"speaker": gone.speaker_id},
        "everything": {"everything": True},
    }[selector]
    assert memory.forget("acme", **kw) == 1  # type: ignore[arg-type]

    assert scan(tmp_path / "mem", needles) == []
    assert not (tmp_path / "mem" / "audio" / "acme" / f"{gone.id}.flac").exists()
    assert memory.get(tenant, keep).transcript == keep_mark
    assert memory.search(tenant, "text", vectors(memory, 1)["text"], 1)[0].segment.id == keep
    assert memory.verify(repair=False).ok


def test_a_forget_erases_vectors_already_written_into_the_graph_files_without_a_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past Chroma's sync threshold (1000 writes) the vectors are in the HNSW graph files,
    where a delete only marks them: the forget overwrites them in place, and no
    collection is rebuilt, so the other turns are found throughout."""
    from voxmem.memory.records import NewSegment

    memory = open_fake(tmp_path / "mem")
    rng = np.random.default_rng(3)
    clip = tone(300, 0.25)

    def turn(i: int) -> NewSegment:
        vecs = {}
        for space, dim in memory.perception.dims.items():
            v = rng.standard_normal(dim).astype(np.float32)
            vecs[space] = v / np.linalg.norm(v)
        return NewSegment(clip, f"turn {i}", vecs)

    for first in range(0, 1200, 100):
        memory.add_segments(
            [turn(first + i) for i in range(100)], tenant="acme", session=f"s{first // 100}"
        )
    from voxmem.memory.index import stored_forms

    gone = memory.list("acme", session="s3", vectors=True)
    forms = [stored_forms(s.vectors[space].tobytes(), 32) for s in gone for space in SPACES]
    needles = [n for f in forms for n in f]
    graphs = b"".join(p.read_bytes() for p in (tmp_path / "mem").rglob("data_level0.bin"))
    # every forgotten vector is in the graph files now, in one of the forms HNSW keeps
    assert all(any(n in graphs for n in f) for f in forms)

    rebuilt: list[object] = []
    monkeypatch.setattr(memory.forgetting, "rebuild_clean", rebuilt.append)
    assert memory.forget("acme", session="s3") == 100
    assert scan(tmp_path / "mem", needles) == []
    assert rebuilt == []
    assert memory.index.count("acme", "text") == 1100
    (keep,) = memory.list("acme", session="s7", limit=1, vectors=True)
    assert memory.search("acme", "text", keep.vectors["text"], 1)[0].segment.id == keep.id
    assert memory.verify(repair=False).ok


@pytest.mark.parametrize("offset", [0, 1, 2, 3, 4097, 65534, -32])
def test_needles_are_found_at_any_byte_in_a_large_file(
    offset: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from voxmem.memory import index
    from voxmem.memory.index import contains_any

    monkeypatch.setattr(index, "_CHUNK_WORDS", 1 << 14)  # 65534 crosses a chunk boundary

    rng = np.random.default_rng(offset % 97)
    data = bytearray(rng.bytes(3_000_000))
    needles = [rng.bytes(32) for _ in range(300)]
    assert not contains_any(bytes(data), needles)
    at = offset % len(data)
    data[at : at + 32] = needles[150]
    assert contains_any(bytes(data), needles)
    # a file of 4-byte fields is searched at multiples of four only
    assert contains_any(bytes(data), needles, aligned=True) == (at % 4 == 0)
    # a needle's first four bytes alone are not a match
    data[at + 4 : at + 32] = bytes(28)
    assert not contains_any(bytes(data), needles)
    # needles sharing their first word, or beginning with a zero one
    twin = needles[7][:4] + rng.bytes(28)
    zero = bytes(4) + rng.bytes(28)
    assert not contains_any(bytes(data), [*needles, twin, zero])
    data[at : at + 32] = twin
    assert contains_any(bytes(data), [*needles, twin])
    data[at : at + 32] = zero
    assert contains_any(bytes(data), [*needles, zero])


def test_a_forget_asks_which_vectors_live_turns_share_only_when_the_files_hold_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Which forgotten vectors a live turn shares is asked at most once per forget, and
    only when the index files still hold one of them: each ask reads every stored
    vector (3 s of a forget at 100k turns)."""
    memory = open_fake(tmp_path / "mem")
    for i in range(6):
        _add(memory, "acme", "gone" if i < 4 else "keep", marker(), i + 10, freq=200 + 50 * i)
    asks: list[int] = []
    real = memory.catalog.shared_windows

    def counted(windows: Sequence[tuple[int, bytes]]) -> set[tuple[int, bytes]]:
        asks.append(len(windows))
        return real(windows)

    monkeypatch.setattr(memory.catalog, "shared_windows", counted)
    rebuilt: list[object] = []
    monkeypatch.setattr(memory.forgetting, "rebuild_clean", rebuilt.append)
    assert memory.forget("acme", session="gone") == 4
    assert asks == [] and rebuilt == []  # nothing left behind: nothing to ask
    # a turn stored twice: the files still hold its vectors after one copy is forgotten
    _add(memory, "acme", "twin1", marker(), 99)
    _add(memory, "acme", "twin2", marker(), 99)
    assert memory.forget("acme", session="twin1") == 1
    assert asks == [len(SPACES)] and rebuilt == []  # shared, so not a forgotten vector
    assert memory.verify(repair=False).ok


def test_a_raw_style_vector_of_the_wrong_size_is_refused_in_any_batch(
    memory: AudioMemory, tmp_path: Path
) -> None:
    """``style_raw`` has one size per memory, like every space: a turn whose raw style
    vector has another size is refused with WrongDimension, whether the size is stored
    already (also by a process that had read the sizes before) or set by an earlier turn
    of the same batch, and a refused batch writes no audio. Accepted, it would make its
    speaker's running style sum the wrong size, and every later turn of that voice fail."""
    from voxmem.memory.records import NewSegment

    def turn(seed: int, raw: int | None) -> NewSegment:
        vecs = vectors(memory, seed)
        if raw is not None:
            vecs["style_raw"] = np.full(raw, 1.0, np.float32)
        return NewSegment(tone(300 + seed), marker(), vecs)

    def audio_files() -> int:
        return sum(1 for f in (tmp_path / "mem").rglob("*.flac"))

    memory.add_segments([turn(1, None)], tenant="t", session="s")  # sizes read, no style_raw
    other = open_fake(tmp_path / "mem")
    other.add_segments([turn(2, 88)], tenant="t", session="s")  # style_raw stored: 88
    before = audio_files()
    for batch in ([turn(3, None), turn(4, 10)], [turn(5, 10)]):
        with pytest.raises(WrongDimension, match="style_raw vectors here have 88"):
            memory.add_segments(batch, tenant="t", session="s")
    fresh = open_fake(tmp_path / "fresh")
    with pytest.raises(WrongDimension, match="style_raw vectors here have 88"):
        fresh.add_segments([turn(6, 88), turn(7, 10)], tenant="t", session="s")
    assert audio_files() == before and not list((tmp_path / "fresh").rglob("*.flac"))
    assert len(memory.list("t")) == 2
    memory.add_segments([turn(8, 88)], tenant="t", session="s")  # a right one still goes in
    assert len(memory.list("t")) == 3
    other.close()
    fresh.close()


def test_a_turn_refused_inside_the_transaction_leaves_no_audio(
    memory: AudioMemory, tmp_path: Path
) -> None:
    """A store refused once its audio is written (an unknown speaker to pin the turn to,
    or a vector size another process stored meanwhile) erases that audio: nothing of a
    turn that was not stored stays on disk."""
    memory.add_segment(
        tone(300), tenant="t", session="s", transcript=marker(), vectors=vectors(memory, 1)
    )
    before = sorted((tmp_path / "mem").rglob("*.flac"))
    with pytest.raises(UnknownSpeaker):
        memory.add_segment(
            tone(400),
            tenant="t",
            session="s",
            transcript=marker(),
            vectors=vectors(memory, 2),
            speaker_id="nobody",
        )
    assert sorted((tmp_path / "mem").rglob("*.flac")) == before
    assert len(memory.list("t")) == 1 and memory.verify(repair=False).ok


def test_forgetting_sparse_vectors_checks_their_nonzero_bytes(memory: AudioMemory) -> None:
    """Vectors that begin with zeros (sparse or one-hot vectors a library user stores,
    or a silent clip's) are looked for in the index files from their first nonzero
    value: their leading zero bytes are in every file, so looking for those could never
    find the vector gone, and a forget of everything failed. A vector of zeros only has
    nothing to look for. The check still finds a sparse vector left behind."""
    from voxmem.memory.forget import distinctive
    from voxmem.memory.index import Needles, needle_offset, stored_forms

    def sparse(seed: int) -> dict[str, np.ndarray]:
        out = vectors(memory, seed)
        hot = np.zeros_like(out["text"])
        hot[10 + seed] = -1.0  # one-hot, past the first 32 bytes
        out["text"] = hot
        return out

    for i in range(4):
        memory.add_segment(
            tone(300 + 40 * i),
            tenant="t",
            session=f"s{i % 2}",
            transcript=marker(),
            vectors=sparse(i),
        )
    # one of two one-hot vectors hot elsewhere: the other holds the same 32 bytes (its
    # one value among zeros) at another place, so the tenant is rebuilt, not searched
    assert memory.forget("t", session="s0") == 2
    assert memory.verify(repair=False).ok
    memory.add_segment(
        tone(700),
        tenant="t",
        session="s1",
        transcript=marker(),
        vectors={**vectors(memory, 9), "style": np.zeros(memory.perception.dims["style"])},
    )
    assert memory.forget("t", everything=True) == 3
    assert memory.tenants() == []
    assert memory.verify(repair=False).ok
    text = sparse(2)["text"].tobytes()
    assert needle_offset(text, 32) == 4 * 12
    forms = stored_forms(text, 32)
    assert forms and forms[0] == text[48:80]
    assert Needles(forms).found_in(bytes(64) + text + bytes(64))
    assert not Needles(forms).found_in(bytes(4096))
    assert stored_forms(bytes(64), 32) == () and needle_offset(bytes(64), 32) is None
    dense = vectors(memory, 1)["text"].tobytes()
    assert needle_offset(dense, 32) == 0  # dense: its start
    assert distinctive(stored_forms(dense, 32)[0]) and not distinctive(forms[0])


def test_forget_recomputes_or_drops_speakers(memory: AudioMemory) -> None:
    a = memory.add_segment(
        tone(300), tenant="t", session="s1", transcript="a", vectors=vectors(memory, 1)
    )
    memory.add_segment(
        tone(300),
        tenant="t",
        session="s2",
        transcript="b",
        vectors={**vectors(memory, 2), "speaker": a.vectors["speaker"]},
    )
    (spk,) = memory.speakers("t")
    assert spk.n_segments == 2
    memory.forget("t", session="s1")
    (spk,) = memory.speakers("t")
    assert spk.n_segments == 1
    memory.forget("t", session="s2")
    assert memory.speakers("t") == []  # an unnamed voice with no turns left is gone


def test_a_forget_reads_its_speakers_sums_not_every_voiceprint(
    memory: AudioMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The centroid left after a forget is the mean of the speaker's live voiceprints,
    from the running sum: no voiceprint of the speaker's other turns is read."""
    from voxmem.memory.catalog import SqlWrite
    from voxmem.memory.speakers import unit

    first = memory.add_segment(
        tone(300), tenant="t", session="s1", transcript="a", vectors=vectors(memory, 1)
    )
    voice = first.vectors["speaker"]
    kept = [unit(voice + 0.2 * vectors(memory, 10 + i)["speaker"]) for i in range(3)]
    for i, v in enumerate(kept):
        memory.add_segment(
            tone(300),
            tenant="t",
            session="s2",
            transcript=f"b{i}",
            vectors={**vectors(memory, 20 + i), "speaker": v},
        )
    (spk,) = memory.speakers("t")
    assert spk.n_segments == 4

    def unread(*a: object) -> object:
        raise AssertionError("a forget read every voiceprint of a speaker")

    monkeypatch.setattr(SqlWrite, "voiceprints_of", unread)
    monkeypatch.setattr(SqlWrite, "voiceprints", unread)
    memory.forget("t", session="s1")
    (spk,) = memory.speakers("t")
    assert spk.n_segments == 3
    assert np.allclose(spk.centroid, unit(np.mean(kept, axis=0)), atol=1e-6)


def test_forget_needs_exactly_one_selector(memory: AudioMemory) -> None:
    _add(memory, "t", "s", "x", 1)
    with pytest.raises(ValueError, match="exactly one"):
        memory.forget("t")
    with pytest.raises(ValueError, match="exactly one"):
        memory.forget("t", session="s", everything=True)


# --- speakers ---------------------------------------------------------------------------


def test_speakers_match_name_enroll_merge_split(memory: AudioMemory) -> None:
    alice = memory.enroll_speaker("t", "alice", tone(300))
    assert alice.name == "alice"
    s1 = memory.add_segment(tone(300, 2.0), tenant="t", session="a", transcript="hi")
    assert s1.speaker_id == alice.id  # matched to the enrolled voice
    s2 = memory.add_segment(tone(3500, 2.0), tenant="t", session="a", transcript="yo")
    assert s2.speaker_id != alice.id  # a new voice becomes a new speaker
    bob = memory.name_speaker("t", s2.speaker_id or "", "bob")
    assert memory.speakers("t")[1].name == "bob" and bob.id == s2.speaker_id
    with pytest.raises(Exception, match="already has a speaker named"):
        memory.name_speaker("t", alice.id, "bob")
    assert [s.id for s in memory.list("t", speaker="bob")] == [s2.id]

    merged = memory.merge_speakers("t", "alice", "bob")
    assert merged.id == alice.id and merged.n_segments == 2
    assert {s.speaker_id for s in memory.list("t")} == {alice.id}
    with pytest.raises(UnknownSpeaker):
        memory.list("t", speaker="bob")
    hits = memory.search(
        "t", "text", memory.get("t", s2.id).vectors["text"], 1, where={"speaker": alice.id}
    )
    assert hits[0].segment.id == s2.id  # the index metadata followed the merge

    carol = memory.split_speaker("t", "alice", [s2.id], name="carol")
    assert memory.get("t", s2.id).speaker_id == carol.id
    assert carol.n_segments == 1
    np.testing.assert_allclose(
        carol.centroid,
        memory.get("t", s2.id).vectors["speaker"]
        / np.linalg.norm(memory.get("t", s2.id).vectors["speaker"]),
        atol=1e-5,
    )
    with pytest.raises(UnknownSegment):
        memory.split_speaker("t", "alice", ["seg_nope"])


def test_a_batch_matches_its_turns_to_speakers_as_one_turn_at_a_time_does(
    memory: AudioMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch reads the tenant's speakers once and keeps them up to date itself: a new
    voice in its first turn is the speaker of its later turns, and every assignment and
    centroid is what storing the turns one by one gives."""
    from voxmem.memory.records import NewSegment

    rng = np.random.default_rng(11)
    voices = [rng.standard_normal(memory.perception.dims["speaker"]) for _ in range(3)]
    order = [0, 1, 0, 2, 1, 0, 2, 2]

    def turn(i: int, voice: int) -> NewSegment:
        vecs = vectors(memory, 100 + i)
        noisy = voices[voice] + 0.2 * rng.standard_normal(len(voices[voice]))
        vecs["speaker"] = (noisy / np.linalg.norm(noisy)).astype(np.float32)
        return NewSegment(tone(300 + 50 * voice, 2.0), f"turn {i}", vecs)

    turns = [turn(i, v) for i, v in enumerate(order)]
    known = turn(99, 1)  # a voice the catalog holds before the batch
    before = {t: memory.add_segments([known], tenant=t, session="before")[0] for t in ("b", "o")}
    with memory.catalog.write() as tx:
        write_type = type(tx)
    reads: list[str] = []
    real = write_type.speakers

    def counted(self: object, tenant: str) -> list[object]:
        reads.append(tenant)
        return real(self, tenant)  # type: ignore[arg-type]

    monkeypatch.setattr(write_type, "speakers", counted)
    batch = memory.add_segments(turns, tenant="b", session="s")
    assert reads == ["b"]  # once for the batch of eight, not once per turn
    single = [memory.add_segments([t], tenant="o", session="s")[0] for t in turns]

    def partition(segs: Sequence[object]) -> list[int]:
        first: dict[str | None, int] = {}
        return [first.setdefault(s.speaker_id, len(first)) for s in segs]  # type: ignore[attr-defined]

    assert partition(batch) == partition(single) == [0, 1, 0, 2, 1, 0, 2, 2]
    assert batch[1].speaker_id == before["b"].speaker_id  # matched to the stored voice
    assert single[1].speaker_id == before["o"].speaker_id
    by_id = {t: {s.id: s for s in memory.speakers(t)} for t in ("b", "o")}
    assert len(by_id["b"]) == len(by_id["o"]) == 3
    for b, o in zip(batch, single, strict=True):
        got, want = by_id["b"][b.speaker_id or ""], by_id["o"][o.speaker_id or ""]
        assert got.n_segments == want.n_segments
        np.testing.assert_allclose(got.centroid, want.centroid, atol=1e-6)


def test_stored_word_times_stay_within_the_turn(memory: AudioMemory) -> None:
    """Whichever path cut the turn (here a caller's words, as the live listener hands
    over words shifted by the speech it trimmed), its words are stored within its span."""
    from voxmem.memory.records import Word

    words = [Word("early", -0.3, 0.2), Word("middle", 0.5, 0.9), Word("late", 1.3, 1.9)]
    seg = memory.add_segment(
        tone(300, 1.5), tenant="t", session="s", transcript="early middle late", words=words
    )
    stored = memory.get("t", seg.id).words
    assert [(w.text, w.start, w.end) for w in stored] == [
        ("early", 0.0, 0.2),
        ("middle", 0.5, 0.9),
        ("late", 1.3, 1.5),
    ]


# --- bad input --------------------------------------------------------------------------


def test_bad_input_is_refused_and_harms_nothing(tmp_path: Path, memory: AudioMemory) -> None:
    keep = _add(memory, "t", "s", "precious", 1)
    before = memory.stats("t")
    bad = vectors(memory, 2)
    bad["text"] = np.ones(10, np.float32)
    with pytest.raises(WrongDimension, match="64 dimensions"):
        memory.add_segment(tone(300), tenant="t", session="s", transcript="x", vectors=bad)
    with pytest.raises(WrongDimension, match="unknown space"):
        memory.add_segment(
            tone(300), tenant="t", session="s", transcript="x", vectors={"colour": np.ones(3)}
        )
    with pytest.raises(WrongDimension):
        memory.search("t", "text", np.ones(3, np.float32))
    with pytest.raises(InvalidAudio):
        memory.add_segment(b"not audio at all" * 20, tenant="t", session="s", transcript="x")
    with pytest.raises(InvalidAudio):
        memory.ingest(np.zeros(16_000, np.float32), sample_rate=16_000, tenant="t", session="s")
    with pytest.raises(ValueError, match="role must be"):
        memory.add_segment(
            tone(300),
            tenant="t",
            session="s",
            role="boss",
            transcript="x",
            vectors=vectors(memory, 3),
        )
    with pytest.raises(ValueError, match="session"):
        memory.add_segment(
            tone(300), tenant="t", session="", transcript="x", vectors=vectors(memory, 3)
        )
    assert memory.stats("t") == before
    assert memory.get("t", keep).transcript == "precious"
    assert memory.verify(repair=False).ok


def test_a_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    m = open_fake(tmp_path / "m")
    _add(m, "t", "s", "x", 1)
    m.close()
    db = tmp_path / "m" / "catalog.sqlite3"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = db.read_bytes()
    with pytest.raises(SchemaTooNew, match="newer voxmem"):
        open_fake(tmp_path / "m")
    assert db.read_bytes() == before


# --- rebuild and verify -----------------------------------------------------------------


def test_rebuild_and_verify_repair_the_index(memory: AudioMemory) -> None:
    ids = [_add(memory, "t", "s", f"x{i}", i) for i in range(5)]
    memory.index.delete("t", "text", ids[:2])
    memory.index.upsert("t", "style", ["seg_stray"], [np.ones(24, np.float32)], [{"session": "s"}])
    orphan = memory.root / "audio" / "t" / "seg_orphan.flac"
    orphan.write_bytes(b"x")
    old = time.time() - IN_FLIGHT_S - 60
    os.utime(orphan, (old, old))
    # written just now: maybe an ingest whose row is about to commit, so it is left alone
    (memory.root / "audio" / "t" / "seg_in_flight.flac").write_bytes(b"y")
    report = memory.verify(repair=False)
    assert report.missing_in_index["text"] == 2 and report.extra_in_index["style"] == 1
    assert report.orphan_audio == 1 and not report.ok
    assert memory.verify(repair=True).repaired
    assert memory.verify(repair=False).ok
    assert not orphan.exists() and (memory.root / "audio" / "t" / "seg_in_flight.flac").exists()
    assert memory.rebuild() == 5
    assert (
        memory.search("t", "text", memory.get("t", ids[0]).vectors["text"], 1)[0].segment.id
        == ids[0]
    )


def test_forget_several_segments_at_once_and_list_newest_first(tmp_path: Path) -> None:
    from voxmem.memory.encoders.fake import fake_perception as _fake

    memory = AudioMemory(Settings(data_dir=tmp_path), perception=_fake("words"))
    clip = np.sin(np.arange(16_000) / 8).astype(np.float32) * 0.3
    ids = [
        memory.add_segment(
            clip, tenant="t", session="s", transcript=f"turn {i}", sample_rate=16_000
        ).id
        for i in range(4)
    ]
    assert [s.transcript for s in memory.list("t", newest_first=True)] == [
        "turn 3",
        "turn 2",
        "turn 1",
        "turn 0",
    ]
    assert memory.forget("t", segments=[ids[0], ids[2], "seg_unknown"]) == 2
    assert [s.id for s in memory.list("t")] == [ids[1], ids[3]]
    assert memory.forget("t", segments=[]) == 0


def test_verify_beside_an_ingest_takes_nothing_of_it(tmp_path: Path) -> None:
    """A turn's FLAC is written before its row commits and its vectors are indexed after:
    a verify (with repair) run by another process in either window keeps all of it."""
    writer = open_fake(tmp_path / "m")
    checker = open_fake(tmp_path / "m")
    _add(writer, "t", "s", "first", 1)
    reports = []
    write_file = writer.files.write
    index_segments = writer.index.upsert

    def write_then_verify(*args: object, **kw: object) -> None:
        write_file(*args, **kw)  # type: ignore[arg-type]
        reports.append(checker.verify(repair=True))  # the row is not committed yet

    def verify_then_index(*args: object, **kw: object) -> None:
        if not reports[1:]:
            reports.append(checker.verify(repair=True))  # committed, not yet indexed
        index_segments(*args, **kw)  # type: ignore[arg-type]

    writer.files.write = write_then_verify  # type: ignore[method-assign]
    writer.index.upsert = verify_then_index  # type: ignore[method-assign]
    seg = _add(writer, "t", "s", "second", 2)
    assert len(reports) == 2
    writer.files.write, writer.index.upsert = write_file, index_segments  # type: ignore[method-assign]
    assert checker.audio("t", seg).duration > 0.5
    assert checker.verify(repair=False).ok
    for space in SPACES:
        assert seg in checker.index.ids("t", space)
    writer.close()
    checker.close()
