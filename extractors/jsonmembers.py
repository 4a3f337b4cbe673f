"""One array member of a JSON document read an element at a time: the `jobs` of `sacct
--json`, the `items` of a Kubernetes List. Such a document is one JSON object, and a fleet's
is hundreds of MiB (17 KiB a Slurm job, 2-3 KiB a pod as kubectl indents it): decoded whole
it takes five times its size (benchmarks/results.md, "Ingest memory against file size").
ArrayMemberReader is given the text piece by piece and returns the array's elements as they
complete, so memory holds a piece and one element, not the document.
"""

from __future__ import annotations

import json


class NotStreamed(ValueError):
    """The document is not read element by element (not an object with one such array,
    invalid JSON, a value too large): it is read whole instead, which says what is wrong."""


# how much text one value of the document may take before it is not read piece by piece
VALUE_LIMIT_CHARS = 64 * 2**20
_SPACE = " \t\n\r"


class ArrayMemberReader:
    """The elements of the top-level object's array member `member`, decoded one at a time
    from its text given piece by piece (`feed`). The other top-level members (small: a List's
    kind and metadata, sacct's meta, errors and warnings) are decoded and kept in `members`.
    Anything but one object with one `member` array of valid JSON raises NotStreamed (the
    caller reads the file whole)."""

    def __init__(self, member: str) -> None:
        self.member = member
        self.members: dict[str, object] = {}
        self._decoder = json.JSONDecoder()
        self._text = ""
        # start, after_first_key, key, colon, value, after; element_first, element,
        # element_after; end
        self._state = "start"
        self._key: str | None = None
        self._member_seen = False

    def feed(self, text: str, final: bool) -> list[object]:
        """The elements complete in the text so far (`final`: there is no more)."""
        self._text += text
        elements: list[object] = []
        position = 0
        while True:
            position = self._skip(position)
            if position >= len(self._text):
                break
            step = self._step(position, final)
            if step is None:  # the value goes on in the next piece
                break
            position, element = step
            if element is not _NONE:
                elements.append(element)
        self._text = self._text[position:]
        if len(self._text) > VALUE_LIMIT_CHARS:
            raise NotStreamed("a value of over 64 MiB")
        if final and (self._text.strip() or self._state != "end" or not self._member_seen):
            raise NotStreamed(f"the document ends early, or has no {self.member!r}")
        return elements

    def _skip(self, position: int) -> int:
        while position < len(self._text) and self._text[position] in _SPACE:
            position += 1
        return position

    def _step(self, position: int, final: bool) -> tuple[int, object] | None:
        char = self._text[position]
        state = self._state
        if state in _PUNCTUATION:
            then = _PUNCTUATION[state].get(char)
            if then is None:
                raise NotStreamed(f"expected one of {''.join(_PUNCTUATION[state])!r}")
            self._state = then
            return position + 1, _NONE
        if state in ("key", "after_first_key"):
            if char == "}" and state == "after_first_key":
                self._state = "end"
                return position + 1, _NONE
            value = self._value(position, final)
            if value is None:
                return None
            key, end = value
            if (
                not isinstance(key, str)
                or key in self.members
                or (key == self.member and self._member_seen)
            ):
                raise NotStreamed(f"a member twice, or not one {self.member!r} member")
            self._key, self._state = key, "colon"
            return end, _NONE
        if state == "value":
            if self._key == self.member:
                if char != "[":
                    raise NotStreamed(f"{self.member!r} is not a list")
                self._member_seen, self._state = True, "element_first"
                return position + 1, _NONE
            value = self._value(position, final)
            if value is None:
                return None
            self.members[str(self._key)] = value[0]
            self._state = "after"
            return value[1], _NONE
        if state in ("element_first", "element"):
            if char == "]" and state == "element_first":
                self._state = "after"
                return position + 1, _NONE
            value = self._value(position, final)
            if value is None:
                return None
            self._state = "element_after"
            return value[1], value[0]
        raise NotStreamed("data after the document")

    def _value(self, position: int, final: bool) -> tuple[object, int] | None:
        """The JSON value at `position` and the offset after it; None when the text may end
        before it does (a number or literal is never cut: pieces end at a newline)."""
        try:
            return self._decoder.raw_decode(self._text, position)
        except json.JSONDecodeError:
            if final:
                raise NotStreamed("invalid JSON") from None
            return None


_NONE = object()
# the states where the next character is punctuation: the state it leads to
_PUNCTUATION = {
    "start": {"{": "after_first_key"},
    "colon": {":": "value"},
    "after": {",": "key", "}": "end"},  # after a member's value
    "element_after": {",": "element", "]": "after"},  # after an element of the array
}
