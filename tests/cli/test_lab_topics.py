"""The lab run (tests/lab_run.py) tells its machines apart by the topic each one searched, read
back from the requests that reached the fake Semantic Scholar. What arrives there is the topic as
lit-search sends it, not as typed: the machine must still be read right from that."""

from __future__ import annotations

import pytest

from lab_run import machine_of, machine_script
from litsearch.providers.semantic_scholar import plain_search_query


@pytest.mark.parametrize("machines,searches", [(8, 2), (8, 3), (12, 4)])
def test_every_machine_is_read_back_from_the_query_semantic_scholar_receives(machines, searches):
    for machine in range(machines):
        (command,) = machine_script(machine, searches)
        topics = command[2:]
        assert len(topics) == searches
        assert {machine_of(plain_search_query(topic)) for topic in topics} == {machine}


def test_a_query_naming_no_machine_is_an_error_not_a_guess():
    with pytest.raises(ValueError):
        machine_of("coral reef bleaching 1 0")
