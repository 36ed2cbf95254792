"""``benchmarks train-planner``: generate the corpus, train the planner, write its weights.

Deterministic for a seed (one BLAS thread, seeded initialisation and batches,
features rounded before training): the same seed gives the same weights file,
byte for byte. Prints accuracy on the generated dev corpus, whose wordings are
held back from training but were used to choose these settings (a tuning figure).
"""

from __future__ import annotations

import hashlib
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voxmem.benchmarks.planner_corpus import Example, generate
from voxmem.retrievers.planner import (
    _EDGE,
    HEADS,
    SPANS,
    TAGS,
    WEIGHTS,
    Encoded,
    PlanModel,
    WordEncoder,
    _span,
    span_features,
    span_labels,
    weights_hash,
    word_features,
)


@dataclass(frozen=True)
class TrainParams:
    train: int = 12000
    dev: int = 2000
    tag_hidden: int = 192
    span_hidden: int = 128
    tag_epochs: int = 6
    span_epochs: int = 20
    lr: float = 2e-3
    weight_decay: float = 1e-4
    input_dropout: float = 0.15


class _Adam:
    def __init__(self, params: dict[str, np.ndarray], lr: float, decay: float) -> None:
        self.p, self.lr, self.decay, self.t = params, lr, decay, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, grads: dict[str, np.ndarray]) -> None:
        self.t += 1
        for k, g in grads.items():
            if ".w" in k:
                g = g + self.decay * self.p[k]
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            mh = self.m[k] / (1 - 0.9**self.t)
            vh = self.v[k] / (1 - 0.999**self.t)
            self.p[k] -= (self.lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)


def _init(rng: np.random.Generator, n_in: int, n_out: int) -> np.ndarray:
    return (rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)).astype(np.float32)


def _fit(
    x: np.ndarray,
    y: np.ndarray,
    classes: int,
    hidden: int,
    prefix: str,
    epochs: int,
    batch: int,
    p: TrainParams,
    rng: np.random.Generator,
) -> dict[str, np.ndarray]:
    """A one-hidden-layer softmax classifier (``prefix.w1 .b1 .w2 .b2``), trained with
    Adam on cross-entropy, with input dropout."""
    w = {
        f"{prefix}.w1": _init(rng, x.shape[1], hidden),
        f"{prefix}.b1": np.zeros(hidden, np.float32),
        f"{prefix}.w2": _init(rng, hidden, classes) * 0.1,
        f"{prefix}.b2": np.zeros(classes, np.float32),
    }
    opt = _Adam(w, p.lr, p.weight_decay)
    keep = 1 - p.input_dropout
    for _ in range(epochs):
        order = rng.permutation(len(x))
        for start in range(0, len(x), batch):
            idx = order[start : start + batch]
            xb = (x[idx] * (rng.random(x[idx].shape) < keep) / keep).astype(np.float32)
            pre = xb @ w[f"{prefix}.w1"] + w[f"{prefix}.b1"]
            h = np.maximum(pre, 0)
            z = h @ w[f"{prefix}.w2"] + w[f"{prefix}.b2"]
            z -= z.max(1, keepdims=True)
            prob = np.exp(z)
            prob /= prob.sum(1, keepdims=True)
            prob[np.arange(len(idx)), y[idx]] -= 1
            dz = prob / len(idx)
            dpre = (dz @ w[f"{prefix}.w2"].T) * (pre > 0)
            opt.step(
                {
                    f"{prefix}.w2": h.T @ dz,
                    f"{prefix}.b2": dz.sum(0),
                    f"{prefix}.w1": xb.T @ dpre,
                    f"{prefix}.b1": dpre.sum(0),
                }
            )
    return w


def _names(e: Example) -> list[str]:
    name = " ".join(w for w, t in zip(e.words, e.tags, strict=True) if t == "N")
    return [name.removesuffix("'s")] if name else []


def _known_names(examples: Sequence[Example], rng: np.random.Generator) -> list[list[str]]:
    """The speaker names a caller would pass: the asked-for name half the time."""
    return [_names(e) if rng.random() < 0.5 else [] for e in examples]


def _spans(
    examples: Sequence[Example], encoded: Sequence[Encoded], head: str, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Span features and labels for one span classifier: every gold span, and a copy
    with one word more or less, as a tagger may cut it."""
    tag = next(t for t, h in SPANS.items() if h == head)
    labels = span_labels(head)
    xs, ys = [], []
    for ex, enc in zip(examples, encoded, strict=True):
        mask = np.array([t == tag for t in ex.tags])
        if not mask.any():
            continue
        y = labels.index(getattr(ex, head))
        idx = np.flatnonzero(mask)
        noisy = mask.copy()
        if len(idx) > 1 and rng.random() < 0.5:
            noisy[idx[0] if rng.random() < 0.5 else idx[-1]] = False
        else:
            edge = idx[0] - 1 if rng.random() < 0.5 else idx[-1] + 1
            if 0 <= edge < len(noisy):
                noisy[edge] = True
        for m in (mask, noisy):
            xs.append(span_features(enc, m))
            ys.append(y)
    return np.stack(xs), np.array(ys)


def train(
    examples: Sequence[Example],
    encoded: Sequence[Encoded],
    seed: int,
    p: TrainParams,
) -> dict[str, np.ndarray]:
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(seed)
    names = _known_names(examples, np.random.default_rng([seed, 7]))
    with threadpool_limits(1):
        xw = np.concatenate(
            [
                word_features(e, n, has_reference=ex.has_reference)
                for ex, e, n in zip(examples, encoded, names, strict=True)
            ]
        )
        tw = np.array([TAGS.index(t) for ex in examples for t in ex.tags])
        weights = _fit(xw, tw, len(TAGS), p.tag_hidden, "tag", p.tag_epochs, 512, p, rng)
        for head in SPANS.values():
            xs, ys = _spans(examples, encoded, head, rng)
            n = len(span_labels(head))
            weights |= _fit(xs, ys, n, p.span_hidden, head, p.span_epochs, 128, p, rng)
    return {k: v.astype(np.float16) for k, v in weights.items()}


def evaluate(
    model: PlanModel, examples: Sequence[Example], encoded: Sequence[Encoded], seed: int
) -> dict[str, float]:
    """Accuracy per head, per word tag, of the content words, and of the whole plan."""
    names = _known_names(examples, np.random.default_rng([seed, 8]))
    right: dict[str, int] = dict.fromkeys([*HEADS, "tags", "content words", "whole plan"], 0)
    n_tags = 0
    for ex, enc, nm in zip(examples, encoded, names, strict=True):
        pred = model.predict([enc], nm, has_reference=ex.has_reference)[0]
        heads = pred.heads
        ok = {h: heads[h] == getattr(ex, h) for h in HEADS}
        for h in HEADS:
            right[h] += ok[h]
        right["tags"] += sum(a == b for a, b in zip(pred.tags, ex.tags, strict=True))
        n_tags += len(ex.tags)
        want = {w.lower() for w in _span(ex.words, ex.tags, "C")} - _EDGE
        have = {w.lower() for w in _span(pred.words, pred.tags, "C")} - _EDGE
        words_ok = ex.content != "present" or want == have
        right["content words"] += words_ok
        right["whole plan"] += words_ok and all(ok.values())
    out = {k: v / len(examples) for k, v in right.items()}
    out["tags"] = right["tags"] / max(n_tags, 1)
    return out


def _encode(
    encoder: WordEncoder, texts: list[str], cache: Path | None, log: Callable[[str], None]
) -> list[Encoded]:
    """Encodings of ``texts``, from ``cache`` (a folder) when it holds them."""
    key = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:20]
    path = cache / f"planner-encodings-{key}.pkl" if cache else None
    if path and path.is_file():
        log(f"encodings from {path}")
        with open(path, "rb") as f:
            cached: list[Encoded] = pickle.load(f)
        return cached
    out = encoder.encode(texts)
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as f:
            pickle.dump(out, f)
    return out


def train_planner(
    *,
    seed: int = 0,
    out: Path = WEIGHTS,
    params: TrainParams | None = None,
    encoder: WordEncoder | None = None,
    cache: Path | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, float]:
    """Generate, encode, train, write ``out``; return dev accuracy (tuning figures)."""
    p = params or TrainParams()
    start = time.perf_counter()
    train_set, dev_set = generate(p.train, seed, "train"), generate(p.dev, seed, "dev")
    enc = encoder or WordEncoder()
    import torch

    torch.set_num_threads(1)  # one thread: as fast on shared cores, and the same sums
    log(f"encoding {len(train_set)} train and {len(dev_set)} dev instructions ...")
    train_enc = _encode(enc, [e.text for e in train_set], cache, log)
    dev_enc = _encode(enc, [e.text for e in dev_set], cache, log)
    log(f"encoded in {time.perf_counter() - start:.0f} s; training ...")
    weights = train(train_set, train_enc, seed, p)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, allow_pickle=False, **weights)
    scores = evaluate(PlanModel.load(out), dev_set, dev_enc, seed)
    log(f"wrote {out} (sha256 {weights_hash(out)[:16]}) in {time.perf_counter() - start:.0f} s")
    log("dev accuracy (tuning: wordings held back from training, used to choose settings):")
    for k, v in scores.items():
        log(f"  {k:14s} {v:.3f}")
    return scores
