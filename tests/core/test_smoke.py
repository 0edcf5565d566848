from homeostat.core.hosts import parse_comment_url


def test_parse_comment_url() -> None:
    ref = parse_comment_url("https://github.com/acme/ledger/pull/412#discussion_r1650000001")
    assert (ref.repo.full_name, ref.pull, ref.comment_id) == ("acme/ledger", 412, 1650000001)
