"""Issue 38: an infraction id the rulebook has not is refused with a hint: the nearest id
(«did you mean»), or the Cyrillic letters typed in a Latin id; the engine, the commands and
the CLI say the same."""

from __future__ import annotations

from sudya.domain.errors import SudyaError, unknown_id, unknown_infraction
from sudya.domain.rulebook import loader
from sudya.i18n import messages  # noqa: F401  (the catalogues, which the engine leaves out)

IDS = ["gameplay.slow-play", "gameplay.missed-trigger", "conduct.minor"]


def test_a_misspelt_id_names_the_nearest() -> None:
    assert unknown_id(IDS, "gameplay.slow-plya") == ("id.did-you-mean",
                                                     {"suggestion": "gameplay.slow-play"})
    assert unknown_id(IDS, "nothing.like.it") == ("", {})


def test_a_cyrillic_letter_in_a_latin_id_is_named() -> None:
    code, params = unknown_id(IDS, "conduct.minоr")  # a Cyrillic «о»
    assert code == "id.mixed-script"
    assert params == {"letters": "о", "suggestion": "conduct.minor"}
    assert unknown_id(IDS, "гном")[0] != "id.mixed-script"  # all Cyrillic: no mix


def test_the_refusal_in_both_languages() -> None:
    book = loader.load("berserk")
    code, params = unknown_infraction((i.id for i in book.infractions), "gameplay.slow-plya",
                                      book.id)
    refusal = SudyaError(code, **params)
    assert refusal.text("ru") == ("в регламенте «berserk» нет нарушения "
                                    "«gameplay.slow-plya»; может быть, «gameplay.slow-play»?")
    assert refusal.text("en") == ("unknown infraction 'gameplay.slow-plya' in berserk; "
                                    "did you mean 'gameplay.slow-play'?")
