"""Every metric replays the batches recorded from MXNet 1.9.1 and reports the same
local and global values (tests/data/metric_reference.json)."""
import json
import math
import os

import numpy as np
import pytest

import symmod as mx

REF = json.load(open(os.path.join(os.path.dirname(__file__), '..', 'data',
                                  'metric_reference.json')))['cases']


def as_nd(arrays):
    return [mx.nd.array(np.array(a, dtype=np.float32)) for a in arrays]


def check(got, expected):
    name, value = got
    assert name == expected[0]
    values = value if isinstance(value, list) else [value]
    wanted = expected[1] if isinstance(expected[1], list) else [expected[1]]
    assert len(values) == len(wanted)
    for v, w in zip(values, wanted):
        if w == 'nan':
            assert math.isnan(v)
        else:
            assert v == pytest.approx(w, rel=2e-6, abs=1e-9)


@pytest.mark.parametrize('case', sorted(REF))
def test_metric_matches_mxnet(case):
    ref = REF[case]
    if case == 'composite':
        metric = mx.metric.create(ref['create_args'][0])
    else:
        metric = mx.metric.create(*ref['create_args'], **ref['create_kwargs'])
    batches = [(as_nd(b['labels']), as_nd(b['preds'])) for b in ref['batches']]
    for labels, preds in batches[:2]:
        metric.update(labels, preds)
    check(metric.get(), ref['after2']['get'])
    check(metric.get_global(), ref['after2']['get_global'])
    metric.reset_local()
    check(metric.get(), ref['after_reset_local']['get'])
    check(metric.get_global(), ref['after_reset_local']['get_global'])
    metric.update(*batches[2])
    check(metric.get(), ref['after3']['get'])
    check(metric.get_global(), ref['after3']['get_global'])
    for got, expected in ((metric.get_name_value(), ref['after3']['name_value']),
                          (metric.get_global_name_value(), ref['after3']['global_name_value'])):
        assert len(got) == len(expected)
        for pair, want in zip(got, expected):
            check(pair, want)
    assert metric.get_config() == ref['config']
    metric.reset()
    check(metric.get(), ref['after_reset']['get'])
    check(metric.get_global(), ref['after_reset']['get_global'])
