from __future__ import annotations

import re

import numpy as np
import pytest

from voxmem.audio import Audio, load_audio
from voxmem.benchmarks.synth import ClipCache, Utterance, render
from voxmem.errors import InvalidAudio, ModelUnavailable
from voxmem.memory.encoders.base import AudioEncoder, TextEncoder
from voxmem.memory.encoders.fake import FakeAudioEncoder, FakeTextEncoder
from voxmem.settings import Settings

VOICES = ["flite-slt", "flite-awb", "flite-rms", "festival-ked", "piper-joe", "espeak-us-f"]
SENTENCES = [
    "The budget meeting moved to Thursday morning.",
    "I think the weather will be better tomorrow.",
    "Could you send me the slides before lunch?",
]
LIBRIVOX = "/usr/share/pocketsphinx/test/data/librivox"


def _tone(freq: float, seconds: float = 1.0) -> Audio:
    t = np.arange(int(16_000 * seconds)) / 16_000
    return Audio((0.3 * np.sin(2 * np.pi * freq * t)).astype(np.float32))


# --- the contract every audio encoder keeps, fakes first --------------------------


def _check_contract(enc: AudioEncoder) -> None:
    clips = [_tone(220), _tone(660, 2.0)]
    out = enc.embed(clips)
    assert out.shape == (2, enc.dim) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-4)
    np.testing.assert_allclose(enc.embed(clips), out, atol=1e-6)  # deterministic
    assert enc.embed([]).shape == (0, enc.dim)
    with pytest.raises(InvalidAudio, match="Hz"):
        enc.embed([Audio(np.zeros(8000, np.float32), 8000)])
    with pytest.raises(InvalidAudio, match="empty"):
        enc.embed([Audio(np.zeros(0, np.float32))])


def test_fake_audio_encoder_contract_and_similarity() -> None:
    enc = FakeAudioEncoder(dim=16)
    _check_contract(enc)
    a, b, c = enc.embed([_tone(300), _tone(305), _tone(3000)])
    assert a @ b > a @ c


def test_fake_text_encoder_shares_words() -> None:
    enc = FakeTextEncoder()
    q = enc.queries(["the budget report"])
    p = enc.passages(["budget report due friday", "rain all weekend"])
    assert (q @ p.T)[0, 0] > (q @ p.T)[0, 1]
    with pytest.raises(TypeError, match="list of texts"):
        enc.queries("one string")  # type: ignore[arg-type]


# --- real backends on shipped weights ------------------------------------------------


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(cache_dir=tmp_path_factory.mktemp("cache"), threads=2)


@pytest.mark.models
def test_dvector_separates_distinct_voices(settings: Settings, clip_cache: ClipCache) -> None:
    from voxmem.memory.encoders.factory import speaker_encoder

    enc = speaker_encoder(settings)
    assert (enc.name, enc.dim, enc.sample_rate) == ("voicefilter-dvector", 256, 16_000)
    _check_contract(enc)
    labels = np.array([v for v in VOICES for _ in SENTENCES])
    clips = [render(Utterance(s, v), clip_cache) for v in VOICES for s in SENTENCES]
    emb = enc.embed(clips)
    sim = emb @ emb.T
    same = (labels[:, None] == labels[None, :]) & ~np.eye(len(labels), dtype=bool)
    diff = labels[:, None] != labels[None, :]
    # every clip's nearest other clip is the same voice saying something else
    np.fill_diagonal(sim, -np.inf)
    assert all(labels[np.argmax(sim[i])] == labels[i] for i in range(len(labels)))
    assert sim[same].mean() - sim[diff].mean() > 0.3
    # a very short clip still embeds (padded to one window)
    assert enc.embed([clips[0].slice(0, 0.2)]).shape == (1, 256)


@pytest.mark.models
def test_minilm_ranks_by_meaning(settings: Settings) -> None:
    from voxmem.memory.encoders.factory import text_encoder

    enc = text_encoder(settings)
    assert isinstance(enc, TextEncoder) and enc.dim == 384
    q = enc.queries(["what did they say about the money for the project"])
    p = enc.passages(
        ["The budget for the project was cut by ten percent.", "It rained all weekend at the lake."]
    )
    np.testing.assert_allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-4)
    scores = (q @ p.T)[0]
    assert scores[0] > scores[1] + 0.2


def _wer(ref: str, hyp: str) -> float:
    r = re.findall(r"[a-z']+", ref.lower())
    h = re.findall(r"[a-z']+", hyp.lower().replace("mr.", "mister"))
    d = np.zeros((len(r) + 1, len(h) + 1), int)
    d[:, 0], d[0, :] = range(len(r) + 1), range(len(h) + 1)
    for i in range(1, len(r) + 1):
        for j in range(1, len(h) + 1):
            d[i, j] = min(
                d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + (r[i - 1] != h[j - 1])
            )
    return d[-1, -1] / len(r)


@pytest.mark.models
def test_whisper_base_transcribes_real_speech_with_word_times(settings: Settings) -> None:
    from voxmem.memory.encoders.factory import transcriber

    asr = transcriber(settings)
    refs = {}
    with open(f"{LIBRIVOX}/transcription") as f:
        for line in f:
            m = re.match(r"<s> (.*) </s> \((.*)\)", line.strip())
            if m:
                refs[m.group(2)] = m.group(1)
    name = "sense_and_sensibility_01_austen_64kb-0880"
    audio = load_audio(f"{LIBRIVOX}/{name}.wav")
    result = asr.transcribe(audio)
    assert result.language == "en"
    assert _wer(refs[name], result.text) <= 0.15, result.text
    assert result.words and all(0 <= w.start <= w.end <= audio.duration + 0.5 for w in result.words)
    assert [w.start for w in result.words] == sorted(w.start for w in result.words)
    # silence has nothing to say
    assert asr.transcribe(Audio(np.zeros(16_000, np.float32))).text == ""


def test_unknown_backends_are_refused(settings: Settings) -> None:
    from voxmem.memory.encoders.factory import speaker_encoder

    with pytest.raises(ModelUnavailable, match="VOXMEM_SPEAKER__BACKEND"):
        speaker_encoder(
            settings.model_copy(
                update={"speaker": settings.speaker.model_copy(update={"backend": "nope"})}
            )
        )


@pytest.mark.models
def test_yamnet_names_real_sound_effects_even_under_speech(
    settings: Settings, clip_cache: ClipCache
) -> None:
    from voxmem.memory.encoders.environment import YamnetEnvironmentEncoder
    from voxmem.memory.encoders.factory import environment_encoder

    enc = environment_encoder(settings)
    assert isinstance(enc, YamnetEnvironmentEncoder)
    _check_contract(enc)
    stereo = "/usr/share/sounds/freedesktop/stereo"
    phone = [e.label for e in enc.events(load_audio(f"{stereo}/phone-incoming-call.oga"), 3)]
    assert "Telephone" in phone
    camera = [e.label for e in enc.events(load_audio(f"{stereo}/camera-shutter.oga"), 3)]
    assert "Camera" in camera
    speech = render(Utterance(SENTENCES[0], "flite-slt"), clip_cache)
    assert enc.events(speech, 1, include_voice=True)[0].label == "Speech"
    assert all(e.label != "Speech" for e in enc.events(speech, 10))  # voice classes dropped
    mixed = render(Utterance(SENTENCES[0], "flite-slt", background="phone", snr_db=10), clip_cache)
    assert "Telephone" in [e.label for e in enc.events(mixed, 5)]
    # the same background under two different talkers is closer than two backgrounds
    # under the same talker
    other_talker = render(
        Utterance(SENTENCES[1], "festival-ked", background="phone", snr_db=10), clip_cache
    )
    other_bg = render(
        Utterance(SENTENCES[0], "flite-slt", background="trash", snr_db=10), clip_cache
    )
    a, b, c = enc.embed([mixed, other_talker, other_bg])
    assert a @ b > a @ c
