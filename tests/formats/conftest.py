"""Shared fixtures for the format tests."""
import pathlib

import pytest

_REF = pathlib.Path(__file__).resolve().parents[1] / 'data' / 'mxnet-reference'


@pytest.fixture
def ref():
    """tests/data/mxnet-reference: files written by the real MXNet 1.9.1."""
    return _REF
