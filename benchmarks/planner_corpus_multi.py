"""A generated corpus of retrieval instructions in languages other than English, with
the plan each asks for, for training the planner for other languages
(``train_planner_multi``: sentence heads over multilingual-e5 vectors and a per-unit
content classifier).

Each language has its own tables: grammatical frames (questions about what someone
said, requests for clips, fronted topics, bare noun phrases, the user's and the
agent's own turns, questions asked in a clip, continuations), request openers that
wrap clip descriptions, and the phrases that fill a frame's slots (speaker names,
topics with their content keys marked, ways of speaking, background sounds, times,
and "the same voice / tone / background as this clip"). A row's plan follows from
the slots its frame fills, so the gold is right by construction: ``same`` and
content taken from the clip only with a clip attached, a named speaker as written
in the text, content keys exactly as they appear in it. Some rows come with a clip
they do not use, and some are typed casually (lowercase, no final punctuation, a
filler word).

Its wordings are training data only: they never score the planner (the written
plan pools do).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from voxmem.benchmarks.pools import TIME_LABELS, PlanRow, check_plan_row
from voxmem.retrievers.vocabulary import ENVIRONMENT_WORDS, STYLE_WORDS

LANGS: tuple[str, ...] = (
    "es",
    "fr",
    "de",
    "it",
    "pt",
    "nl",
    "pl",
    "sv",
    "tr",
    "ru",
    "ja",
    "zh",
    "ko",
    "hi",
    "ar",
)
#: languages whose content keys are matched as substrings of the text
SUBSTRING_KEYS = ("ja", "zh", "ko", "hi")
#: languages written without spaces between words
UNSPACED = ("ja", "zh")
#: how often each family is drawn
FAMILY_WEIGHTS: dict[str, float] = {
    "topic": 10,
    "who_said_what": 13,
    "dialogue_recall": 12,
    "target_style": 10,
    "target_environment": 10,
    "same_speaker": 6,
    "same_style": 4.5,
    "same_environment": 4.5,
    "speaker_style": 8,
    "composite": 15,
    "qa": 3.5,
    "continuation": 3.5,
}
FAMILIES = tuple(FAMILY_WEIGHTS)
#: chance that a row which does not use a clip comes with one anyway
UNUSED_CLIP = 0.12
#: chance that an optional time slot (``{w?}``) is filled, by family
OPTIONAL_TIME = {"dialogue_recall": 0.6}
OPTIONAL_TIME_OTHER = 0.2
CASUAL = 0.25


def _list(text: str) -> list[str]:
    """Items separated by ``|`` (runs of whitespace are one space)."""
    return [" ".join(p.split()) for p in text.split("|") if p.strip()]


def _table(text: str, labels: Sequence[str]) -> dict[str, list[str]]:
    """``label: phrase | phrase`` lines (a line may run on) as label -> phrases."""
    parts = re.split(r"(?m)^\s*([a-z_]+):\s", text)
    out = {label: _list(body) for label, body in zip(parts[1::2], parts[2::2], strict=True)}
    if set(out) != set(labels):
        raise ValueError(f"labels {sorted(set(labels) ^ set(out))} missing or unknown")
    return out


@dataclass(frozen=True)
class Name:
    name: str
    gender: str  # m | f
    #: the name in the form a frame's ``{ng}`` slot takes (Turkish genitive)
    genitive: str


@dataclass(frozen=True)
class Topic:
    bare: str  # the topic as a noun phrase, content keys in [brackets]
    about: str  # the topic as "about ..." in the language


@dataclass(frozen=True)
class Frame:
    kind: str  # Q qa, K continuation, U the user's turns, A the agent's, B clip body, S sentence
    text: str

    @property
    def slots(self) -> list[tuple[str, bool]]:
        """The frame's slots, each with whether it is optional."""
        return [(m[1], bool(m[2])) for m in re.finditer(r"\{(\w+)(\??)\}", self.text)]

    @property
    def family(self) -> str:
        """The family of a row from this frame with its optional slots left empty."""
        return _family(self.kind, {s for s, optional in self.slots if not optional})


@dataclass(frozen=True)
class Lang:
    code: str
    names: list[Name]
    topics: list[Topic]
    styles: dict[str, list[str]]
    envs: dict[str, list[str]]
    times: dict[str, list[str]]
    #: "this person" as a subject; "with the same voice as this clip" as a modifier
    same_subject: list[str]
    same_voice: list[str]
    same_style: list[str]
    same_env: list[str]
    openers: list[str]  # wrap a clip body: "{X}"
    fillers: list[str]
    frames: list[Frame]
    cased: bool = True


def _lang(
    code: str,
    *,
    names: str,
    topics: str,
    about: str,
    styles: str,
    envs: str,
    times: str,
    same_subject: str,
    same_voice: str,
    same_style: str,
    same_env: str,
    openers: str,
    fillers: str,
    frames: str,
    cased: bool = True,
) -> Lang:
    people = []
    for spec in names.split():
        name, gender, *gen = spec.split("/")
        people.append(Name(name, gender, gen[0] if gen else name))
    topic_list = []
    for spec in _list(topics):
        bare, _, about_form = (p.strip() for p in spec.partition("="))
        topic_list.append(Topic(bare, about_form or about.format(bare)))
    frame_list = []
    for line in frames.strip().splitlines():
        kind, _, text = line.strip().partition(" ")
        frame_list.append(Frame(kind, text.strip()))
    return Lang(
        code=code,
        names=people,
        topics=topic_list,
        styles=_table(styles, list(STYLE_WORDS)),
        envs=_table(envs, list(ENVIRONMENT_WORDS)),
        times=_table(times, TIME_LABELS),
        same_subject=_list(same_subject),
        same_voice=_list(same_voice),
        same_style=_list(same_style),
        same_env=_list(same_env),
        openers=_list(openers),
        fillers=_list(fillers),
        frames=frame_list,
        cased=cased,
    )


def _family(kind: str, slots: set[str]) -> str:
    """The family of a plan asked for by a frame of ``kind`` with ``slots`` filled."""
    if kind == "Q":
        return "qa"
    if kind == "K":
        return "continuation"
    topic = bool(slots & {"t", "T"})
    speaker = "named" if slots & {"n", "ng"} else "same" if slots & {"P", "sv"} else None
    style = "target" if "s" in slots else "same" if "ss" in slots else None
    env = "target" if "e" in slots else "same" if "se" in slots else None
    time = "w" in slots
    if kind in "UA":
        return "dialogue_recall"
    asked = [x for x in (speaker, style, env) if x] + ["time"] * time + ["topic"] * topic
    if len(asked) == 1:
        if speaker == "same":
            return "same_speaker"
        if style:
            return f"{style}_style"
        if env:
            return f"{env}_environment"
        if topic:
            return "topic"
    if len(asked) == 2:
        if speaker and topic:
            return "who_said_what"
        if speaker == "named" and style == "target":
            return "speaker_style"
    if len(asked) < 2:
        raise ValueError(f"a frame asks for {asked or 'nothing'}: {kind} {sorted(slots)}")
    return "composite"


ES = _lang(
    "es",
    names="Marta/f Javier/m Lucía/f Andrés/m Carmen/f Pablo/m Elena/f Álvaro/m Sofía/f Raúl/m",
    about="sobre {}",
    topics="""
    el [alquiler] | la [boda] | el [visado] | la [cita] con el [médico] | las [vacaciones] |
    el [contrato] | la [reparación] del [coche] | la [fiesta] de [cumpleaños] | el [examen] |
    el [vuelo] | el [sueldo] | el [presupuesto] | la [mudanza] | la [factura] de la [luz] |
    el [seguro] | la [entrevista] de [trabajo] | la [hipoteca] | el [perro] |
    la [reunión] del [lunes] | los [regalos] de [Navidad] | las [notas] del [colegio] |
    el [viaje] a [Lisboa] | la [receta] de la [paella]
    """,
    styles="""
    whisper: susurrando | en voz baja | en susurros
    sad: con voz triste | muy triste | con pena
    excited: muy contento | emocionado | con alegría | muy animado
    angry: enfadado | con rabia | de mal humor
    fast: muy rápido | deprisa | atropelladamente
    slow: muy despacio | lentamente | despacito
    monotone: con voz monótona | sin entonación | de forma monótona
    high: con voz aguda | con un tono agudo | con voz chillona
    low: con voz grave | con voz profunda | con un tono muy grave
    neutral: con tono neutro | tranquilamente | con voz normal y calmada
    crying: llorando | entre lágrimas | sollozando
    laughing: riéndose | entre risas | muerto de risa
    shouting: gritando | a gritos | a voz en grito
    """,
    envs="""
    rain: con lluvia de fondo | mientras llovía | con el ruido de la lluvia
    thunderstorm: con la tormenta de fondo | con truenos | durante la tormenta
    wind: con viento | con el ruido del viento | con mucho viento de fondo
    birds: con pájaros cantando | con pájaros de fondo | con el canto de los pájaros
    dog: con un perro ladrando | con ladridos de fondo | mientras ladra un perro
    cat: con un gato maullando | con maullidos de fondo
    phone: con un teléfono sonando | mientras suena el móvil | con el teléfono sonando de fondo
    bell: con una campana de fondo | con el timbre sonando | cuando suena el timbre
    alarm: con una alarma sonando | con la alarma de fondo | mientras suena el despertador
    typing: con alguien tecleando | con ruido de teclado | con el tecleo de fondo
    clock: con el tictac de un reloj | con un reloj de fondo
    engine: con el motor de un coche | con ruido de motor | con un coche arrancando
    footsteps: con pasos de fondo | con ruido de pasos | con alguien caminando
    crowd: con mucha gente de fondo | con el murmullo de la gente | en medio de una multitud
    music: con música de fondo | con música sonando | mientras suena música
    water: con agua corriendo | con el grifo abierto | con ruido de agua
    hum: con un zumbido de fondo | con el zumbido de la nevera | con un zumbido eléctrico
    static: con interferencias | con ruido de estática | con la radio chisporroteando
    camera: con clics de cámara | con el obturador de una cámara | mientras sacan fotos
    paper: con ruido de papeles | con alguien pasando páginas | con papeles de fondo
    """,
    times="""
    today: hoy | esta mañana | hoy por la tarde
    yesterday: ayer | anoche | ayer por la tarde
    this_session: en esta conversación | hace un momento en este chat | en esta sesión
    last_session: la última vez que hablamos | en nuestra conversación anterior |
        en la sesión pasada
    first: al principio de todo | al comienzo de la conversación | nada más empezar
    latest: más recientemente | por última vez
    before_break: antes de la pausa | antes del descanso
    after_break: después de la pausa | tras el descanso | a la vuelta del descanso
    """,
    same_subject="esta persona | la persona de este audio | el que habla en este clip | esta voz",
    same_voice="""con la misma voz que este audio | de la misma persona que este clip |
    del mismo hablante que esta grabación | con esta misma voz""",
    same_style="""con el mismo tono que este audio | con la misma forma de hablar que este clip |
    con el mismo estado de ánimo que esta grabación""",
    same_env="""con el mismo fondo que esta grabación | con el mismo ruido de fondo que este clip |
    en el mismo sitio que este audio | con el mismo ambiente que este clip""",
    openers="""busca {X} | búscame {X} | ponme {X} | ¿puedes encontrar {X}? | quiero escuchar {X} |
    muéstrame {X} | {X} | {X}, por favor | ¿tienes {X}? | reproduce {X}""",
    fillers="bueno, | eh, | oye, | a ver,",
    frames="""
    Q responde a esto
    Q ¿cuál es la respuesta a esta pregunta?
    Q busca la respuesta a lo que pregunta este audio
    Q ¿me contestas a la pregunta del clip?
    Q encuentra dónde se responde esta pregunta
    Q la respuesta a esto, por favor
    Q ¿alguien contestó a esto?
    Q ¿qué respondieron a esta pregunta?
    K ¿qué viene después de esto?
    K sigue a partir de aquí
    K ¿y qué se dijo justo después?
    K busca la continuación de este audio
    K ¿cómo sigue esta conversación?
    K lo que viene a continuación de este clip
    K pon lo que se dijo después de esto
    K continúa desde este punto
    Q ¿sabes la respuesta a lo que se pregunta aquí?
    Q contesta la pregunta de esta grabación
    K ¿qué dijeron después?
    K pon la parte siguiente a este audio
    S ¿qué dijo {n} {w?} {t}?
    S ¿qué opina {n} {t}?
    S {T}: ¿qué dijo {n}?
    S lo que contó {n} {w?} {t}
    S ¿qué comentó {n} {t}?
    S ¿qué dice {P} {t}?
    S ¿qué más dijo {P} {t}?
    B las partes donde {n} habla {t}
    B lo que dijo {n} {t}
    U ¿qué dije yo {w?} {t}?
    U lo que te conté {w?} {t}
    U mis palabras {t}
    U recuérdame qué dije {t} {w?}
    U ¿qué te comenté {w?} {t}?
    A ¿qué me dijiste {w?} {t}?
    A tu respuesta {t}
    A ¿qué me recomendaste {w?} {t}?
    A lo que me explicaste {t} {w?}
    A recuérdame lo que me contestaste {t}
    S ¿qué se dijo {t}?
    S {T}
    S todo lo que se habló {t}
    S ¿alguien mencionó {T}?
    S {T}, ¿qué se comentó?
    B las partes que hablan {t}
    B los momentos en que se habla {t}
    B las partes donde alguien habla {s}
    B los momentos en que se habla {s}
    B fragmentos de alguien hablando {s}
    S ¿cuándo habló alguien {s}?
    B las partes donde {n} habla {s}
    B los momentos en que {n} habla {s}
    B a {n} hablando {s}
    S ¿cuándo habló {n} {s}?
    B las partes {e}
    B grabaciones {e}
    B los momentos {e}
    S ¿qué se dijo {e}?
    B más audios {sv}
    B otras partes {sv}
    B todo lo que hay {sv}
    S ¿qué más dijo {P}?
    B partes {ss}
    B fragmentos de alguien hablando {ss}
    B grabaciones {se}
    B partes {se}
    B partes {sv} {e}
    B lo que dijo {n} {e}
    B las partes donde {n} habla {s} {e}
    B partes donde alguien habla {s} {e}
    B partes {sv} donde habla {s}
    B los momentos en que {n} habla {s} {w}
    S ¿qué dijo {n} {w} {t}?
    S ¿qué dijo {P} {w} {t}?
    S ¿qué dijo {n} {t} {e}?
    B partes {ss} {e}
    B partes {se} donde habla {n}
    S ¿qué se dijo {w} {t}?
    """,
)

FR = _lang(
    "fr",
    names="Claire/f Julien/m Camille/f Thomas/m Léa/f Nicolas/m Sophie/f Hugo/m Manon/f",
    about="sur {}",
    topics="""
    le [loyer] | le [mariage] | le [visa] | le [rendez-vous] chez le [médecin] | les [vacances] |
    le [contrat] | la [réparation] de la [voiture] | la [fête] d'[anniversaire] | l'[examen] |
    le [vol] | le [salaire] | le [budget] | le [déménagement] | la [facture] d'[électricité] |
    l'[assurance] | l'[entretien] d'[embauche] | le [crédit] [immobilier] | le [chien] |
    la [réunion] de [lundi] | les [cadeaux] de [Noël] | les [notes] de l'[école] |
    le [voyage] à [Lisbonne] | la [recette] de la [tarte]
    """,
    styles="""
    whisper: en chuchotant | à voix basse | en murmurant
    sad: d'une voix triste | tristement | avec tristesse
    excited: tout content | avec enthousiasme | joyeusement | d'un ton joyeux
    angry: en colère | d'un ton énervé | avec colère
    fast: très vite | à toute vitesse | rapidement
    slow: très lentement | lentement | en prenant son temps
    monotone: d'une voix monotone | sans intonation | de façon monocorde
    high: d'une voix aiguë | avec une voix haut perchée | d'une voix fluette
    low: d'une voix grave | d'une voix profonde | d'une voix très grave
    neutral: d'un ton neutre | calmement | d'une voix posée
    crying: en pleurant | en larmes | en sanglotant
    laughing: en riant | en rigolant | avec des éclats de rire
    shouting: en criant | en hurlant | à tue-tête
    """,
    envs="""
    rain: avec la pluie en fond | pendant qu'il pleut | avec le bruit de la pluie
    thunderstorm: pendant l'orage | avec du tonnerre | avec l'orage en fond
    wind: avec du vent | avec le bruit du vent | dans le vent
    birds: avec des oiseaux qui chantent | avec des chants d'oiseaux | avec les oiseaux en fond
    dog: avec un chien qui aboie | avec des aboiements | avec un chien en fond
    cat: avec un chat qui miaule | avec des miaulements
    phone: avec un téléphone qui sonne | pendant que le portable sonne |
        avec une sonnerie de téléphone
    bell: avec une cloche | avec la sonnette | quand on sonne à la porte
    alarm: avec une alarme | avec le réveil qui sonne | avec une alarme en fond
    typing: avec quelqu'un qui tape au clavier | avec des bruits de clavier |
        avec le clavier en fond
    clock: avec le tic-tac d'une horloge | avec une pendule en fond
    engine: avec un bruit de moteur | avec le moteur d'une voiture | avec une voiture qui démarre
    footsteps: avec des bruits de pas | avec quelqu'un qui marche | avec des pas en fond
    crowd: avec du monde autour | au milieu de la foule | avec des gens qui discutent en fond
    music: avec de la musique en fond | avec de la musique | pendant qu'il y a de la musique
    water: avec de l'eau qui coule | avec le robinet ouvert | avec un bruit d'eau
    hum: avec un bourdonnement | avec le ronronnement du frigo | avec un bourdonnement électrique
    static: avec des grésillements | avec de la friture sur la ligne | avec des parasites
    camera: avec des déclics d'appareil photo | pendant qu'on prend des photos |
        avec le bruit d'un appareil photo
    paper: avec des bruits de papier | avec quelqu'un qui tourne les pages |
        avec des feuilles qu'on froisse
    """,
    times="""
    today: aujourd'hui | ce matin | cet après-midi
    yesterday: hier | hier soir
    this_session: dans cette conversation | tout à l'heure dans ce chat | pendant cette session
    last_session: la dernière fois qu'on a parlé | lors de notre conversation précédente |
        à la session d'avant
    first: tout au début | au début de la conversation | en tout premier
    latest: le plus récemment | en dernier | tout récemment
    before_break: avant la pause | juste avant la pause
    after_break: après la pause | au retour de la pause
    """,
    same_subject="cette personne | la personne de cet extrait | celui qui parle ici | cette voix",
    same_voice="""avec la même voix que cet extrait | de la même personne que cet audio |
    du même locuteur que cet enregistrement | avec cette voix""",
    same_style="""sur le même ton que cet extrait | avec la même façon de parler que cet audio |
    avec la même humeur que cet enregistrement""",
    same_env="""avec le même fond sonore que cet enregistrement |
    dans le même endroit que cet extrait |
    avec le même bruit de fond que cet audio""",
    openers="""cherche {X} | trouve-moi {X} | mets-moi {X} | tu peux retrouver {X} ? |
    je veux écouter {X} | montre-moi {X} | {X} | {X}, s'il te plaît |
    pourriez-vous trouver {X} ? | joue {X}""",
    fillers="euh, | alors, | bon, | dis,",
    frames="""
    Q réponds à ça
    Q quelle est la réponse à cette question ?
    Q trouve la réponse à la question de cet extrait
    Q tu peux répondre à ce qu'on demande ici ?
    Q cherche où on répond à cette question
    Q la réponse à ça, s'il te plaît
    Q est-ce que quelqu'un a répondu à ça ?
    Q qu'est-ce qu'on a répondu à cette question ?
    K qu'est-ce qui vient après ça ?
    K continue à partir d'ici
    K et juste après, qu'est-ce qui a été dit ?
    K trouve la suite de cet extrait
    K comment continue cette conversation ?
    K la suite de cet audio
    K mets ce qui a été dit après ça
    K reprends à partir de ce moment
    Q tu connais la réponse à ce qui est demandé ici ?
    Q réponds à la question de cet enregistrement
    K qu'est-ce qu'ils ont dit ensuite ?
    K mets le passage qui suit cet audio
    S qu'est-ce que {n} a dit {w?} {t} ?
    S qu'a dit {n} {t} ?
    S {T}, qu'en pense {n} ?
    S ce que {n} a raconté {w?} {t}
    S qu'est-ce que {n} a dit concernant {T} ?
    S que dit {P} {t} ?
    S qu'est-ce que {P} a dit d'autre {t} ?
    B les passages où {n} évoque {T}
    B ce que {n} a dit {t}
    U qu'est-ce que j'ai dit {w?} {t} ?
    U ce que je t'ai raconté {w?} {t}
    U ce que j'ai dit moi {t}
    U rappelle-moi ce que j'ai dit {t} {w?}
    U qu'est-ce que je t'avais dit concernant {T} ?
    A qu'est-ce que tu m'as dit {w?} {t} ?
    A ta réponse {t}
    A qu'est-ce que tu m'as conseillé {w?} concernant {T} ?
    A ce que tu m'as expliqué {t} {w?}
    A rappelle-moi ce que tu m'as répondu {t}
    S qu'est-ce qui a été dit {t} ?
    S {T}
    S tout ce qui s'est dit {t}
    S quelqu'un a mentionné {T} ?
    S {T}, qu'est-ce qu'on en a dit ?
    B les passages concernant {T}
    B les moments où on évoque {T}
    B les passages où quelqu'un parle {s}
    B les moments où l'on parle {s}
    B des extraits de quelqu'un qui parle {s}
    S quand est-ce que quelqu'un a parlé {s} ?
    B les passages où {n} parle {s}
    B les moments où {n} parle {s}
    B {n} qui parle {s}
    S quand est-ce que {n} a parlé {s} ?
    B les passages {e}
    B les enregistrements {e}
    B les moments {e}
    S qu'est-ce qui a été dit {e} ?
    B d'autres extraits {sv}
    B d'autres passages {sv}
    B tout ce qu'il y a {sv}
    S qu'est-ce que {P} a dit d'autre ?
    B les passages {ss}
    B des extraits où quelqu'un parle {ss}
    B les enregistrements {se}
    B les passages {se}
    B les passages {sv} {e}
    B ce que {n} a dit {e}
    B les passages où {n} parle {s} {e}
    B les moments où quelqu'un parle {s} {e}
    B les extraits {sv} où on parle {s}
    B les moments où {n} parle {s} {w}
    S qu'est-ce que {n} a dit {w} {t} ?
    S qu'a dit {P} {w} {t} ?
    S qu'est-ce que {n} a dit {t} {e} ?
    B les passages {ss} {e}
    B les passages {se} où parle {n}
    S qu'est-ce qui a été dit {w} {t} ?
    """,
)

DE = _lang(
    "de",
    names="Anna/f Lukas/m Julia/f Felix/m Lena/f Jonas/m Sarah/f Max/m Mia/f Tobias/m",
    about="über {}",
    topics="""
    die [Miete] | die [Hochzeit] | das [Visum] | der [Arzttermin] = über den [Arzttermin] |
    der [Urlaub] = über den [Urlaub] | der [Vertrag] = über den [Vertrag] | die [Autoreparatur] |
    die [Geburtstagsfeier] | die [Prüfung] | der [Flug] = über den [Flug] | das [Gehalt] |
    das [Budget] | der [Umzug] = über den [Umzug] | die [Stromrechnung] | die [Versicherung] |
    das [Vorstellungsgespräch] | der [Kredit] = über den [Kredit] |
    der [Hund] = über den [Hund] | das [Meeting] am [Montag] | die [Weihnachtsgeschenke] |
    die [Zeugnisse] | die [Reise] nach [Lissabon] | das [Rezept] für den [Kuchen]
    """,
    styles="""
    whisper: flüsternd | im Flüsterton | ganz leise flüsternd
    sad: traurig | mit trauriger Stimme | bedrückt
    excited: fröhlich | aufgeregt | begeistert | gut gelaunt
    angry: wütend | verärgert | mit wütender Stimme
    fast: sehr schnell | hastig | ganz schnell
    slow: sehr langsam | langsam und gedehnt | ganz langsam
    monotone: monoton | ohne jede Betonung | eintönig
    high: mit hoher Stimme | mit piepsiger Stimme | mit ganz hoher Stimme
    low: mit tiefer Stimme | mit einer ganz tiefen Stimme | mit dunkler, tiefer Stimme
    neutral: ruhig und sachlich | in neutralem Ton | ganz normal und ruhig
    crying: weinend | unter Tränen | schluchzend
    laughing: lachend | kichernd | unter Lachen
    shouting: schreiend | laut schreiend | brüllend
    """,
    envs="""
    rain: mit Regen im Hintergrund | bei Regen | mit Regengeräuschen
    thunderstorm: mit Gewitter im Hintergrund | mit Donner | während des Gewitters
    wind: mit Wind | mit Windgeräuschen | bei starkem Wind
    birds: mit Vogelgezwitscher | mit Vögeln im Hintergrund | mit zwitschernden Vögeln
    dog: mit bellendem Hund | mit Hundegebell | mit einem Hund im Hintergrund
    cat: mit miauender Katze | mit Katzenmiauen
    phone: mit klingelndem Telefon | mit Handyklingeln | während das Telefon klingelt
    bell: mit Glockenläuten | mit der Türklingel | während es an der Tür klingelt
    alarm: mit Alarm im Hintergrund | mit klingelndem Wecker | mit einem Alarmton
    typing: mit Tippgeräuschen | mit Tastaturklappern | während jemand tippt
    clock: mit tickender Uhr | mit Uhrticken
    engine: mit Motorgeräusch | mit laufendem Motor | mit einem Automotor im Hintergrund
    footsteps: mit Schritten im Hintergrund | mit Schrittgeräuschen
    crowd: mit vielen Leuten im Hintergrund | in einer Menschenmenge | mit Stimmengewirr
    music: mit Musik im Hintergrund | mit Hintergrundmusik | während Musik läuft
    water: mit laufendem Wasser | mit Wasserrauschen | mit offenem Wasserhahn
    hum: mit Brummen im Hintergrund | mit Kühlschrankbrummen | mit elektrischem Summen
    static: mit Rauschen und Knistern | mit Störgeräuschen | mit Radiorauschen
    camera: mit Kameraklicken | mit Auslösergeräuschen | während fotografiert wird
    paper: mit Papierrascheln | mit raschelndem Papier | während jemand blättert
    """,
    times="""
    today: heute | heute Morgen | heute Nachmittag
    yesterday: gestern | gestern Abend
    this_session: in diesem Gespräch | eben in diesem Chat | in dieser Sitzung
    last_session: beim letzten Mal | in unserem letzten Gespräch | in der letzten Sitzung
    first: ganz am Anfang | zu Beginn des Gesprächs | als Allererstes
    latest: zuletzt | ganz zuletzt | als Letztes
    before_break: vor der Pause | kurz vor der Pause
    after_break: nach der Pause | direkt nach der Pause
    """,
    same_subject="diese Person | die Person in diesem Clip | der Sprecher hier | diese Stimme",
    same_voice="""mit derselben Stimme wie in diesem Clip |
    von derselben Person wie in dieser Aufnahme | vom gleichen Sprecher wie hier |
    mit dieser Stimme""",
    same_style="""im gleichen Ton wie dieser Clip |
    mit der gleichen Sprechweise wie in dieser Aufnahme | in derselben Stimmung wie hier""",
    same_env="""mit demselben Hintergrund wie diese Aufnahme | am selben Ort wie dieser Clip |
    mit den gleichen Hintergrundgeräuschen wie hier""",
    openers="""such {X} | finde {X} | hol mir {X} | zeig mir {X} | kannst du {X} finden? |
    ich hätte gern {X} | {X} | {X}, bitte | könnten Sie {X} suchen? | gib mir {X}""",
    fillers="äh, | also, | ähm, | na ja,",
    frames="""
    Q beantworte das
    Q was ist die Antwort auf diese Frage?
    Q finde die Antwort auf die Frage in diesem Clip
    Q kannst du das hier beantworten?
    Q such die Stelle, wo diese Frage beantwortet wird
    Q die Antwort darauf, bitte
    Q hat jemand darauf geantwortet?
    Q was wurde auf diese Frage geantwortet?
    K was kommt danach?
    K mach hier weiter
    K und was wurde direkt danach gesagt?
    K finde die Fortsetzung von diesem Clip
    K wie geht das Gespräch weiter?
    K was kommt nach dieser Aufnahme?
    K spiel ab, was danach gesagt wurde
    K setz ab dieser Stelle fort
    Q weißt du die Antwort auf die Frage hier?
    Q beantworte die Frage aus dieser Aufnahme
    K was haben sie danach gesagt?
    K spiel den Teil nach diesem Clip ab
    S was hat {n} {w?} {t} gesagt?
    S was sagt {n} {t}?
    S {T} – was hat {n} dazu gesagt?
    S was {n} {w?} {t} erzählt hat
    S was erzählt {n} {t}?
    S was sagt {P} {t}?
    S was hat {P} sonst noch {t} gesagt?
    B die Stellen, an denen {n} {t} spricht
    B alles, was {n} {t} gesagt hat
    U was habe ich {w?} {t} gesagt?
    U was ich dir {w?} {t} erzählt habe
    U meine Worte {t}
    U erinnere mich, was ich {t} gesagt habe
    U was hab ich dir {w?} {t} erzählt?
    A was hast du mir {w?} {t} gesagt?
    A deine Antwort {t}
    A was hast du mir {w?} {t} empfohlen?
    A was du mir {t} erklärt hast
    A erinnere mich, was du mir {t} geantwortet hast
    S was wurde {t} gesagt?
    S {T}
    S alles, was {t} gesprochen wurde
    S wurde {T} erwähnt?
    S {T} – was wurde dazu gesagt?
    B Stellen {t}
    B die Momente, in denen {t} gesprochen wird
    B die Stellen, an denen jemand {s} spricht
    B Momente, in denen {s} gesprochen wird
    B Aufnahmen von jemandem, der {s} redet
    S wann hat jemand {s} gesprochen?
    B die Stellen, an denen {n} {s} spricht
    B die Momente, in denen {n} {s} redet
    B Aufnahmen, in denen {n} {s} spricht
    S wann hat {n} {s} gesprochen?
    B die Stellen {e}
    B Aufnahmen {e}
    B Momente {e}
    S was wurde {e} gesagt?
    B weitere Aufnahmen {sv}
    B andere Stellen {sv}
    B alles {sv}
    S was hat {P} sonst noch gesagt?
    B Stellen {ss}
    B Aufnahmen, in denen jemand {ss} spricht
    B Aufnahmen {se}
    B Stellen {se}
    B Stellen {sv} {e}
    B was {n} {e} gesagt hat
    B die Stellen, an denen {n} {s} {e} spricht
    B Momente, in denen jemand {s} {e} spricht
    B Aufnahmen {sv}, in denen {s} gesprochen wird
    B die Stellen, an denen {n} {w} {s} gesprochen hat
    S was hat {n} {w} {t} gesagt?
    S was hat {P} {w} {t} gesagt?
    S was hat {n} {e} {t} gesagt?
    B Stellen {ss} {e}
    B Stellen {se}, an denen {n} spricht
    S was wurde {w} {t} gesagt?
    """,
)
IT = _lang(
    "it",
    names="Giulia/f Marco/m Chiara/f Lorenzo/m Francesca/f Matteo/m Sara/f Davide/m Elena/f",
    about="su {}",
    topics="""
    l'[affitto] = sull'[affitto] | il [matrimonio] = sul [matrimonio] | il [visto] = sul [visto] |
    la [visita] dal [medico] = sulla [visita] dal [medico] | le [vacanze] = sulle [vacanze] |
    il [contratto] = sul [contratto] |
    la [riparazione] della [macchina] = sulla [riparazione] della [macchina] |
    la [festa] di [compleanno] = sulla [festa] di [compleanno] | l'[esame] = sull'[esame] |
    il [volo] = sul [volo] | lo [stipendio] = sullo [stipendio] | il [budget] = sul [budget] |
    il [trasloco] = sul [trasloco] | la [bolletta] della [luce] = sulla [bolletta] della [luce] |
    l'[assicurazione] = sull'[assicurazione] |
    il [colloquio] di [lavoro] = sul [colloquio] di [lavoro] | il [mutuo] = sul [mutuo] |
    il [cane] = sul [cane] | la [riunione] di [lunedì] = sulla [riunione] di [lunedì] |
    i [regali] di [Natale] = sui [regali] di [Natale] | le [pagelle] = sulle [pagelle] |
    il [viaggio] a [Lisbona] = sul [viaggio] a [Lisbona] |
    la [ricetta] della [lasagna] = sulla [ricetta] della [lasagna]
    """,
    styles="""
    whisper: sussurrando | a bassa voce | bisbigliando
    sad: con voce triste | tristemente | con aria triste
    excited: tutto contento | con entusiasmo | allegramente
    angry: arrabbiato | con rabbia | con tono arrabbiato
    fast: velocissimo | di fretta | molto velocemente
    slow: lentamente | con molta lentezza | molto lentamente
    monotone: con voce monotona | senza intonazione | in modo monotono
    high: con voce acuta | con una voce stridula | con voce molto alta e acuta
    low: con voce grave | con voce profonda | con un tono basso e profondo
    neutral: con tono neutro | con calma | con voce normale e tranquilla
    crying: piangendo | in lacrime | singhiozzando
    laughing: ridendo | tra le risate | sghignazzando
    shouting: urlando | gridando | a squarciagola
    """,
    envs="""
    rain: con la pioggia in sottofondo | mentre piove | col rumore della pioggia
    thunderstorm: durante il temporale | con i tuoni | con il temporale in sottofondo
    wind: con il vento | con il rumore del vento | con tanto vento
    birds: con gli uccelli che cantano | con il cinguettio degli uccelli
    dog: con un cane che abbaia | con dei latrati in sottofondo
    cat: con un gatto che miagola | con miagolii in sottofondo
    phone: con un telefono che squilla | mentre squilla il cellulare
    bell: con una campana | con il campanello che suona | mentre suonano alla porta
    alarm: con un allarme che suona | con la sveglia che suona
    typing: con qualcuno che scrive al computer | con il rumore della tastiera
    clock: con il ticchettio di un orologio | con un orologio in sottofondo
    engine: con il rumore di un motore | con una macchina accesa | con il motore acceso
    footsteps: con dei passi in sottofondo | con il rumore di passi
    crowd: in mezzo alla folla | con tanta gente in sottofondo | con il brusio della gente
    music: con la musica in sottofondo | con musica di sottofondo | mentre c'è musica
    water: con l'acqua che scorre | con il rubinetto aperto
    hum: con un ronzio in sottofondo | con il ronzio del frigo | con un ronzio elettrico
    static: con delle interferenze | con il fruscio della radio | con rumore statico
    camera: con il clic di una macchina fotografica | mentre scattano foto
    paper: con fruscio di fogli | con qualcuno che sfoglia pagine
    """,
    times="""
    today: oggi | stamattina | oggi pomeriggio
    yesterday: ieri | ieri sera
    this_session: in questa conversazione | poco fa in questa chat | in questa sessione
    last_session: l'ultima volta che abbiamo parlato | nella nostra conversazione precedente |
        nella sessione scorsa
    first: all'inizio | proprio all'inizio della conversazione | per prima cosa
    latest: più di recente | per ultimo | da ultimo
    before_break: prima della pausa | poco prima della pausa
    after_break: dopo la pausa | al ritorno dalla pausa
    """,
    same_subject="questa persona | la persona di questo audio | chi parla qui | questa voce",
    same_voice="""con la stessa voce di questo audio | della stessa persona di questa clip |
    dello stesso speaker di questa registrazione | con questa voce""",
    same_style="""con lo stesso tono di questo audio |
    con lo stesso modo di parlare di questa clip |
    con lo stesso umore di questa registrazione""",
    same_env="""con lo stesso sottofondo di questa registrazione |
    nello stesso posto di questa clip |
    con gli stessi rumori di fondo di questo audio""",
    openers="""cerca {X} | trovami {X} | mettimi {X} | riesci a trovare {X}? | voglio sentire {X} |
    fammi vedere {X} | {X} | {X}, per favore | potrebbe cercare {X}? | riproduci {X}""",
    fillers="ehm, | allora, | dunque, | senti,",
    frames="""
    Q rispondi a questo
    Q qual è la risposta a questa domanda?
    Q trova la risposta alla domanda di questo audio
    Q puoi rispondere a quello che chiede questa clip?
    Q cerca dove si risponde a questa domanda
    Q la risposta a questo, per favore
    Q qualcuno ha risposto a questo?
    Q cosa hanno risposto a questa domanda?
    K cosa viene dopo?
    K continua da qui
    K e subito dopo cosa è stato detto?
    K trova il seguito di questa clip
    K come continua questa conversazione?
    K quello che viene dopo questo audio
    K metti quello che è stato detto dopo
    K riprendi da questo punto
    Q sai la risposta a quello che si chiede qui?
    Q rispondi alla domanda di questa registrazione
    K cosa hanno detto dopo?
    K metti la parte che segue questo audio
    S cosa ha detto {n} {w?} {t}?
    S {T}: che ne pensa {n}?
    S quello che ha raccontato {n} {w?} {t}
    S cosa dice {n} {t}?
    S cosa ha commentato {n} {t}?
    S cosa dice {P} {t}?
    S cos'altro ha detto {P} {t}?
    B tutto quello che {n} ha detto {t}
    B i momenti in cui {n} commenta {T}
    U cosa ho detto {w?} {t}?
    U quello che ti ho raccontato {w?} {t}
    U le mie parole {t}
    U ricordami cosa ho detto {t} {w?}
    U cosa ti avevo detto {t}?
    A cosa mi hai detto {w?} {t}?
    A la tua risposta {t}
    A cosa mi hai consigliato {w?} {t}?
    A quello che mi hai spiegato {t} {w?}
    A ricordami cosa mi hai risposto {t}
    S cosa si è detto {t}?
    S {T}
    S tutto quello che si è detto {t}
    S qualcuno ha menzionato {T}?
    S {T}: cosa se n'è detto?
    B le parti {t}
    B i momenti in cui si commenta {T}
    B le parti in cui qualcuno parla {s}
    B i momenti in cui si parla {s}
    B clip di qualcuno che parla {s}
    S quando qualcuno ha parlato {s}?
    B le parti in cui {n} parla {s}
    B i momenti in cui {n} parla {s}
    B {n} che parla {s}
    S quando ha parlato {n} {s}?
    B le parti {e}
    B le registrazioni {e}
    B i momenti {e}
    S cosa si è detto {e}?
    B altri audio {sv}
    B altre parti {sv}
    B tutto quello che c'è {sv}
    S cos'altro ha detto {P}?
    B le parti {ss}
    B clip in cui qualcuno parla {ss}
    B le registrazioni {se}
    B le parti {se}
    B le parti {sv} {e}
    B quello che ha detto {n} {e}
    B le parti in cui {n} parla {s} {e}
    B i momenti in cui qualcuno parla {s} {e}
    B le clip {sv} in cui si parla {s}
    B i momenti in cui {n} parlava {s} {w}
    S cosa ha detto {n} {w} {t}?
    S cosa ha detto {P} {w} {t}?
    S cosa ha detto {n} {t} {e}?
    B le parti {ss} {e}
    B le parti {se} in cui parla {n}
    S cosa si è detto {w} {t}?
    """,
)

PT = _lang(
    "pt",
    names="Ana/f João/m Beatriz/f Pedro/m Mariana/f Rafael/m Camila/f Lucas/m Juliana/f",
    about="sobre {}",
    topics="""
    o [aluguel] | o [casamento] | o [visto] | a [consulta] [médica] | as [férias] | o [contrato] |
    o [conserto] do [carro] | a [festa] de [aniversário] | a [prova] | o [voo] | o [salário] |
    o [orçamento] | a [mudança] | a [conta] de [luz] | o [seguro] | a [entrevista] de [emprego] |
    o [financiamento] da [casa] | o [cachorro] | a [reunião] de [segunda] |
    os [presentes] de [Natal] | as [notas] da [escola] | a [viagem] para [Lisboa] |
    a [receita] do [bolo]
    """,
    styles="""
    whisper: sussurrando | em voz baixa | cochichando
    sad: com voz triste | tristemente | todo triste
    excited: todo animado | com entusiasmo | feliz da vida | alegremente
    angry: irritado | com raiva | bravo
    fast: muito rápido | correndo | depressa
    slow: bem devagar | lentamente | devagarinho
    monotone: com voz monótona | sem entonação | de forma monótona
    high: com voz aguda | com uma voz fininha | com voz bem aguda
    low: com voz grave | com voz grossa | com um tom bem grave
    neutral: com tom neutro | calmamente | com voz normal e tranquila
    crying: chorando | aos prantos | soluçando
    laughing: rindo | às gargalhadas | dando risada
    shouting: gritando | aos gritos | berrando
    """,
    envs="""
    rain: com chuva ao fundo | enquanto chovia | com barulho de chuva
    thunderstorm: durante a tempestade | com trovões | com a trovoada ao fundo
    wind: com vento | com barulho de vento | com muito vento
    birds: com passarinhos cantando | com pássaros ao fundo
    dog: com um cachorro latindo | com latidos ao fundo
    cat: com um gato miando | com miados ao fundo
    phone: com um telefone tocando | enquanto o celular toca
    bell: com um sino tocando | com a campainha tocando
    alarm: com um alarme tocando | com o despertador tocando
    typing: com alguém digitando | com barulho de teclado
    clock: com o tique-taque de um relógio | com um relógio ao fundo
    engine: com barulho de motor | com o motor do carro ligado
    footsteps: com passos ao fundo | com barulho de passos
    crowd: no meio da multidão | com muita gente ao fundo | com gente conversando ao fundo
    music: com música ao fundo | com música tocando
    water: com água correndo | com a torneira aberta | com barulho de água
    hum: com um zumbido ao fundo | com o zumbido da geladeira | com um zumbido elétrico
    static: com chiado | com estática | com ruído de rádio mal sintonizado
    camera: com cliques de câmera | enquanto tiravam fotos
    paper: com barulho de papel | com alguém folheando páginas
    """,
    times="""
    today: hoje | hoje de manhã | hoje à tarde
    yesterday: ontem | ontem à noite
    this_session: nesta conversa | agora há pouco neste chat | nesta sessão
    last_session: da última vez que conversamos | na nossa conversa anterior | na sessão passada
    first: bem no começo | no início da conversa | logo de cara
    latest: mais recentemente | por último
    before_break: antes do intervalo | antes da pausa
    after_break: depois do intervalo | depois da pausa | na volta da pausa
    """,
    same_subject="essa pessoa | a pessoa deste áudio | quem fala aqui | essa voz",
    same_voice="""com a mesma voz deste áudio | da mesma pessoa deste clipe |
    do mesmo falante desta gravação | com essa voz""",
    same_style="""com o mesmo tom deste áudio | com o mesmo jeito de falar deste clipe |
    com o mesmo humor desta gravação""",
    same_env="""com o mesmo fundo desta gravação | no mesmo lugar deste clipe |
    com o mesmo barulho de fundo deste áudio""",
    openers="""procura {X} | acha {X} | toca {X} | você consegue achar {X}? | quero ouvir {X} |
    me mostra {X} | {X} | {X}, por favor | poderia procurar {X}? | bota {X}""",
    fillers="é..., | então, | olha, | tipo,",
    frames="""
    Q responde isso
    Q qual é a resposta para essa pergunta?
    Q acha a resposta para a pergunta deste áudio
    Q você consegue responder o que esse clipe pergunta?
    Q procura onde essa pergunta é respondida
    Q a resposta disso, por favor
    Q alguém respondeu isso?
    Q o que responderam a essa pergunta?
    K o que vem depois disso?
    K continua daqui
    K e o que foi dito logo depois?
    K procura a continuação deste áudio
    K como essa conversa continua?
    K o que vem a seguir neste clipe
    K toca o que foi dito depois disso
    K segue a partir deste ponto
    Q você sabe a resposta do que se pergunta aqui?
    Q responde a pergunta desta gravação
    K o que disseram depois?
    K toca a parte que vem depois deste áudio
    S o que {n} disse {w?} {t}?
    S o que {n} acha {t}?
    S {T}: o que {n} falou?
    S o que {n} contou {w?} {t}
    S o que {n} comentou {t}?
    S o que {P} diz {t}?
    S o que mais {P} falou {t}?
    B as partes em que {n} fala {t}
    B tudo o que {n} disse {t}
    U o que eu disse {w?} {t}?
    U o que eu te contei {w?} {t}
    U minhas palavras {t}
    U me lembra o que eu falei {t} {w?}
    U o que eu tinha comentado {t}?
    A o que você me disse {w?} {t}?
    A sua resposta {t}
    A o que você me recomendou {w?} {t}?
    A o que você me explicou {t} {w?}
    A me lembra o que você respondeu {t}
    S o que foi dito {t}?
    S {T}
    S tudo o que se falou {t}
    S alguém mencionou {T}?
    S {T}: o que comentaram?
    B as partes {t}
    B os momentos em que se fala {t}
    B as partes em que alguém fala {s}
    B os momentos em que se fala {s}
    B trechos de alguém falando {s}
    S quando alguém falou {s}?
    B as partes em que {n} fala {s}
    B os momentos em que {n} fala {s}
    B {n} falando {s}
    S quando {n} falou {s}?
    B as partes {e}
    B as gravações {e}
    B os momentos {e}
    S o que foi dito {e}?
    B mais áudios {sv}
    B outras partes {sv}
    B tudo o que tem {sv}
    S o que mais {P} falou?
    B trechos {ss}
    B partes em que alguém fala {ss}
    B gravações {se}
    B trechos {se}
    B trechos {sv} {e}
    B o que {n} disse {e}
    B as partes em que {n} fala {s} {e}
    B partes em que alguém fala {s} {e}
    B trechos {sv} em que se fala {s}
    B os momentos em que {n} falou {s} {w}
    S o que {n} disse {w} {t}?
    S o que {P} disse {w} {t}?
    S o que {n} disse {t} {e}?
    B trechos {ss} {e}
    B trechos {se} em que {n} fala
    S o que foi dito {w} {t}?
    """,
)
NL = _lang(
    "nl",
    names="Sanne/f Daan/m Emma/f Lars/m Lotte/f Bram/m Fleur/f Thijs/m Noor/f",
    about="over {}",
    topics="""
    de [huur] | de [bruiloft] | het [visum] | de [afspraak] bij de [dokter] | de [vakantie] |
    het [contract] | de [reparatie] van de [auto] | het [verjaardagsfeest] | het [examen] |
    de [vlucht] | het [salaris] | het [budget] | de [verhuizing] | de [energierekening] |
    de [verzekering] | het [sollicitatiegesprek] | de [hypotheek] | de [hond] |
    de [vergadering] van [maandag] | de [kerstcadeaus] | het [rapport] van [school] |
    de [reis] naar [Lissabon] | het [recept] voor de [taart]
    """,
    styles="""
    whisper: fluisterend | zachtjes fluisterend | op fluistertoon
    sad: verdrietig | met een droevige stem | somber
    excited: vrolijk | enthousiast | opgewekt
    angry: boos | kwaad | geïrriteerd
    fast: heel snel | gehaast | razendsnel
    slow: heel langzaam | traag | langzaam
    monotone: monotoon | zonder intonatie | eentonig
    high: met een hoge stem | met een piepstem | met een heel hoge stem
    low: met een lage stem | met een zware stem | met een diepe stem
    neutral: rustig en neutraal | op een neutrale toon | kalm
    crying: huilend | in tranen | snikkend
    laughing: lachend | giechelend | al lachend
    shouting: schreeuwend | roepend | brullend
    """,
    envs="""
    rain: met regen op de achtergrond | terwijl het regent | met het geluid van regen
    thunderstorm: tijdens het onweer | met donder | met onweer op de achtergrond
    wind: met wind | met windgeruis | met harde wind
    birds: met fluitende vogels | met vogelgeluiden | met vogels op de achtergrond
    dog: met een blaffende hond | met hondengeblaf
    cat: met een miauwende kat | met kattengemiauw
    phone: met een rinkelende telefoon | terwijl de telefoon gaat
    bell: met een bel | met de deurbel | terwijl er een bel klinkt
    alarm: met een alarm | met de wekker die afgaat
    typing: met getik op een toetsenbord | terwijl iemand typt
    clock: met een tikkende klok | met het tikken van een klok
    engine: met motorgeluid | met een draaiende motor | met een auto die start
    footsteps: met voetstappen | met voetstappen op de achtergrond
    crowd: met veel mensen op de achtergrond | in een drukke menigte | met geroezemoes
    music: met muziek op de achtergrond | met achtergrondmuziek
    water: met stromend water | met de kraan open | met het geluid van water
    hum: met gezoem op de achtergrond | met het brommen van de koelkast | met elektrisch gezoem
    static: met ruis | met gekraak en ruis | met radioruis
    camera: met klikkende camera's | terwijl er foto's worden gemaakt
    paper: met ritselend papier | terwijl iemand bladzijden omslaat
    """,
    times="""
    today: vandaag | vanochtend | vanmiddag
    yesterday: gisteren | gisteravond
    this_session: in dit gesprek | net in deze chat | in deze sessie
    last_session: de vorige keer dat we spraken | in ons vorige gesprek | in de vorige sessie
    first: helemaal aan het begin | aan het begin van het gesprek | als allereerste
    latest: het meest recent | als laatste | het laatst
    before_break: voor de pauze | vlak voor de pauze
    after_break: na de pauze | direct na de pauze
    """,
    same_subject="deze persoon | de persoon in dit fragment | wie hier praat | deze stem",
    same_voice="""met dezelfde stem als dit fragment | van dezelfde persoon als in deze opname |
    van dezelfde spreker als hier | met deze stem""",
    same_style="""op dezelfde toon als dit fragment |
    met dezelfde manier van praten als in deze opname | in dezelfde stemming als hier""",
    same_env="""met dezelfde achtergrond als deze opname | op dezelfde plek als dit fragment |
    met dezelfde achtergrondgeluiden als hier""",
    openers="""zoek {X} | vind {X} | speel {X} | toon {X} | kun je {X} vinden? |
    ik wil {X} horen | {X} | {X}, alsjeblieft | zou u {X} kunnen zoeken? | geef me {X}""",
    fillers="eh, | nou, | dus, | hé,",
    frames="""
    Q beantwoord dit
    Q wat is het antwoord op deze vraag?
    Q zoek het antwoord op de vraag in dit fragment
    Q kun je beantwoorden wat hier gevraagd wordt?
    Q zoek waar deze vraag beantwoord wordt
    Q het antwoord hierop, alsjeblieft
    Q heeft iemand hierop geantwoord?
    Q wat werd er op deze vraag geantwoord?
    K wat komt hierna?
    K ga vanaf hier verder
    K en wat werd er direct daarna gezegd?
    K zoek het vervolg van dit fragment
    K hoe gaat dit gesprek verder?
    K wat er na deze opname komt
    K speel af wat er daarna gezegd werd
    K ga verder vanaf dit punt
    Q weet je het antwoord op wat hier gevraagd wordt?
    Q beantwoord de vraag uit deze opname
    K wat zeiden ze daarna?
    K speel het stuk na dit fragment af
    S wat zei {n} {w?} {t}?
    S wat vindt {n} van {T}?
    S {T}: wat zei {n} daarover?
    S wat {n} {w?} {t} vertelde
    S wat heeft {n} {t} gezegd?
    S wat zegt {P} {t}?
    S wat zei {P} nog meer {t}?
    B de stukken waarin {n} {t} praat
    B alles wat {n} {t} zei
    U wat zei ik {w?} {t}?
    U wat ik je {w?} {t} vertelde
    U mijn woorden {t}
    U herinner me wat ik {t} zei
    U wat had ik {w?} {t} gezegd?
    A wat zei jij {w?} {t}?
    A jouw antwoord {t}
    A wat raadde je me {w?} aan {t}?
    A wat je me {t} uitlegde
    A herinner me wat je antwoordde {t}
    S wat werd er {t} gezegd?
    S {T}
    S alles wat er {t} gezegd is
    S heeft iemand {T} genoemd?
    S {T}: wat werd daarover gezegd?
    B stukken {t}
    B de momenten waarop {t} gepraat wordt
    B de stukken waarin iemand {s} praat
    B momenten waarop er {s} gesproken wordt
    B fragmenten van iemand die {s} praat
    S wanneer praatte iemand {s}?
    B de stukken waarin {n} {s} praat
    B momenten waarop {n} {s} spreekt
    B fragmenten waarin {n} {s} praat
    S wanneer praatte {n} {s}?
    B de stukken {e}
    B opnames {e}
    B momenten {e}
    S wat werd er {e} gezegd?
    B meer opnames {sv}
    B andere stukken {sv}
    B alles {sv}
    S wat zei {P} nog meer?
    B stukken {ss}
    B opnames waarin iemand {ss} praat
    B opnames {se}
    B stukken {se}
    B stukken {sv} {e}
    B wat {n} {e} zei
    B de stukken waarin {n} {s} {e} praat
    B momenten waarop iemand {s} {e} praat
    B fragmenten {sv} waarin {s} gesproken wordt
    B de stukken waarin {n} {w} {s} praatte
    S wat zei {n} {w} {t}?
    S wat zei {P} {w} {t}?
    S wat zei {n} {e} {t}?
    B stukken {ss} {e}
    B stukken {se} waarin {n} praat
    S wat werd er {w} {t} gezegd?
    """,
)

SV = _lang(
    "sv",
    names="Elin/f Erik/m Maja/f Oskar/m Ebba/f Anton/m Klara/f Viktor/m Saga/f",
    about="om {}",
    topics="""
    [hyran] | [bröllopet] | [visumet] | [läkarbesöket] | [semestern] | [kontraktet] |
    [bilreparationen] | [födelsedagsfesten] | [tentan] | [flyget] | [lönen] | [budgeten] |
    [flytten] | [elräkningen] | [försäkringen] | [anställningsintervjun] | [bolånet] |
    [hunden] | [mötet] på [måndag] | [julklapparna] | [betygen] | [resan] till [Lissabon] |
    [receptet] på [kakan]
    """,
    styles="""
    whisper: viskande | med viskande röst | tyst viskande
    sad: ledset | med ledsen röst | sorgset
    excited: glatt | upprymt | entusiastiskt
    angry: argt | ilsket | med arg röst
    fast: väldigt snabbt | hastigt | jättesnabbt
    slow: väldigt långsamt | sakta | långsamt
    monotone: monotont | utan intonation | entonigt
    high: med ljus röst | med pipig röst | med väldigt ljus röst
    low: med mörk röst | med djup röst | med en djup, mörk röst
    neutral: lugnt och neutralt | i neutral ton | sakligt
    crying: gråtande | under gråt | snyftande
    laughing: skrattande | fnissande | under skratt
    shouting: skrikande | vrålande | gapande
    """,
    envs="""
    rain: med regn i bakgrunden | när det regnar | med ljudet av regn
    thunderstorm: under åskvädret | med åska | med åska i bakgrunden
    wind: med blåst | med vindbrus | när det blåser
    birds: med fågelkvitter | med fåglar i bakgrunden
    dog: med en hund som skäller | med hundskall
    cat: med en katt som jamar | med kattjamande
    phone: med en telefon som ringer | när mobilen ringer
    bell: med ringande kyrkklockor | med dörrklockan som ringer
    alarm: med ett larm | med väckarklockan som ringer | med larm i bakgrunden
    typing: med tangentbordsknatter | när någon skriver på tangentbordet
    clock: med en tickande klocka | med klockans tickande
    engine: med motorljud | med en bilmotor i gång | med en bil som startar
    footsteps: med fotsteg | med fotsteg i bakgrunden
    crowd: med mycket folk i bakgrunden | mitt i en folkmassa | med sorl
    music: med musik i bakgrunden | med bakgrundsmusik
    water: med rinnande vatten | med kranen på | med vattenljud
    hum: med ett surr i bakgrunden | med kylskåpsbrum | med elektriskt brum
    static: med brus | med sprakande brus | med radiobrus
    camera: med kameraklick | när någon tar bilder
    paper: med prasslande papper | när någon bläddrar i papper
    """,
    times="""
    today: idag | i morse | i eftermiddag
    yesterday: igår | igår kväll
    this_session: i det här samtalet | nyss i den här chatten | under den här sessionen
    last_session: förra gången vi pratade | i vårt förra samtal | under förra sessionen
    first: allra först | i början av samtalet | i början
    latest: senast | allra senast | sist
    before_break: före pausen | innan pausen
    after_break: efter pausen | direkt efter pausen
    """,
    same_subject="den här personen | personen i klippet | den som pratar här | den här rösten",
    same_voice="""med samma röst som i det här klippet | från samma person som i inspelningen |
    av samma talare som här | med den här rösten""",
    same_style="""i samma ton som det här klippet | med samma sätt att prata som i inspelningen |
    i samma stämning som här""",
    same_env="""med samma bakgrund som den här inspelningen | på samma plats som klippet |
    med samma bakgrundsljud som här""",
    openers="""sök {X} | hitta {X} | spela {X} | visa {X} | kan du hitta {X}? | jag vill höra {X} |
    {X} | {X}, tack | skulle du kunna leta upp {X}? | ge mig {X}""",
    fillers="eh, | alltså, | ja, | asså,",
    frames="""
    Q svara på det här
    Q vad är svaret på den här frågan?
    Q hitta svaret på frågan i klippet
    Q kan du svara på det som frågas här?
    Q leta upp var den här frågan besvaras
    Q svaret på det här, tack
    Q svarade någon på det här?
    Q vad svarade de på frågan?
    K vad kommer sen?
    K fortsätt härifrån
    K och vad sades direkt efter?
    K hitta fortsättningen på klippet
    K hur fortsätter samtalet?
    K det som kommer efter den här inspelningen
    K spela det som sades efter det här
    K fortsätt från den här punkten
    Q vet du svaret på det som frågas här?
    Q besvara frågan i den här inspelningen
    K vad sa de sen?
    K spela delen som kommer efter klippet
    S vad sa {n} {w?} {t}?
    S vad tycker {n} {t}?
    S {T}, vad sa {n} om det?
    S det {n} berättade {w?} {t}
    S vad har {n} sagt {t}?
    S vad säger {P} {t}?
    S vad mer sa {P} {t}?
    B delarna där {n} pratar {t}
    B allt {n} sa {t}
    U vad sa jag {w?} {t}?
    U det jag berättade för dig {w?} {t}
    U mina ord {t}
    U påminn mig om vad jag sa {t}
    U vad hade jag sagt {t}?
    A vad sa du till mig {w?} {t}?
    A ditt svar {t}
    A vad rekommenderade du {w?} {t}?
    A det du förklarade {t}
    A påminn mig om vad du svarade {t}
    S vad sades {t}?
    S {T}
    S allt som sades {t}
    S nämnde någon {T}?
    S {T}, vad sades om det?
    B delar {t}
    B ställen där det pratas {t}
    B delarna där någon pratar {s}
    B ställen där det pratas {s}
    B klipp där någon pratar {s}
    S när pratade någon {s}?
    B delarna där {n} pratar {s}
    B ställen där {n} pratar {s}
    B klipp där {n} pratar {s}
    S när pratade {n} {s}?
    B delarna {e}
    B inspelningar {e}
    B ställen {e}
    S vad sades {e}?
    B fler inspelningar {sv}
    B andra delar {sv}
    B allt {sv}
    S vad mer sa {P}?
    B delar {ss}
    B inspelningar där någon pratar {ss}
    B inspelningar {se}
    B delar {se}
    B delar {sv} {e}
    B det {n} sa {e}
    B delarna där {n} pratar {s} {e}
    B ställen där någon pratar {s} {e}
    B klipp {sv} där det pratas {s}
    B ställen där {n} pratade {s} {w}
    S vad sa {n} {w} {t}?
    S vad sa {P} {w} {t}?
    S vad sa {n} {e} {t}?
    B delar {ss} {e}
    B delar {se} där {n} pratar
    S vad sades {w} {t}?
    """,
)

PL = _lang(
    "pl",
    names="Ania/f Tomek/m Kasia/f Piotr/m Magda/f Marek/m Ola/f Paweł/m Zosia/f",
    about="o {}",
    topics="""
    [czynsz] = o [czynszu] | [ślub] = o [ślubie] | [wiza] = o [wizie] |
    [wizyta] u [lekarza] = o [wizycie] u [lekarza] | [wakacje] = o [wakacjach] |
    [umowa] = o [umowie] | [naprawa] [samochodu] = o [naprawie] [samochodu] |
    [urodziny] = o [urodzinach] | [egzamin] = o [egzaminie] | [lot] = o [locie] |
    [pensja] = o [pensji] | [budżet] = o [budżecie] | [przeprowadzka] = o [przeprowadzce] |
    [rachunek] za [prąd] = o [rachunku] za [prąd] | [ubezpieczenie] = o [ubezpieczeniu] |
    [rozmowa] [kwalifikacyjna] = o [rozmowie] [kwalifikacyjnej] | [kredyt] = o [kredycie] |
    [pies] = o [psie] | [zebranie] w [poniedziałek] = o [zebraniu] w [poniedziałek] |
    [prezenty] [świąteczne] = o [prezentach] [świątecznych] |
    [oceny] w [szkole] = o [ocenach] w [szkole] |
    [wyjazd] do [Lizbony] = o [wyjeździe] do [Lizbony] |
    [przepis] na [sernik] = o [przepisie] na [sernik]
    """,
    styles="""
    whisper: szeptem | półszeptem | bardzo cicho, szeptem
    sad: smutnym głosem | smutno | ze smutkiem
    excited: radośnie | z entuzjazmem | wesoło
    angry: ze złością | gniewnie | wściekłym głosem
    fast: bardzo szybko | w pośpiechu | szybko
    slow: bardzo wolno | powoli | wolniutko
    monotone: monotonnie | bez intonacji | jednostajnym głosem
    high: wysokim głosem | piskliwym głosem | cienkim głosem
    low: niskim głosem | głębokim głosem | basem
    neutral: spokojnie | neutralnym tonem | zwykłym, spokojnym głosem
    crying: płacząc | przez łzy | szlochając
    laughing: śmiejąc się | ze śmiechem | chichocząc
    shouting: krzycząc | krzykiem | wrzeszcząc
    """,
    envs="""
    rain: z deszczem w tle | kiedy pada deszcz | z odgłosem deszczu
    thunderstorm: podczas burzy | z grzmotami | z burzą w tle
    wind: z wiatrem w tle | przy silnym wietrze | z szumem wiatru
    birds: ze śpiewem ptaków | z ptakami w tle | z ćwierkaniem ptaków
    dog: ze szczekaniem psa | z psem szczekającym w tle
    cat: z miauczeniem kota | z kotem miauczącym w tle
    phone: z dzwoniącym telefonem | kiedy dzwoni komórka
    bell: z dzwonkiem do drzwi | z biciem dzwonu | z dzwonem w tle
    alarm: z alarmem w tle | z dzwoniącym budzikiem
    typing: ze stukaniem w klawiaturę | kiedy ktoś pisze na klawiaturze
    clock: z tykaniem zegara | z tykającym zegarem
    engine: z warkotem silnika | z pracującym silnikiem | z odgłosem silnika samochodu
    footsteps: z krokami w tle | z odgłosem kroków
    crowd: z tłumem w tle | z gwarem ludzi | w tłumie
    music: z muzyką w tle | przy muzyce
    water: z lejącą się wodą | z odkręconym kranem | z szumem wody
    hum: z buczeniem w tle | z buczeniem lodówki | z brzęczeniem elektrycznym
    static: z trzaskami | z szumem radia | z zakłóceniami
    camera: z klikaniem aparatu | kiedy ktoś robi zdjęcia
    paper: z szelestem papieru | kiedy ktoś przewraca kartki
    """,
    times="""
    today: dzisiaj | dziś rano | dziś po południu
    yesterday: wczoraj | wczoraj wieczorem
    this_session: w tej rozmowie | przed chwilą na tym czacie | w tej sesji
    last_session: ostatnim razem, kiedy rozmawialiśmy | w naszej poprzedniej rozmowie |
        na poprzedniej sesji
    first: na samym początku | na początku rozmowy | najpierw
    latest: ostatnio | całkiem niedawno
    before_break: przed przerwą | tuż przed przerwą
    after_break: po przerwie | zaraz po przerwie
    """,
    same_subject="ta osoba | osoba z tego nagrania | ten, kto tu mówi | ten głos",
    same_voice="""z tym samym głosem co w tym nagraniu | tej samej osoby co w tym klipie |
    tego samego mówcy co tutaj | z tym głosem""",
    same_style="""w tym samym tonie co ten klip | z tym samym sposobem mówienia co w nagraniu |
    w tym samym nastroju co tutaj""",
    same_env="""z tym samym tłem co to nagranie | w tym samym miejscu co ten klip |
    z tymi samymi odgłosami w tle co tutaj""",
    openers="""znajdź {X} | wyszukaj {X} | puść {X} | pokaż mi {X} | możesz znaleźć {X}? |
    chcę usłyszeć {X} | {X} | {X}, proszę | czy mógłby pan znaleźć {X}? | odtwórz {X}""",
    fillers="yyy, | no więc, | słuchaj, | dobra,",
    frames="""
    Q odpowiedz na to
    Q jaka jest odpowiedź na to pytanie?
    Q znajdź odpowiedź na pytanie z tego nagrania
    Q możesz odpowiedzieć na to, o co tu pytają?
    Q poszukaj, gdzie ktoś odpowiada na to pytanie
    Q odpowiedź na to, proszę
    Q czy ktoś na to odpowiedział?
    Q co odpowiedziano na to pytanie?
    K co jest dalej?
    K kontynuuj od tego miejsca
    K a co powiedziano zaraz potem?
    K znajdź ciąg dalszy tego nagrania
    K jak toczy się dalej ta rozmowa?
    K to, co następuje po tym klipie
    K puść to, co powiedziano potem
    K ciągnij dalej od tego momentu
    Q znasz odpowiedź na to, o co tu pytają?
    Q odpowiedz na pytanie zadane w tym nagraniu
    K co powiedzieli potem?
    K puść fragment, który jest po tym nagraniu
    S co {n} ⟨mówił|mówiła⟩ {w?} {t}?
    S co {n} sądzi {t}?
    S {T} – co {n} o tym ⟨powiedział|powiedziała⟩?
    S to, co {n} ⟨opowiadał|opowiadała⟩ {w?} {t}
    S co {n} ⟨wspominał|wspominała⟩ {t}?
    S co mówi {P} {t}?
    S co jeszcze mówi {P} {t}?
    B fragmenty, w których {n} mówi {t}
    B wszystko, co {n} ⟨powiedział|powiedziała⟩ {t}
    U co ⟨mówiłem|mówiłam⟩ {w?} {t}?
    U to, co ci ⟨opowiadałem|opowiadałam⟩ {w?} {t}
    U moje słowa {t}
    U przypomnij mi, co ⟨mówiłem|mówiłam⟩ {t} {w?}
    U co ci ⟨powiedziałem|powiedziałam⟩ {t}?
    A co mi ⟨powiedziałeś|powiedziałaś⟩ {w?} {t}?
    A twoja odpowiedź {t}
    A co mi ⟨radziłeś|radziłaś⟩ {w?} {t}?
    A to, co mi ⟨tłumaczyłeś|tłumaczyłaś⟩ {t} {w?}
    A przypomnij mi, co ⟨odpowiedziałeś|odpowiedziałaś⟩ {t}
    S co mówiono {t}?
    S {T}
    S wszystko, co zostało powiedziane {t}
    S czy ktoś wspominał {t}?
    S {T} – co o tym mówiono?
    B fragmenty {t}
    B momenty, w których mowa {t}
    B fragmenty, w których ktoś mówi {s}
    B momenty, kiedy ktoś mówi {s}
    B nagrania, gdzie ktoś mówi {s}
    S kiedy ktoś mówił {s}?
    B fragmenty, w których {n} mówi {s}
    B momenty, kiedy {n} mówi {s}
    B nagrania, gdzie {n} mówi {s}
    S kiedy {n} ⟨mówił|mówiła⟩ {s}?
    B fragmenty {e}
    B nagrania {e}
    B momenty {e}
    S co zostało powiedziane {e}?
    B więcej nagrań {sv}
    B inne fragmenty {sv}
    B wszystko {sv}
    S co jeszcze mówi {P}?
    B fragmenty {ss}
    B nagrania, gdzie ktoś mówi {ss}
    B nagrania {se}
    B fragmenty {se}
    B fragmenty {sv} {e}
    B to, co {n} ⟨powiedział|powiedziała⟩ {e}
    B fragmenty, w których {n} mówi {s} {e}
    B momenty, kiedy ktoś mówi {s} {e}
    B fragmenty {sv}, w których ktoś mówi {s}
    B momenty, kiedy {n} ⟨mówił|mówiła⟩ {s} {w}
    S co {n} ⟨mówił|mówiła⟩ {w} {t}?
    S co {n} ⟨mówił|mówiła⟩ {t} {e}?
    B fragmenty {ss} {e}
    B fragmenty {se}, w których mówi {n}
    S co mówiono {w} {t}?
    """,
)
TR = _lang(
    "tr",
    names="""Ayşe/f/Ayşe'nin Mehmet/m/Mehmet'in Zeynep/f/Zeynep'in Emre/m/Emre'nin
    Elif/f/Elif'in Can/m/Can'ın Selin/f/Selin'in Burak/m/Burak'ın Deniz/f/Deniz'in""",
    about="{} hakkında",
    topics="""
    [kira] | [düğün] | [vize] | [doktor] [randevusu] | [tatil] | [sözleşme] | [araba] [tamiri] |
    [doğum] [günü] [partisi] | [sınav] | [uçuş] | [maaş] | [bütçe] | [taşınma] |
    [elektrik] [faturası] | [sigorta] | [iş] [görüşmesi] | [konut] [kredisi] | [köpek] |
    [pazartesi] [toplantısı] | [yılbaşı] [hediyeleri] | [karne] | [Lizbon] [gezisi] |
    [kek] [tarifi]
    """,
    styles="""
    whisper: fısıldayarak | fısıltıyla | alçak sesle fısıldayarak
    sad: üzgün bir sesle | hüzünlü bir şekilde | çok üzgün
    excited: neşeyle | heyecanla | çok sevinçli
    angry: sinirli bir şekilde | öfkeyle | kızgın bir sesle
    fast: çok hızlı | aceleyle | hızlı hızlı
    slow: çok yavaş | yavaş yavaş | ağır ağır
    monotone: monoton bir sesle | tekdüze bir şekilde | hiç tonlama yapmadan
    high: ince bir sesle | tiz bir sesle | çok ince bir sesle
    low: kalın bir sesle | pes bir sesle | derin ve kalın bir sesle
    neutral: sakin bir şekilde | nötr bir tonla | normal ve sakin
    crying: ağlayarak | gözyaşları içinde | hıçkırarak
    laughing: gülerek | kahkahalarla | kıkırdayarak
    shouting: bağırarak | avaz avaz bağırarak | yüksek sesle bağırarak
    """,
    envs="""
    rain: arkada yağmur sesi olan | yağmurlu | yağmur sesli
    thunderstorm: gök gürültülü | fırtına sesi olan | arkada gök gürültüsü olan
    wind: rüzgar sesli | arkada rüzgar uğultusu olan | rüzgarlı
    birds: kuş sesli | arkada kuşların öttüğü | kuş cıvıltılı
    dog: köpek havlamalı | arkada köpek havlayan | köpek sesi olan
    cat: kedi miyavlamalı | arkada kedi sesi olan
    phone: telefon çalan | arkada telefonun çaldığı | telefon zili olan
    bell: zil sesi olan | kapı zili çalan | çan sesli
    alarm: alarm çalan | arkada alarm sesi olan | çalar saatin öttüğü
    typing: klavye sesi olan | arkada birinin klavyede yazdığı
    clock: saat tıkırtısı olan | arkada tik tak sesi olan
    engine: motor sesi olan | araba motoru çalışan | arkada motor sesi olan
    footsteps: ayak sesi olan | arkada ayak sesleri olan
    crowd: kalabalık | arkada insanların konuştuğu | kalabalık sesi olan
    music: müzikli | arkada müzik çalan | fon müziği olan
    water: akan su sesi olan | arkada musluğun aktığı | su sesli
    hum: uğultulu | buzdolabı uğultusu olan | elektrik vızıltısı olan
    static: cızırtılı | parazitli | radyo cızırtısı olan
    camera: deklanşör sesi olan | fotoğraf makinesi tıklayan
    paper: kağıt hışırtısı olan | arkada sayfa çevrilen
    """,
    times="""
    today: bugün | bu sabah | bugün öğleden sonra
    yesterday: dün | dün akşam
    this_session: bu konuşmada | az önce bu sohbette | bu oturumda
    last_session: geçen konuşmamızda | son konuştuğumuzda | önceki oturumda
    first: en başta | konuşmanın başında | ilk olarak
    latest: en son | en son olarak | son olarak
    before_break: aradan önce | moladan önce
    after_break: aradan sonra | moladan sonra
    """,
    same_subject="bu kişi | bu kayıttaki kişi | burada konuşan kişi | bu sesin sahibi",
    same_voice="""bu klipteki kişinin | bu kayıttaki sesin sahibinin | burada konuşan kişinin |
    aynı konuşmacının""",
    same_style="""bu klipteki gibi aynı tonla | bu kayıttaki gibi aynı şekilde |
    buradaki ruh haliyle""",
    same_env="""bu kayıttakiyle aynı arka planlı | bu klipteki ile aynı ortamda geçen |
    buradakiyle aynı arka plan gürültüsü olan""",
    openers="""{X} bul | {X} göster | {X} çal | {X} bulabilir misin? | {X} dinlemek istiyorum |
    {X} açar mısın? | {X} bulur musunuz? | {X} getir | lütfen {X} bul""",
    fillers="şey, | yani, | ee, | bak,",
    frames="""
    Q buna cevap ver
    Q bu sorunun cevabı ne?
    Q bu kayıttaki sorunun cevabını bul
    Q burada sorulan soruyu cevaplayabilir misin?
    Q bu sorunun nerede cevaplandığını bul
    Q bunun cevabı lütfen
    Q buna cevap veren oldu mu?
    Q bu soruya ne cevap verdiler?
    K sonra ne geliyor?
    K buradan devam et
    K hemen ardından ne söylendi?
    K bu kaydın devamını bul
    K bu konuşma nasıl devam ediyor?
    K bu klipten sonra gelen kısım
    K bundan sonra söyleneni çal
    K bu noktadan devam ettir
    Q burada sorulanın cevabını biliyor musun?
    Q bu kayıttaki soruyu cevapla
    K sonra ne dediler?
    K bu kayıttan sonraki kısmı çal
    S {n} {w?} {t} ne dedi?
    S {n} {t} ne düşünüyor?
    S {T} konusunda {n} ne söyledi?
    S {w?} {n} {t} neler anlattı?
    S {n} {t} ne söyledi?
    S {P} {t} ne diyor?
    S {P} {t} başka ne söyledi?
    B {ng} {t} konuştuğu kısımları
    B {ng} {t} söylediği her şeyi
    U {w?} {t} ne demiştim?
    U sana {w?} {t} anlattıklarım
    U {t} söylediklerim
    U {w?} {t} ne söylediğimi hatırlat
    U {t} sana ne demiştim?
    A bana {w?} {t} ne dedin?
    A {t} verdiğin cevap
    A {w?} {t} bana ne önermiştin?
    A {t} bana anlattıkların
    A {t} ne cevap verdiğini hatırlat
    S {t} ne konuşuldu?
    S {T}
    S {t} söylenen her şey
    S {T} konusundan bahseden oldu mu?
    S {T} konusunda neler söylendi?
    B {t} konuşulan kısımları
    B {T} konusunun geçtiği yerleri
    B birinin {s} konuştuğu kısımları
    B {s} konuşulan yerleri
    B {s} konuşan birinin kayıtlarını
    S biri ne zaman {s} konuştu?
    B {ng} {s} konuştuğu kısımları
    B {ng} {s} konuştuğu anları
    B {n} {s} konuşurken kaydedilen kısımları
    S {n} ne zaman {s} konuştu?
    B {e} kısımları
    B {e} kayıtları
    B {e} anları
    S {e} kısımlarda ne söylendi?
    B {sv} diğer kayıtlarını
    B {sv} konuştuğu başka kısımları
    B {sv} söylediği her şeyi
    S {P} başka ne söyledi?
    B birinin {ss} konuştuğu kısımları
    B {ss} konuşulan kayıtları
    B {se} kayıtları
    B {se} kısımları
    B {e} kısımlarda {sv} konuştuğu yerleri
    B {e} kısımlarda {ng} söylediklerini
    B {e} kısımlarda {ng} {s} konuştuğu yerleri
    B {e} kısımlarda birinin {s} konuştuğu yerleri
    B {sv} {s} konuştuğu kısımları
    B {ng} {w} {s} konuştuğu kısımları
    S {n} {w} {t} ne dedi?
    S {P} {w} {t} ne söyledi?
    S {e} kısımlarda {n} {t} ne dedi?
    B {e} kısımlarda birinin {ss} konuştuğu yerleri
    B {se} kısımlarda {ng} konuştuğu yerleri
    S {w} {t} ne konuşuldu?
    """,
)

RU = _lang(
    "ru",
    names="Аня/f Иван/m Маша/f Дмитрий/m Вера/f Сергей/m Наташа/f Алексей/m Катя/f",
    about="о {}",
    topics="""
    [аренда] = об [аренде] | [свадьба] = о [свадьбе] | [виза] = о [визе] |
    [приём] у [врача] = о [приёме] у [врача] | [отпуск] = об [отпуске] |
    [договор] = о [договоре] | [ремонт] [машины] = о [ремонте] [машины] |
    [день] [рождения] = о [дне] [рождения] | [экзамен] = об [экзамене] | [рейс] = о [рейсе] |
    [зарплата] = о [зарплате] | [бюджет] = о [бюджете] | [переезд] = о [переезде] |
    [счёт] за [электричество] = о [счёте] за [электричество] | [страховка] = о [страховке] |
    [собеседование] = о [собеседовании] | [ипотека] = об [ипотеке] | [собака] = о [собаке] |
    [совещание] в [понедельник] = о [совещании] в [понедельник] |
    [подарки] на [Новый] [год] = о [подарках] на [Новый] [год] |
    [оценки] в [школе] = об [оценках] в [школе] |
    [поездка] в [Лиссабон] = о [поездке] в [Лиссабон] |
    [рецепт] [пирога] = о [рецепте] [пирога]
    """,
    styles="""
    whisper: шёпотом | тихим шёпотом | почти шёпотом
    sad: грустно | печальным голосом | с грустью
    excited: радостно | взволнованно | весело
    angry: сердито | со злостью | раздражённо
    fast: очень быстро | скороговоркой | торопливо
    slow: медленно | очень медленно | не спеша
    monotone: монотонно | без интонации | однообразным голосом
    high: высоким голосом | тонким голосом | писклявым голосом
    low: низким голосом | басом | глубоким низким голосом
    neutral: спокойно | ровным тоном | нейтральным тоном
    crying: плача | сквозь слёзы | всхлипывая
    laughing: смеясь | со смехом | хихикая
    shouting: крича | криком | на крике
    """,
    envs="""
    rain: на фоне дождя | когда идёт дождь | с шумом дождя
    thunderstorm: во время грозы | с раскатами грома | на фоне грозы
    wind: на ветру | с шумом ветра | на фоне ветра
    birds: с пением птиц | на фоне птиц | с щебетом птиц
    dog: с лаем собаки | когда лает собака
    cat: с мяуканьем кошки | когда мяукает кошка
    phone: со звонком телефона | когда звонит телефон
    bell: со звоном колокола | со звонком в дверь | с колокольчиком на фоне
    alarm: с сигнализацией на фоне | со звоном будильника | с сигналом тревоги
    typing: со стуком клавиатуры | когда кто-то печатает
    clock: с тиканьем часов | под тиканье часов
    engine: с шумом мотора | с работающим двигателем | с рёвом двигателя
    footsteps: со звуком шагов | с шагами на фоне
    crowd: на фоне толпы | с гулом голосов | в толпе
    music: с музыкой на фоне | под музыку | с фоновой музыкой
    water: с шумом воды | с открытым краном | с журчанием воды
    hum: с гудением на фоне | с гулом холодильника | с электрическим гулом
    static: с помехами | с треском радио | с шипением эфира
    camera: со щелчками фотоаппарата | когда щёлкает камера
    paper: с шелестом бумаги | когда кто-то листает страницы
    """,
    times="""
    today: сегодня | сегодня утром | сегодня днём
    yesterday: вчера | вчера вечером
    this_session: в этом разговоре | только что в этом чате | в этой сессии
    last_session: в прошлый раз, когда мы говорили | в нашем прошлом разговоре |
        на прошлой сессии
    first: в самом начале | в начале разговора | самым первым делом
    latest: в последний раз | совсем недавно | последним
    before_break: до перерыва | перед перерывом | перед паузой
    after_break: после перерыва | после паузы
    """,
    same_subject="этот человек | человек из этой записи | тот, кто здесь говорит | этот голос",
    same_voice="""с тем же голосом, что и в этой записи | от того же человека, что в этом клипе |
    того же говорящего, что здесь | с этим голосом""",
    same_style="""в том же тоне, что этот клип | с той же манерой речи, что в записи |
    в том же настроении, что здесь""",
    same_env="""с тем же фоном, что в этой записи | в том же месте, что этот клип |
    с тем же фоновым шумом, что здесь""",
    openers="""найди {X} | поищи {X} | включи {X} | покажи {X} | можешь найти {X}? |
    хочу послушать {X} | {X} | {X}, пожалуйста | не могли бы вы найти {X}? | поставь {X}""",
    fillers="эм, | ну, | слушай, | короче,",
    frames="""
    Q ответь на это
    Q какой ответ на этот вопрос?
    Q найди ответ на вопрос из этой записи
    Q можешь ответить на то, что тут спрашивают?
    Q поищи, где отвечают на этот вопрос
    Q ответ на это, пожалуйста
    Q кто-нибудь на это ответил?
    Q что ответили на этот вопрос?
    K что было дальше?
    K продолжи отсюда
    K а что сказали сразу после этого?
    K найди продолжение этой записи
    K как дальше идёт этот разговор?
    K то, что идёт после этого клипа
    K включи то, что сказали после этого
    K продолжай с этого места
    Q знаешь ответ на то, что здесь спрашивают?
    Q ответь на вопрос из этой записи
    K что сказали потом?
    K включи фрагмент после этой записи
    S что {n} ⟨говорил|говорила⟩ {w?} {t}?
    S что {n} думает {t}?
    S {T} — что {n} об этом ⟨сказал|сказала⟩?
    S то, что {n} ⟨рассказывал|рассказывала⟩ {w?} {t}
    S что {n} ⟨упоминал|упоминала⟩ {t}?
    S что говорит {P} {t}?
    S что ещё говорит {P} {t}?
    B фрагменты, где {n} говорит {t}
    B всё, что {n} ⟨сказал|сказала⟩ {t}
    U что я ⟨говорил|говорила⟩ {w?} {t}?
    U то, что я тебе ⟨рассказывал|рассказывала⟩ {w?} {t}
    U мои слова {t}
    U напомни, что я ⟨говорил|говорила⟩ {t} {w?}
    U что я тебе ⟨сказал|сказала⟩ {t}?
    A что ты мне ⟨говорил|говорила⟩ {w?} {t}?
    A твой ответ {t}
    A что ты мне ⟨советовал|советовала⟩ {w?} {t}?
    A то, что ты мне ⟨объяснял|объясняла⟩ {t} {w?}
    A напомни, что ты ⟨ответил|ответила⟩ {t}
    S что говорили {t}?
    S {T}
    S всё, что было сказано {t}
    S говорил ли кто-нибудь {t}?
    S {T} — что об этом говорили?
    B фрагменты {t}
    B моменты, где говорят {t}
    B фрагменты, где кто-то говорит {s}
    B моменты, когда кто-то говорит {s}
    B записи, где говорят {s}
    S когда кто-то говорил {s}?
    B фрагменты, где {n} говорит {s}
    B моменты, когда {n} говорит {s}
    B записи, где {n} говорит {s}
    S когда {n} ⟨говорил|говорила⟩ {s}?
    B фрагменты {e}
    B записи {e}
    B моменты {e}
    S что было сказано {e}?
    B ещё записи {sv}
    B другие фрагменты {sv}
    B всё {sv}
    S что ещё говорит {P}?
    B фрагменты {ss}
    B записи, где кто-то говорит {ss}
    B записи {se}
    B фрагменты {se}
    B фрагменты {sv} {e}
    B то, что {n} ⟨сказал|сказала⟩ {e}
    B фрагменты, где {n} говорит {s} {e}
    B моменты, когда кто-то говорит {s} {e}
    B фрагменты {sv}, где говорят {s}
    B моменты, когда {n} ⟨говорил|говорила⟩ {s} {w}
    S что {n} ⟨говорил|говорила⟩ {w} {t}?
    S что {w} говорил {P} {t}?
    S что {n} ⟨говорил|говорила⟩ {t} {e}?
    B фрагменты {ss} {e}
    B фрагменты {se}, где говорит {n}
    S что говорили {w} {t}?
    """,
)
JA = _lang(
    "ja",
    names="田中/m 佐藤/f 美咲/f 健太/m 由美/f 翔太/m 陽菜/f 大輔/m マリア/f",
    about="{}について",
    topics="""
    [家賃] | [結婚式] | [ビザ] | [病院]の[予約] | [夏休み] | [契約] | [車]の[修理] |
    [誕生日パーティー] | [試験] | [フライト] | [給料] | [予算] | [新居] | [電気代] |
    [保険] | [面接] | [住宅ローン] | [犬] | [月曜]の[会議] | [クリスマスプレゼント] |
    [成績] | [リスボン旅行] | [ケーキ]の[レシピ]
    """,
    styles="""
    whisper: ささやき声で | ひそひそと | 小声でささやくように
    sad: 悲しそうに | 沈んだ声で | 寂しげに
    excited: 楽しそうに | 嬉しそうに | はしゃいで
    angry: 怒って | 怒った声で | イライラした様子で
    fast: 早口で | すごく速く | せかせかと
    slow: ゆっくり | とてもゆっくりと | ゆっくりした口調で
    monotone: 単調に | 抑揚のない声で | 棒読みで
    high: 高い声で | 甲高い声で | かん高い声で
    low: 低い声で | 太く低い声で | 低く響く声で
    neutral: 落ち着いて | 普通のトーンで | 穏やかに
    crying: 泣きながら | 涙声で | すすり泣きながら
    laughing: 笑いながら | クスクス笑って | 大笑いしながら
    shouting: 叫んで | 大声で叫びながら | 怒鳴って
    """,
    envs="""
    rain: 雨の音がする | 雨が降っている | 後ろで雨音が聞こえる
    thunderstorm: 雷が鳴っている | 嵐の | 雷の音がする
    wind: 風の音がする | 風が強い | 風がびゅうびゅう吹いている
    birds: 鳥が鳴いている | 鳥のさえずりが聞こえる
    dog: 犬が吠えている | 犬の鳴き声がする
    cat: 猫が鳴いている | 猫の声がする
    phone: 電話が鳴っている | 着信音が鳴る
    bell: ベルが鳴っている | チャイムが鳴る | 鐘の音がする
    alarm: アラームが鳴っている | 目覚ましが鳴る
    typing: キーボードを打つ音がする | タイピングの音が聞こえる
    clock: 時計のチクタク音がする | 時計の音が聞こえる
    engine: エンジン音がする | 車のエンジンがかかっている
    footsteps: 足音がする | 足音が聞こえる
    crowd: 人混みの | ガヤガヤした | 大勢の話し声がする
    music: 音楽が流れている | BGMがある | 後ろで音楽がかかっている
    water: 水が流れている | 水の音がする | 蛇口から水が出ている
    hum: ブーンという音がする | 冷蔵庫の音がする | ハム音が入っている
    static: ノイズが入っている | ザーザーと雑音がする | 雑音の入った
    camera: シャッター音がする | カメラのシャッター音が入っている
    paper: 紙の音がする | ページをめくる音がする
    """,
    times="""
    today: 今日、 | 今朝、 | 今日の午後、
    yesterday: 昨日、 | 昨夜、
    this_session: この会話で、 | さっきこのチャットで、 | このセッションで、
    last_session: 前回話したとき、 | この前の会話で、 | 前回のセッションで、
    first: 一番最初に、 | 会話の最初に、 | 最初に、
    latest: 一番最近、 | 最後に、 | 直近で、
    before_break: 休憩の前に、 | 休憩前に、
    after_break: 休憩のあとで、 | 休憩明けに、
    """,
    same_subject="この人 | このクリップの人 | ここで話している人 | この声の人",
    same_voice="このクリップと同じ声の | この録音と同じ人の | この声と同じ話し手の",
    same_style="このクリップと同じ調子で | この録音と同じ話し方で | これと同じ雰囲気で",
    same_env="この録音と同じ背景音の | このクリップと同じ場所の | これと同じ雑音が入っている",
    openers="""{X}を探して | {X}を見つけて | {X}を再生して | {X}を見せて |
    {X}を探してもらえますか？ | {X}が聞きたい | {X} | {X}をお願いします | {X}ある？ |
    {X}を流して""",
    fillers="えーと、| あの、| えっと、| ねえ、",
    frames="""
    Q これに答えて
    Q この質問の答えは？
    Q このクリップの質問の答えを探して
    Q ここで聞かれていることに答えてくれる？
    Q この質問に答えている部分を探して
    Q これの答えをお願い
    Q 誰かこれに答えてた？
    Q この質問に何て答えてた？
    K この後は何？
    K ここから続けて
    K このすぐ後に何て言ってた？
    K このクリップの続きを探して
    K この会話はどう続くの？
    K この録音の次の部分
    K この後に言われたことを再生して
    K この続きを聞かせて
    Q ここで聞いていることの答え、わかる？
    Q この録音の質問に答えて
    K そのあと何て言った？
    K このクリップの次の部分を流して
    S {n}さんは{w?}{t}何て言ってた？
    S {t}{n}さんはどう思ってる？
    S {T}のこと、{n}さんは何て言ってた？
    S {w?}{n}さんが{t}話していたこと
    S {n}さんの{T}の話
    S {P}は{t}何て言ってる？
    S {P}は{t}ほかに何を言ってた？
    B {n}さんが{t}話している部分
    B {n}さんが{t}言ったこと全部
    U 私は{w?}{t}何て言ったっけ？
    U {w?}{t}私が話したこと
    U {t}の私の発言
    U {w?}{t}私が何て言ったか教えて
    U {t}私、前に何て言ったっけ？
    A あなたは{w?}{t}何て言ってた？
    A {t}のあなたの答え
    A {w?}{t}何を勧めてくれたっけ？
    A {w?}{t}説明してくれたこと
    A {t}あなたが何て答えたか教えて
    S {t}何が話された？
    S {T}
    S {t}話したこと全部
    S 誰か{T}のことを話してた？
    S {T}の件、何て言ってた？
    B {t}話している部分
    B {T}の話が出てくるところ
    B 誰かが{s}話している部分
    B {s}話しているところ
    B {s}しゃべっている録音
    S 誰かが{s}話していたのはいつ？
    B {n}さんが{s}話している部分
    B {n}さんが{s}しゃべっているところ
    B {n}さんが{s}話している録音
    S {n}さんが{s}話していたのはいつ？
    B {e}部分
    B {e}録音
    B {e}ところ
    S {e}ところで何が話されてた？
    B {sv}ほかの録音
    B {sv}ほかの部分
    B {sv}クリップ全部
    S {P}はほかに何を言ってた？
    B {ss}話している部分
    B 誰かが{ss}話している録音
    B {se}録音
    B {se}部分
    B {sv}録音のうち、{e}もの
    B {e}ところで{n}さんが言ったこと
    B {e}ところで{n}さんが{s}話している部分
    B {e}ところで誰かが{s}話している部分
    B {sv}録音のうち、{s}話しているもの
    B {w}{n}さんが{s}話していた部分
    S {w}{n}さんは{t}何て言ってた？
    S {w}{P}は{t}何て言ってた？
    S {e}ところで{n}さんは{t}何て言ってた？
    B {e}ところで{ss}話している部分
    B {se}部分で{n}さんが話しているところ
    S {w}{t}何が話された？
    """,
    cased=False,
)

ZH = _lang(
    "zh",
    names="王伟/m 李娜/f 张敏/f 刘洋/m 陈静/f 杨磊/m 赵丽/f 周杰/m 玛丽亚/f",
    about="关于{}",
    topics="""
    [房租] | [婚礼] | [签证] | 跟[医生]的[预约] | [假期] | [合同] | [修车] | [生日聚会] |
    [考试] | [航班] | [工资] | [预算] | [搬家] | [电费] | [保险] | [面试] | [房贷] | [狗] |
    [周一]的[会议] | [圣诞礼物] | [成绩] | 去[里斯本]的[旅行] | [蛋糕]的[做法]
    """,
    styles="""
    whisper: 小声 | 悄悄地 | 低声细语地
    sad: 难过地 | 很伤心地 | 用悲伤的语气
    excited: 很开心地 | 兴奋地 | 高高兴兴地
    angry: 生气地 | 气呼呼地 | 用愤怒的语气
    fast: 很快地 | 语速很快地 | 飞快地
    slow: 慢慢地 | 语速很慢地 | 慢吞吞地
    monotone: 单调地 | 没有起伏地 | 用平板的语调
    high: 用高音 | 尖着嗓子 | 用很高的声音
    low: 用低沉的声音 | 粗着嗓子 | 用浑厚的声音
    neutral: 平静地 | 用正常的语气 | 心平气和地
    crying: 哭着 | 带着哭腔 | 抽泣着
    laughing: 笑着 | 哈哈大笑着 | 边笑边
    shouting: 大喊着 | 扯着嗓子 | 大声喊着
    """,
    envs="""
    rain: 有雨声的 | 下雨时的 | 背景有雨声的
    thunderstorm: 打雷的 | 有雷雨声的 | 雷暴天的
    wind: 有风声的 | 刮大风时的 | 背景有风声的
    birds: 有鸟叫声的 | 鸟在叫的
    dog: 有狗叫声的 | 狗在叫的
    cat: 有猫叫声的 | 猫在叫的
    phone: 电话在响的 | 有手机铃声的
    bell: 有铃声的 | 门铃在响的 | 有钟声的
    alarm: 有警报声的 | 闹钟在响的
    typing: 有打字声的 | 有人在敲键盘的
    clock: 有钟表滴答声的 | 时钟滴答响的
    engine: 有发动机声的 | 汽车引擎在响的
    footsteps: 有脚步声的 | 有人走路的
    crowd: 人声嘈杂的 | 背景有很多人说话的 | 人很多的
    music: 有背景音乐的 | 放着音乐的
    water: 有流水声的 | 水龙头开着的
    hum: 有嗡嗡声的 | 冰箱嗡嗡响的 | 有电流声的
    static: 有杂音的 | 有沙沙静电声的 | 有收音机杂音的
    camera: 有快门声的 | 有人在拍照的
    paper: 有翻纸声的 | 有人翻书的
    """,
    times="""
    today: 今天 | 今天早上 | 今天下午
    yesterday: 昨天 | 昨晚
    this_session: 在这次对话里 | 刚才在这个聊天里 | 这次会话中
    last_session: 上次我们聊的时候 | 在上一次对话里 | 上次会话中
    first: 一开始 | 对话刚开始时 | 最开始
    latest: 最近一次 | 最后 | 最新一次
    before_break: 休息之前 | 中场休息前
    after_break: 休息之后 | 休息回来后
    """,
    same_subject="这个人 | 这段录音里的人 | 这里说话的人 | 这个声音",
    same_voice="和这段录音同一个声音的 | 同一个说话人的 | 跟这个片段同一个人的",
    same_style="用和这段录音一样的语气 | 用跟这个片段一样的说话方式 | 带着和这里一样的情绪",
    same_env="和这段录音背景一样的 | 跟这个片段同一个地方的 | 背景噪音和这里一样的",
    openers="""找一下{X} | 帮我找{X} | 播放{X} | 给我看看{X} | 你能找到{X}吗？ | 我想听{X} |
    {X} | 请找出{X} | 有没有{X}？ | 放一下{X}""",
    fillers="那个，| 嗯，| 就是，| 呃，",
    frames="""
    Q 回答一下这个
    Q 这个问题的答案是什么？
    Q 找出这段录音里问题的答案
    Q 你能回答这里问的问题吗？
    Q 找找哪里回答了这个问题
    Q 请给我这个的答案
    Q 有人回答过这个吗？
    Q 这个问题他们是怎么回答的？
    K 接下来是什么？
    K 从这里继续
    K 紧接着说了什么？
    K 找到这段录音的后续
    K 这段对话后面怎么说的？
    K 这个片段之后的内容
    K 播放这之后说的话
    K 接着往下放
    Q 你知道这里问的问题的答案吗？
    Q 回答这段录音里的问题
    K 后来他们说了什么？
    K 播放这个片段后面的部分
    S {n}{w?}{t}说了什么？
    S {n}对{T}怎么看？
    S {T}的事，{n}怎么说的？
    S {n}{w?}讲的{t}的内容
    S {n}{t}说过什么？
    S {P}{t}说了什么？
    S {P}{t}还说了什么？
    B {n}谈到{T}的部分
    B {n}{t}说的所有话
    U 我{w?}{t}说了什么？
    U 我{w?}跟你说的{t}的事
    U 我{t}说的话
    U 提醒我一下我{t}说过什么
    U 我{t}是怎么说的？
    A 你{w?}{t}跟我说了什么？
    A 你{t}的回答
    A 你{w?}{t}给了我什么建议？
    A 你{t}给我解释的内容
    A 提醒我你{t}是怎么回答的
    S {t}说了什么？
    S {T}
    S {t}的所有内容
    S 有人提到{T}吗？
    S {T}，大家怎么说的？
    B {t}的部分
    B 提到{T}的片段
    B 有人{s}说话的部分
    B {s}说话的片段
    B 有人{s}讲话的录音
    S 什么时候有人{s}说话？
    B {n}{s}说话的部分
    B {n}{s}讲话的片段
    B {n}{s}说话的录音
    S {n}什么时候{s}说过话？
    B {e}部分
    B {e}录音
    B {e}片段
    S {e}片段里说了什么？
    B {sv}其他录音
    B {sv}其他片段
    B {sv}所有内容
    S {P}还说了什么？
    B 有人{ss}说话的部分
    B {ss}讲话的录音
    B {se}录音
    B {se}片段
    B {sv}{e}片段
    B {n}在{e}片段里说的话
    B {e}片段里{n}{s}说话的部分
    B {e}片段里有人{s}说话的部分
    B {sv}片段里{s}说话的部分
    B {n}{w}{s}说话的部分
    S {n}{w}{t}说了什么？
    S {P}{w}{t}说了什么？
    S 在{e}片段里，{n}{t}说了什么？
    B {e}片段里有人{ss}说话的部分
    B {se}片段里{n}说话的部分
    S {w}{t}说了什么？
    """,
    cased=False,
)

KO = _lang(
    "ko",
    names="지수/f 민준/m 서연/f 현우/m 지훈/m 수빈/f 예은/f 도윤/m 하은/f",
    about="{}에 대해",
    topics="""
    [월세] | [결혼식] | [비자] | [병원] [예약] | [휴가] | [계약] | [차] [수리] | [생일] [파티] |
    [시험] | [비행기] [표] | [월급] | [예산] | [이사] | [전기] [요금] | [보험] | [면접] |
    [대출] | [강아지] | [월요일] [회의] | [크리스마스] [선물] | [성적] | [리스본] [여행] |
    [케이크] [레시피]
    """,
    styles="""
    whisper: 속삭이듯이 | 작은 목소리로 속삭이며 | 귓속말로
    sad: 슬프게 | 슬픈 목소리로 | 우울하게
    excited: 신나게 | 기쁘게 | 들뜬 목소리로
    angry: 화난 목소리로 | 화내면서 | 짜증스럽게
    fast: 빨리 | 아주 빠르게 | 속사포처럼
    slow: 천천히 | 아주 느리게 | 느릿느릿
    monotone: 단조롭게 | 억양 없이 | 밋밋한 톤으로
    high: 높은 목소리로 | 가는 고음으로 | 하이톤으로
    low: 낮은 목소리로 | 굵고 낮은 목소리로 | 저음으로
    neutral: 차분하게 | 평범한 톤으로 | 담담하게
    crying: 울면서 | 울먹이며 | 흐느끼며
    laughing: 웃으면서 | 깔깔 웃으며 | 킥킥거리며
    shouting: 소리 지르며 | 고함치며 | 크게 소리치며
    """,
    envs="""
    rain: 빗소리가 나는 | 비가 오는 | 뒤에서 빗소리가 들리는
    thunderstorm: 천둥이 치는 | 폭풍우 소리가 나는
    wind: 바람 소리가 나는 | 바람이 세게 부는
    birds: 새소리가 나는 | 새가 지저귀는
    dog: 개가 짖는 | 개 짖는 소리가 나는
    cat: 고양이가 우는 | 고양이 소리가 나는
    phone: 전화벨이 울리는 | 휴대폰이 울리는
    bell: 종소리가 나는 | 초인종이 울리는
    alarm: 알람이 울리는 | 경보음이 나는
    typing: 타자 치는 소리가 나는 | 키보드 소리가 들리는
    clock: 시계 초침 소리가 나는 | 시계가 째깍거리는
    engine: 엔진 소리가 나는 | 차 시동 소리가 나는
    footsteps: 발소리가 나는 | 발걸음 소리가 들리는
    crowd: 사람들로 붐비는 | 사람들 떠드는 소리가 나는
    music: 음악이 흐르는 | 배경음악이 나오는
    water: 물 흐르는 소리가 나는 | 수돗물 소리가 나는
    hum: 웅웅거리는 소리가 나는 | 냉장고 소리가 나는
    static: 잡음이 섞인 | 지지직거리는
    camera: 카메라 셔터 소리가 나는 | 사진 찍는 소리가 나는
    paper: 종이 넘기는 소리가 나는 | 종이가 바스락거리는
    """,
    times="""
    today: 오늘 | 오늘 아침 | 오늘 오후
    yesterday: 어제 | 어젯밤
    this_session: 이번 대화에서 | 방금 이 채팅에서 | 이번 세션에서
    last_session: 지난번에 얘기했을 때 | 저번 대화에서 | 지난 세션에서
    first: 맨 처음에 | 대화 시작할 때 | 처음에
    latest: 가장 최근에 | 마지막으로 | 제일 최근에
    before_break: 쉬는 시간 전에 | 휴식 전에
    after_break: 쉬는 시간 후에 | 휴식 끝나고
    """,
    same_subject="이 사람 | 이 클립 속 사람 | 여기서 말하는 사람 | 이 목소리 주인",
    same_voice="이 클립과 같은 목소리의 | 이 녹음과 같은 사람의 | 같은 화자의",
    same_style="이 클립과 같은 말투로 | 이 녹음이랑 같은 톤으로 | 여기랑 같은 분위기로",
    same_env="이 녹음과 같은 배경음의 | 이 클립과 같은 장소의 | 여기랑 같은 소음이 나는",
    openers="""{X} 찾아줘 | {X} 찾아 주세요 | {X} 틀어줘 | {X} 보여줘 | {X} 찾을 수 있어? |
    {X} 듣고 싶어 | {X} | {X} 좀 부탁해 | {X} 있어? | {X} 재생해 줘""",
    fillers="음..., | 저기, | 그, | 아,",
    frames="""
    Q 이거에 답해 줘
    Q 이 질문의 답이 뭐야?
    Q 이 클립 속 질문의 답을 찾아 줘
    Q 여기서 묻는 거에 대답해 줄 수 있어?
    Q 이 질문에 대한 답이 나오는 부분 찾아 줘
    Q 이거 답 좀 알려 주세요
    Q 누가 이거에 대답했어?
    Q 이 질문에 뭐라고 대답했어?
    K 이 다음은 뭐야?
    K 여기서부터 이어서 해 줘
    K 바로 다음에 뭐라고 했어?
    K 이 클립 다음 내용 찾아 줘
    K 이 대화 어떻게 이어져?
    K 이 녹음 다음 부분
    K 이거 다음에 한 말 틀어 줘
    K 이어지는 부분 들려 줘
    Q 여기서 묻는 거 답 알아?
    Q 이 녹음에 나온 질문에 답해 줘
    K 그다음에 뭐라고 했어?
    K 이 클립 다음 부분 틀어 줘
    S {n}(이/가) {w?} {t} 뭐라고 했어?
    S {t} {n}(은/는) 어떻게 생각해?
    S {T} 얘기, {n}(이/가) 뭐라고 했지?
    S {w?} {n}(이/가) {t} 한 말
    S {n}(이/가) {t} 뭐라고 말했어요?
    S {P}(이/가) {t} 뭐라고 해?
    S {P}(이/가) {t} 또 뭐라고 했어?
    B {n}(이/가) {t} 얘기하는 부분
    B {n}(이/가) {t} 한 말 전부
    U 내가 {w?} {t} 뭐라고 했지?
    U {w?} 내가 {t} 했던 말
    U {T}에 대한 내 말
    U 내가 {t} 뭐라고 했는지 알려 줘
    U {t} 내가 뭐라고 했더라?
    A 네가 {w?} {t} 뭐라고 했어?
    A {T}에 대한 너의 대답
    A {w?} {t} 나한테 뭘 추천했지?
    A {t} 나한테 설명해 준 거
    A {t} 네가 뭐라고 대답했는지 다시 알려 줘
    S {t} 무슨 얘기가 나왔어?
    S {T}
    S {t} 나온 얘기 전부
    S 누가 {T} 얘기했어?
    S {T} 얘기, 뭐라고들 했어?
    B {t} 얘기하는 부분
    B {T} 얘기가 나오는 곳
    B 누가 {s} 말하는 부분
    B {s} 말하는 곳
    B {s} 얘기하는 녹음
    S 누가 {s} 말한 건 언제야?
    B {n}(이/가) {s} 말하는 부분
    B {n}(이/가) {s} 얘기하는 곳
    B {n}(이/가) {s} 말하는 녹음
    S {n}(이/가) {s} 말한 게 언제야?
    B {e} 부분
    B {e} 녹음
    B {e} 곳
    S {e} 곳에서 무슨 말을 했어?
    B {sv} 다른 녹음
    B {sv} 다른 부분
    B {sv} 클립 전부
    S {P}(이/가) 또 뭐라고 했어?
    B 누가 {ss} 말하는 부분
    B {ss} 얘기하는 녹음
    B {se} 녹음
    B {se} 부분
    B {sv} 녹음 중에 {e} 부분
    B {e} 곳에서 {n}(이/가) 한 말
    B {e} 곳에서 {n}(이/가) {s} 말하는 부분
    B {e} 곳에서 누가 {s} 말하는 부분
    B {sv} 녹음 중에 {s} 말하는 부분
    B {w} {n}(이/가) {s} 말한 부분
    S {w} {n}(이/가) {t} 뭐라고 했어?
    S {w} {P}(이/가) {t} 뭐라고 했어?
    S {e} 곳에서 {n}(이/가) {t} 뭐라고 했어?
    B {e} 곳에서 누가 {ss} 말하는 부분
    B {se} 곳에서 {n}(이/가) 말하는 부분
    S {w} {t} 무슨 얘기가 나왔어?
    """,
    cased=False,
)
HI = _lang(
    "hi",
    names="राहुल/m प्रिया/f अमित/m नेहा/f विकास/m पूजा/f अर्जुन/m सुनीता/f रोहन/m",
    about="{} के बारे में",
    topics="""
    [किराया] = [किराए] के बारे में | [शादी] | [वीज़ा] | [डॉक्टर] की [अपॉइंटमेंट] |
    [छुट्टियाँ] = [छुट्टियों] के बारे में | [कॉन्ट्रैक्ट] | [गाड़ी] की [मरम्मत] |
    [जन्मदिन] की [पार्टी] | [परीक्षा] | [फ़्लाइट] | [तनख़्वाह] | [बजट] | [शिफ़्टिंग] |
    [बिजली] का [बिल] = [बिजली] के [बिल] के बारे में | [बीमा] | [इंटरव्यू] | [लोन] |
    [कुत्ता] = [कुत्ते] के बारे में | [सोमवार] की [मीटिंग] |
    [दिवाली] के [तोहफ़े] = [दिवाली] के [तोहफ़ों] के बारे में | [रिज़ल्ट] |
    [गोवा] की [ट्रिप] | [केक] की [रेसिपी]
    """,
    styles="""
    whisper: फुसफुसाकर | फुसफुसाते हुए | धीमी आवाज़ में फुसफुसाते हुए
    sad: उदास आवाज़ में | दुखी होकर | उदासी से
    excited: ख़ुशी से | जोश में | बहुत उत्साह से
    angry: गुस्से में | नाराज़ होकर | गुस्से से
    fast: बहुत तेज़ी से | जल्दी-जल्दी | फटाफट
    slow: धीरे-धीरे | बहुत धीमे | बहुत धीरे-धीरे
    monotone: एक ही सुर में | नीरस आवाज़ में | बिना उतार-चढ़ाव के
    high: पतली आवाज़ में | ऊँचे सुर में | तीखी आवाज़ में
    low: भारी आवाज़ में | गहरी आवाज़ में | मोटी आवाज़ में
    neutral: शांति से | सामान्य लहजे में | आराम से
    crying: रोते हुए | रो-रोकर | सिसकते हुए
    laughing: हँसते हुए | हँस-हँसकर | ठहाके लगाते हुए
    shouting: चिल्लाते हुए | चीख़कर | ज़ोर से चिल्लाकर
    """,
    envs="""
    rain: बारिश की आवाज़ के साथ | पीछे बारिश के शोर के साथ | बारिश के दौरान
    thunderstorm: बादलों की गड़गड़ाहट के साथ | आँधी-तूफ़ान के दौरान | बिजली की कड़क के साथ
    wind: हवा की सनसनाहट के साथ | तेज़ हवा के बीच | हवा के शोर के साथ
    birds: चिड़ियों की चहचहाहट के साथ | पक्षियों की आवाज़ के साथ
    dog: कुत्ते के भौंकने के साथ | पीछे भौंकते कुत्ते के साथ
    cat: बिल्ली की म्याऊँ के साथ | पीछे बिल्ली की आवाज़ के साथ
    phone: फ़ोन की रिंग के साथ | बजते हुए फ़ोन के साथ
    bell: घंटी की आवाज़ के साथ | दरवाज़े की घंटी के साथ | मंदिर की घंटी के साथ
    alarm: अलार्म बजने के साथ | पीछे अलार्म की आवाज़ के साथ
    typing: कीबोर्ड की खटखट के साथ | टाइपिंग की आवाज़ के साथ
    clock: घड़ी की टिक-टिक के साथ | घड़ी की टिकटिक के बीच
    engine: इंजन की आवाज़ के साथ | गाड़ी के इंजन के शोर के साथ
    footsteps: कदमों की आहट के साथ | पीछे कदमों की आवाज़ के साथ
    crowd: भीड़ के शोर के साथ | बहुत सारे लोगों की बातचीत के बीच | भीड़ में
    music: पीछे संगीत के साथ | बैकग्राउंड म्यूज़िक के साथ | गाना बजते हुए
    water: बहते पानी की आवाज़ के साथ | नल चलने की आवाज़ के साथ
    hum: भिनभिनाहट के साथ | फ़्रिज की घरघराहट के साथ | बिजली की गुनगुनाहट के साथ
    static: रेडियो की खरखराहट के साथ | स्टैटिक शोर के साथ | खड़खड़ाहट के साथ
    camera: कैमरे की क्लिक के साथ | कैमरा शटर की आवाज़ के साथ
    paper: काग़ज़ की सरसराहट के साथ | पन्ने पलटने की आवाज़ के साथ
    """,
    times="""
    today: आज | आज सुबह | आज दोपहर
    yesterday: कल | कल शाम
    this_session: इस बातचीत में | अभी इस चैट में | इस सेशन में
    last_session: पिछली बार जब हमने बात की थी | हमारी पिछली बातचीत में | पिछले सेशन में
    first: बिल्कुल शुरुआत में | बातचीत की शुरुआत में | सबसे पहले
    latest: सबसे हाल में | सबसे आख़िर में
    before_break: ब्रेक से पहले | विराम से पहले
    after_break: ब्रेक के बाद | विराम के बाद
    """,
    same_subject="इस व्यक्ति | इस क्लिप वाले व्यक्ति | यहाँ बोलने वाले | इस आवाज़ वाले व्यक्ति",
    same_voice="इस क्लिप जैसी ही आवाज़ में | इसी आवाज़ में | इस रिकॉर्डिंग वाले व्यक्ति की आवाज़ में",
    same_style="इस क्लिप जैसे ही लहजे में | इसी अंदाज़ में | इस रिकॉर्डिंग जैसे मूड में",
    same_env="""इस रिकॉर्डिंग जैसे ही बैकग्राउंड के साथ | इसी जगह के माहौल में |
    इस क्लिप जैसे ही शोर के साथ""",
    openers="""ढूँढो {X} | {X} ढूँढो | ज़रा ढूँढ दो {X} | मुझे दिखाओ {X} |
    क्या तुम ढूँढ सकते हो {X}? | {X} | {X}, प्लीज़ | कृपया ढूँढिए {X} | चलाओ {X} | सुनाओ {X}""",
    fillers="अच्छा, | वो, | मतलब, | सुनो,",
    frames="""
    Q इसका जवाब दो
    Q इस सवाल का जवाब क्या है?
    Q इस क्लिप में पूछे गए सवाल का जवाब ढूँढो
    Q यहाँ जो पूछा गया है उसका जवाब दे सकते हो?
    Q ढूँढो कि इस सवाल का जवाब कहाँ दिया गया
    Q इसका जवाब बताओ, प्लीज़
    Q क्या किसी ने इसका जवाब दिया?
    Q इस सवाल पर क्या जवाब मिला?
    K इसके बाद क्या आता है?
    K यहाँ से आगे चलाओ
    K इसके ठीक बाद क्या कहा गया?
    K इस क्लिप का अगला हिस्सा ढूँढो
    K यह बातचीत आगे कैसे चलती है?
    K इस रिकॉर्डिंग के बाद वाला हिस्सा
    K इसके बाद जो कहा गया वो चलाओ
    K यहीं से आगे सुनाओ
    Q यहाँ जो पूछा गया उसका जवाब पता है?
    Q इस रिकॉर्डिंग वाले सवाल का जवाब दो
    K उसके बाद उन्होंने क्या कहा?
    K इस क्लिप के बाद वाला हिस्सा चलाओ
    S {n} ने {w?} {t} क्या कहा?
    S {t} {n} की क्या राय है?
    S {T} — इस पर {n} ने क्या कहा?
    S {n} ने {w?} {t} जो बताया
    S {n} ने {t} क्या बताया?
    S {P} ने {t} क्या कहा?
    S {P} ने {t} और क्या कहा?
    B वो हिस्से जहाँ {n} {t} बात ⟨कर रहा|कर रही⟩ है
    B {n} ने {t} जो कुछ कहा
    U मैंने {w?} {t} क्या कहा था?
    U मैंने {w?} तुम्हें {t} जो बताया था
    U {t} मेरी बातें
    U याद दिलाओ मैंने {t} क्या कहा था
    U {t} मैंने क्या बोला था?
    A तुमने {w?} मुझे {t} क्या बताया था?
    A {t} तुम्हारा जवाब
    A तुमने {w?} {t} क्या सलाह दी थी?
    A तुमने {t} जो समझाया था
    A याद दिलाओ तुमने {t} क्या जवाब दिया था
    S {t} क्या कहा गया?
    S {T}
    S {t} जो कुछ कहा गया
    S क्या किसी ने {t} कुछ कहा?
    S {T} — इस पर क्या बात हुई?
    B वो हिस्से जहाँ {t} बात हो रही है
    B वो पल जब {t} बात हुई
    B वो हिस्से जहाँ कोई {s} बोल रहा है
    B वो पल जब कोई {s} बात कर रहा था
    B वो रिकॉर्डिंग जिनमें कोई {s} बोल रहा है
    S कोई {s} कब बोला था?
    B वो हिस्से जहाँ {n} {s} ⟨बोल रहा|बोल रही⟩ है
    B वो पल जब {n} {s} बात ⟨कर रहा था|कर रही थी⟩
    B वो रिकॉर्डिंग जिनमें {n} {s} ⟨बोल रहा|बोल रही⟩ है
    S {n} {s} कब ⟨बोला था|बोली थी⟩?
    B वो हिस्से जहाँ कोई {e} बात कर रहा है
    B {e} वाली रिकॉर्डिंग
    B वो पल जब {e} कोई बोल रहा था
    S {e} क्या कहा गया?
    B {sv} और रिकॉर्डिंग
    B {sv} बाक़ी हिस्से
    B {sv} बोली गई हर बात
    S {P} ने और क्या कहा?
    B वो हिस्से जहाँ कोई {ss} बोल रहा है
    B वो रिकॉर्डिंग जिनमें कोई {ss} बात कर रहा है
    B {se} रिकॉर्डिंग
    B {se} हिस्से
    B {sv} {e} बोले गए हिस्से
    B {n} ने {e} जो कहा
    B वो हिस्से जहाँ {n} {e} {s} ⟨बोल रहा|बोल रही⟩ है
    B वो हिस्से जहाँ कोई {e} {s} बोल रहा है
    B {sv} {s} बोले गए हिस्से
    B वो हिस्से जहाँ {n} {w} {s} ⟨बोल रहा था|बोल रही थी⟩
    S {n} ने {w} {t} क्या कहा?
    S {P} ने {w} {t} क्या कहा?
    S {n} ने {e} {t} क्या कहा?
    B वो हिस्से जहाँ कोई {e} {ss} बोल रहा है
    B {se} हिस्से जहाँ {n} ⟨बोल रहा|बोल रही⟩ है
    S {w} {t} क्या कहा गया?
    """,
    cased=False,
)

AR = _lang(
    "ar",
    names="سارة/f أحمد/m ليلى/f محمد/m هدى/f عمر/m نور/f يوسف/m رنا/f",
    about="عن {}",
    topics="""
    [الإيجار] | [حفل] [الزفاف] | [التأشيرة] | [موعد] [الطبيب] | [الإجازة] | [العقد] |
    [تصليح] [السيارة] | [حفلة] [عيد] [الميلاد] | [الامتحان] | [موعد] [الطائرة] | [الراتب] |
    [الميزانية] | [الانتقال] إلى [البيت] [الجديد] | [فاتورة] [الكهرباء] | [التأمين] |
    [مقابلة] [العمل] | [القرض] | [الكلب] | [اجتماع] [الاثنين] | [هدايا] [العيد] |
    [نتائج] [المدرسة] | [السفر] إلى [لشبونة] | [وصفة] [الكعكة]
    """,
    styles="""
    whisper: بصوت هامس | همسًا | بهمس
    sad: بحزن | بصوت حزين | بنبرة حزينة
    excited: بفرح | بحماس | بسعادة
    angry: بغضب | بعصبية | بصوت غاضب
    fast: بسرعة كبيرة | بسرعة | بكلام سريع
    slow: ببطء | ببطء شديد | على مهل
    monotone: بنبرة رتيبة | بصوت رتيب | بدون أي تنغيم
    high: بصوت حاد | بصوت رفيع | بطبقة صوت عالية
    low: بصوت عميق | بصوت غليظ | بطبقة صوت منخفضة
    neutral: بهدوء | بنبرة عادية | بصوت محايد
    crying: بين الدموع | مع البكاء | بصوت باكٍ
    laughing: بضحك | وسط الضحكات | مع الضحك
    shouting: بالصراخ | بصوت مرتفع جدًا | بصياح
    """,
    envs="""
    rain: مع صوت المطر | والمطر يهطل | مع المطر في الخلفية
    thunderstorm: أثناء العاصفة | مع صوت الرعد | مع عاصفة رعدية في الخلفية
    wind: مع صوت الريح | والرياح قوية | مع صفير الريح
    birds: مع زقزقة العصافير | مع أصوات الطيور
    dog: مع نباح كلب | وكلب ينبح في الخلفية
    cat: مع مواء قطة | وقطة تموء في الخلفية
    phone: مع رنين الهاتف | والجوال يرن
    bell: مع صوت جرس | مع رنين جرس الباب
    alarm: مع صوت إنذار | والمنبه يرن
    typing: مع صوت الكتابة على لوحة المفاتيح | مع طقطقة الكيبورد
    clock: مع تكتكة الساعة | مع صوت عقارب الساعة
    engine: مع صوت محرك | وصوت محرك السيارة في الخلفية
    footsteps: مع وقع أقدام | مع صوت خطوات
    crowd: وسط الزحام | مع ضجيج الناس | مع أصوات حشد في الخلفية
    music: مع موسيقى في الخلفية | والموسيقى تعمل
    water: مع صوت الماء الجاري | والحنفية مفتوحة
    hum: مع طنين في الخلفية | مع أزيز الثلاجة | مع طنين كهربائي
    static: مع تشويش | مع خشخشة الراديو
    camera: مع صوت غالق الكاميرا | مع طقطقة الكاميرا
    paper: مع حفيف الأوراق | مع صوت تقليب الصفحات
    """,
    times="""
    today: اليوم | هذا الصباح | اليوم بعد الظهر
    yesterday: أمس | البارحة | مساء أمس
    this_session: في هذه المحادثة | قبل قليل في هذه الدردشة | في هذه الجلسة
    last_session: آخر مرة تحدثنا | في محادثتنا السابقة | في الجلسة الماضية
    first: في البداية تمامًا | في بداية المحادثة | أول شيء
    latest: في المرة الأخيرة | مؤخرًا
    before_break: قبل الاستراحة | قبل الفاصل
    after_break: بعد الاستراحة | بعد الفاصل
    """,
    same_subject="هذا الشخص | الشخص في هذا المقطع | المتحدث هنا | صاحب هذا الصوت",
    same_voice="""بنفس صوت هذا المقطع | لنفس الشخص في هذا التسجيل | لنفس المتحدث هنا |
    بهذا الصوت""",
    same_style="بنفس نبرة هذا المقطع | بنفس طريقة الكلام في هذا التسجيل | بنفس المزاج الذي هنا",
    same_env="بنفس خلفية هذا التسجيل | في نفس مكان هذا المقطع | بنفس الضوضاء الخلفية التي هنا",
    openers="""ابحث عن {X} | جد لي {X} | شغّل {X} | أرني {X} | هل يمكنك إيجاد {X}؟ |
    أريد أن أسمع {X} | {X} | {X} من فضلك | لو سمحت ابحث عن {X} | اعرض {X}""",
    fillers="يعني، | طيب، | اممم، | اسمع،",
    frames="""
    Q أجب عن هذا
    Q ما هو جواب هذا السؤال؟
    Q جد جواب السؤال في هذا المقطع
    Q هل يمكنك الإجابة عما يُسأل هنا؟
    Q ابحث عن المكان الذي أُجيب فيه عن هذا السؤال
    Q الجواب على هذا من فضلك
    Q هل أجاب أحد عن هذا؟
    Q بماذا أجابوا على هذا السؤال؟
    K ماذا يأتي بعد هذا؟
    K أكمل من هنا
    K وماذا قيل بعد ذلك مباشرة؟
    K جد تكملة هذا المقطع
    K كيف تستمر هذه المحادثة؟
    K ما يأتي بعد هذا التسجيل
    K شغّل ما قيل بعد هذا
    K تابع من هذه النقطة
    Q هل تعرف جواب ما يُسأل هنا؟
    Q أجب عن السؤال في هذا التسجيل
    K ماذا قالوا بعد ذلك؟
    K شغّل الجزء الذي يلي هذا المقطع
    S ماذا ⟨قال|قالت⟩ {n} {w?} {t}؟
    S ما رأي {n} في {T}؟
    S {T}، ماذا ⟨قال|قالت⟩ {n} بهذا الخصوص؟
    S ما ⟨حكاه|حكته⟩ {n} {w?} {t}
    S ماذا ⟨ذكر|ذكرت⟩ {n} {t}؟
    S ماذا يقول {P} {t}؟
    S ماذا قال {P} أيضًا {t}؟
    B المقاطع التي ⟨يتحدث|تتحدث⟩ فيها {n} {t}
    B كل ما ⟨قاله|قالته⟩ {n} {t}
    U ماذا قلت {w?} {t}؟
    U ما قلته لك {w?} {t}
    U كلامي {t}
    U ذكّرني بما قلته {t} {w?}
    U ماذا كنت قد قلت لك {t}؟
    A ماذا قلت لي {w?} {t}؟
    A إجابتك {t}
    A بماذا نصحتني {w?} {t}؟
    A ما شرحته لي {t} {w?}
    A ذكّرني بما أجبتني به {t}
    S ماذا قيل {t}؟
    S {T}
    S كل ما قيل {t}
    S هل ذكر أحد {T}؟
    S {T}، ماذا قيل بهذا الخصوص؟
    B المقاطع التي تتحدث {t}
    B اللحظات التي يدور فيها الحديث {t}
    B المقاطع التي يتكلم فيها أحدهم {s}
    B اللحظات التي يتحدث فيها شخص {s}
    B تسجيلات لشخص يتكلم {s}
    S متى تكلم أحدهم {s}؟
    B المقاطع التي ⟨يتكلم|تتكلم⟩ فيها {n} {s}
    B اللحظات التي ⟨يتحدث|تتحدث⟩ فيها {n} {s}
    B تسجيلات ⟨يتكلم|تتكلم⟩ فيها {n} {s}
    S متى ⟨تكلم|تكلمت⟩ {n} {s}؟
    B المقاطع {e}
    B التسجيلات {e}
    B اللحظات {e}
    S ماذا قيل {e}؟
    B تسجيلات أخرى {sv}
    B مقاطع أخرى {sv}
    B كل شيء {sv}
    S ماذا قال {P} أيضًا؟
    B المقاطع {ss}
    B تسجيلات يتكلم فيها شخص {ss}
    B التسجيلات {se}
    B المقاطع {se}
    B مقاطع {sv} {e}
    B ما ⟨قاله|قالته⟩ {n} {e}
    B المقاطع التي ⟨يتكلم|تتكلم⟩ فيها {n} {s} {e}
    B اللحظات التي يتكلم فيها أحدهم {s} {e}
    B مقاطع {sv} يتكلم فيها {s}
    B المقاطع التي ⟨تكلم|تكلمت⟩ فيها {n} {s} {w}
    S ماذا ⟨قال|قالت⟩ {n} {w} {t}؟
    S ماذا قال {P} {w} {t}؟
    S ماذا ⟨قال|قالت⟩ {n} {t} {e}؟
    B المقاطع {ss} {e}
    B المقاطع {se} التي ⟨يتكلم|تتكلم⟩ فيها {n}
    S ماذا قيل {w} {t}؟
    """,
    cased=False,
)
SPECS: dict[str, Lang] = {
    spec.code: spec for spec in (ES, FR, DE, IT, PT, NL, PL, SV, TR, RU, JA, ZH, KO, HI, AR)
}
_BY_FAMILY: dict[str, dict[str, list[Frame]]] = {
    code: {family: [f for f in spec.frames if f.family == family] for family in FAMILIES}
    for code, spec in SPECS.items()
}
_SLOT = re.compile(r"\{(\w+)(\??)\}")
_GENDER = re.compile(r"⟨([^|⟩]*)\|([^⟩]*)⟩")
_KO_PARTICLE = re.compile(r"(\S)\((이|은|을|과|아)/(가|는|를|와|야)\)")
_KEY = re.compile(r"\[([^\]]+)\]")
_NAME, _GENITIVE = "\x00", "\x01"
_FINAL_PUNCT = " .?!？。！؟"


def _pick(rng: np.random.Generator, items: Sequence[str]) -> str:
    return items[int(rng.integers(len(items)))]


def _batchim(ch: str) -> bool:
    """Whether a Hangul syllable ends in a consonant (it takes 이, 은, 을, 과, 아)."""
    code = ord(ch) - 0xAC00
    return 0 <= code < 11172 and code % 28 != 0


def _capitalize(text: str, code: str) -> str:
    for i, ch in enumerate(text):
        if ch.isalpha():
            up = "İ" if code == "tr" and ch == "i" else ch.upper()
            return text[:i] + up + text[i + 1 :]
    return text


def _row(spec: Lang, family: str, rng: np.random.Generator, row_id: str) -> PlanRow:
    """One instruction of ``family`` in ``spec``'s language, with its plan."""
    frames = _BY_FAMILY[spec.code][family]
    frame = frames[int(rng.integers(len(frames)))]
    text = frame.text
    if frame.kind == "B":
        text = _pick(rng, spec.openers).replace("{X}", text)
    name = spec.names[int(rng.integers(len(spec.names)))]
    topic = spec.topics[int(rng.integers(len(spec.topics)))]
    plan = {"speaker": "any", "style": "any", "environment": "any"}
    time: list[str] = []
    filled: set[str] = set()
    p_time = OPTIONAL_TIME.get(family, OPTIONAL_TIME_OTHER)

    def fill(m: re.Match[str]) -> str:
        slot, optional = m[1], bool(m[2])
        if slot == "w":
            if optional and rng.random() >= p_time:
                return ""
            label = _pick(rng, TIME_LABELS)
            time.append(label)
            filled.add(slot)
            return _pick(rng, spec.times[label])
        filled.add(slot)
        if slot in ("n", "ng"):
            plan["speaker"] = f"target:{name.name}"
            return _NAME if slot == "n" else _GENITIVE
        if slot in ("P", "sv"):
            plan["speaker"] = "same"
            return _pick(rng, spec.same_subject if slot == "P" else spec.same_voice)
        if slot == "s":
            label = _pick(rng, list(STYLE_WORDS))
            plan["style"] = f"target:{label}"
            return _pick(rng, spec.styles[label])
        if slot == "ss":
            plan["style"] = "same"
            return _pick(rng, spec.same_style)
        if slot == "e":
            label = _pick(rng, list(ENVIRONMENT_WORDS))
            plan["environment"] = f"target:{label}"
            return _pick(rng, spec.envs[label])
        if slot == "se":
            plan["environment"] = "same"
            return _pick(rng, spec.same_env)
        if slot in ("t", "T"):
            return topic.about if slot == "t" else topic.bare
        raise ValueError(f"unknown slot {{{slot}}} in {spec.code} frame {frame.text!r}")

    text = _SLOT.sub(fill, text)
    gender = name.gender if filled & {"n", "ng"} else _pick(rng, "mf")
    text = _GENDER.sub(lambda m: m[1] if gender == "m" else m[2], text)
    uses_clip = frame.kind in "QK" or "same" in plan.values()
    has_reference = uses_clip or bool(rng.random() < UNUSED_CLIP)

    lower = strip = False
    if rng.random() < CASUAL:
        if rng.random() < 0.5:
            gap = "" if spec.code in UNSPACED else " "
            text = _pick(rng, spec.fillers) + gap + text
        lower = spec.cased and bool(rng.random() < 0.6)
        strip = bool(rng.random() < 0.7)
    if lower:
        text = text.lower()
    if strip:
        text = text.rstrip(_FINAL_PUNCT)
    text = text.replace(_NAME, name.name).replace(_GENITIVE, name.genitive)
    if spec.code == "ko":
        text = _KO_PARTICLE.sub(lambda m: m[1] + (m[2] if _batchim(m[1]) else m[3]), text)
    text = " ".join(text.split())
    if spec.code != "fr":
        text = re.sub(r" +([,.!?؟،])", r"\1", text)
    if spec.cased and not lower:
        text = _capitalize(text, spec.code)
    keys = list(dict.fromkeys(k for m in _KEY.finditer(text) for k in m[1].split()))
    text = text.replace("[", "").replace("]", "")
    return PlanRow(
        id=row_id,
        lang=spec.code,
        family=_family(frame.kind, filled),
        text=text,
        has_reference=has_reference,
        content=" ".join(keys) or None,
        content_from_reference=frame.kind in "QK",
        speaker=plan["speaker"],
        style=plan["style"],
        environment=plan["environment"],
        role={"U": "user", "A": "agent"}.get(frame.kind),
        time=time[0] if time else None,
    )


def generate_multi(n: int, seed: int, langs: Sequence[str] = LANGS) -> list[PlanRow]:
    """``n`` instructions with their plans, the languages taken in turn; the same rows
    for the same ``(n, seed, langs)``."""
    unknown = [code for code in langs if code not in SPECS]
    if unknown or not langs:
        raise ValueError(f"no tables for languages {unknown}; known: {', '.join(SPECS)}")
    rng = np.random.default_rng([seed, 2027])
    weights = np.array([FAMILY_WEIGHTS[f] for f in FAMILIES])
    weights /= weights.sum()
    rows = []
    for i in range(n):
        code = langs[i % len(langs)]
        family = FAMILIES[int(rng.choice(len(FAMILIES), p=weights))]
        rows.append(_row(SPECS[code], family, rng, f"gen-{code}-{i}"))
    return rows


def _problems(row: PlanRow) -> list[str]:
    """Every way ``row`` breaks the plan-row schema or this corpus's rules."""
    out = []
    names = [row.speaker[7:]] if row.speaker.startswith("target:") else []
    out += check_plan_row(dataclasses.asdict(row), names)
    if names and names[0] not in row.text:
        out.append(f"name {names[0]!r} is not in the text")
    for key in (row.content or "").split():
        if row.lang in SUBSTRING_KEYS:
            found = key in row.text
        else:
            found = key in re.findall(r"[\w'’-]+", row.text) or key in re.findall(r"\w+", row.text)
        if not found:
            out.append(f"content key {key!r} is not a word of the text")
    uses_same = "same" in (row.speaker, row.style, row.environment)
    if (uses_same or row.content_from_reference) and not row.has_reference:
        out.append("'same' or content from the clip without a clip")
    if row.content_from_reference and row.content is not None:
        out.append("content given though it comes from the clip")
    if row.family in ("qa", "continuation") and not row.content_from_reference:
        out.append("qa or continuation without content from the clip")
    if row.family == "dialogue_recall" and not (row.role and row.content):
        out.append("dialogue_recall without a role and a topic")
    for attr, labels in (("style", STYLE_WORDS), ("environment", ENVIRONMENT_WORDS)):
        value = getattr(row, attr)
        if value.startswith("target:") and value[7:] not in labels:
            out.append(f"{attr} {value!r} is not a label")
    if row.time is not None and row.time not in TIME_LABELS:
        out.append(f"time {row.time!r} is not a label")
    if row.family not in FAMILIES:
        out.append(f"family {row.family!r} is unknown")
    if re.search(r"[{}\[\]⟨⟩\x00\x01]|\(이/가\)", row.text):
        out.append("a slot or mark left in the text")
    return out


__all__ = ["FAMILIES", "LANGS", "SPECS", "generate_multi"]


if __name__ == "__main__":
    from collections import Counter

    for code, by_family in _BY_FAMILY.items():
        empty = [f for f, frames in by_family.items() if not frames]
        assert not empty, f"{code}: no frame for {empty}"
    rows = generate_multi(3000, 0)
    assert rows == generate_multi(3000, 0), "not deterministic"
    assert len({r.id for r in rows}) == len(rows), "ids repeat"
    bad = [(r.id, r.text, p) for r in rows if (p := _problems(r))]
    for problem in bad[:20]:
        print(problem)
    assert not bad, f"{len(bad)} rows break the rules"
    by_lang = Counter(r.lang for r in rows)
    family_counts = Counter(r.family for r in rows)
    print("rows per language:", dict(by_lang))
    print("rows per family:", dict(family_counts.most_common()))
    clip = sum(r.has_reference for r in rows)
    unused = sum(
        r.has_reference
        and not r.content_from_reference
        and "same" not in (r.speaker, r.style, r.environment)
        for r in rows
    )
    print(f"with a clip: {clip / len(rows):.1%} (unused: {unused / max(clip, 1):.1%} of them)")
    print(f"distinct texts: {len({r.text for r in rows})}")
    print("frames per language and family (a clip body counts once per opener):")
    for code, spec in SPECS.items():
        counts = {
            f: sum(len(spec.openers) if fr.kind == "B" else 1 for fr in frames)
            for f, frames in _BY_FAMILY[code].items()
        }
        print(f"  {code}: {counts}")
    for code in LANGS:
        for r in [r for r in rows if r.lang == code][:3]:
            print(
                f"  {r.id} [{r.family}] {r.text!r} -> content={r.content!r} "
                f"speaker={r.speaker} style={r.style} env={r.environment} "
                f"role={r.role} time={r.time} clip={r.has_reference}"
            )
