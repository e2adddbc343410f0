"""Hide the credentials a URL can carry: userinfo, and query values under secret-looking keys.

`mask_url` is the one way an upstream URL is shown or logged; `MaskUrlsFilter` applies it
to every URL in a log record, as defence in depth, and `MaskAccessTargetFilter` to the
request target of uvicorn's access line.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote_plus

MASK = "***"
SECRET_KEY_PARTS = (
    "key",
    "token",
    "secret",
    "pass",  # password, passwd, passphrase
    "pwd",
    "sig",  # signature
    "auth",
    "credential",
    "session",
    "cookie",
    "jwt",
    "private",
    "code",  # OAuth authorization codes: a sign-in's callback carries one
)
URL_IN_TEXT = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+")


def is_secret_key(key: str) -> bool:
    """Whether a query parameter name looks like it holds a credential (`API_Key`, `sig`...)."""
    name = unquote_plus(key).lower()
    return any(part in name for part in SECRET_KEY_PARTS)


def _masked_pairs(text: str) -> str:
    pairs = []
    for pair in text.split("&"):
        key, equals, _value = pair.partition("=")
        pairs.append(f"{key}={MASK}" if equals and is_secret_key(key) else pair)
    return "&".join(pairs)


def mask_url(url: str) -> str:
    """The URL with userinfo and secret-looking query (and fragment) values replaced by `***`.

    Works on the text, without parsing ports or hosts, so any string is accepted.
    """
    rest, hash_sign, fragment = url.partition("#")
    rest, question_mark, query = rest.partition("?")
    scheme, separator, after_scheme = rest.partition("://")
    if separator:
        authority, slash, path = after_scheme.partition("/")
        _userinfo, at, host = authority.rpartition("@")
        if at:
            authority = f"{MASK}@{host}"
        rest = f"{scheme}://{authority}{slash}{path}"
    if question_mark:
        rest += "?" + _masked_pairs(query)
    if hash_sign:
        rest += "#" + _masked_pairs(fragment)
    return rest


def mask_urls_in(text: str) -> str:
    """`text` with every URL in it masked."""
    return URL_IN_TEXT.sub(lambda match: mask_url(match.group(0)), text)


class MaskUrlsFilter(logging.Filter):
    """Masks URLs in a record's message and traceback; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            return True  # a malformed call: the handler reports it as logging does
        masked = mask_urls_in(message)
        if masked != message:
            record.msg, record.args = masked, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = mask_urls_in(record.exc_text)
        return True


class MaskAccessTargetFilter(logging.Filter):
    """Masks the request target of uvicorn's access line (`uvicorn.access`), whose arguments
    are the client, method, target, HTTP version and status; other records pass as they are."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and len(record.args) == 5:
            client, method, target, version, status = record.args
            record.args = (client, method, mask_url(str(target)), version, status)
        return True
