"""Reading on-screen text as the data it carries: its numbers and its sentences.

Caption tests assert the computed numbers a sentence carries, in order, and the key
phrase that says what they mean, not the whole English sentence: a rewording keeps
the tests green, a wrong number still fails them (issue 37).
"""

import re

#: A number as on-screen text writes it: optional sign (ASCII or the minus sign
#: U+2212), thousands separators, decimals, exponent.
_NUMBER = re.compile(r"[+\-−]?\d+(?:,\d{3})*(?:\.\d+)?(?:e[+\-]?\d+)?")
#: A sentence ends at ., ! or ? followed by white space and a capital, a bold mark,
#: a bracket or a digit.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z*\[(\d])")


def numbers(text):
    """Every number in ``text``, in order, as floats (``1,234`` is 1234.0, ``−0.5`` is -0.5)."""
    found = []
    for match in _NUMBER.finditer(text):
        start = match.start()
        token = match.group()
        before = text[start - 1] if start else " "
        if token[0] in "+-−" and (before.isdigit() or before == "."):
            token = token[1:]  # a range like 1-2 written without spaces: not a sign
        elif token[0] not in "+-−" and (before.isalnum() or before in "._"):
            continue  # "l2", "x1", the tail of "0.5.1": a name, not a number
        found.append(float(token.replace(",", "").replace("−", "-")))
    return found


def sentences(text):
    """``text`` cut into sentences."""
    return [part for part in _SENTENCE_END.split(text.strip()) if part]


def sentence(text, *phrases):
    """The one sentence of ``text`` that contains every phrase (fails if none or several do)."""
    found = [s for s in sentences(text) if all(p in s for p in phrases)]
    assert len(found) == 1, (phrases, sentences(text))
    return found[0]
