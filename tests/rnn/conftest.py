"""Reference data MXNet 1.9.1 wrote for the rnn tests (tests/data/gen/gen_rnn_reference.py)."""
import gzip
import json
import os

import numpy as np
import pytest

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data')


@pytest.fixture(scope='session')
def mxnet_ref():
    with gzip.open(os.path.join(DATA, 'rnn_reference.json.gz'), 'rt') as f:
        return json.load(f)


@pytest.fixture(scope='session')
def mxnet_arrays():
    with np.load(os.path.join(DATA, 'rnn_reference.npz')) as z:
        return {k: z[k] for k in z.files}


@pytest.fixture(scope='session')
def checkpoint_dir():
    return os.path.join(DATA, 'rnn_checkpoint')
