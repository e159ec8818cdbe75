"""Pickling an NDArray stores MXNet's state, {'handle': one array record}, via the codec."""
import copy
import io
import pickle

import numpy as np
import pytest

import symmod as mx
from symmod.formats import params

DTYPES = ['float32', 'float64', 'float16', 'uint8', 'int8', 'int32', 'int64', 'bool']


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(0,), (1,), (2, 3), (2, 0, 4), ()])
def test_pickle_round_trip(dtype, shape):
    host = (np.arange(int(np.prod(shape))) % 5).astype(dtype).reshape(shape)
    array = mx.nd.NDArray(host)
    back = pickle.loads(pickle.dumps(array))
    assert isinstance(back, mx.nd.NDArray) and back.context == mx.cpu(0)
    assert back.shape == shape and np.dtype(back.dtype) == np.dtype(dtype)
    np.testing.assert_array_equal(back.asnumpy(), host)
    back_copy = copy.deepcopy(array)
    np.testing.assert_array_equal(back_copy.asnumpy(), host)


def test_pickled_state_is_one_array_record():
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    state = mx.nd.array(host).__getstate__()
    assert set(state) == {'handle'} and isinstance(state['handle'], bytearray)
    assert bytes(state['handle']) == params.encode_record(host)
    assert bytes(state['handle'][:4]) == b'\xc9\xfa\x93\xf9'


def test_unpickled_array_is_independent_and_writable():
    array = mx.nd.ones((3,))
    back = pickle.loads(pickle.dumps(array))
    back[:] = 5
    np.testing.assert_array_equal(array.asnumpy(), np.ones(3, np.float32))
    np.testing.assert_array_equal(back.asnumpy(), np.full(3, 5, np.float32))


def test_setstate_accepts_mxnets_handles(ref):
    """The handles inside MXNet's .states file decode through NDArray.__setstate__."""
    class Capture:
        def __init__(self, handle):
            self.state = None

        def __setstate__(self, state):
            self.state = state

    class Reader(pickle.Unpickler):
        def find_class(self, module, name):
            if (module, name) == ('mxnet.ndarray.ndarray', 'NDArray'):
                return Capture
            if (module, name) == ('builtins', 'bytearray'):
                return bytearray
            raise pickle.UnpicklingError(name)

    raw = Reader(io.BytesIO((ref / 'mlp' / 'mlp-0003.states').read_bytes())).load()
    expected = np.load(ref / 'mlp' / 'states.npz')
    for index, captured in raw.items():
        array = mx.nd.NDArray(None)
        array.__setstate__(captured.state)
        np.testing.assert_array_equal(array.asnumpy(), expected[str(index)])
