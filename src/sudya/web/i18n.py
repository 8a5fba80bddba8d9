"""Russian first, English second: gettext catalogues (Babel), plurals and dates per request."""

from __future__ import annotations

import contextvars
import datetime as dt
import functools
import io
import re
from pathlib import Path

from babel.dates import format_date, format_datetime
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LOCALES = ("ru", "en")
DEFAULT = "ru"
CATALOGUES = Path(__file__).resolve().parent.parent / "locale"

current_lang: contextvars.ContextVar[str] = contextvars.ContextVar("lang", default=DEFAULT)


@functools.cache
def translations(lang: str) -> Translations:
    """The catalogue for a language, compiled in memory from its .po file."""
    path = CATALOGUES / f"{lang}.po"
    if not path.exists():
        return Translations()
    with path.open("rb") as f:
        catalog = read_po(f, locale=lang)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(fp=buf)


def gettext(message: str, **params: object) -> str:
    text = translations(current_lang.get()).ugettext(message)
    return text % params if params else text


def ngettext(singular: str, plural: str, n: int, **params: object) -> str:
    text = translations(current_lang.get()).ungettext(singular, plural, n)
    return text % {"num": n, **params}


def pick(lang: str | None) -> str:
    return lang if lang in LOCALES else DEFAULT


def date(value: dt.date | None, fmt: str = "medium") -> str:
    if value is None:
        return "—"
    return format_date(value, format=fmt, locale=current_lang.get())


def isodate(value: str | None) -> str:
    """An ISO date string (as the JSON views carry it), localised."""
    return date(dt.date.fromisoformat(value)) if value else "—"


def datetime(value: dt.datetime | None, fmt: str = "short") -> str:
    if value is None:
        return "—"
    return format_datetime(value, format=fmt, locale=current_lang.get())


def text(value: object) -> str:
    """A rulebook text ({ru, en}) in the current language."""
    get = getattr(value, "get", None)
    if callable(get) and hasattr(value, "ru"):
        return str(get(current_lang.get()))
    return "" if value is None else str(value)


CAUSES = {
    "table": ("by the table", "по таблице"),
    "repeat": ("repeat", "повтор"),
    "stacking": ("stacking (three of a kind)", "сложение (три одинаковых)"),
    "conversion": ("conversion of cards", "превращение карточек"),
    "accumulation": ("accumulation (team disqualification)",
                     "совокупность (дисквалификация команды)"),
    "aggravation": ("aggravation: the college decides", "совокупность: решает коллегия"),
    "discretion": ("judge's choice", "на усмотрение судьи"),
    "decision": ("decision", "решение"),
    "appeal": ("appeal", "апелляция"),
    "cancellation": ("cancellation", "отмена"),
    "correction": ("correction", "исправление"),
    "none": ("no penalty", "без наказания"),
}


def cause(value: str) -> str:
    en, ru = CAUSES.get(value, (value, value))
    return ru if current_lang.get() == "ru" else en


# The engine and the ledger speak English; judges read Russian. Each pattern is a whole
# message with named parts; the Russian text keeps those parts.
RULE_MESSAGES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p), ru) for p, ru in [
        # decisions, appeals, results and the round clock (the judges' pages show these);
        # before the general patterns below, which would match some of them first
        (r"judge '(?P<x>.+)' is a (?P<y>\S+) and may not decide appeals",
         "судья «{x}» — {y} и не может решать апелляции"),
        (r"judge '(?P<x>.+)' is a (?P<y>\S+) and may not decide pending rulings",
         "судья «{x}» — {y} и не может принимать отложенные решения"),
        (r"judge '(?P<x>.+)' is a (?P<y>\S+) and may not give rulings",
         "судья «{x}» — {y} и не может выносить решения"),
        (r"judge '(?P<x>.+)' is a (?P<y>\S+); aggravated rulings are decided by (?P<z>.+)",
         "судья «{x}» — {y}; при совокупности решает: {z}"),
        (r"an aggravated ruling needs the sanctions decided",
         "укажите наказания, назначенные коллегией"),
        (r"a decision on a judge's-choice ruling needs a choice", "сделайте выбор"),
        (r"each sanction needs a kind", "у каждого наказания должен быть вид"),
        (r"unknown sanction kind '(?P<x>.+)'", "неизвестный вид наказания «{x}»"),
        (r"(?P<x>\S+) needs an amount", "для «{x}» нужно указать объём"),
        (r"must be a whole number", "должно быть целым числом"),
        (r"choice\.points must be a whole number", "штраф должен быть целым числом"),
        (r"there is no ruling for event '(?P<x>.+)' to appeal",
         "нет решения по событию «{x}», которое можно обжаловать"),
        (r"the ruling for event '(?P<x>.+)' is already appealed",
         "решение по событию «{x}» уже обжаловано"),
        (r"'(?P<x>.+)' is not the subject of this ruling",
         "решение вынесено не в отношении «{x}»"),
        (r"this rulebook defines no appeals", "регламент не предусматривает апелляций"),
        (r"this rulebook gives no penalty for a frivolous appeal",
         "регламент не предусматривает наказания за необоснованную апелляцию"),
        (r"unknown outcome '(?P<x>.+)'.*",
         "неизвестное решение по апелляции «{x}» (upheld, overturned, frivolous)"),
        (r"must be upheld, overturned or frivolous",
         "должно быть: upheld, overturned или frivolous"),
        (r"appeal: the ruling is upheld", "апелляция: решение оставлено в силе"),
        (r"appeal: the ruling is overturned; its sanctions no longer count",
         "апелляция: решение отменено, его наказания больше не учитываются"),
        (r"appeal found frivolous: the appellant is penalised \((?P<x>.+)\)",
         "апелляция признана необоснованной: апеллянт наказан ({x})"),
        (r"at most (?P<x>\d+) characters", "не больше {x} символов"),
        (r"must be between (?P<x>-?\d+) and (?P<y>-?\d+)", "должно быть от {x} до {y}"),
        (r"required", "обязательно"),
        (r"required by (?P<x>.+)", "обязательно для {x}"),
        (r"unknown player '(?P<x>.+)'", "неизвестный игрок «{x}»"),
        (r"unknown team '(?P<x>.+)'", "неизвестная команда «{x}»"),
        (r"unknown judge '(?P<x>.+)'", "неизвестный судья «{x}»"),
        (r"unknown infraction '(?P<x>.+)'", "неизвестное нарушение «{x}»"),
        (r"must be one of (?P<x>.+)", "должно быть одним из: {x}"),
        (r"must be a (?P<x>\w+)", "неверный тип значения ({x})"),
        (r"must be at least (?P<x>.+)", "не меньше {x}"),
        (r"must be at most (?P<x>.+)", "не больше {x}"),
        (r"(?P<x>\S+) does not apply at level '(?P<y>.+)' \(only (?P<z>.+)\)",
         "{x} не применяется на уровне «{y}» (только {z})"),
        (r"does not apply at level '(?P<x>.+)'", "не применяется на уровне «{x}»"),
        (r"(?P<x>\S+) applies only with settings\.(?P<y>\w+): (?P<z>.+) "
         r"\(this tournament: (?P<w>.+)\)",
         "{x} применяется только при настройке {y} = {z} (в этом турнире: {w})"),
        (r"judge '(?P<x>.+)' is a (?P<y>\S+) and may not (?P<z>.+)",
         "судья «{x}» — {y} и не может: {z}"),
        (r"choice (?P<x>.+) is not offered \(offered: (?P<y>.*)\)",
         "выбор {x} не предусмотрен (возможно: {y})"),
        (r"choice\.points (?P<x>-?\d+) is outside the range (?P<y>.+)",
         "штраф {x} вне диапазона {y}"),
        (r"required: \{amount: N\}.*", "укажите объём (choice: {{amount: N}}), целое число"),
        (r"the decision is not stricter than the table's (?P<x>.+)",
         "решение не строже табличного: {x}"),
        (r"there is no ruling for event '(?P<x>.+)'.*", "нет решения по событию «{x}»"),
        (r"the ruling for event '(?P<x>.+)' is not pending a decision",
         "решение по событию «{x}» не ожидает решения"),
        (r"the ruling for event '(?P<x>.+)' was already appealed.*",
         "решение по событию «{x}» уже обжаловано; решение по апелляции окончательно"),
        (r"appeals are decided by (?P<x>.+)", "апелляции решает: {x}"),
        (r"the ruling for event '(?P<x>.+)' was given by the (?P<y>\S+), whose decisions "
         r"are final", "решение по событию «{x}» вынес {y}; его решения окончательны"),
        (r"repeat of (?P<x>\S+): one rank above (?P<y>\S+)",
         "повтор {x}: на ступень выше, чем {y}"),
        (r"repeat no\. (?P<x>\d+) of (?P<y>\S+)", "{x}-й раз: {y}"),
        (r"aggravation: the subject holds a valid sanction; the college must decide a "
         r"stricter one", "совокупность: у субъекта есть действующее наказание; коллегия "
         "должна назначить более строгое"),
        (r"judge's choice within a range: pending", "на усмотрение судьи: ожидает выбора"),
        (r"interpretation: (?P<x>.+)", "толкование: {x}"),
        # deck list checks (sudya.decks.decklist) and their comparison with the deck
        (r"no deck list", "дек-листа нет"),
        (r"the player's name is not on the list", "в дек-листе нет имени игрока"),
        (r"the count of '(?P<x>.+)' is not written in digits",
         "количество карт «{x}» записано не цифрами"),
        (r"'(?P<x>.+)' is hard to read: is it '(?P<y>.+)'\?",
         "«{x}» трудно прочитать: это «{y}»?"),
        (r"'(?P<x>.+)' is not a card the judges can identify",
         "судьи не могут определить карту «{x}»"),
        (r"(?P<x>.+) is not legal in (?P<y>\S+)", "карта «{x}» недопустима в формате {y}"),
        (r"main deck has (?P<x>\d+) cards, fewer than (?P<y>\d+)",
         "карт в основной колоде: {x}, меньше минимума ({y})"),
        (r"main deck has (?P<x>\d+) cards, more than (?P<y>\d+)",
         "карт в основной колоде: {x}, больше максимума ({y})"),
        (r"additional deck has (?P<x>\d+) cards, more than (?P<y>\d+)",
         "карт в дополнительной колоде: {x}, больше максимума ({y})"),
        (r"(?P<x>\d+) copies of (?P<y>.+) in main and additional decks together, at most "
         r"(?P<z>\d+)",
         "копий карты «{y}» в основной и дополнительной колодах вместе: {x}, можно не больше "
         "{z}"),
        (r"(?P<x>\d+) copies of (?P<y>.+), at most (?P<z>\d+)",
         "копий карты «{y}»: {x}, можно не больше {z}"),
        (r"the deck has (?P<x>\d+) cards, the list (?P<y>\d+)",
         "карт в колоде: {x}, в дек-листе: {y}"),
        (r"the additional deck has (?P<x>\d+) cards, the list (?P<y>\d+)",
         "карт в дополнительной колоде: {x}, в дек-листе: {y}"),
        (r"(?P<x>.+) ×(?P<y>\d+) is in the deck but not on the list",
         "«{x}» ×{y} есть в колоде, но нет в дек-листе"),
        (r"(?P<x>.+): (?P<y>\d+) in the deck, (?P<z>\d+) on the list",
         "«{x}»: в колоде {y}, в дек-листе {z}"),
        # the overspend remedy (sudya.decks.squad): reasons of the draws and refusals
        (r"gold crystals overspent", "перерасход золотых кристаллов"),
        (r"silver crystals overspent", "перерасход серебряных кристаллов"),
        (r"crystals on flyers overspent", "перерасход кристаллов на летающих существ"),
        (r"uniqueness broken", "нарушено правило уникальности"),
        (r"more than one terrain", "больше одной местности в отряде"),
        (r"«cannot be taken with …» broken",
         "нарушена особенность «не может быть взят в отряд с…»"),
        (r"unknown card '(?P<x>.+)' \(did you mean '(?P<y>.+)'\?\)",
         "неизвестная карта «{x}» (может быть, «{y}»?)"),
        (r"unknown card '(?P<x>.+)'", "неизвестная карта «{x}»"),
        (r"unknown seat '(?P<x>.+)' \((?P<y>.+)\)", "неизвестное место «{x}» ({y})"),
        (r"step (?P<x>\d+): the drawn card is not in group (?P<y>\S+) \((?P<z>.*)\)",
         "шаг {x}: вытянутой карты нет в группе {y} ({z})"),
        (r"more drawn cards than the remedy needed",
         "вытянутых карт больше, чем потребовало устранение"),
    ]
]


EVENT_PREFIX = re.compile(r"^event (?P<id>\S+?)(?: \(#(?P<pos>\d+)\))?: ")


def rule_message(message: str) -> str:
    """An engine or ledger message in the current language (Russian where known)."""
    if current_lang.get() != "ru":
        return message
    event = EVENT_PREFIX.match(message)
    if event is not None:  # a scenario's "event e2 (#2): …"
        where = event["id"] + (f" (#{event['pos']})" if event["pos"] else "")
        return f"событие {where}: {rule_message(message[event.end():])}"
    field, sep, rest = message.partition(": ")
    if sep and (field.startswith("details.") or field in (
            "player", "team", "judge", "choice", "infraction", "of", "sanctions", "outcome",
            "decision.of", "decision.sanctions", "decision.choice", "decision.judge",
            "appeal.of", "appeal.judge", "appeal.outcome", "appeal.choice")):
        return f"{field}: {rule_message(rest)}"
    for pattern, ru in RULE_MESSAGES:
        match = pattern.fullmatch(message)
        if match:
            return ru.format(**match.groupdict())
    return message
