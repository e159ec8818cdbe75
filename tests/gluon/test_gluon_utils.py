"""gluon.utils: split_data, split_and_load, clip_global_norm."""
import numpy as np
import pytest

import symmod as mx
from symmod.gluon import utils


def test_split_data_even_and_uneven():
    data = mx.nd.array(np.arange(20).reshape(10, 2))
    parts = utils.split_data(data, 2)
    assert [p.shape for p in parts] == [(5, 2), (5, 2)]
    np.testing.assert_array_equal(np.concatenate([p.asnumpy() for p in parts]),
                                  data.asnumpy())
    parts = utils.split_data(data, 3, even_split=False)
    assert [p.shape[0] for p in parts] == [4, 3, 3]
    with pytest.raises(ValueError, match='cannot be evenly split into 3 slices'):
        utils.split_data(data, 3)
    parts = utils.split_data(data, 2, batch_axis=1)
    np.testing.assert_array_equal(parts[1].asnumpy(), data.asnumpy()[:, 1:])


def test_split_and_load():
    ctxs = [mx.cpu(0), mx.cpu(1)]
    parts = utils.split_and_load(np.arange(8).reshape(4, 2), ctxs)
    assert [p.context for p in parts] == ctxs
    np.testing.assert_array_equal(parts[1].asnumpy(), [[4, 5], [6, 7]])
    single = utils.split_and_load(mx.nd.ones((3, 2)), [mx.cpu(2)])
    assert len(single) == 1 and single[0].context == mx.cpu(2)


@pytest.mark.filterwarnings('ignore:invalid value encountered')
def test_clip_global_norm():
    a = mx.nd.array([3., 0.])
    b = mx.nd.array([[0., 4.]])
    norm = utils.clip_global_norm([a, b], 1.0)
    assert norm == pytest.approx(5.0)
    np.testing.assert_allclose(a.asnumpy(), [0.6, 0.], rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), [[0., 0.8]], rtol=1e-6)
    c = mx.nd.array([0.3, 0.4])
    norm = utils.clip_global_norm([c], 1.0, check_isfinite=False)
    assert isinstance(norm, mx.nd.NDArray)
    np.testing.assert_allclose(c.asnumpy(), [0.3, 0.4], rtol=1e-6)     # below: unchanged
    with pytest.warns(UserWarning, match='nan or inf is detected'):
        utils.clip_global_norm([mx.nd.array([np.inf])], 1.0)
