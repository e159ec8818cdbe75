"""Loading a pickle of n bytes takes time and memory linear in n, whatever the file says.

The payloads are the denial-of-service files of issue 11: shared references that expand
as a tree, memo indices and declared lengths far beyond the bytes present, hash
collisions, deep nesting. Each is measured (wall time and tracemalloc's peak) while
symmod refuses it with an MXNetError.
"""
import pickle
import struct
import time
import tracemalloc

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.formats import params, states


def measure(func, *args):
    """(seconds, peak traced bytes, exception or None) of ``func(*args)``."""
    tracemalloc.start()
    start = time.perf_counter()
    error = None
    try:
        func(*args)
    except Exception as err:          # the caller checks which
        error = err
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak, error


def shared_lists(depth):
    x = []
    for _ in range(depth):
        x = [x, x]
    return pickle.dumps({0: x}, protocol=4)


def shared_tuple_key(depth):
    """{t: None} where t = (t', t') nested ``depth`` times (written without hashing t)."""
    t = ()
    for _ in range(depth):
        t = (t, t)
    key = pickle.dumps(t, protocol=2)
    assert key[:2] == b'\x80\x02' and key[-1:] == b'.'
    return b'\x80\x02}' + key[2:-1] + b'Ns.'


def colliding_int_keys(count):
    """A dict whose int keys all hash alike (k * (2**61 - 1)), written opcode by opcode."""
    body = b''.join(b'\x8a\x0c' + (k * (2 ** 61 - 1)).to_bytes(12, 'little', signed=True)
                    + b'N' for k in range(1, count + 1))
    return b'\x80\x04}(' + body + b'u.'


def deep_lists(depth):
    return b'\x80\x04' + b']' * depth + b'a' * (depth - 1) + b'.'


PAYLOADS = {
    # issue 11: 292 bytes that expanded to 2 GB (depth 22) or the OOM killer (depth 40)
    'shared-lists-18': shared_lists(18),
    'shared-lists-40': shared_lists(40),
    # issue 11: LONG_BINPUT with a huge memo index: the C unpickler zero-fills 4 GB
    'long-binput': b'\x80\x04N' + b'r' + struct.pack('<I', 0x10000000) + b'.',
    'binbytes8': b'\x80\x04\x8e' + struct.pack('<Q', 2 ** 40) + b'abc.',
    'bytearray8': b'\x80\x05\x96' + struct.pack('<Q', 2 ** 40) + b'abc.',
    'binunicode8': b'\x80\x04\x8d' + struct.pack('<Q', 2 ** 40) + b'abc.',
    'frame': b'\x80\x04\x95' + struct.pack('<Q', 2 ** 60) + b'N.',
    'colliding-keys': colliding_int_keys(20000),
    # a dict key whose hash walks 2**40 shared tuples
    'tuple-key': shared_tuple_key(40),
    'deep-lists': deep_lists(20000),
    'long-digits': b'L' + b'7' * 100000 + b'L\n.',
    'get-unwritten': b'\x80\x04h\x05.',
    'cycle': b'\x80\x04]\x94h\x00a.',
}


@pytest.mark.parametrize('name', sorted(PAYLOADS))
def test_hostile_pickle_is_refused_in_linear_time_and_memory(name):
    data = PAYLOADS[name]
    seconds, peak, error = measure(states.loads, data)
    assert isinstance(error, MXNetError), (name, error)
    assert 'optimizer states' in str(error)
    # linear in the file's size: one Python object (~100 bytes) per opcode byte at most
    assert peak < 256 * len(data) + (1 << 20), (name, len(data), peak)
    assert seconds < 10, (name, seconds)


def test_shared_lists_are_refused_as_too_large_not_walked():
    with pytest.raises(MXNetError, match='expands to more than'):
        states.loads(shared_lists(40))


def test_memo_index_beyond_the_file_is_named():
    with pytest.raises(MXNetError, match='memo index 268435456 is beyond the 9 bytes'):
        states.loads(PAYLOADS['long-binput'])


def test_declared_length_beyond_the_data_is_refused():
    with pytest.raises(MXNetError, match='offset 2'):
        states.loads(PAYLOADS['binbytes8'])


def test_colliding_keys_are_refused_not_inserted():
    with pytest.raises(MXNetError, match='small int'):
        states.loads(colliding_int_keys(10))


def test_load_time_grows_linearly_for_a_legitimate_large_structure():
    """A big honest pickle (many shared arrays, many entries) loads in linear time."""
    def payload(n):
        record = params.encode_record(np.ones((2,), np.float32))
        return states.dumps_mxnet({i: (None, i, 'x') for i in range(n)}), record

    small, _ = payload(5000)
    big, _ = payload(40000)
    t_small, p_small, e_small = measure(states.loads, small)
    t_big, p_big, e_big = measure(states.loads, big)
    assert e_small is None and e_big is None
    assert p_big < 256 * len(big) + (1 << 20)
    # 8x the data: allow 24x the time (shared, loaded machines), quadratic would be 64x
    assert t_big < 24 * t_small + 0.5, (t_small, t_big)


def test_shared_arrays_stay_shared_and_are_decoded_once():
    host = np.arange(6, dtype=np.float32)
    blob = states.dumps_mxnet({0: (mx.nd.array(host), None)})
    loaded = states.loads(blob)
    np.testing.assert_array_equal(loaded[0][0].asnumpy(), host)
    # a pickle where one NDArray object is referenced from two entries (Python memoises it)
    once = pickle.dumps([1, 2], protocol=4)
    assert states.loads(once) == [1, 2]


def test_module_load_with_hostile_states_names_the_file(tmp_path):
    data = mx.sym.Variable('data')
    net = mx.sym.FullyConnected(data, num_hidden=2, name='fc')
    net = mx.sym.SoftmaxOutput(net, name='softmax')
    mod = mx.mod.Module(net)
    mod.bind(data_shapes=[('data', (4, 3))], label_shapes=[('softmax_label', (4,))])
    mod.init_params()
    mod.init_optimizer()
    prefix = str(tmp_path / 'net')
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    with open(prefix + '-0001.states', 'wb') as f:
        f.write(shared_lists(40))
    loaded = mx.mod.Module.load(prefix, 1, load_optimizer_states=True)
    loaded.bind(data_shapes=[('data', (4, 3))], label_shapes=[('softmax_label', (4,))])
    start = time.perf_counter()
    with pytest.raises(MXNetError, match='net-0001.states'):
        loaded.init_optimizer()
    assert time.perf_counter() - start < 5
