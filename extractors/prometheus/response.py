"""A Prometheus `/api/v1/query_range` (or `/api/v1/query`) JSON response read in bounded
memory (pure): its envelope checked, and the elements of `data.result` one at a time.

The bytes arrive in blocks. A scanner keeps track of nesting and of the object keys on the
way down (skipping strings, and runs of `[ts, "value"]` points, in one regular-expression
step each); each element of the array under `data` -> `result` is decoded by itself as soon
as it is complete (a matrix series as Prometheus writes it, up to its `]]}`, in one step),
so memory holds one series (bounded by the query's steps) and not the response. Everything
else is the envelope (`status`, `data.resultType`, `warnings`, small): it is checked when
`result` opens, so an error response or an unsupported result type is refused before any
element, and checked whole at the end. Bytes that are not JSON raise
ValueError naming the line and column.

A matrix series in exactly Prometheus's own layout, `{"metric":{...},"values":[[1790812800,
"0.742"],...]}` (no spaces, integer times, values of digits, `.`, `e`, `E`, `+`, `-`), is
yielded as a `PlainSeries`: its labels decoded, its points left as bytes whose shape is
checked (`plain_series`), so no Python object is made per point; what the check passes is
valid JSON, and `decode()` gives what decoding it would. Any other element is decoded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import orjson

# an array of scalars and one string without escapes: a point `[ts, "value"]`
_POINT = rb'\[[^\[\]{}"]*"[^"\\]*"[^\[\]{}"]*\]'
_TOKEN = re.compile(
    rb"(?P<points>(?:" + _POINT + rb"[\s,]*)+)"
    rb'|(?P<string>"[^"\\]*(?:\\.[^"\\]*)*")'
    rb"|(?P<open>[\[{])"
    rb"|(?P<close>[\]}])"
    rb'|(?P<other>[^"\[\]{}]+)'
    rb'|(?P<cut>")'
)
_RESULT_PATH = (b'"data"', b'"result"')
_BOM = b"\xef\xbb\xbf"
# how far a matrix series is looked for whole before it is read token by token (a series
# holds at most 11,000 points: well under 1 MiB)
_WHOLE_WINDOW = 1 << 23
_MORE = object()
_ARRAY_OR_COMMA = re.compile(_POINT + rb"|,")
_LITERAL_OR_COMMA = re.compile(rb"[^,\s]+|,")
_CLOSER = {ord("["): b"]", ord("{"): b"}"}
# a plain series: its labels, then its values array, the last key
_VALUES_KEY = b',"values":['
# what is left of a plain point once its number characters are deleted, with the comma after
_POINT_SHAPE = b'[,""],'
_DIGITS = b"0123456789"
_NUMBER_CHARS = _DIGITS + b".eE+-"


@dataclass(frozen=True)
class PlainSeries:
    """A matrix series in Prometheus's own layout, its points not decoded: `values` is
    the contents of its values array, `[1790812800,"0.742"],[1790812860,"0.8"]`: `points`
    points, each an integer time (JSON's: digits, no leading zero) and a string of number
    characters."""

    metric: dict[str, str]
    values: bytes
    points: int
    raw: bytes  # the element's bytes

    def decode(self) -> dict[str, object]:
        """The element as JSON decodes it (it is valid JSON: `plain_series`)."""
        return orjson.loads(self.raw)


def plain_series(raw: bytes) -> PlainSeries | None:
    """`raw` (an element of data.result, up to its first `]]}`) as a PlainSeries, or None
    unless it is a series object of only `metric` (an object of strings) and then `values`,
    laid out as Prometheus writes them. What passes is valid JSON: the labels decode, and
    every point, once its number characters are deleted, is `[,""]`, its time digits."""
    cut = raw.rfind(_VALUES_KEY)
    if cut < 0 or not raw.startswith(b'{"metric":{'):
        return None
    values = raw[cut + len(_VALUES_KEY) : -2]
    points = values.count(b"[")
    if values.translate(None, _NUMBER_CHARS) + b"," != _POINT_SHAPE * points:
        return None
    # each time (between a point's `[` and its `,`) is digits, at least one, and no leading
    # zero: JSON's integer
    if b"[," in values or (b"[0" in values and values.count(b"[0") != values.count(b"[0,")):
        return None
    if values.translate(None, _DIGITS).count(b'[,"') != points:
        return None
    try:
        head = orjson.loads(raw[:cut] + b"}")
    except orjson.JSONDecodeError:
        return None
    metric = head.get("metric") if len(head) == 1 else None
    if not isinstance(metric, dict) or not all(isinstance(v, str) for v in metric.values()):
        return None
    return PlainSeries(metric, values, points, raw)


@dataclass
class _Frame:
    opener: int  # ord("[") or ord("{")
    key: bytes = b""  # an object's last string: the key of a container opened in it


@dataclass(frozen=True)
class _Segment:
    """Where a run of envelope bytes starts in the response (for error positions)."""

    offset: int  # in the envelope
    line: int
    column: int


class Response:
    """`elements()` yields (result type, element) for each element of `data.result`."""

    def __init__(self, blocks: Iterable[bytes]) -> None:
        self._blocks = iter(blocks)
        self._buffer = b""
        self._base = 0  # offset in the response of the buffer's first byte
        self._lines = 0  # newlines before the buffer
        self._line_start = 0  # offset of the line the buffer starts in
        self._envelope = bytearray()
        self._segments: list[_Segment] = []
        self._stack: list[_Frame] = []
        self._result_depth = 0  # nesting depth inside `data.result`; 0: not in it
        self._fast = False  # whether a matrix element is tried whole (`_whole_element`)
        self._after = "start"  # in `data.result`: after its start, an element or a comma

    def elements(self) -> Iterator[tuple[str, object]]:
        result_type = ""
        element_start = -1  # buffer offset of the element being read
        position, done = 0, False
        self._segments.append(_Segment(0, 1, 1))
        while not done:
            block = next(self._blocks, None)
            done = block is None
            keep = element_start if element_start >= 0 else position
            self._advance(keep)
            position -= keep
            element_start -= keep if element_start >= 0 else 0
            self._buffer += block or b""
            if self._base == 0 and position == 0 and self._buffer.startswith(_BOM):
                self._buffer = self._buffer[len(_BOM) :]
            end = len(self._buffer)
            while match := _TOKEN.match(self._buffer, position):
                kind, token = match.lastgroup, match.group()
                if not done and (kind == "cut" or match.end() == end):
                    break  # may go on in the next block
                if self._fast and token == b"{" and len(self._stack) == self._result_depth:
                    whole = self._whole_element(position, done)
                    if whole is _MORE:
                        break
                    if whole is not None:
                        self._element(position)
                        element, position = whole
                        yield result_type, element
                        continue
                position = match.end()
                depth = len(self._stack)
                if self._result_depth and depth > self._result_depth:
                    if kind == "open":
                        self._stack.append(_Frame(token[0]))
                    elif kind == "close":
                        self._stack.pop()
                        if len(self._stack) == self._result_depth:
                            element = self._buffer[element_start:position]
                            yield result_type, self._decode(element, element_start)
                            element_start = -1
                elif self._result_depth and kind == "open":
                    self._element(match.start())
                    element_start = match.start()
                    self._stack.append(_Frame(token[0]))
                elif self._result_depth and kind != "close":
                    scalars = self._scalars(kind, token, match.start())
                    yield from ((result_type, e) for e in scalars)
                else:
                    self._envelope_token(kind, token, match.start())
                    if self._stack and self._opens_result(kind, token, result_type):
                        result_type = self._check(self._opened())
                        self._result_depth = len(self._stack)
                        self._fast = result_type == "matrix"
                        self._after = "start"
        if element_start >= 0:
            self._decode(self._buffer[element_start:], element_start)
        final_type, leftovers = result_of(self._decode_envelope(bytes(self._envelope)))
        for element in leftovers:
            yield final_type, element

    def _whole_element(self, start: int, done: bool) -> tuple[object, int] | object | None:
        """The matrix series starting at buffer offset `start` decoded in one step, up to the
        first `]]}` (the end of its values and of itself, as Prometheus writes it), and the
        offset after it; `_MORE` when the buffer may not hold it yet; None to read it token
        by token. A decoded value is the element whole: a JSON value that starts at the
        element's first byte and ends anywhere else is not valid JSON."""
        close = self._buffer.find(b"]]}", start)
        if close < 0:
            if not done and len(self._buffer) - start < _WHOLE_WINDOW:
                return _MORE
            self._fast = False  # not written as Prometheus writes it: token by token
            return None
        element = self._buffer[start : close + 3]
        plain = plain_series(element)
        if plain is not None:
            return plain, close + 3
        try:
            return orjson.loads(element), close + 3
        except orjson.JSONDecodeError:
            return None

    def _envelope_token(self, kind: str | None, token: bytes, offset: int) -> None:
        """A token outside `data.result`'s elements: kept, and nesting and keys followed."""
        if kind == "close" and self._result_depth:
            if self._after == "comma":
                raise _not_json(*self._where(offset), "a ',' before the end of data.result")
            self._result_depth = 0
            self._segments.append(_Segment(len(self._envelope), *self._where(offset)))
        self._envelope += token
        if kind == "string" and self._stack and self._stack[-1].opener == ord("{"):
            self._stack[-1].key = token
        elif kind == "open":
            self._stack.append(_Frame(token[0]))
        elif kind == "close" and self._stack:
            self._stack.pop()

    def _opens_result(self, kind: str | None, token: bytes, result_type: str) -> bool:
        """Whether `token` just opened the array under `data` -> `result`."""
        path = tuple(frame.key for frame in self._stack[:-1])
        return kind == "open" and token == b"[" and path == _RESULT_PATH and not result_type

    def _scalars(self, kind: str | None, token: bytes, offset: int) -> list[object]:
        """Elements of `data.result` that are not objects or nested arrays (strings, numbers,
        literals, simple arrays), and the commas between elements."""
        if kind in ("string", "cut"):
            self._element(offset)
            return [self._decode(token, offset)]
        pieces = (_ARRAY_OR_COMMA if kind == "points" else _LITERAL_OR_COMMA).finditer(token)
        elements = []
        for piece in pieces:
            if piece.group() == b",":
                if self._after != "element":
                    raise _not_json(*self._where(offset + piece.start()), "unexpected ','")
                self._after = "comma"
            else:
                self._element(offset + piece.start())
                elements.append(self._decode(piece.group(), offset + piece.start()))
        return elements

    def _element(self, offset: int) -> None:
        """An element of `data.result` starts at buffer offset `offset`: after a comma or
        the array's start only."""
        if self._after == "element":
            raise _not_json(*self._where(offset), "expected ',' or ']' in data.result")
        self._after = "element"

    def _opened(self) -> bytes:
        """The envelope so far, closed: status and result type, before any element."""
        closers = b"".join(_CLOSER[frame.opener] for frame in reversed(self._stack))
        return bytes(self._envelope) + closers

    def _check(self, envelope: bytes) -> str:
        result_type, _ = result_of(self._decode_envelope(envelope))
        return result_type

    def _advance(self, offset: int) -> None:
        """Drop the buffer's first `offset` bytes, keeping count of lines."""
        dropped = self._buffer[:offset]
        newlines = dropped.count(b"\n")
        if newlines:
            self._lines += newlines
            self._line_start = self._base + dropped.rfind(b"\n") + 1
        self._base += offset
        self._buffer = self._buffer[offset:]

    def _where(self, offset: int) -> tuple[int, int]:
        """(line, column), 1-based, of buffer offset `offset`."""
        newline = self._buffer.rfind(b"\n", 0, offset)
        line = self._lines + self._buffer.count(b"\n", 0, offset) + 1
        start = self._base + newline + 1 if newline >= 0 else self._line_start
        return line, self._base + offset - start + 1

    def _decode(self, element: bytes, offset: int) -> object:
        try:
            return orjson.loads(element)
        except orjson.JSONDecodeError as err:
            line, column = self._where(offset + err.pos)
            raise _not_json(line, column, err.msg) from None

    def _decode_envelope(self, envelope: bytes) -> object:
        try:
            return orjson.loads(envelope)
        except orjson.JSONDecodeError as err:
            segment = next(s for s in reversed(self._segments) if s.offset <= err.pos)
            newline = envelope.rfind(b"\n", segment.offset, err.pos)
            line = segment.line + envelope.count(b"\n", segment.offset, err.pos)
            column = (
                err.pos - newline if newline >= 0 else segment.column + err.pos - segment.offset
            )
            raise _not_json(line, column, err.msg) from None


def _not_json(line: int, column: int, message: str) -> ValueError:
    return ValueError(
        f"not JSON (line {line}, column {column}: {message}); "
        "expected a Prometheus /api/v1/query_range response"
    )


def result_of(document: object) -> tuple[str, list[object]]:
    """The result type and elements of a decoded response; ValueError says what is wrong."""
    if not isinstance(document, dict) or "status" not in document:
        raise ValueError("expected a Prometheus API response object with a 'status' field")
    status = document["status"]
    if status == "error":
        raise ValueError(
            f"Prometheus returned an error ({document.get('errorType', 'unknown')}): "
            f"{document.get('error', 'no message')}"
        )
    if status != "success":
        raise ValueError(f"status is {status!r}, expected 'success'")
    data = document.get("data")
    if not isinstance(data, dict):
        raise ValueError("'data' is missing or not an object")
    result_type = data.get("resultType")
    if result_type not in ("matrix", "vector"):
        raise ValueError(
            f"data.resultType {result_type!r} is not supported (expected matrix or vector)"
        )
    series_list = data.get("result")
    if not isinstance(series_list, list):
        raise ValueError("data.result is missing or not a list")
    return result_type, series_list
