"""symmod's own optimizer-state format: exact round trips of nested structures, no pickle."""
import json
import math
import struct

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.formats import params, states

FLOATS = [0.1, -0.0, 1e-300, 5e-324, 1.7976931348623157e308, math.inf, -math.inf, 1 / 3]


def same(a, b):
    """Deep equality that checks types, float bits, nan and arrays."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, float):
        assert struct.pack('<d', a) == struct.pack('<d', b)
    elif isinstance(a, mx.nd.NDArray):
        assert a.shape == b.shape and a.dtype == b.dtype and a.context == b.context
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    elif isinstance(a, dict):
        assert list(a) == list(b) and [type(k) for k in a] == [type(k) for k in b]
        for key in a:
            same(a[key], b[key])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    else:
        assert a == b


def test_nested_structure_round_trip():
    rng = np.random.RandomState(0)
    momentum = mx.nd.array(rng.standard_normal((4, 3)))
    obj = {
        3: (momentum, None),
        0: None,
        'num_update': 12,
        '0': 'string key, not int 0',
        'index_update_count': {0: 5, 1: 7, 10 ** 20: -3},
        'scheduler': {'base_lr': 0.1, 'count': 2, 'warmup': False, 'mode': 'linear'},
        'floats': FLOATS,
        'nan': math.nan,
        'nested': [[(), ((1,),)], [], {}],
        'flags': [True, False, 1, 0],
        'text': 'ünïcødé ∑ \x00 "quoted"',
    }
    back = states.loads(states.dumps(obj))
    assert math.isnan(back.pop('nan')) and math.isnan(obj.pop('nan'))
    same(back, obj)
    assert list(back) == [3, 0, 'num_update', '0', 'index_update_count', 'scheduler', 'floats',
                          'nested', 'flags', 'text']


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'uint8', 'int8', 'int32',
                                   'int64', 'bool'])
@pytest.mark.parametrize('shape', [(0,), (), (5,), (2, 3, 4)])
def test_arrays_of_every_dtype(dtype, shape):
    host = (np.arange(int(np.prod(shape))) % 7).astype(dtype).reshape(shape)
    back = states.loads(states.dumps({0: mx.nd.NDArray(host), 1: host}))
    for value in back.values():
        assert isinstance(value, mx.nd.NDArray)
        assert value.shape == shape and np.dtype(value.dtype) == np.dtype(dtype)
        np.testing.assert_array_equal(value.asnumpy(), host)


def test_loaded_arrays_are_placed_on_ctx_and_writable():
    blob = states.dumps({0: mx.nd.ones((2, 2))})
    assert states.loads(blob)[0].context == mx.cpu(0)
    placed = states.loads(blob, ctx=mx.cpu(1))[0]
    assert placed.context == mx.cpu(1)
    placed[:] = 3
    np.testing.assert_array_equal(placed.asnumpy(), np.full((2, 2), 3, np.float32))


def test_a_shared_array_stays_shared():
    weight = mx.nd.ones((3,))
    back = states.loads(states.dumps({0: (weight, weight), 1: [weight]}))
    assert back[0][0] is back[0][1] is back[1][0]


def test_numpy_scalars_become_python_numbers():
    back = states.loads(states.dumps({'a': np.float32(0.5), 'b': np.int64(3), 'c': np.bool_(True)}))
    same(back, {'a': 0.5, 'b': 3, 'c': True})


def test_layout_is_magic_version_json_then_an_array_file():
    blob = states.dumps({1: (mx.nd.ones((2,)), 0.5)})
    assert blob[:8] == b'SYMMODST'
    version, header_len = struct.unpack_from('<IQ', blob, 8)
    assert version == 1
    header = json.loads(blob[20:20 + header_len].decode('utf-8'))
    assert header == {'num_arrays': 1,
                      'tree': {'dict': [[1, {'tuple': [{'array': 0}, {'float': '0.5'}]}]]}}
    arrays = mx.nd.load_frombuffer(blob[20 + header_len:])
    np.testing.assert_array_equal(arrays[0].asnumpy(), np.ones(2, np.float32))


@pytest.mark.parametrize('obj', [{1.5: 0}, {(1, 2): 0}, {True: 0}, {None: 0}, {0: {1, 2}},
                                 {0: object()}, {0: b'bytes'}, {0: np.zeros(2, np.int16)}])
def test_unsupported_contents_are_refused(obj):
    with pytest.raises((TypeError, MXNetError)):
        states.dumps(obj)


def test_every_truncation_is_an_error():
    blob = states.dumps({0: (mx.nd.ones((2, 3)), None), 'n': 4})
    for cut in range(len(blob)):
        with pytest.raises(MXNetError):
            states.loads(blob[:cut])


def rebuilt(header, arrays=()):
    raw = json.dumps(header).encode('utf-8')
    return (b'SYMMODST' + struct.pack('<IQ', 1, len(raw)) + raw
            + params.encode_arrays(list(arrays)))


@pytest.mark.parametrize('header,pattern', [
    ({'num_arrays': 0, 'tree': {'array': 0}}, 'out of range'),
    ({'num_arrays': 0, 'tree': {'set': []}}, 'unknown node type'),
    ({'num_arrays': 0, 'tree': {'float': 1.5}}, 'as a string'),
    ({'num_arrays': 0, 'tree': {'float': 'pi'}}, 'bad float'),
    ({'num_arrays': 0, 'tree': {'dict': [[1.5, None]]}}, 'dict key'),
    ({'num_arrays': 0, 'tree': {'dict': [[1]]}}, 'dict entry'),
    ({'num_arrays': 0, 'tree': {'list': 3}}, 'JSON array'),
    ({'num_arrays': 0, 'tree': [1, 2]}, 'unexpected node'),
    ({'num_arrays': 2, 'tree': None}, 'lists 2 arrays'),
    ({'tree': None}, 'num_arrays and tree'),
])
def test_corrupt_headers(header, pattern):
    with pytest.raises(MXNetError, match=pattern):
        states.loads(rebuilt(header))


def test_newer_version_and_bad_json_are_reported():
    blob = bytearray(states.dumps({0: None}))
    struct.pack_into('<I', blob, 8, 2)
    with pytest.raises(MXNetError, match='version 2'):
        states.loads(bytes(blob))
    raw = b'{not json'
    with pytest.raises(MXNetError, match='corrupt header'):
        states.loads(b'SYMMODST' + struct.pack('<IQ', 1, len(raw)) + raw)


def test_garbage_and_wrong_types():
    with pytest.raises(MXNetError):
        states.loads(b'')
    with pytest.raises(MXNetError):
        states.loads(b'hello world, not states')
    with pytest.raises(TypeError):
        states.loads('a str')


def test_loading_symmod_states_never_unpickles(monkeypatch):
    import pickle
    blob = states.dumps({0: mx.nd.ones(2), 'k': [1, 2.5]})

    def forbidden(*args, **kwargs):
        raise AssertionError('the pickle reader was used')

    monkeypatch.setattr(states.mxnet_pickle, 'loads', forbidden)
    monkeypatch.setattr(pickle, 'loads', forbidden)
    monkeypatch.setattr(pickle, 'load', forbidden)
    assert states.loads(blob)['k'] == [1, 2.5]
