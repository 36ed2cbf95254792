"""Speech recognition with faster-whisper: text, word timings and language."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from voxmem.audio import TARGET_RATE, Audio
from voxmem.errors import InvalidAudio
from voxmem.memory.encoders.base import loaded_model, reload_shared_model, shared_model
from voxmem.models import ResolvedModel


@dataclass(frozen=True)
class Word:
    text: str
    start: float
    end: float
    probability: float


@dataclass(frozen=True)
class Transcript:
    """What was said in one clip; word times are seconds from the clip's start."""

    text: str
    language: str
    words: list[Word] = field(default_factory=list)


#: whisper frames (10 ms) added after a short clip, and the fewest the encoder sees:
#: shorter windows made whisper repeat itself on some clips
MARGIN_FRAMES, MIN_FRAMES, MAX_FRAMES = 100, 500, 3000
#: token cap of the short decode: generous for speech, hit only by a runaway decode
TOKENS_PER_SECOND, EXTRA_TOKENS = 8, 16


class WhisperTranscriber:
    """faster-whisper, int8 on CPU, greedy decoding, Silero-VAD-filtered."""

    name = "faster-whisper"
    sample_rate = TARGET_RATE

    def __init__(
        self,
        model: ResolvedModel,
        threads: int = 2,
        beam_size: int = 1,
        language: str | None = None,
    ) -> None:
        def load() -> Any:
            import ctranslate2
            from faster_whisper import WhisperModel

            # a clip whisper finds hard is decoded again at higher temperatures, by
            # sampling; unseeded, its words differ from one run to the next (16 of 90 dev
            # clips at 10 to 0 dB). Seeded before the model's first sample, a process
            # that transcribes the same clips in the same order hears the same words.
            ctranslate2.set_random_seed(SAMPLING_SEED)
            return _one_encoding_per_window(
                WhisperModel(
                    model.location,
                    device="cpu",
                    compute_type="int8",
                    cpu_threads=threads,
                    local_files_only=model.source != "hub",
                )
            )

        #: where the weights came from
        self.resolved = model
        self._load = load
        shared_model("faster-whisper", model.location, load)
        self.beam_size = beam_size
        self.language = "en" if model.variant and model.variant.endswith(".en") else language

    @property
    def _model(self) -> Any:
        """The process's copy of the model (``restart_sampling`` replaces it); read
        without the loading lock, so a transcription never waits for another model's
        load."""
        model = loaded_model("faster-whisper", self.resolved.location)
        return (
            model
            if model is not None
            else shared_model("faster-whisper", self.resolved.location, self._load)
        )

    def restart_sampling(self) -> None:
        """Start the sampled decodes' random stream again from ``SAMPLING_SEED``, as in a
        process that has just loaded the model, so what comes next is heard the same
        whatever was transcribed before (a benchmark's ingest, whichever ingests before
        it were fresh or cached). CTranslate2 seeds each of a model's worker threads
        once, at its first sample, so this loads the model again (under a second) for
        every transcriber of this process."""
        reload_shared_model("faster-whisper", self.resolved.location, self._load)

    #: ``transcribe`` takes ``hotwords``: the names of known speakers, spelled as given
    supports_hotwords = True
    #: ``clip_text`` is a quick decode of a short clip (no word times)
    supports_clip_text = True

    def transcribe(self, audio: Audio, hotwords: str | None = None) -> Transcript:
        """Text, language and word times. ``hotwords`` (comma-separated names the caller
        expects) are spelled as given where whisper joined the s of the next word to
        them ("what did Marcos say" with Marco known). The decoder itself is not
        biased towards them: faster-whisper's ``hotwords`` prompt did fix those names, but
        it also turned ordinary words into near-names ("Marqueting team" for "marketing
        team" with Marco known) and changed others ("sound said" for "sound sad")."""
        if audio.sample_rate != self.sample_rate:
            raise InvalidAudio(
                f"ASR needs {self.sample_rate} Hz audio, got {audio.sample_rate};"
                " load it with voxmem.audio.load_audio"
            )
        segments, info = self._model.transcribe(
            np.ascontiguousarray(audio.samples, dtype=np.float32),
            beam_size=self.beam_size,
            language=self.language,
            word_timestamps=True,
            vad_filter=True,
            condition_on_previous_text=False,
        )
        words: list[Word] = []
        texts = []
        for seg in segments:
            texts.append(seg.text.strip())
            words += [
                Word(w.word.strip(), float(w.start), float(w.end), float(w.probability))
                for w in (seg.words or [])
            ]
        text = " ".join(t for t in texts if t)
        names = _names(hotwords)
        if names:
            text = _spell_names(text, names)
            words = _spell_words(words, names)
        return Transcript(text, info.language, words)

    def clip_text(self, audio: Audio) -> str:
        """The words of a short clip (a reference, up to 30 s), quickly: whisper's encoder
        run on the clip's own length (plus a margin, at least 5 s) rather than a 30 s
        window, greedy, without timestamps, in the configured language. A decode that
        runs away (hits its length cap) falls back to ``transcribe``."""
        samples = np.ascontiguousarray(audio.samples, dtype=np.float32)
        text = self._short_decode(samples)
        return self.transcribe(audio).text if text is None else text

    def _short_decode(self, samples: np.ndarray) -> str | None:
        import ctranslate2
        from faster_whisper.tokenizer import Tokenizer

        model = self._model
        feats = model.feature_extractor(samples)
        frames = min(MAX_FRAMES, max(feats.shape[1] + MARGIN_FRAMES, MIN_FRAMES))
        feats = np.pad(feats, ((0, 0), (0, max(0, frames - feats.shape[1]))))[:, :frames]
        encoded = model.model.encode(
            ctranslate2.StorageView.from_array(np.ascontiguousarray(feats[None], np.float32))
        )
        language = self.language
        if language is None and model.model.is_multilingual:
            language = model.model.detect_language(encoded)[0][0][0].strip("<|>")
        tokenizer = Tokenizer(
            model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language=language
        )
        cap = int(TOKENS_PER_SECOND * len(samples) / TARGET_RATE) + EXTRA_TOKENS
        prompt = [*tokenizer.sot_sequence, tokenizer.no_timestamps]
        result = model.model.generate(
            encoded,
            [prompt],
            beam_size=1,
            max_length=cap,
            suppress_blank=True,
            suppress_tokens=[-1],
        )[0]
        tokens = [t for t in result.sequences_ids[0] if t < tokenizer.eot]
        if len(tokens) >= cap - len(prompt) - 1:
            return None
        return str(tokenizer.decode(tokens)).strip()


#: the seed of the sampled fallback decodes (see ``WhisperTranscriber``'s loader)
SAMPLING_SEED = 0
#: encoder outputs kept per model: one per transcription running at once is enough
_ENCODINGS_KEPT = 4


def _one_encoding_per_window(model: Any) -> Any:
    """``model`` (a faster-whisper ``WhisperModel``) with its first window encoded once
    where the language is detected: faster-whisper encodes the window to detect the
    language, then again to decode it. The detection is handed the frames the decode
    encodes (all but the feature extractor's last frame, past the end of the audio), and
    the encoder's outputs are kept by the bytes of its input, so the decode reuses the
    detection's. The decode's input, and so every word, is as before; the detection
    reads 10 ms less of the clip. About a second less per clip of a short turn on two
    cores."""
    import hashlib
    import threading
    import weakref
    from collections import OrderedDict

    # the model's own methods, called on it through a weak reference: bound methods
    # kept on the model would hold it in a cycle, and a model loaded again
    # (``restart_sampling``) would keep its weights and threads until a full collection
    encode, detect = type(model).encode, type(model).detect_language
    owner = weakref.ref(model)
    kept: OrderedDict[bytes, Any] = OrderedDict()
    lock = threading.Lock()
    window = model.feature_extractor.nb_max_frames

    def encode_once(features: np.ndarray) -> Any:
        key = (
            hashlib.blake2b(np.ascontiguousarray(features).view(np.uint8), digest_size=16).digest()
            + str(features.shape).encode()
        )
        with lock:
            if key in kept:
                kept.move_to_end(key)
                return kept[key]
        out = encode(owner(), features)
        with lock:
            kept[key] = out
            while len(kept) > _ENCODINGS_KEPT:
                kept.popitem(last=False)
        return out

    def detect_on_decoded_frames(
        audio: np.ndarray | None = None, features: np.ndarray | None = None, **kw: Any
    ) -> Any:
        if audio is None and features is not None and 1 < features.shape[-1] <= window + 1:
            features = features[..., :-1]  # what the decode's window holds
        return detect(owner(), audio=audio, features=features, **kw)

    model.encode = encode_once
    model.detect_language = detect_on_decoded_frames
    return model


#: what may touch a word (apostrophes, hyphens): a word so joined is left alone
_JOINED = "'\u2019\u2018\u2010\u2011-"
_WORD = re.compile(rf"(?<![\w{_JOINED}])[^\W\d_]+(?![\w{_JOINED}])")
_S_WORD = re.compile(r"\s+[sS]")


def _fold(word: str) -> str:
    return unicodedata.normalize("NFC", word).casefold()


def _names(hotwords: str | None) -> dict[str, str]:
    """Each expected one-word name heard with the s of a following word joined to it
    ("Marcos say" for "Marco say"), folded, and the name as given. A form that is
    itself an expected name (Carlos beside Carlo) is not a mishearing."""
    names = [unicodedata.normalize("NFC", n.strip()) for n in (hotwords or "").split(",")]
    names = [n for n in names if len(n) >= 3 and n.isalpha()]
    known = {_fold(n) for n in names}
    out: dict[str, str] = {}
    for n in names:
        if not _fold(n).endswith("s") and _fold(n) + "s" not in known:
            out.setdefault(_fold(n) + "s", n if n[0].isupper() else n[0].upper() + n[1:])
    return out


def _spell_names(text: str, names: dict[str, str]) -> str:
    """``text`` with each capitalised whole word that is an expected name heard with the
    next word's s joined to it, and followed by a word beginning with s ("What did
    Marcos say"), spelled as the name. Anything else is kept: "Bills are due", a
    possessive "Marcos' dog", lower-case words. (A plural of a name before an s-word,
    "Roses smell sweet" with Rose known, is respelled too.)"""

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        if not word[0].isupper() or not _S_WORD.match(text, m.end()):
            return word
        return names.get(_fold(word), word)

    return _WORD.sub(fix, text)


def _spell_words(words: list[Word], names: dict[str, str]) -> list[Word]:
    """:func:`_spell_names` for whisper's words (each with its following word)."""
    out = []
    for i, w in enumerate(words):
        after = words[i + 1].text if i + 1 < len(words) else ""
        text = _spell_names(f"{w.text} {after}", names)[: -len(after) or None].rstrip()
        out.append(Word(text, w.start, w.end, w.probability) if text != w.text else w)
    return out
