"""`paper_search` takes one variant as a model often writes it, a string, as the deep-search
tools do (a list of one before): the same search, the same search_id."""

from __future__ import annotations

import pytest

from fake_server import FakeServer
from mcp_inprocess import in_process, run, text_of, use_fakes

pytest.importorskip("mcp")


def test_one_variant_as_a_string_is_the_search_of_a_list_of_one(monkeypatch, tmp_path):
    async def go():
        async with in_process() as client:
            arguments = {"topic": "CRISPR off-target effects", "providers": ["openalex"], "verify": False}
            one = await client.call_tool("paper_search", {**arguments, "variants": "guide RNA specificity"})
            listed = await client.call_tool("paper_search", {**arguments, "variants": ["guide RNA specificity"]})
            return one, listed

    with FakeServer() as server:
        use_fakes(monkeypatch, server, tmp_path)
        one, listed = run(go())
    assert not one.is_error and not listed.is_error, text_of(one) + text_of(listed)
    assert one.structured_content["search_id"] == listed.structured_content["search_id"]
