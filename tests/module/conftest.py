"""Fixtures for module tests: the bundled MNIST digits, fresh automatic names."""
import pytest

import symmod as mx
from module_fixtures import MNIST, read_idx


@pytest.fixture(scope='session')
def mnist():
    """(train_x, train_y, test_x, test_y) of the bundled digits, pixels / 255."""
    return (read_idx(MNIST / 'train-images-idx3-ubyte.gz'),
            read_idx(MNIST / 'train-labels-idx1-ubyte.gz'),
            read_idx(MNIST / 't10k-images-idx3-ubyte.gz'),
            read_idx(MNIST / 't10k-labels-idx1-ubyte.gz'))


@pytest.fixture(autouse=True)
def _fresh_names():
    with mx.name.NameManager():
        yield
