"""Seeded, structure-aware fuzzing of every loader: only MXNetError may escape.

Each case starts from a valid file (a symbol JSON, an ``nd.save`` file, symmod's and
MXNet's ``.states``, a RecordIO file of images), damages it the way a crash, a bad disk
or an attacker would (a JSON value replaced by a value of the wrong type or size, a
header field overwritten, bytes flipped, cut or inserted), and loads it. A loader may
succeed or raise :class:`MXNetError` naming the file; a TypeError, ValueError,
OverflowError, RecursionError, a hang or a crash is a bug.
"""
import copy
import json
import pathlib
import random
import struct

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.formats import states as states_format
from symmod.optimizer.updater import load_states_file

SEED = 11
SPARSE_DATA = pathlib.Path(__file__).resolve().parents[1] / 'data' / 'sparse'
CASES = 200          # per loader; the whole file runs in seconds


# ---- damage ------------------------------------------------------------------------------
WEIRD = [5, -1, 0, 2 ** 62, -2 ** 63, '__bigint__', 1.5, float('inf'), float('nan'), True, None,
         '', 'inf', '-1', '1e400', '9' * 5000, '(0, 4611686018427387904, 4611686018427387904)',
         '(1,2', '((((', 'float128', 'bogus', '\x00', [], [5], [[0, 0, 0]], [-1, 0, 0],
         [2 ** 62, 0, 0], {}, {'a': 1}, 'null', ['a', 'b']]


DEEP = '__deep__'       # replaced by a list nested thousands of levels deep


def to_json(value):
    text = json.dumps(value).replace('"%s"' % DEEP, '[' * 3000 + '0' + ']' * 3000)
    return text.replace('"__bigint__"', '9' * 5000).encode()


def json_paths(value, prefix=()):
    """Every path into a JSON value."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from json_paths(item, prefix + (i,))


def replaced(value, path, new):
    if not path:
        return new
    value = copy.deepcopy(value)
    target = value
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return value


def damage_bytes(rng, data):
    data = bytearray(data)
    kind = rng.randrange(5)
    if kind == 0 and data:
        return bytes(data[:rng.randrange(len(data))])                  # cut
    if kind == 1 and data:
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)        # flip
        return bytes(data)
    if kind == 2:
        at = rng.randrange(len(data) + 1)                               # insert
        return bytes(data[:at] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
                     + data[at:])
    if kind == 3 and len(data) >= 8:
        at = rng.randrange(0, len(data) - 7)                            # a field overwritten
        data[at:at + 8] = struct.pack('<q', rng.choice([0, -1, 2 ** 62, 2 ** 31, 7, 2 ** 40]))
        return bytes(data)
    return bytes(data[:rng.randrange(len(data) + 1)]) + bytes(data)   # duplicated tail


def check(load, path, escaped):
    """Load ``path``: success or an MXNetError naming the file are the only outcomes."""
    try:
        load(str(path))
    except MXNetError as err:
        if path.name not in str(err):
            escaped.append('%s: the error does not name the file: %s' % (path.name, err))
    except Exception as err:     # collected, so one run shows every kind of escape
        escaped.append('%s: %s: %s' % (path.name, type(err).__name__, str(err)[:200]))


# ---- inputs ------------------------------------------------------------------------------
def symbol_json():
    data = mx.sym.Variable('data', shape=(2, 3), dtype='float32')
    net = mx.sym.FullyConnected(data, num_hidden=4, name='fc1')
    net = mx.sym.Activation(net, act_type='relu', name='relu1')
    net = mx.sym.Pooling(mx.sym.Reshape(net, shape=(2, 1, 2, 2)), kernel=(2, 2),
                         pool_type='max', name='pool')
    net = mx.sym.SoftmaxOutput(mx.sym.Flatten(net), name='softmax')
    return json.loads(net.tojson())


def load_and_infer(fname):
    """sym.load, then what a user does next: inference from the stored attributes."""
    try:
        net = mx.sym.load(fname)
        net.infer_shape_partial()
        net.infer_type()
    except MXNetError as err:
        if fname not in str(err):      # inference errors name the node, not the file
            raise MXNetError('%s: %s' % (fname, err)) from None
        raise


@pytest.fixture(scope='module')
def rng():
    return random.Random(SEED)


def test_symbol_json_fuzz(tmp_path, rng):
    escaped = []
    base = symbol_json()
    paths = list(json_paths(base))
    for case in range(CASES):
        if case % 4 == 3:
            text = damage_bytes(rng, json.dumps(base).encode())
        else:
            new = DEEP if case % 17 == 0 else rng.choice(WEIRD)
            text = to_json(replaced(base, rng.choice(paths), new))
        path = tmp_path / ('case%d-symbol.json' % case)
        path.write_bytes(text)
        check(load_and_infer, path, escaped)
    assert not escaped, '\n'.join(escaped)


def test_params_fuzz(tmp_path, rng):
    escaped = []
    good = tmp_path / 'good.params'
    mx.nd.save(str(good), {'arg:w': mx.nd.ones((2, 3)), 'aux:m': mx.nd.zeros((4,), dtype='int32'),
                           'arg:s': mx.nd.array([7.0], dtype='float16')})
    base = good.read_bytes()
    for case in range(CASES):
        path = tmp_path / ('case%d.params' % case)
        path.write_bytes(damage_bytes(rng, base))
        check(mx.nd.load, path, escaped)
    assert not escaped, '\n'.join(escaped)


def _load_and_read(fname):
    """nd.load, then what a user does next with a sparse array: its dense value, its
    parts, and a check of its structure."""
    loaded = mx.nd.load(fname)
    for array in (loaded.values() if isinstance(loaded, dict) else loaded):
        try:
            array.asnumpy()
            if array.stype != 'default':
                array.data.asnumpy()
                array.indices.asnumpy()
                array.check_format(full_check=True)
        except MXNetError as err:
            raise MXNetError('%s: %s' % (fname, err)) from None


def test_sparse_records_fuzz(tmp_path):
    # MXNet-written csr and row_sparse records (storage type, aux types and shapes)
    # damaged: loading and reading them may only raise MXNetError
    rng = random.Random(SEED + 1)
    escaped = []
    base = (SPARSE_DATA / 'sparse_dict.nd').read_bytes()
    for case in range(CASES):
        path = tmp_path / ('case%d.nd' % case)
        path.write_bytes(damage_bytes(rng, base))
        check(_load_and_read, path, escaped)
    assert not escaped, '\n'.join(escaped)


def test_params_zero_dimension_beside_huge_ones(tmp_path):
    record = struct.pack('<Iii3qiii', 0xF993FAC9, 0, 3, 0, 2 ** 62, 2 ** 62, 1, 0, 0)
    path = tmp_path / 'zero.params'
    path.write_bytes(struct.pack('<QQQ', 0x112, 0, 1) + record + struct.pack('<Q', 0))
    with pytest.raises(MXNetError, match='zero.params'):
        mx.nd.load(str(path))


def _updater():
    return mx.optimizer.get_updater(mx.optimizer.create('adam', learning_rate=0.1))


def _stateful_updater():
    updater = _updater()
    updater([0, 1], [mx.nd.ones((2, 2)), mx.nd.ones((3,))],
            [mx.nd.zeros((2, 2)), mx.nd.zeros((3,))])
    return updater


def test_symmod_states_fuzz(tmp_path, rng):
    escaped = []
    blob = _stateful_updater().get_states()
    magic = len(states_format.MAGIC) + 12
    header_len = struct.unpack_from('<Q', blob, len(states_format.MAGIC) + 4)[0]
    header = json.loads(blob[magic:magic + header_len])
    arrays = blob[magic + header_len:]
    paths = list(json_paths(header))
    for case in range(CASES):
        if case % 3 == 2:
            data = damage_bytes(rng, blob)
        else:
            tree = replaced(header, rng.choice(paths), rng.choice(WEIRD + [DEEP]))
            text = to_json(tree)
            data = blob[:len(states_format.MAGIC) + 4] + struct.pack('<Q', len(text)) + text \
                + arrays
        path = tmp_path / ('case%d.states' % case)
        path.write_bytes(data)
        check(lambda fname: load_states_file(_updater(), fname), path, escaped)
    assert not escaped, '\n'.join(escaped)


def test_mxnet_states_fuzz(tmp_path, rng):
    escaped = []
    base = states_format.dumps_mxnet({0: (mx.nd.ones((2, 2)), mx.nd.zeros((2, 2))), 1: None,
                                      2: [1, 'x', 2.5]})
    for case in range(CASES):
        path = tmp_path / ('case%d.states' % case)
        path.write_bytes(damage_bytes(rng, base))
        check(lambda fname: load_states_file(_updater(), fname), path, escaped)
    assert not escaped, '\n'.join(escaped)


@pytest.mark.parametrize('obj', [[1, 2], 'text', 5, None, (1, 2, 3), ({0: None}, 5)])
def test_states_of_the_wrong_type_are_an_mxnet_error(tmp_path, obj):
    path = tmp_path / 'odd.states'
    path.write_bytes(states_format.dumps_mxnet(obj))
    with pytest.raises(MXNetError, match='odd.states'):
        load_states_file(_updater(), str(path))


def _image_records(tmp_path):
    path = tmp_path / 'good.rec'
    writer = mx.recordio.MXRecordIO(str(path), 'w')
    rs = np.random.RandomState(0)
    for i in range(3):
        img = rs.randint(0, 255, (6, 5, 3)).astype(np.uint8)
        header = mx.recordio.IRHeader(0, float(i), i, 0)
        writer.write(mx.recordio.pack_img(header, img, img_fmt='.png'))
    writer.close()
    return path.read_bytes()


def _read_all(fname):
    reader = mx.recordio.MXRecordIO(fname, 'r')
    try:
        for _ in range(10):
            record = reader.read()
            if record is None:
                break
            mx.recordio.unpack_img(record)
    finally:
        reader.close()


def test_recordio_fuzz(tmp_path, rng):
    base = _image_records(tmp_path)
    for case in range(CASES):
        path = tmp_path / ('case%d.rec' % case)
        path.write_bytes(damage_bytes(rng, base))
        try:
            _read_all(str(path))
        except MXNetError as err:
            assert 'case%d.rec' % case in str(err) or 'recordio' in str(err).lower()


def test_unpack_img_of_no_record_is_an_mxnet_error():
    with pytest.raises(MXNetError, match='None'):
        mx.recordio.unpack_img(None)


def test_recordio_index_fuzz(tmp_path, rng):
    rec = tmp_path / 'good.rec'
    rec.write_bytes(_image_records(tmp_path))
    base = b'0\t0\n1\t44\n2\t88\n'
    for case in range(CASES // 4):
        idx = tmp_path / ('case%d.idx' % case)
        idx.write_bytes(damage_bytes(rng, base))
        try:
            reader = mx.recordio.MXIndexedRecordIO(str(idx), str(rec), 'r')
            reader.close()
        except MXNetError as err:
            assert idx.name in str(err), err


def _node(graph, name):
    return next(n for n in graph['nodes'] if n['name'] == name)


@pytest.mark.parametrize('node,key,value', [
    ('fc1', 'num_hidden', 'inf'), ('fc1', 'num_hidden', '9' * 5000), ('fc1', 'num_hidden', '-1'),
    ('fc1', 'num_hidden', '1e400'), ('fc1', 'no_bias', 'maybe'), ('pool', 'kernel', '(1,2'),
    ('pool', 'kernel', '(' * 3000), ('pool', 'kernel', '-' * 100000 + '1'),
    ('pool', 'kernel', '1' + '+1' * 100000), ('data', '__shape__', '(1,2'),
    ('data', '__shape__', '-' * 100000 + '1'),
    ('data', '__shape__', '(0, 4611686018427387904, 4611686018427387904)'),
    ('data', '__shape__', '9' * 5000), ('data', '__dtype__', 'bogus'),
    ('data', '__dtype__', '99'), ('data', '__dtype__', '-1')])
def test_bad_attribute_values_are_mxnet_errors(tmp_path, node, key, value):
    graph = symbol_json()
    _node(graph, node).setdefault('attrs', {})[key] = value
    path = tmp_path / 'bad-symbol.json'
    path.write_text(json.dumps(graph))
    escaped = []
    check(load_and_infer, path, escaped)
    assert not escaped, escaped
