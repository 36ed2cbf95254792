"""Questions, the sentences that answer them, and related sentences that do not.

One table feeds every mini edition: INSPIRE-mini's dialogues (a question, then
its answer) and composite split (a spoken question, its answering passage),
VoiceTrace-mini's statements ("what did this speaker say about <topic>?") and
SQuTR-mini's corpus (answer: relevance 2, related: relevance 1).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fact:
    topic: str
    question: str
    answer: str
    related: str


FACTS: tuple[Fact, ...] = (
    Fact(
        "the budget",
        "When is the budget due?",
        "The budget has to be submitted by Friday at noon.",
        "Last year the budget was almost twice as large.",
    ),
    Fact(
        "the flight",
        "Why was your flight to Lisbon late?",
        "Our plane to Lisbon waited two hours because of fog at the airport.",
        "Lisbon has lovely old trams that climb the steep hills.",
    ),
    Fact(
        "the printer",
        "What is wrong with the printer upstairs?",
        "The printer on the third floor keeps jamming on thick paper.",
        "We order printer paper in large boxes every month.",
    ),
    Fact(
        "the dentist",
        "When is your dentist appointment?",
        "I see the dentist on Tuesday at half past four.",
        "My dentist moved her practice to a new building.",
    ),
    Fact(
        "the garden",
        "What are you planting in the garden this spring?",
        "This spring we are planting tomatoes and basil along the fence.",
        "The garden hose has a leak near the tap.",
    ),
    Fact(
        "the concert",
        "Why did the concert get cancelled?",
        "The concert was called off because the singer lost her voice.",
        "Concert tickets in that hall are usually very expensive.",
    ),
    Fact(
        "the apartment",
        "How big is the new apartment?",
        "The new apartment has three bedrooms and a small balcony.",
        "Rent for apartments downtown went up again this year.",
    ),
    Fact(
        "the football match",
        "Who won the football match on Saturday?",
        "Our team beat the visitors two to one on Saturday.",
        "The football pitch was muddy after a week of rain.",
    ),
    Fact(
        "the laptop",
        "Why is your laptop so slow?",
        "My laptop is slow because the disk is almost completely full.",
        "I bought this laptop second hand three years ago.",
    ),
    Fact(
        "the wedding",
        "Where will the wedding take place?",
        "The wedding will be held in a barn by the lake.",
        "Wedding invitations take weeks to design and print.",
    ),
    Fact(
        "the train strike",
        "How long will the train strike last?",
        "The rail workers plan to strike for three days next week.",
        "Trains on the coast line are often crowded in summer.",
    ),
    Fact(
        "the bakery",
        "What does the new bakery sell?",
        "The new bakery sells sourdough bread and cinnamon rolls.",
        "The bakery owner used to work as an engineer.",
    ),
    Fact(
        "the museum",
        "When does the museum open on Sundays?",
        "On Sundays the museum opens its doors at ten.",
        "The museum has a famous collection of old maps.",
    ),
    Fact(
        "the car repair",
        "How much did the car repair cost?",
        "Fixing the brakes on the car cost four hundred dollars.",
        "The car still smells of the dog after our road trip.",
    ),
    Fact(
        "the violin lessons",
        "How are the violin lessons going?",
        "She practises the violin every evening and can play two songs now.",
        "A good violin can cost more than a car.",
    ),
    Fact(
        "the heating",
        "When will the landlord fix the heating?",
        "The landlord promised to repair the radiators on Monday.",
        "Heating bills were very high last winter.",
    ),
    Fact(
        "the vacation",
        "Where are you going on vacation?",
        "We are spending our holiday hiking in the mountains of Norway.",
        "Vacation days at my company do not carry over to next year.",
    ),
    Fact(
        "the software update",
        "What did the software update change?",
        "The update fixed the login bug and made the app start faster.",
        "Our software team releases updates every second week.",
    ),
    Fact(
        "the dinner party",
        "What do we still need for the dinner party?",
        "For the dinner party we still need three chairs and more wine.",
        "Dinner parties at their house always end very late.",
    ),
    Fact(
        "the library",
        "Why is the library closed today?",
        "The library is shut today because the roof is being repaired.",
        "The library lends out tools as well as books.",
    ),
    Fact(
        "the marathon",
        "How did the marathon go?",
        "He finished the marathon in just under four hours.",
        "Marathon runners need a lot of pasta the night before.",
    ),
    Fact(
        "the puppy",
        "What is the new puppy called?",
        "We named the puppy Biscuit because of his brown fur.",
        "Puppies need to go outside every few hours.",
    ),
    Fact(
        "the quarterly report",
        "What does the quarterly report show?",
        "The quarterly report shows sales rose by ten percent in spring.",
        "Writing quarterly reports takes the whole finance team a week.",
    ),
    Fact(
        "the snowstorm",
        "How bad was the snowstorm last night?",
        "The snowstorm knocked out power for half the town last night.",
        "Snow tires are required on mountain roads in winter.",
    ),
    Fact(
        "the job interview",
        "How did your job interview go?",
        "The interview went well and they asked me to come back Thursday.",
        "Job interviews at big companies often have many rounds.",
    ),
    Fact(
        "the recipe",
        "What is the secret in your soup recipe?",
        "The secret is a spoon of smoked paprika in the soup.",
        "My grandmother wrote her recipes on little cards.",
    ),
    Fact(
        "the parking",
        "Where can I park near the office?",
        "You can park in the garage behind the office for free.",
        "Parking tickets in this city are very expensive.",
    ),
    Fact(
        "the telescope",
        "What did you see through the telescope?",
        "Through the telescope we could see the rings of Saturn.",
        "Telescopes work best far away from city lights.",
    ),
)
