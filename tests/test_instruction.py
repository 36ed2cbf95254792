from __future__ import annotations

import pytest

from voxmem.benchmarks.instructions import generate
from voxmem.retrievers.instruction import InstructionParser

CASES = [
    ("what did this speaker say about the budget?", True, "content 'budget'; speaker same"),
    ("when did she sound sad?", True, "speaker same; style target:sad"),
    ("the part with rain in the background", False, "environment target:rain"),
    ("What did Dana say about the launch?", False, "content 'launch'; speaker target:Dana"),
    (
        "a whispered clip with the same background as this one",
        True,
        "style target:whisper; environment same",
    ),
    ("what comes next in this conversation", True, "content like the reference"),
    ("what did I say about the hotel", False, "content 'hotel'; role user"),
    (
        "retrieve recordings from this speaker that mentions the train tickets with rain in the "
        "background",
        True,
        "content 'train tickets'; speaker same; environment target:rain",
    ),
    ("let's talk about the birthday party", False, "content 'birthday party'"),
    ("find the clip where a dog is barking in the background", False, "environment target:dog"),
]


@pytest.mark.parametrize(("text", "has_ref", "want"), CASES)
def test_instructions_become_plans(text: str, has_ref: bool, want: str) -> None:
    plan = InstructionParser(planner="lexicon").parse(text, has_ref, speaker_names=["Dana"])
    assert plan.describe() == want


def test_same_needs_a_reference() -> None:
    # without a reference clip there is nothing to be "the same" as
    plan = InstructionParser(planner="lexicon").parse(
        "what did this speaker say about the budget", False
    )
    assert plan.speaker.mode == "any" and plan.content == "budget"


def test_the_default_parser_is_the_trained_planner() -> None:
    assert InstructionParser().kind == "trained"
    assert InstructionParser(planner="lexicon").kind == "lexicon"


def test_generated_instructions_are_reproducible_and_balanced() -> None:
    a, b = generate("heldout", 50, 3), generate("heldout", 50, 3)
    assert a == b
    assert {i.speaker for i in a} == {"any", "same"}
    assert any(i.style.startswith("target:") for i in a)
    assert any(i.environment == "same" for i in a)
    tune = {" ".join(i.text.split()[:2]) for i in generate("tune", 200, 0)}
    held = {" ".join(i.text.split()[:2]) for i in generate("heldout", 200, 0)}
    assert len(tune) >= 3 and len(held) >= 3
    assert not tune & held  # the pools share no frame
