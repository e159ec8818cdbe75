"""Shared loaders for the MXNet 1.9.1 optimizer reference files in tests/data."""
import json
import os

import numpy as np

DATA = os.path.join(os.path.dirname(__file__), '..', 'data', 'mxnet-reference')


def _load(stem):
    with open(os.path.join(DATA, stem + '.json')) as f:
        meta = json.load(f)
    return meta, np.load(os.path.join(DATA, stem + '.npz'))


BASE, BASE_ARRAYS = _load('optimizers')
EXTRA, EXTRA_ARRAYS = _load('optimizers_extra')


def make_scheduler(spec):
    """An lr scheduler from a ``{'class': ..., 'kwargs': ...}`` entry (or None)."""
    import symmod as mx
    if not spec:
        return None
    return getattr(mx.lr_scheduler, spec['class'])(**spec['kwargs'])


def tolerance(dtype):
    """(rtol, atol) for comparing with MXNet: float32 per the issue; float16 looser."""
    return (1e-2, 2e-3) if dtype == 'float16' else (1e-5, 1e-6)


def optimizer_names_with_reference():
    """Registry names exercised by the reference files."""
    names = {case['optimizer'] for case in BASE['cases']}
    names |= {case['optimizer'] for case in EXTRA['cases']}
    return names
