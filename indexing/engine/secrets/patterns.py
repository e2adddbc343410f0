"""The credential shapes the scanner knows: private keys, cloud and service keys, JWTs,
credentials in URLs.

Every match of a shape starts with one of its literal anchors: the scanner finds all anchors
of all shapes in one pass and tries a shape's expression only where one of its anchors is.
A shape whose secret is only part of its match (a value after its key name) names that part
`secret`; the rest of the match stays readable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

WORD = "A-Za-z0-9_"
BASE64 = "A-Za-z0-9+/"
URL_SAFE = "A-Za-z0-9_-"


@dataclass(frozen=True)
class SecretShape:
    """One kind of credential: its hint, the literals its matches start with, its expression
    (matched where an anchor starts).

    `word_start`: the match must not follow a letter, digit or '_' (`ghp_` inside
    `xghp_...` is not a token). The expression ends where the credential ends. `common`: its
    anchor is in most texts (`://`): the expression searches a text that has it once, rather
    than being tried at each place.
    """

    kind: str
    anchors: tuple[str, ...]
    pattern: str
    word_start: bool = True
    common: bool = False

    def compile(self) -> re.Pattern[bytes]:
        """The expression over UTF-8 bytes (the scanner works on those)."""
        return re.compile(self.pattern.encode("ascii"))


def _token(kind: str, prefixes: tuple[str, ...], body: str) -> SecretShape:
    """A token made of a fixed prefix and a body, ending at a non-word character."""
    alternatives = "|".join(re.escape(prefix) for prefix in prefixes)
    return SecretShape(kind, prefixes, rf"(?:{alternatives}){body}(?![{WORD}])")


def _assigned(kind: str, anchors: tuple[str, ...], key: str, value: str) -> SecretShape:
    """A secret value after its key name (`key = value`, `"key": "value"`, `Key=value;`)."""
    return SecretShape(
        kind,
        anchors,
        rf"{key}[\"']?\s*[:=]\s*[\"']?(?P<secret>{value})",
        word_start=False,
    )


SHAPES: tuple[SecretShape, ...] = (
    # PEM, OpenSSH and PGP private key blocks, also inside JSON strings ("\n" escapes), as
    # in a GCP service account's key file: header lines (Proc-Type: ..., Version: ...), then
    # base64 to the END line; a block cut short is masked as far as base64 goes. No part
    # searches ahead: the cost of a block is its length.
    SecretShape(
        "private key",
        ("-----BEGIN",),
        r"-----BEGIN (?P<label>(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"
        r"(?:(?:\s|\\[nr])*+[A-Za-z][A-Za-z-]*: [^\n\\]*)*+"
        r"(?:\\[nr]|[A-Za-z0-9+/=\s]){0,65536}+"
        r"(?:-----END (?P=label)-----)?",
        word_start=False,
    ),
    _token("aws access key id", ("AKIA", "ASIA", "ABIA", "ACCA"), "[A-Z0-9]{16}"),
    _assigned(  # aws_secret_access_key, AWS_SECRET_ACCESS_KEY, SecretAccessKey...
        "aws secret key",
        (
            "secret_access_key",
            "SECRET_ACCESS_KEY",
            "Secret_Access_Key",
            "SecretAccessKey",
            "secretAccessKey",
            "secret-access-key",
        ),
        r"(?i:secret_?access_?key|secret-access-key)",
        rf"[{BASE64}]{{40}}(?![{BASE64}])",
    ),
    _assigned(
        "azure storage key", ("AccountKey",), "AccountKey", rf"[{BASE64}]{{86}}==(?![{BASE64}])"
    ),
    _assigned(
        "azure shared access key",
        ("SharedAccessKey",),
        "SharedAccessKey",
        rf"[{BASE64}]{{43}}=(?![{BASE64}])",
    ),
    _token("google api key", ("AIza",), f"[{URL_SAFE}]{{35}}"),
    _token("google oauth client secret", ("GOCSPX-",), f"[{URL_SAFE}]{{28}}"),
    _token("github token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), "[A-Za-z0-9]{36,255}"),
    _token("github token", ("github_pat_",), f"[{WORD}]{{60,255}}"),
    _token("gitlab token", ("glpat-",), f"[{URL_SAFE}]{{20,255}}"),
    _token(
        "slack token",
        ("xoxb-", "xoxp-", "xoxa-", "xoxe-", "xoxr-", "xoxs-"),
        "(?=[A-Za-z0-9-]*[0-9])[A-Za-z0-9-]{10,255}",
    ),
    SecretShape(
        "slack webhook",
        ("hooks.slack.com/",),
        r"hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{20,255}",
        word_start=False,
    ),
    _token("stripe key", ("sk_live_", "rk_live_", "sk_test_", "rk_test_"), "[A-Za-z0-9]{20,255}"),
    _token("anthropic api key", ("sk-ant-",), f"[{URL_SAFE}]{{32,255}}"),
    # OpenAI: sk-..., sk-proj-..., sk-svcacct-...; a digit and a capital letter keep
    # kebab-case words (`sk-learn-...`) out.
    _token(
        "openai api key",
        ("sk-",),
        rf"(?!ant-)(?=[{URL_SAFE}]*[0-9])(?=[{URL_SAFE}]*[A-Z])[{URL_SAFE}]{{32,255}}",
    ),
    _token("npm token", ("npm_",), "[A-Za-z0-9]{36}"),
    _token("pypi token", ("pypi-AgEIcHlwaS5vcmc",), f"[{URL_SAFE}]{{50,1000}}"),
    _token("twilio api key", ("SK",), "[0-9a-fA-F]{32}"),
    _token("sendgrid api key", ("SG.",), rf"[{URL_SAFE}]{{22}}\.[{URL_SAFE}]{{43}}"),
    _token("hugging face token", ("hf_",), "[A-Za-z0-9]{34,40}"),
    _token("shopify token", ("shpat_", "shpss_", "shpca_", "shppa_"), "[a-fA-F0-9]{32}"),
    _token("digitalocean token", ("dop_v1_", "doo_v1_", "dor_v1_"), "[a-f0-9]{64}"),
    # A JWT: a JSON header and payload (base64url of '{"'), then a signature.
    _token("jwt", ("eyJ",), rf"[{URL_SAFE}]{{8,}}\.eyJ[{URL_SAFE}]{{8,}}\.[{URL_SAFE}]{{16,}}"),
    # scheme://user:password@host: only the user and password are masked.
    SecretShape(
        "url credentials",
        ("://",),
        r"://(?P<secret>[^\s/@:'\"<>`]{1,256}+:[^\s/@'\"<>`]{1,256}+)@(?=[A-Za-z0-9\[])",
        word_start=False,
        common=True,
    ),
)
