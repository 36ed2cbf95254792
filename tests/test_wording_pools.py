"""Instruction wordings of the mini editions: dev tables and frozen held-out test files."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from voxmem.benchmarks import pools
from voxmem.benchmarks.pools import (
    EDITIONS,
    FrozenPoolChanged,
    PoolError,
    PoolSchemaError,
    UnknownPool,
    Wordings,
    placeholders,
    wordings,
)
from voxmem.benchmarks.retrieval import inspire, squtr


def _templates(value: list[str] | dict[str, list[str]]) -> list[str]:
    return value if isinstance(value, list) else [t for ts in value.values() for t in ts]


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[\w{}]+", text.casefold()))


@pytest.fixture(scope="module", params=EDITIONS)
def both(request: pytest.FixtureRequest) -> tuple[str, Wordings, Wordings]:
    return request.param, wordings(request.param, "dev"), wordings(request.param, "test")


def test_every_dev_kind_has_test_wordings_with_its_placeholders(
    both: tuple[str, Wordings, Wordings],
) -> None:
    edition, dev, test = both
    assert set(test) == set(dev), edition
    for kind, value in test.items():
        want = {placeholders(t) for t in _templates(dev[kind])}
        assert len(want) == 1, (edition, kind)  # a dev kind fills one set of slots
        assert {placeholders(t) for t in _templates(value)} == want, (edition, kind)
        assert len(_templates(value)) >= 12, (edition, kind)
        if isinstance(dev[kind], dict):
            assert isinstance(value, dict) and set(value) == set(dev[kind]), (edition, kind)
            assert all(len(v) >= 3 for v in value.values()), (edition, kind)


def test_no_test_wording_is_a_dev_wording(both: tuple[str, Wordings, Wordings]) -> None:
    edition, dev, test = both
    seen = {_norm(t) for v in dev.values() for t in _templates(v)}
    held_out = [t for v in test.values() for t in _templates(v)]
    assert [t for t in held_out if _norm(t) in seen] == [], edition
    assert len({_norm(t) for t in held_out}) == len(held_out), edition  # no repeats


def test_inspire_test_templates_fill_with_the_test_slot_words() -> None:
    test = wordings("inspire-mini", "test")
    styles, backgrounds = test["values:style"], test["values:environment"]
    assert isinstance(styles, dict) and isinstance(backgrounds, dict)
    assert set(styles) >= set(inspire.MINI_STYLES) | set(inspire.EXPRESSO_STYLES)
    assert set(backgrounds) == set(inspire.MINI_BACKGROUNDS)
    for kind, value in test.items():
        if kind.startswith("values:"):
            continue
        for t in _templates(value):
            filled = t.format(v=styles["sad"][0], e=backgrounds["rain"][0])
            assert "{" not in filled and "}" not in filled, t


def test_contextdialog_questions_do_not_give_their_answers() -> None:
    test = wordings("contextdialog-mini", "test")
    for kind, by_answer in test.items():
        assert isinstance(by_answer, dict), kind
        for answer, questions in by_answer.items():
            assert all(answer.casefold() not in q.casefold() for q in questions), answer


def test_dev_wordings_are_the_editions_own_tables() -> None:
    assert wordings("squtr-mini", "dev") == {"instruction": [squtr.INSTRUCTION]}
    dev = wordings("inspire-mini", "dev")
    for kind in inspire.WORDINGS:
        assert dev[kind] == list(inspire.WORDINGS[kind])
    for kind in inspire.COMPOSITE_TYPES:
        joined = _templates(dev["composite:" + "+".join(kind)])
        for part in kind:  # every part template of the type is used in some wording
            assert all(any(p in t for t in joined) for p in inspire.COMPOSITE_PARTS[part])


def _pool_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edition: str) -> Path:
    pool = pools.get_pool(f"{edition}/test")
    path = tmp_path / Path(pool.source).name
    path.write_bytes(pool.path.read_bytes())
    monkeypatch.setitem(pools.POOLS, pool.name, replace(pool, source=str(path)))
    return path


def test_a_changed_test_wording_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _pool_copy(tmp_path, monkeypatch, "squtr-mini")
    assert len(_templates(wordings("squtr-mini", "test")["instruction"])) >= 12
    raw = json.loads(path.read_text())
    raw["wordings"]["instruction"].append("Find the passage.")
    path.write_text(json.dumps(raw, indent=1) + "\n")
    with pytest.raises(FrozenPoolChanged, match="frozen"):
        wordings("squtr-mini", "test")


def test_a_malformed_wording_file_is_refused_with_every_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _pool_copy(tmp_path, monkeypatch, "voicetrace-mini")
    bad = {
        "edition": "squtr-mini",
        "role": "test",
        "wordings": {"question": ["About {t: what?", "x", "x"], "other": []},
    }
    path.write_text(json.dumps(bad))
    pool = pools.get_pool("voicetrace-mini/test")
    monkeypatch.setitem(
        pools.POOLS, pool.name, replace(pool, sha256=hashlib.sha256(path.read_bytes()).hexdigest())
    )
    with pytest.raises(PoolSchemaError) as err:
        wordings("voicetrace-mini", "test")
    for problem in ("edition is 'squtr-mini'", "question[0] is not a template", "repeats", "other"):
        assert problem in str(err.value)


def test_unknown_edition_or_role_is_refused() -> None:
    with pytest.raises(UnknownPool, match="inspire-mini"):
        wordings("inspire", "test")
    with pytest.raises(PoolError, match="dev and test"):
        wordings("inspire-mini", "train")


@pytest.mark.parametrize("role", ["dev", "test"])
def test_inspire_phrasing_fills_slots_with_the_roles_own_words(role: str) -> None:
    from voxmem.benchmarks.retrieval.common import wording_rng

    table = wordings("inspire-mini", role)
    styles, backgrounds = table["values:style"], table["values:environment"]
    assert isinstance(styles, dict) and isinstance(backgrounds, dict)
    phrase = inspire.Phrasing(table, wording_rng(0, 0))
    for kind, value in table.items():
        if kind.startswith("values:"):
            continue
        (slots,) = {placeholders(t) for t in _templates(value)}
        for style in (*inspire.EXPRESSO_STYLES, "angry"):
            for background in inspire.MINI_BACKGROUNDS:
                text = phrase(kind, style=style, background=background)
                assert "{" not in text and "}" not in text, text
                if "v" in slots:
                    assert any(w in text for w in styles[style]), (text, style)
                if "e" in slots:
                    assert any(w in text for w in backgrounds[background]), (text, background)


def test_inspire_article_fix_up() -> None:
    assert inspire.an("Find a upbeat voice.") == "Find an upbeat voice."
    assert inspire.an("A angry reply, a sad one, a idling car") == (
        "An angry reply, a sad one, an idling car"
    )


def test_squtr_gives_each_query_one_instruction_of_the_role() -> None:
    for role in ("dev", "test"):
        table = wordings("squtr-mini", role)
        chosen = [squtr.instruction_for(f"q{i:03d}", table) for i in range(40)]
        assert set(chosen) <= set(_templates(table["instruction"]))
        assert chosen == [squtr.instruction_for(f"q{i:03d}", table) for i in range(40)]
    assert len(set(chosen)) > 5  # spread over the test wordings
