"""The value checks of policy fields: each returns the normalized text or raises ValueError
naming what is wrong (the loader adds file, line and field)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation

from extractors.timeparse import parse_timestamp

Check = Callable[[str], str]


def text_value(value: str) -> str:
    if not value:
        raise ValueError("is empty")
    return value


def optional_text_value(value: str) -> str:
    return value


def decimal_value(value: str) -> str:
    try:
        number = Decimal(value)
    except InvalidOperation:
        raise ValueError(f"{value!r} is not a number") from None
    if not number.is_finite():
        raise ValueError(f"{value!r} is not a finite number")
    return str(number)


def non_negative_value(value: str) -> str:
    text = decimal_value(value)
    if Decimal(text) < 0:
        raise ValueError(f"{value!r} is negative")
    return text


def fraction_value(value: str) -> str:
    text = decimal_value(value)
    if not Decimal(0) <= Decimal(text) <= Decimal(1):
        raise ValueError(f"{value!r} is not between 0 and 1")
    return text


def timestamp_value(value: str) -> str:
    try:
        return parse_timestamp(value).strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        raise ValueError(f"{value!r} is not an ISO 8601 timestamp") from None


def optional_timestamp_value(value: str) -> str:
    return timestamp_value(value) if value else ""


def parse_period(value: str) -> str:
    """A period `YYYY-MM` (ValueError naming what is wrong otherwise)."""
    parts = value.split("-")
    if len(parts) != 2 or len(parts[0]) != 4 or not all(p.isdigit() for p in parts):
        raise ValueError(f"{value!r} is not a period YYYY-MM")
    if not 1 <= int(parts[1]) <= 12:
        raise ValueError(f"{value!r} has no month {parts[1]}")
    return value


def positive_int_value(value: str) -> str:
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{value!r} is not a positive whole number")
    return str(int(value))


def one_of(*allowed: str) -> Check:
    def check(value: str) -> str:
        if value not in allowed:
            raise ValueError(f"{value!r} is not one of {', '.join(allowed)}")
        return value

    return check
