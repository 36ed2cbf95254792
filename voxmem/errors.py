"""Typed errors. Every message says what went wrong and what to do next."""

from __future__ import annotations


class VoxmemError(Exception):
    """Base class of every error voxmem raises on purpose."""


# --- audio -------------------------------------------------------------------


class InvalidAudio(VoxmemError, ValueError):
    """Audio that cannot be used. Subclasses say why."""


class UnreadableAudio(InvalidAudio):
    """Bytes or a file that no decoder could read."""


class UnsupportedFormat(InvalidAudio):
    """A container or codec that neither libsndfile nor ffmpeg can decode."""


class EmptyAudio(InvalidAudio):
    """Audio with no samples at all."""


class SilentAudio(InvalidAudio):
    """Audio whose level never rises above the silence floor where speech is needed."""


class AudioTooShort(InvalidAudio):
    """Audio shorter than the caller's minimum duration."""


class NonFiniteAudio(InvalidAudio):
    """Audio that contains NaN or infinite samples."""


class UnsupportedSampleRate(InvalidAudio):
    """A sample rate that is missing, not a positive integer, or outside the plausible range."""


class AudioTooLong(InvalidAudio):
    """A recording longer than the accepted maximum (refused from its header)."""


class OutOfRangeAudio(InvalidAudio):
    """Float samples far beyond full scale: the audio was written at another scale."""


class NoSpeech(InvalidAudio):
    """Audio with sound but no speech in it (noise, a tone, a click), where turns are needed."""


# --- models and settings -----------------------------------------------------


class ModelUnavailable(VoxmemError, RuntimeError):
    """A model role whose weights cannot be found or loaded."""

    def __init__(self, role: str, message: str, fix: str) -> None:
        self.role = role
        self.fix = fix
        super().__init__(f"{role}: {message}. To fix: {fix}")


class SynthesisError(VoxmemError, RuntimeError):
    """A text-to-speech engine failed or is not installed."""


class BenchmarkDataError(VoxmemError, ValueError):
    """A benchmark folder that is not in the published format; the message lists every
    problem found (missing files, missing columns, ids that do not resolve)."""
