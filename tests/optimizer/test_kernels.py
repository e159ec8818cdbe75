"""The fused kernels against the numpy reference formulas (kernels/reference.py).

Each rule runs through ``dispatch.run`` (the path every optimizer takes) on random
data and is compared with an independent whole-array numpy version. The parallel
drivers must give exactly the serial result, and multi-tensor calls exactly the
single-tensor ones.
"""
import numpy as np
import pytest

from symmod.optimizer.kernels import dispatch, reference as ref

F32 = np.float32
RNG = np.random.default_rng(42)


def rand(shape, dtype=F32, low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape).astype(dtype)


# rule name -> (operand makers, hp row, scalars, reference(ops, hp) -> expected operands)
# operand makers: 'w' weight, 'g' gradient, 'z' zeros, 'p' positive
def _ops(kinds, shape, dtype):
    makers = {'w': lambda: rand(shape, dtype), 'g': lambda: rand(shape, dtype, -2, 2),
              'p': lambda: rand(shape, dtype, 0.1, 1.0), 's': lambda: rand(shape, dtype)}
    return [makers[k]() for k in kinds]


RULES = {
    'sgd': ('wg', (0.1, 0.01), (0.5, 0.3, False),
            lambda o, h: [ref.sgd(o[0], o[1], h[0], h[1], 0.5, 0.3)]),
    'sgd_multi_form': ('wg', (0.1, 0.01), (0.5, -1.0, True),
                       lambda o, h: [ref.sgd(o[0], o[1], h[0], h[1], 0.5, -1.0, True)]),
    'sgd_mom': ('wgs', (0.1, 0.01), (0.9, 0.5, 0.3, False, True),
                lambda o, h: list(ref.sgd_mom(o[0], o[1], o[2], h[0], h[1], 0.9, 0.5, 0.3))),
    'nag_mom': ('wgs', (0.1, 0.01), (0.9, 0.5, 0.3, True, True),
                lambda o, h: list(ref.nag_mom(o[0], o[1], o[2], h[0], h[1], 0.9, 0.5, 0.3))),
    'signum': ('wgs', (0.1, 0.01), (0.9, 0.5, 0.3, 0.1, True),
               lambda o, h: list(ref.signum(o[0], o[1], o[2], h[0], h[1], 0.9, 0.5, 0.3, 0.1))),
    'signsgd': ('wgs', (0.1, 0.01), (0.0, 0.5, 0.3, 0.0, False),
                lambda o, h: [ref.signsgd(o[0], o[1], h[0], h[1]), o[2]]),
    'adam': ('wgsp', (0.01, 0.01), (0.9, 0.999, 1e-8, 0.5, 0.3),
             lambda o, h: list(ref.adam(o[0], o[1], o[2], o[3], h[0], h[1], 0.9, 0.999, 1e-8,
                                        0.5, 0.3))),
    'adamw': ('wgsp', (0.01, 0.01, 0.5), (0.9, 0.999, 1e-8, 0.5, 0.3, False),
              lambda o, h: list(ref.adamw(o[0], o[1], o[2], o[3], h[0], h[1], h[2], 0.9, 0.999,
                                          1e-8, 0.5, 0.3))),
    'adamax': ('wgsp', (0.01, 0.01), (0.9, 0.1, 0.999, 0.5, 0.3),
               lambda o, h: list(ref.adamax(o[0], o[1], o[2], o[3], h[0], h[1], 0.9, 0.999,
                                            0.5, 0.3))),
    'rmsprop': ('wgp', (0.01, 0.01), (0.9, 1e-8, 0.5, 0.3, 0.6),
                lambda o, h: list(ref.rmsprop(o[0], o[1], o[2], h[0], h[1], 0.9, 1e-8, 0.5, 0.3,
                                              0.6))),
    'rmspropalex': ('wgpsz', (0.01, 0.01), (0.9, 0.9, 1e-8, 0.5, 0.3, 0.6),
                    lambda o, h: list(ref.rmspropalex(o[0], o[1], o[2] + 1, o[3] * 0.1, o[4],
                                                      h[0], h[1], 0.9, 0.9, 1e-8, 0.5, 0.3,
                                                      0.6))),
    'adagrad': ('wgp', (0.1, 0.01), (1e-7, 0.5, 0.3),
                lambda o, h: list(ref.adagrad(o[0], o[1], o[2], h[0], h[1], 1e-7, 0.5, 0.3))),
    'adadelta': ('wgpp', (0.01,), (0.9, 0.1, 1e-5, 0.5, 0.3),
                 lambda o, h: list(ref.adadelta(o[0], o[1], o[2], o[3], h[0], 0.9, 1e-5, 0.5,
                                                0.3))),
    'ftrl': ('wgsp', (0.1, 0.01), (0.01, 1.0, 0.5, 0.3),
             lambda o, h: list(ref.ftrl(o[0], o[1], o[2], o[3], h[0], h[1], 0.01, 1.0, 0.5,
                                        0.3))),
    'ftml': ('wgppz', (0.1, 0.01, 1 - F32(0.6) ** F32(3), 1 - F32(0.999) ** F32(3)),
             (0.6, 0.999, 1e-8, 0.5, 0.3),
             lambda o, h: list(ref.ftml(o[0], o[1], o[2], o[3], o[4], h[0], h[1], 0.6, 0.999,
                                        1e-8, 3, 0.5, 0.3))),
    'dcasgd': ('wgsw', (0.1, 0.01), (0.0, 0.04, 0.5, 0.3, False),
               lambda o, h: list(ref.dcasgd(o[0], o[1], o[2], h[0], h[1], 0.04, 0.5, 0.3))
               + [o[3]]),
}
RULES['rmspropalex'] = ('wgpsz', (0.01, 0.01), (0.9, 0.9, 1e-8, 0.5, 0.3, 0.6),
                        lambda o, h: list(ref.rmspropalex(o[0], o[1], o[2], o[3], o[4], h[0],
                                                          h[1], 0.9, 0.9, 1e-8, 0.5, 0.3, 0.6)))
KERNEL_OF = {'sgd_multi_form': 'sgd', 'nag_mom': 'sgd_mom', 'signsgd': 'signum'}


def _make(name, shapes, dtype):
    kinds = RULES[name][0]
    per_tensor = []
    for shape in shapes:
        ops = _ops(kinds.replace('z', 's'), shape, dtype)
        for j, kind in enumerate(kinds):
            if kind == 'z':
                ops[j] = np.zeros(shape, dtype)
        if name == 'rmspropalex':   # keep n - g**2 positive
            ops[2] = ops[2] + dtype(1)
        if name == 'dcasgd':         # operand 3 is the (unused) momentum slot
            ops[3] = ops[0].copy()
        per_tensor.append(ops)
    return per_tensor


def _written(after, expected):
    """Pair the reference's outputs with the operands: all of them, or all but the grad."""
    if len(expected) == len(after):
        return list(zip(after, expected))
    return list(zip([after[0]] + after[2:], expected))


def _run(name, per_tensor, dtype, hp_rows=None):
    _, hp, scalars, _ = RULES[name]
    operands = [[ops[j] for ops in per_tensor] for j in range(len(per_tensor[0]))]
    rows = hp_rows if hp_rows is not None else [hp] * len(per_tensor)
    dispatch.run(KERNEL_OF.get(name, name), operands, rows, scalars,
                 dispatch.compute_dtype(dtype))


@pytest.mark.parametrize('name', sorted(RULES))
@pytest.mark.parametrize('shape', [(7,), (5, 7)])
def test_rule_matches_numpy_reference_float32(name, shape):
    before = _make(name, [shape], F32)[0]
    after = [a.copy() for a in before]
    _run(name, [after], F32)
    expected = RULES[name][3](before, RULES[name][1])
    for got, want in _written(after, expected):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize('name', ['sgd', 'sgd_mom', 'adam'])
@pytest.mark.parametrize('dtype', [np.float64, np.float16])
def test_rule_other_dtypes(name, dtype):
    before = _make(name, [(6, 5)], dtype)[0]
    after = [a.copy() for a in before]
    _run(name, [after], dtype)
    expected = RULES[name][3]([a.astype(np.float32 if dtype == np.float16 else dtype)
                               for a in before], RULES[name][1])
    for got, want in _written(after, expected):
        assert got.dtype == dtype
        if dtype == np.float16:   # computed in float32, rounded once when stored
            np.testing.assert_array_equal(got, want.astype(np.float16))
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize('name', sorted(RULES))
def test_parallel_driver_equals_serial(name, monkeypatch):
    shapes = [(13, 9), (40,), (1,), (3, 3, 3)]
    data = _make(name, shapes, F32)
    serial = [[a.copy() for a in ops] for ops in data]
    _run(name, serial, F32)
    monkeypatch.setattr(dispatch, 'PARALLEL_MIN', 0)
    monkeypatch.setattr(dispatch, 'CHUNK', 16)
    parallel = [[a.copy() for a in ops] for ops in data]
    _run(name, parallel, F32)
    for s_ops, p_ops in zip(serial, parallel):
        for s, p in zip(s_ops, p_ops):
            np.testing.assert_array_equal(s, p)


@pytest.mark.parametrize('name', ['sgd_mom', 'adam', 'ftml'])
def test_multi_tensor_call_equals_single_calls(name):
    shapes = [(4, 3), (17,), (2, 2, 2)]
    data = _make(name, shapes, F32)
    rows = [tuple(v * (k + 1) for v in RULES[name][1]) for k in range(len(shapes))]
    together = [[a.copy() for a in ops] for ops in data]
    _run(name, together, F32, hp_rows=rows)
    for k, ops in enumerate(data):
        single = [a.copy() for a in ops]
        _run(name, [single], F32, hp_rows=[rows[k]])
        for a, b in zip(single, together[k]):
            np.testing.assert_array_equal(a, b)


def test_chunk_table_covers_every_element_once(monkeypatch):
    monkeypatch.setattr(dispatch, 'CHUNK', 10)
    table = dispatch.chunk_table([25, 0, 10, 3])
    assert table.tolist() == [[0, 0, 10], [0, 10, 20], [0, 20, 25], [2, 0, 10], [3, 0, 3]]


def test_sum_sq_and_lamb_sums():
    arrays = [rand((5, 4)), rand((9,))]
    sums = dispatch.run('sum_sq', [arrays], np.zeros((2, 1)), ())
    np.testing.assert_allclose(sums[:, 0], [np.sum(a.astype(np.float64) ** 2) for a in arrays],
                               rtol=1e-6)


def test_lamb_two_passes_match_reference():
    shapes = [(6, 4), (5,)]
    ws = [rand(s) for s in shapes]
    gs = [rand(s) for s in shapes]
    ms = [rand(s) * 0.1 for s in shapes]
    vs = [rand(s, low=0.01) for s in shapes]
    expected = [ref.lamb(w, g, m, v, 0.01, 0.01, 0.9, 0.999, 1e-6, 2, 0.5, 0.3,
                         lower_bound=0.1, upper_bound=2.0)
                for w, g, m, v in zip(ws, gs, ms, vs)]
    from symmod.optimizer.lamb import trust_lrs
    hp = [(0.01, 1 - F32(0.9) ** F32(2), 1 - F32(0.999) ** F32(2))] * 2
    sums = dispatch.run('lamb1', [ws, gs, ms, vs, gs], hp,
                        (0.9, 0.999, 1e-6, 0.5, 0.3, True, False))
    lrs = trust_lrs([0.01, 0.01], sums, 0.1, 2.0)
    dispatch.run('lamb2', [ws, ms, vs], [row + (lr,) for row, lr in zip(hp, lrs)],
                 (1e-6, True))
    for w, m, v, (ew, em, ev) in zip(ws, ms, vs, expected):
        np.testing.assert_allclose(m, em, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(v, ev, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(w, ew, rtol=1e-5, atol=1e-6)


def test_unsupported_dtype_is_a_clear_error():
    from symmod.base import MXNetError
    with pytest.raises(MXNetError, match='unsupported dtype int32'):
        dispatch.run('sgd', [[np.zeros(3, np.int32)], [np.zeros(3, np.int32)]], [(0.1, 0)],
                     (1.0, -1.0, False))


def test_strided_arrays_are_written_back():
    base = rand((6, 8))
    grad = rand((6, 4))
    view = base[:, ::2]                       # not contiguous
    expected = ref.sgd(view.copy(), grad, 0.1, 0.0)
    dispatch.run('sgd', [[view], [grad]], [(0.1, 0.0)], (1.0, -1.0, False))
    np.testing.assert_allclose(base[:, ::2], expected, rtol=1e-6)


def _float32_signature(fn):
    import inspect
    from numba import types
    args = []
    for name in inspect.signature(fn).parameters:
        flag = name in ('multi_form', 'in_place', 'has_mom', 'bias_correction')
        args.append(types.boolean if flag else types.float32)
    return tuple(args)


@pytest.mark.parametrize('name', ['sgd', 'sgd_mom', 'nag_mom', 'signsgd', 'signum', 'adam',
                                  'adamw', 'adamax', 'nadam', 'lamb_phase1', 'rmsprop',
                                  'rmspropalex', 'adagrad', 'adadelta', 'ftrl', 'ftml',
                                  'dcasgd', 'sgld', 'plain_step', 'lamb_trust_lr'])
def test_rules_stay_in_float32(name):
    """No float64 promotion: float32 in, float32 out (so float32 arithmetic throughout)."""
    from numba import njit, types
    from symmod.optimizer.kernels import rules
    fn = getattr(rules, name)
    compiled = njit(error_model='numpy')(fn)
    compiled.compile(_float32_signature(fn))
    result = compiled.nopython_signatures[0].return_type
    outputs = result.types if isinstance(result, types.BaseTuple) else (result,)
    assert all(t == types.float32 for t in outputs), result


@pytest.mark.parametrize('parallel', [False, True])
@pytest.mark.parametrize('clip', [-1.0, 0.3])
def test_group_adagrad_rows_match_reference(parallel, clip, monkeypatch):
    if parallel:
        monkeypatch.setattr(dispatch, 'PARALLEL_MIN', 0)
    w, g = rand((6, 5)), rand((6, 5), low=-2, high=2)
    hist = rand((6, 1), low=0.1)
    expected_w, expected_h = ref.group_adagrad(w, g, hist, 0.1, 1e-5, 0.5, clip)
    dispatch.group_adagrad(w, g, hist, 0.1, 1e-5, 0.5, clip)
    np.testing.assert_allclose(hist, expected_h, rtol=1e-6)
    np.testing.assert_allclose(w, expected_w, rtol=1e-5, atol=1e-6)
