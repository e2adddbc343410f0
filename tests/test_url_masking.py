"""`mask_url`: credentials in URLs never reach a page or a log line, and nothing raises."""

import logging

import pytest

from localrouter.url_masking import MaskAccessTargetFilter, MaskUrlsFilter, mask_url, mask_urls_in


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://mcp.example.com/mcp", "https://mcp.example.com/mcp"),
        ("http://user:pass@127.0.0.1:8000/mcp", "http://***@127.0.0.1:8000/mcp"),
        ("https://ghp_TOKEN@github.example/mcp", "https://***@github.example/mcp"),
        ("http://user@host/", "http://***@host/"),
        ("http://u:p@[::1]:9000/mcp?x=1", "http://***@[::1]:9000/mcp?x=1"),
        ("http://[::1]/mcp?api_key=s3cret", "http://[::1]/mcp?api_key=***"),
        (
            "https://h/mcp?API_KEY=a&apikey=b&Access_Token=c&sig=d&region=eu",
            "https://h/mcp?API_KEY=***&apikey=***&Access_Token=***&sig=***&region=eu",
        ),
        ("https://h/?token=a&token=b&page=2", "https://h/?token=***&token=***&page=2"),
        ("https://h/?pass%77ord=x%20y&q=a%26b", "https://h/?pass%77ord=***&q=a%26b"),
        ("https://h/?my+Secret=1", "https://h/?my+Secret=***"),
        ("https://h/cb#access_token=abc&state=1", "https://h/cb#access_token=***&state=1"),
        ("https://h/docs#section-2", "https://h/docs#section-2"),
        ("/oidc/callback/?code=abc&state=xyz", "/oidc/callback/?code=***&state=xyz"),
        ("https://h/?key", "https://h/?key"),
        ("https://h/users/@me?x=1", "https://h/users/@me?x=1"),
        ("http://u:p@host:99999999/mcp", "http://***@host:99999999/mcp"),
        ("http://u:p@host:port/mcp", "http://***@host:port/mcp"),
        ("http://u:p@[::1/mcp?auth=x", "http://***@[::1/mcp?auth=***"),
        ("not a url?password=x", "not a url?password=***"),
        ("", ""),
    ],
)
def test_mask_url_hides_userinfo_and_secret_query_values(url, shown):
    assert mask_url(url) == shown


def test_urls_inside_text_are_masked_and_the_rest_is_kept():
    text = 'HTTP Request: POST http://a:b@127.0.0.1:1/mcp?api_key=XYZ "HTTP/1.1 200 OK"'
    assert (
        mask_urls_in(text)
        == 'HTTP Request: POST http://***@127.0.0.1:1/mcp?api_key=*** "HTTP/1.1 200 OK"'
    )


def test_the_log_filter_masks_messages_arguments_and_tracebacks():
    try:
        raise ConnectionError("cannot reach http://u:SECRET@h/mcp")
    except ConnectionError as error:
        record = logging.LogRecord(
            "httpx2", logging.INFO, __file__, 1, "GET %s", ("https://h/?token=SECRET",), None
        )
        record.exc_info = (type(error), error, error.__traceback__)
    assert MaskUrlsFilter().filter(record) is True
    formatted = logging.Formatter().format(record)
    assert "SECRET" not in formatted
    assert "GET https://h/?token=***" in formatted and "http://***@h/mcp" in formatted


def test_the_log_filter_lets_a_malformed_record_through_untouched():
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "%d items", ("many",), None)
    assert MaskUrlsFilter().filter(record) is True
    assert record.args == ("many",)


def test_uvicorns_access_line_has_its_target_masked_and_other_records_pass():
    def record(msg: str, args: tuple) -> logging.LogRecord:
        return logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, msg, args, None)

    access = record(
        '%s - "%s %s HTTP/%s" %d', ("127.0.0.1:5", "POST", "/mcp?token=lr_S&n=2", "1.1", 401)
    )
    other = record("%s %s", ("/mcp?token=lr_S", "kept"))
    assert MaskAccessTargetFilter().filter(access) and MaskAccessTargetFilter().filter(other)
    assert access.getMessage() == '127.0.0.1:5 - "POST /mcp?token=***&n=2 HTTP/1.1" 401'
    assert other.getMessage() == "/mcp?token=lr_S kept"
