"""The router's rules on the developers' own wordings (the tuning set). The honest
figure is `benchmarks run routing` on a pool written apart from these rules."""

from __future__ import annotations

import threading
import time

import pytest

from voxmem.agent.route import Router, resolve_time

NAMES = ["Dana", "Marco"]


@pytest.fixture(scope="module")
def router() -> Router:
    return Router(agent_name="Vox")


@pytest.mark.parametrize(
    ("text", "intent", "speaker", "time", "topic"),
    [
        ("What did I say about the budget?", "recall", "self", None, "budget"),
        ("what did you tell me about the hotel", "recall", "agent", None, "hotel"),
        ("What did Dana say about the train tickets?", "recall", "Dana", None, "train"),
        (
            "Remind me what Marco said yesterday about dinner",
            "recall",
            "Marco",
            "yesterday",
            "dinner",
        ),
        ("What was the first thing I said?", "recall", "self", "first", None),
        ("what did we talk about last time", "recall", "any", "last_session", None),
        ("What did you say before the break?", "recall", "agent", "before_break", None),
        ("Play what Dana said about the budget.", "replay", "Dana", None, "budget"),
        (
            "Can I hear that part again where Marco talks about the garden?",
            "replay",
            "Marco",
            None,
            "garden",
        ),
        ("Forget what I said about my address.", "forget", "self", None, "address"),
        ("Please delete everything Marco said today", "forget", "Marco", "today", None),
        ("I'm Dana.", "name", "any", None, None),
        ("Hi, this is Marco speaking", "name", "any", None, None),
        ("Hello there!", "chat", "any", None, None),
        ("The budget for the trip is four thousand euros.", "chat", "any", None, None),
        ("Remind me to buy milk tomorrow.", "chat", "any", None, None),
        ("Play some jazz.", "chat", "any", None, None),
        ("Forget it, never mind.", "chat", "any", None, None),
        ("I'm tired today.", "chat", "any", None, None),
    ],
)
def test_routes(
    router: Router, text: str, intent: str, speaker: str, time: str | None, topic: str | None
) -> None:
    r = router.route(text, NAMES)
    assert r.intent == intent, (text, r)
    if r.needs_memory:
        assert r.speaker == speaker
        assert r.time == time
        assert r.plan is not None
        if topic is None:
            assert r.plan.content is None or topic is None
        else:
            assert r.plan.content is not None and topic in r.plan.content
        assert r.plan.role == (
            "agent" if speaker == "agent" else "user" if speaker == "self" else None
        )


def test_names_come_from_a_self_introduction(router: Router) -> None:
    assert router.route("I'm Dana.", NAMES).name == "Dana"
    assert router.route("my name is priya", NAMES).name == "Priya"
    assert router.route("I'm sorry", NAMES).intent != "name"


def test_names_as_people_have_them(router: Router) -> None:
    """Names outside plain ASCII words: accents, hyphens, apostrophes, inner capitals,
    two words, and short names with a participle's ending."""
    for text, name in (
        ("I'm José.", "José"),
        ("Hi, I'm Jean-Luc.", "Jean-Luc"),
        ("My name is Siobhan O'Brien.", "Siobhan O'Brien"),
        ("I'm McKenzie.", "McKenzie"),
        ("This is Zoë.", "Zoë"),
        ("I'm Łukasz.", "Łukasz"),
        ("I'm Ted.", "Ted"),
        ("Hi, I'm Ming, nice to meet you.", "Ming"),
        ("I'm Anna Lee, nice to meet you.", "Anna Lee"),
        ("my name is ted", "Ted"),
        ("my name is jean-luc", "Jean-Luc"),
        ("I'm Dana Thursday.", "Dana"),
        ("I'm Will Smith.", "Will Smith"),
        ("I'm Don Draper.", "Don Draper"),
        ("I'm Emre Can.", "Emre Can"),
    ):
        r = router.route(text, NAMES)
        assert (r.intent, r.name) == ("name", name), text
    r = router.route("Hi, this is Ming speaking, what did Dana say?", NAMES)
    assert (r.introduces, r.speaker) == ("Ming", "Dana")
    r = router.route("Hi, I'm Jean-Luc. What did Dana say about the budget?", NAMES)
    assert (r.introduces, r.speaker) == ("Jean-Luc", "Dana")
    # still no names: adjectives and participles past four letters, possessives
    for text in ("I'm Tired.", "I'm Going.", "I'm Positive.", "I'm José's brother."):
        assert router.route(text, NAMES).intent != "name", text
    # two capitalised words after "it's" / "this is" or before "here" are a song, a place,
    # a day or a desk, not a name; a short participle oddly capitalised is no name
    for text in (
        "Guess what's playing? It's Taylor Swift.",
        "Where are you now? It's New York.",
        "What day is it? It's Black Friday.",
        "Hi, it's New York calling.",
        "Hi, this is Customer Service.",
        "Tech Support here.",
        "I'm Fed up.",
        "I'm Used to it.",
        "i'm łukasz",
        "I'm With Dana.",
    ):
        r = router.route(text, NAMES)
        assert r.intent != "name" and r.introduces is None, (text, r.name)
    # a second capitalised word that is a function word, or does not end the clause, is
    # not part of the name
    for text, name in (
        ("I'm Dana Can you help me", "Dana"),
        ("I'm Dana Too.", "Dana"),
        ("My name is Anna Lee and I work here.", "Anna"),
        ("It's Dana Again.", "Dana"),
    ):
        r = router.route(text, NAMES)
        assert name in (r.name, r.introduces), (text, r.name, r.introduces)
    r = router.route("I'm Dana. It's Marco Polo.", NAMES)
    assert r.introduces == "Dana" or r.name == "Dana"


@pytest.mark.parametrize(
    "text",
    [
        "I'm " + "ł" * 20_000,
        "It's " + "Łł" * 10_000 + " x",
        "I'm " + "Ab" * 10_000 + ".",
        "my " + "a" * 20_000,
        "This is " + "O'B" * 5_000,
    ],
)
def test_a_long_word_does_not_hold_the_router(router: Router, text: str) -> None:
    """A typed turn may hold 20,000 characters: reading it for a name must not take the
    regular expressions into backtracking over the word (that held a server's every
    session for tens of seconds)."""
    done: list[object] = []
    worker = threading.Thread(target=lambda: done.append(router.route(text, NAMES)))
    worker.start()
    worker.join(20)
    assert done, "the router was still reading a long word after 20 s"


def test_a_turn_opening_with_a_name_is_routed_by_what_follows(router: Router) -> None:
    r = router.route("This is Marco speaking, I disagree with the budget.", NAMES)
    assert (r.intent, r.introduces, r.name) == ("chat", "Marco", None)
    r = router.route("Hi, I'm Priya. What did Dana say about the budget?", NAMES)
    assert (r.intent, r.introduces, r.speaker) == ("recall", "Priya", "Dana")
    r = router.route("My name is Priya; forget what I said about the train.", NAMES)
    assert (r.intent, r.introduces, r.speaker) == ("forget", "Priya", "self")
    r = router.route("Hey Vox, it's Priya here. What did Marco say about the budget?", NAMES)
    assert (r.intent, r.introduces, r.speaker) == ("recall", "Priya", "Marco")
    r = router.route("Priya here, what did Marco say about the budget?", NAMES)
    assert (r.introduces, r.speaker) == ("Priya", "Marco")
    # lower-case ASR text: only a name some voice has
    r = router.route("this is dana speaking, what did marco say about the budget?", NAMES)
    assert (r.introduces, r.speaker) == ("Dana", "Marco")
    assert router.route("this is zed speaking, what did marco say?", NAMES).introduces is None
    # no opening introduction: a day, a holiday, a title, a possessive, the agent's own
    # name, no pause, someone else presented ("This is Marco, he's ..."), a place
    for text in (
        "It's Monday, what did I say?",
        "It's Christmas, what did Ben say about presents?",
        "Hi, I'm Dr. Patel, what did Ben say?",
        "This is Ben's test, right?",
        "Hello, this is Vox, hi.",
        "I'm Dana and I like trains.",
        "I'm Dana.",
        "This is Marco, my colleague.",
        "Hey, this is Marco, he's new here.",
        "It's Ben, right? What did he say?",
        "This is Paris, the city I love.",
        "I'm Anna, she said, and then she left.",
        "It's Ben now, right? What did he say?",
        "Hi, it's Ben now, right? What did he say?",
        "This is London calling, what did Ben say?",
    ):
        assert router.route(text, NAMES).introduces is None, text
    assert router.route("Hi, I'm Mr. Jones.", NAMES).intent != "name"
    assert router.route("I'm Anna, she said, and then she left.", NAMES).intent != "name"
    assert router.route("I'm Marco's sister.", NAMES).intent != "name"
    # everyday openers before "here", "again" or "now" are no names
    for text in (
        "Once again, what did Marco say?",
        "Thanks again, that helps.",
        "Hello again, what did Marco say?",
        "Right now, I need the budget.",
        "Look here, I disagree.",
        "Same here, I disagree.",
        "Same here.",
    ):
        r = router.route(text, NAMES)
        assert r.introduces is None and r.intent != "name", text
    # a self-introduction that describes oneself still names the voice
    for text in ("Hi, I'm Priya, who are you?", "I'm Priya, his wife.", "I'm Priya, right?"):
        r = router.route(text, NAMES)
        assert "Priya" in (r.name, r.introduces), text
    # an introduction and a pleasantry is an introduction
    for text in ("Hi, I'm Priya, nice to meet you.", "I'm Priya. How are you today?"):
        r = router.route(text, NAMES)
        assert (r.intent, r.name) == ("name", "Priya"), text
    r = router.route("Hi, I'm Priya. She told me about the budget.", NAMES)
    assert r.introduces == "Priya"  # after a full stop, "she" is a new sentence
    r = router.route("Hi, it's Priya again. What did Ben say?", [*NAMES, "Ben"])
    assert (r.introduces, r.speaker) == ("Priya", "Ben")
    r = router.route("Good morning, I'm Priya. What did Ben say?", [*NAMES, "Ben"])
    assert (r.introduces, r.speaker) == ("Priya", "Ben")
    r = router.route("Hi, I'm Priya. I'm Vox's new user, what did Ben say?", [*NAMES, "Ben"])
    assert r.introduces == "Priya"
    assert router.route("Hi, I'm Dana. My name is Dana.", NAMES).intent == "name"
    # two names for one voice name neither
    for text in ("I'm Dana. I'm Marco.", "I'm Dana. I'm Priya. What did Ben say?"):
        r = router.route(text, NAMES)
        assert r.introduces is None and r.intent != "name", text
    # a long run of introductions is one opening, not a recursion per name
    r = router.route("I'm Dana. " * 2000 + "What did Marco say?", NAMES)
    assert r.introduces == "Dana" and r.why.count("opens with a name") == 1


def test_style_and_environment_become_targets(router: Router) -> None:
    r = router.route("When did Dana sound sad?", NAMES)
    assert r.intent == "recall" and r.plan is not None
    assert str(r.plan.style) == "target:sad" and r.speaker == "Dana"
    r = router.route("What did Marco say with rain in the background?", NAMES)
    assert r.plan is not None and str(r.plan.environment) == "target:rain"


def test_confirmation_only_when_a_forget_waits(router: Router) -> None:
    assert router.route("yes", NAMES, pending_confirmation=True).intent == "confirm"
    assert router.route("no, keep it", NAMES, pending_confirmation=True).intent == "deny"
    assert router.route("yes", NAMES).intent == "chat"


def test_time_labels_become_windows() -> None:
    now = time.mktime((2026, 12, 1, 15, 0, 0, 0, 0, -1))
    today = resolve_time("today", session="s2", now=now)
    assert today.after is not None and today.after <= now and now - today.after < 86400
    yesterday = resolve_time("yesterday", session="s2", now=now)
    assert yesterday.before == today.after and yesterday.after == today.after - 86400
    sessions = [("s0", 10.0, 20.0), ("s1", 30.0, 40.0), ("s2", 50.0, 60.0)]
    assert resolve_time("last_session", session="s2", sessions=sessions, now=now).session == "s1"
    assert resolve_time("this_session", session="s2", now=now).session == "s2"
    brk = resolve_time("before_break", session="s2", session_times=[1, 2, 3, 100, 101], now=now)
    assert brk.session == "s2" and brk.before == pytest.approx(51.5)
    after = resolve_time("after_break", session="s2", session_times=[1, 2, 3, 100, 101], now=now)
    assert after.after == pytest.approx(51.5)
    assert resolve_time("first", session="s2", now=now).order == "first"


@pytest.mark.parametrize(
    "text",
    [
        "which station does my train leave from?",
        "so what's my sister called again",
        "where am I staying in Lisbon?",
        "and the hotel we booked, was it the one by the harbour?",
        "when's ben's math test?",
        "how long was I supposed to ice it",
        "the thai place, what was it called",
        "when can I pick up my glasses?",
        "what am I doing on Saturday?",
        "and when's ben's math test",
        "wait which station does my train leave from",
        "I just got back from a long walk. When's Ben's test?",
        # ASR ends many spoken questions with a full stop
        "which faucet is dripping.",
        "Where did I put the papers.",
    ],
)
def test_questions_with_no_cue_look_tentatively(router: Router, text: str) -> None:
    r = router.route(text, NAMES)
    assert r.intent == "recall" and r.tentative and r.plan is not None and r.plan.content
    assert r.terms and r.time is None and r.plan.time.label is None


def test_a_tentative_route_filters_by_the_askers_own_words_only(router: Router) -> None:
    mine = router.route("Hey Vox, which gate is my flight?", NAMES)
    assert mine.tentative and mine.speaker == "self" and mine.plan is not None
    assert mine.plan.role == "user" and "vox" not in mine.terms
    # "I" may ask for the agent's advice as well as for what the asker said
    own = router.route("how long was I supposed to ice it", NAMES)
    assert own.tentative and own.speaker == "any" and own.plan is not None
    assert own.plan.role is None
    # time words say what is asked about, not when it was said
    dinner = router.route("who is coming to dinner today?", NAMES)
    assert dinner.tentative and dinner.time is None and "today" in dinner.terms


def test_a_named_possessive_is_not_a_speaker_filter(router: Router) -> None:
    r = router.route("when's Dana's math test?", NAMES)
    assert r.tentative and r.speaker == "any" and r.plan is not None
    assert r.plan.speaker.mode == "any" and "dana" in r.terms and "vox" not in r.terms
    assert "vox" not in router.route("Hey Vox, which gate is my flight?", NAMES).terms


@pytest.mark.parametrize(
    "text",
    [
        "When I get home I'll call the dentist about my appointment.",
        "Had a great time at Ben's party.",
        "Do remember that my PIN is 4821.",
        "I lost my keys again.",
        "Where I grew up, it snowed every winter.",
        "I moved to Berlin, do you know any good cafes?",
        "what else could I plant next to the zucchini?",
        "où est mon parapluie ?",
        "Wo ist mein Regenschirm in der Küche?",
        "Hey Vox, how are you?",
        "I met Ben, who was upset about his math test.",
        "Yesterday, when we met, the train was late.",
        "When the kids get home I'll call Ben.",
        "Had the best time at Ben's party.",
        "What a day, the train to Lisbon was late.",
        "Which station does my train leave from? Could you help me with that?",
    ],
)
def test_statements_and_other_requests_are_not_questions_to_the_memory(
    router: Router, text: str
) -> None:
    r = router.route(text, NAMES)
    assert r.intent == "chat" and not r.tentative


@pytest.mark.parametrize(
    "text",
    [
        "what should I cook tonight?",
        "do I need a visa for Japan?",
        "how do I get to the station from here?",
        "can you set a timer for ten minutes",
        "my back hurts today",
        "what time is it?",
        "am I late?",
    ],
)
def test_requests_for_something_new_are_chat(router: Router, text: str) -> None:
    r = router.route(text, NAMES)
    assert r.intent == "chat" and not r.tentative


def test_requests_that_point_back_are_not_tentative(router: Router) -> None:
    r = router.route("What did I say about the budget?", NAMES)
    assert r.intent == "recall" and not r.tentative


def test_a_third_party_is_left_to_the_memory(router: Router) -> None:
    # not a speaker of this memory, so no rule of the past: the memory decides (a
    # memory that never heard of Churchill answers it as chat)
    r = router.route("What did Churchill say about democracy?", NAMES)
    assert r.intent == "recall" and r.tentative and r.speaker == "any"


def test_memory_holds_needs_half_the_content_words_in_one_turn() -> None:
    from voxmem.agent.route import memory_holds

    said = ["My train to the conference leaves from the north station.", "I love soup."]
    assert memory_holds("which station does my train leave from?", said)
    assert memory_holds("where do I go running?", ["I run along the river every morning."])
    # half of (popul, krakow) is there; a third of (highest, peak, whistler) is not
    assert memory_holds("what's the population of Krakow?", ["We fly to Krakow in May."])
    assert not memory_holds("what's the highest peak at Whistler?", ["We ski at Whistler."])
    # in one turn, not spread over several
    assert not memory_holds(
        "when is the math test for ben?", ["Ben loves football.", "The test was hard."]
    )
    # an earlier asking of the same question is not an answer to it; a statement with a
    # question after it, or a relative clause, is
    assert not memory_holds("when is Ben's math test?", ["When's Ben's math test?"])
    assert memory_holds("which station?", ["The north station, which is near the hotel."])
    assert memory_holds("which station?", ["It's the north station. Can you remind me?"])
    assert memory_holds("when is Ben's math test?", ["Ben's math test is on Thursday."])
    # words of asking and greeting are not evidence
    assert not memory_holds("hey, where did I park?", ["Hey, good morning!", "I said so."])
    assert not memory_holds("where's my umbrella?", said)
    assert not memory_holds("where's my umbrella?", [])


@pytest.mark.parametrize(
    ("text", "speaker", "unknown"),
    [
        # whose words are meant is a name no voice has: the name as heard
        ("Forget what Carlos said about her sister.", "any", "carlos"),
        ("Forget what my sister Anna said.", "self", "anna"),
        ("Forget what Bob told me about the party.", "self", "bob"),
        # whose words are meant is read from the request: an unknown name elsewhere in
        # it names no speaker
        ("Forget what I said to Anna about the party.", "self", None),
        ("Forget what Vox said about the budget.", "agent", None),
        ("Please forget what Carla's brother said.", "Carla", None),
        ("Erase what I said about Monday's meeting with Sarah.", "self", None),
        ("Forget what you told me about Olga, Vox.", "agent", None),
    ],
)
def test_a_name_no_voice_has_is_flagged_when_it_names_the_speaker(
    router: Router, text: str, speaker: str, unknown: str | None
) -> None:
    r = router.route(text, ["Carla", "David"])
    assert (r.intent, r.speaker, r.unknown_speaker) == ("forget", speaker, unknown)


def test_with_no_voice_named_any_name_of_a_speaker_is_unknown() -> None:
    """With no named voice the planner takes a heard name for a speaker; it is still no
    voice's name. The agent's own name is the agent's, whatever it is."""
    r = Router(agent_name="Ava").route("Forget what Carlos said about her sister.", [])
    assert (r.speaker, r.unknown_speaker) == ("any", "carlos")
    r = Router(agent_name="Ava").route("Forget what Ava said about the budget.", ["Carla"])
    assert (r.speaker, r.unknown_speaker) == ("agent", None)
