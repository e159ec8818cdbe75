"""MXNet's pickled optimizer states: read safely, refused when they hold anything but
arrays and plain data, and written so that MXNet's own unpickling rebuilds them."""
import os
import pickle
import pickletools
import subprocess
import sys
import types

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.formats import params, states


# ---- test-local helpers, independent of symmod's reader ----------------------------------
class Captured:
    """What MXNet's NDArray does when unpickled: NDArray(None), then __setstate__."""

    def __init__(self, handle):
        assert handle is None
        self.state = None

    def __setstate__(self, state):
        self.state = state


class CaptureUnpickler(pickle.Unpickler):
    """Reads only files this test trusts (MXNet's reference file and symmod's output)."""

    def find_class(self, module, name):
        if (module, name) == ('mxnet.ndarray.ndarray', 'NDArray'):
            return Captured
        if (module, name) == ('builtins', 'bytearray'):
            return bytearray
        raise pickle.UnpicklingError('unexpected global %s.%s' % (module, name))


def handles(blob):
    """{index: handle bytes or tuple of them} as an MXNet-like unpickler sees them."""
    def unwrap(value):
        if isinstance(value, Captured):
            assert isinstance(value.state['handle'], bytearray)   # MXNet needs a bytearray
            return bytes(value.state['handle'])
        if isinstance(value, tuple):
            return tuple(unwrap(v) for v in value)
        return value
    import io
    return {k: unwrap(v) for k, v in CaptureUnpickler(io.BytesIO(blob)).load().items()}


@pytest.fixture
def fake_mxnet(monkeypatch):
    """Stand-in modules so the standard pickler can name mxnet.ndarray.ndarray.NDArray."""
    class NDArray:
        def __init__(self, handle, record=None):
            self.record = record

        def __reduce__(self):
            return NDArray, (None,), {'handle': bytearray(self.record)}

        def __setstate__(self, state):
            self.record = bytes(state['handle'])

    NDArray.__module__ = 'mxnet.ndarray.ndarray'
    NDArray.__qualname__ = 'NDArray'
    for name in ('mxnet', 'mxnet.ndarray', 'mxnet.ndarray.ndarray'):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    sys.modules['mxnet.ndarray.ndarray'].NDArray = NDArray
    return NDArray


class Reduce:
    """Pickles as a call of ``func(*args)``: what a malicious file does."""

    def __init__(self, func, args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


# ---- MXNet's files ------------------------------------------------------------------------
def test_mlp_states_match_states_npz(ref):
    loaded = states.loads((ref / 'mlp' / 'mlp-0003.states').read_bytes())
    expected = np.load(ref / 'mlp' / 'states.npz')
    assert list(loaded) == [0, 1, 2, 3, 4, 5]
    for key in expected.files:
        value = loaded[int(key)]
        assert isinstance(value, mx.nd.NDArray) and value.context == mx.cpu(0)
        assert np.dtype(value.dtype) == np.float32
        np.testing.assert_array_equal(value.asnumpy(), expected[key])


def test_mlp_states_on_a_given_context(ref):
    loaded = states.loads((ref / 'mlp' / 'mlp-0003.states').read_bytes(), ctx=mx.cpu(2))
    assert all(v.context == mx.cpu(2) for v in loaded.values())


@pytest.mark.parametrize('name', ['adam', 'sgd_mp'])
def test_tuple_states_written_by_mxnet(ref, name):
    loaded = states.loads((ref / 'generated' / (name + '.states')).read_bytes())
    expected = np.load(ref / 'generated' / 'states_expected.npz')
    keys = [k for k in expected.files if k.startswith(name + '/')]
    assert keys
    for key in keys:
        _, index, item = key.split('/')
        value = loaded[int(index)][int(item)]
        np.testing.assert_array_equal(value.asnumpy(), expected[key])
    if name == 'sgd_mp':     # (momentum None, float32 master weight)
        assert loaded[0][0] is None and len(loaded[0]) == 2
        assert np.dtype(loaded[0][1].dtype) == np.float32


def test_dump_optimizer_pickle_is_refused_with_a_clear_message(ref):
    blob = (ref / 'generated' / 'sgd_dump_optimizer.states').read_bytes()
    with pytest.raises(MXNetError, match='dump_optimizer') as info:
        states.loads(blob)
    assert 'mxnet.optimizer.optimizer.SGD' in str(info.value)


@pytest.mark.parametrize('cut', [0, 1, 2, 30, 60, 100, 5000, 401600, 437990, 438002])
def test_truncated_mxnet_states(ref, cut):
    blob = (ref / 'mlp' / 'mlp-0003.states').read_bytes()
    with pytest.raises(MXNetError):
        states.loads(blob[:cut])


# ---- malicious pickles ---------------------------------------------------------------------
def payloads(marker):
    code = 'open(%r, "w").write("pwned")' % str(marker)
    return {
        'os.system': Reduce(os.system, ('touch %s' % marker,)),
        'eval': Reduce(eval, (code,)),
        'exec': Reduce(exec, (code,)),
        'open': Reduce(open, (str(marker), 'w')),
        'popen': Reduce(subprocess.Popen, (['touch', str(marker)],)),
        'import': Reduce(__import__, ('os',)),
        'bound-method': Reduce(getattr, (str(marker), 'upper')),
        'numpy-load': Reduce(np.load, (str(marker),)),
    }


@pytest.mark.parametrize('protocol', [0, 2, 4, 5])
@pytest.mark.parametrize('kind', ['os.system', 'eval', 'exec', 'open', 'popen', 'import',
                                  'bound-method', 'numpy-load'])
def test_malicious_pickles_are_refused_without_effect(tmp_path, protocol, kind):
    marker = tmp_path / 'pwned'
    payload = payloads(marker)[kind]
    func = payload.func
    blob = pickle.dumps({0: None, 1: [payload]}, protocol=protocol)
    with pytest.raises(MXNetError, match='refusing') as info:
        states.loads(blob)
    assert '%s.%s' % (func.__module__, func.__qualname__) in str(info.value) \
        or func.__qualname__ in str(info.value)
    assert 'optimizer-state pickle' in str(info.value)
    assert not marker.exists()


def test_refusal_names_the_global():
    blob = pickle.dumps(Reduce(os.system, ('true',)), protocol=4)
    with pytest.raises(MXNetError) as info:
        states.loads(blob)
    assert ('refusing to load %s.system from an optimizer-state pickle' % os.system.__module__
            in str(info.value))


@pytest.mark.parametrize('kind', ['os.system', 'open'])
def test_the_payloads_are_live_under_plain_pickle(tmp_path, kind):
    # Proof that the refusals above matter: the standard unpickler runs these payloads.
    marker = tmp_path / 'pwned'
    result = pickle.loads(pickle.dumps(payloads(marker)[kind], protocol=4))
    if hasattr(result, 'close'):
        result.close()
    assert marker.exists()


def test_payload_hidden_in_an_ndarray_handle_is_refused(tmp_path, fake_mxnet):
    marker = tmp_path / 'pwned'

    class Evil(fake_mxnet):
        def __reduce__(self):
            return fake_mxnet, (None,), {'handle': Reduce(os.system, ('touch %s' % marker,))}

    blob = pickle.dumps({0: Evil(None)}, protocol=4)
    with pytest.raises(MXNetError, match='refusing'):
        states.loads(blob)
    assert not marker.exists()


def test_huge_bytearray_request_is_refused():
    blob = pickle.dumps(Reduce(bytearray, (10 ** 12,)), protocol=4)
    with pytest.raises(MXNetError, match='refusing bytearray'):
        states.loads(blob)


def test_ndarray_must_be_built_from_none(fake_mxnet):
    class Odd(fake_mxnet):
        def __reduce__(self):
            return fake_mxnet, ('not none',), {'handle': bytearray()}

    with pytest.raises(MXNetError, match='NDArray\\(None\\)'):
        states.loads(pickle.dumps({0: Odd(None)}, protocol=4))


def test_damaged_handle_is_reported(fake_mxnet):
    record = params.encode_record(np.ones((4, 4), np.float32))
    blob = pickle.dumps({0: fake_mxnet(None, record[:-3])}, protocol=4)
    with pytest.raises(MXNetError, match='truncated'):
        states.loads(blob)


@pytest.mark.parametrize('protocol', [0, 1, 2, 3, 4, 5])
def test_every_pickle_protocol_of_mxnet_like_states_loads(fake_mxnet, protocol):
    rng = np.random.RandomState(0)
    arrays = [rng.standard_normal((3, 2)).astype(np.float32), np.arange(5, dtype=np.int64)]
    obj = {0: fake_mxnet(None, params.encode_record(arrays[0])),
           1: (None, fake_mxnet(None, params.encode_record(arrays[1]))), 2: None}
    loaded = states.loads(pickle.dumps(obj, protocol=protocol))
    np.testing.assert_array_equal(loaded[0].asnumpy(), arrays[0])
    assert loaded[1][0] is None and loaded[2] is None
    np.testing.assert_array_equal(loaded[1][1].asnumpy(), arrays[1])


def test_garbage_is_not_a_pickle():
    with pytest.raises(MXNetError, match='not a valid pickle'):
        states.loads(b'\x80\x04garbage that is not a pickle')


# ---- writing MXNet pickles -----------------------------------------------------------------
def test_dumps_mxnet_reproduces_mxnets_handles(ref):
    original = (ref / 'mlp' / 'mlp-0003.states').read_bytes()
    ours = states.dumps_mxnet(states.loads(original))
    assert ours[:2] == b'\x80\x04'
    assert handles(ours) == handles(original)


def test_dumps_mxnet_names_mxnets_ndarray_class():
    blob = states.dumps_mxnet({0: mx.nd.ones((2, 2)), 1: (None, np.zeros(3, np.float16))})
    pickletools.dis(blob, out=open(os.devnull, 'w'))   # a well-formed pickle
    strings = [arg for op, arg, _ in pickletools.genops(blob) if op.name == 'SHORT_BINUNICODE']
    assert strings.count('mxnet.ndarray.ndarray') == 2 and strings.count('NDArray') == 2
    record = handles(blob)[1][1]
    assert record == params.encode_record(np.zeros(3, np.float16))
    assert record[:4] == b'\xc9\xfa\x93\xf9'     # V2 magic


def test_dumps_mxnet_is_rebuilt_by_the_standard_unpickler(fake_mxnet):
    # What MXNet does with the bytes: NDArray(None), then __setstate__({'handle': ...}).
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    rebuilt = pickle.loads(states.dumps_mxnet({4: (mx.nd.array(host), None)}))
    assert isinstance(rebuilt[4][0], fake_mxnet) and rebuilt[4][1] is None
    np.testing.assert_array_equal(params.decode_record(rebuilt[4][0].record), host)


PLAIN = [None, True, False, 0, 1, 255, 256, 65535, 65536, -1, -256, 2 ** 31 - 1, 2 ** 31,
         -2 ** 31, -2 ** 31 - 1, 2 ** 63, -2 ** 200, 2 ** 2100, 0.1, -0.0, float('inf'), '',
         'short', 'x' * 300, 'ünïcødé', b'', b'\x00\xff', b'y' * 300, (), (1,), (1, 2),
         (1, 2, 3), (1, 2, 3, 4, 5), [], [1, [2, (3,)]], {}, {0: 'a', 'b': [None]}]


def test_dumps_mxnet_plain_values_match_pickle():
    for value in PLAIN:
        blob = states.dumps_mxnet(value)
        assert pickle.loads(blob) == value and type(pickle.loads(blob)) is type(value)
        assert states.loads(blob) == value


def test_dumps_mxnet_round_trips_through_loads():
    rng = np.random.RandomState(1)
    obj = {i: (mx.nd.array(rng.standard_normal((i + 1, 2))), None) for i in range(4)}
    obj[9] = None
    back = states.loads(states.dumps_mxnet(obj))
    assert list(back) == list(obj)
    for i in range(4):
        assert back[i][1] is None
        np.testing.assert_array_equal(back[i][0].asnumpy(), obj[i][0].asnumpy())


def test_dumps_mxnet_refuses_other_objects():
    with pytest.raises(TypeError, match='set'):
        states.dumps_mxnet({0: {1, 2}})


def test_dumps_mxnet_writes_numpy_scalars_as_python_numbers():
    blob = states.dumps_mxnet({0: np.bool_(True), 1: np.int64(-3), 2: np.float32(0.5)})
    assert pickle.loads(blob) == {0: True, 1: -3, 2: 0.5}
    assert type(pickle.loads(blob)[0]) is bool


def test_sparse_arrays_get_their_own_message():
    module, name = b'mxnet.ndarray.sparse', b'RowSparseNDArray'
    # PROTO 4, two SHORT_BINUNICODE strings, STACK_GLOBAL, STOP
    blob = (b'\x80\x04\x8c' + bytes([len(module)]) + module + b'\x8c' + bytes([len(name)]) + name
            + b'\x93.')
    with pytest.raises(MXNetError, match='only dense arrays'):
        states.loads(blob)
