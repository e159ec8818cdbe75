"""Testing helpers in MXNet's signatures: tolerant comparison, random inputs, and
forward / backward / finite-difference gradient checks of symbols."""
import numpy as np

from .base import MXNetError
from .context import current_context
from .ndarray.ndarray import NDArray, array as nd_array

__all__ = ['default_context', 'set_default_context', 'default_dtype', 'assert_almost_equal',
           'almost_equal', 'same', 'rand_ndarray', 'rand_shape_2d', 'rand_shape_3d',
           'rand_shape_nd', 'random_arrays', 'numeric_grad', 'check_numeric_gradient',
           'check_symbolic_forward', 'check_symbolic_backward', 'simple_forward',
           'default_rtols', 'default_atols', 'default_numeric_eps']

_DEFAULT_CTX = [None]


def default_context():
    """The context tests run on (``cpu(0)`` unless set)."""
    return _DEFAULT_CTX[0] or current_context()


def set_default_context(ctx):
    """Set the context returned by :func:`default_context`."""
    _DEFAULT_CTX[0] = ctx


def default_dtype():
    """The default dtype of test arrays: float32."""
    return np.float32


def default_rtols():
    """Relative tolerance per dtype."""
    return {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4,
            np.dtype(np.float64): 1e-5}


def default_atols():
    """Absolute tolerance per dtype."""
    return {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3,
            np.dtype(np.float64): 1e-7}


def default_numeric_eps():
    """Finite-difference step per dtype."""
    return {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-3,
            np.dtype(np.float64): 1e-6}


def _as_numpy(a):
    return a.asnumpy() if isinstance(a, NDArray) else np.asarray(a)


def _tolerance(value, default_table, dtypes):
    if value is not None:
        return value
    return max(default_table.get(np.dtype(d), default_table[np.dtype(np.float32)])
               for d in dtypes)


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False):
    """Whether ``|a - b| <= atol + rtol * |b|`` holds everywhere."""
    a, b = _as_numpy(a), _as_numpy(b)
    rtol = _tolerance(rtol, default_rtols(), (a.dtype, b.dtype))
    atol = _tolerance(atol, default_atols(), (a.dtype, b.dtype))
    return np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal(a, b, rtol=None, atol=None, names=('a', 'b'), equal_nan=False):
    """Assert ``|a - b| <= atol + rtol * |b|`` elementwise; the message shows the worst element.

    Parameters
    ----------
    a, b : NDArray or numpy.ndarray or number
    rtol, atol : float, optional
        Tolerances (defaults depend on the dtypes).
    names : tuple of str
        Names used in the failure message.
    equal_nan : bool
        Treat NaNs in the same place as equal.
    """
    a, b = _as_numpy(a), _as_numpy(b)
    if a.shape != b.shape and a.size == b.size == 1:
        a, b = a.reshape(-1), b.reshape(-1)
    if a.shape != b.shape:
        raise AssertionError('shape mismatch: %s %s vs %s %s' % (names[0], a.shape,
                                                                names[1], b.shape))
    rtol = _tolerance(rtol, default_rtols(), (a.dtype, b.dtype))
    atol = _tolerance(atol, default_atols(), (a.dtype, b.dtype))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if np.allclose(a64, b64, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    excess = np.abs(a64 - b64) - (atol + rtol * np.abs(b64))
    if equal_nan:
        excess = np.where(np.isnan(a64) & np.isnan(b64), -1, excess)
    excess = np.where(np.isnan(excess), np.inf, excess)
    worst = np.unravel_index(np.argmax(excess), a.shape) if a.ndim else ()
    raise AssertionError(
        'Items are not equal (rtol=%g, atol=%g): %d of %d elements differ.\n'
        'Worst at index %s: %s=%r, %s=%r\n %s: %s\n %s: %s'
        % (rtol, atol, int(np.sum(excess > 0)), a.size, worst, names[0], a64[worst],
           names[1], b64[worst], names[0], np.array2string(a, threshold=20),
           names[1], np.array2string(b, threshold=20)))


def same(a, b):
    """Whether two arrays are exactly equal."""
    return np.array_equal(_as_numpy(a), _as_numpy(b))


def rand_shape_2d(dim0=10, dim1=10):
    """A random 2-D shape with dims in [1, dim]."""
    return np.random.randint(1, dim0 + 1), np.random.randint(1, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10):
    """A random 3-D shape with dims in [1, dim]."""
    return (np.random.randint(1, dim0 + 1), np.random.randint(1, dim1 + 1),
            np.random.randint(1, dim2 + 1))


def rand_shape_nd(num_dim, dim=10):
    """A random shape of ``num_dim`` dims in [1, dim]."""
    return tuple(np.random.randint(1, dim + 1, size=num_dim))


def random_arrays(*shapes):
    """Standard-normal float32 numpy arrays of the given shapes (one array, or a list)."""
    arrays = [np.array(np.random.randn(), dtype=np.float32) if len(s) == 0
              else np.random.randn(*s).astype(np.float32) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def rand_ndarray(shape, stype='default', density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A random dense NDArray of ``shape`` (uniform in [0, 1))."""
    if stype != 'default':
        raise MXNetError('sparse storage type %r is not supported by symmod' % stype)
    values = np.random.uniform(size=shape)
    if modifier_func is not None:
        values = modifier_func(values)
    return nd_array(values, ctx=ctx or default_context(), dtype=dtype or np.float32)


def _location(sym, location, ctx, dtype):
    names = sym.list_arguments()
    if isinstance(location, dict):
        missing = set(names) - set(location)
        if missing:
            raise ValueError('location is missing arguments: %s' % sorted(missing))
        location = {k: location[k] for k in names}
    else:
        if len(location) != len(names):
            raise ValueError('location has %d arrays, the symbol has %d arguments %s'
                             % (len(location), len(names), names))
        location = dict(zip(names, location))
    return {k: nd_array(_as_numpy(v), ctx=ctx, dtype=dtype) for k, v in location.items()}


def _aux(sym, aux_states, ctx, dtype):
    if aux_states is None:
        return None
    names = sym.list_auxiliary_states()
    if not isinstance(aux_states, dict):
        aux_states = dict(zip(names, aux_states))
    return {k: nd_array(_as_numpy(v), ctx=ctx, dtype=dtype) for k, v in aux_states.items()}


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True,
                 dtype=np.float32):
    """Central finite differences of the sum of the executor's outputs.

    Parameters
    ----------
    executor : Executor
    location : dict of str to numpy.ndarray
        Point at which to differentiate (copied into the executor).
    aux_states : dict of str to numpy.ndarray, optional
        Restored before every forward pass (training-mode ops update them).
    eps : float
        Step size.

    Returns
    -------
    dict of str to numpy.ndarray
    """
    def objective():
        if aux_states is not None:
            for name, value in aux_states.items():
                executor.aux_dict[name][:] = value
        executor.forward(is_train=use_forward_train)
        return sum(float(np.sum(out.asnumpy().astype(np.float64)))
                   for out in executor.outputs)

    for name, value in location.items():
        executor.arg_dict[name][:] = value
    grads = {}
    for name, value in location.items():
        arr = executor.arg_dict[name]
        flat = np.array(value, dtype=np.float64).reshape(-1)
        grad = np.zeros(flat.size)
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + eps
            arr[:] = flat.reshape(value.shape)
            f_plus = objective()
            flat[i] = old - eps
            arr[:] = flat.reshape(value.shape)
            f_minus = objective()
            flat[i] = old
            grad[i] = (f_plus - f_minus) / (2 * eps)
        arr[:] = value
        grads[name] = grad.reshape(value.shape).astype(dtype)
    return grads


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None,
                           atol=None, grad_nodes=None, use_forward_train=True, ctx=None,
                           grad_stype_dict=None, dtype=np.float32):
    """Check a symbol's backward pass against central finite differences.

    The (single-output) symbol is multiplied by a random projection and wrapped in
    ``make_loss``, so the checked quantity is a weighted sum of its output.

    Parameters
    ----------
    sym : Symbol
    location : list or dict of numpy.ndarray
        Values of all arguments (list_arguments order, or by name).
    aux_states : list or dict, optional
    numeric_eps : float, optional
        Finite-difference step (default by dtype).
    rtol, atol : float, optional
    grad_nodes : list of str or dict of str to grad_req, optional
        Arguments to check (default: all).
    use_forward_train : bool
    ctx : Context, optional
    dtype : numpy dtype
        float16, float32 or float64; use float64 for tight checks.
    """
    from . import symbol as sym_mod
    dtype = np.dtype(dtype).type
    if dtype not in (np.float16, np.float32, np.float64):
        raise ValueError('dtype must be float16, float32 or float64')
    ctx = ctx or default_context()
    location = _location(sym, location, ctx, dtype)
    location_np = {k: v.asnumpy() for k, v in location.items()}
    aux = _aux(sym, aux_states, ctx, dtype)
    aux_np = None if aux is None else {k: v.asnumpy() for k, v in aux.items()}
    if grad_nodes is None:
        grad_req = {k: 'write' for k in sym.list_arguments()}
    elif isinstance(grad_nodes, (list, tuple)):
        grad_req = {k: 'write' for k in grad_nodes}
    elif isinstance(grad_nodes, dict):
        grad_req = dict(grad_nodes)
    else:
        raise ValueError('grad_nodes must be None, a list or a dict')
    _, out_shapes, _ = sym.infer_shape(**{k: v.shape for k, v in location.items()})
    if out_shapes is None or len(out_shapes) != 1:
        raise MXNetError('check_numeric_gradient needs a symbol with exactly one output')
    proj = sym_mod.Variable('__random_proj')
    loss = sym_mod.make_loss(sym * proj)
    location['__random_proj'] = nd_array(np.random.rand(*out_shapes[0]) + 0.1, ctx=ctx,
                                         dtype=dtype)
    grad_start = {k: np.random.normal(0, 0.01, size=location[k].shape) for k in grad_req}
    grad_start['__random_proj'] = np.random.normal(0, 0.01, size=out_shapes[0])
    args_grad = {k: nd_array(v, ctx=ctx, dtype=dtype) for k, v in grad_start.items()}
    grad_req_all = dict(grad_req)
    grad_req_all.setdefault('__random_proj', 'write')
    executor = loss.bind(ctx, args=location, args_grad=args_grad, grad_req=grad_req_all,
                         aux_states=aux)
    eps = numeric_eps if numeric_eps is not None else default_numeric_eps()[np.dtype(dtype)]
    if dtype in (np.float16, np.float32) and eps < 1e-5:
        raise ValueError('finite differences with eps < 1e-5 need float64')
    if aux_np is not None:
        for name, value in aux_np.items():
            executor.aux_dict[name][:] = value
    executor.forward(is_train=use_forward_train)
    executor.backward()
    symbolic = {k: executor.grad_dict[k].asnumpy() for k in grad_req}
    location_np['__random_proj'] = location['__random_proj'].asnumpy()
    numeric = numeric_grad(executor, location_np, aux_np, eps=eps,
                           use_forward_train=use_forward_train, dtype=dtype)
    for name, req in grad_req.items():
        if req == 'write':
            assert_almost_equal(numeric[name], symbolic[name], rtol, atol,
                                ('NUMERICAL_%s' % name, 'BACKWARD_%s' % name))
        elif req == 'add':
            assert_almost_equal(numeric[name], symbolic[name] - grad_start[name], rtol, atol,
                                ('NUMERICAL_%s' % name, 'BACKWARD_%s' % name))
        elif req == 'null':
            assert_almost_equal(grad_start[name].astype(dtype), symbolic[name], rtol, atol,
                                ('NUMERICAL_%s' % name, 'BACKWARD_%s' % name))
        else:
            raise ValueError('Invalid grad_req %s for argument %s' % (req, name))


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None,
                           ctx=None, equal_nan=False, dtype=np.float32):
    """Bind ``sym`` at ``location``, run forward (inference) and compare to ``expected``.

    Returns the outputs as numpy arrays.
    """
    ctx = ctx or default_context()
    location = _location(sym, location, ctx, dtype)
    aux = _aux(sym, aux_states, ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    executor = sym.bind(ctx, args=location, grad_req='null', aux_states=aux)
    outputs = [o.asnumpy() for o in executor.forward(is_train=False)]
    for name, exp, out in zip(sym.list_outputs(), expected, outputs):
        assert_almost_equal(exp, out, rtol, atol, ('EXPECTED_%s' % name, 'FORWARD_%s' % name),
                            equal_nan=equal_nan)
    return outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None,
                            aux_states=None, grad_req='write', ctx=None, grad_stypes=None,
                            equal_nan=False, dtype=np.float32):
    """Run forward (training) and backward with ``out_grads``; compare input gradients.

    ``expected`` is a list (list_arguments order) or dict of expected gradients.
    Returns the gradients as a dict of numpy arrays.
    """
    ctx = ctx or default_context()
    location = _location(sym, location, ctx, dtype)
    aux = _aux(sym, aux_states, ctx, dtype)
    names = sym.list_arguments()
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(names, expected))
    if isinstance(grad_req, str):
        grad_req = {k: grad_req for k in names}
    elif isinstance(grad_req, (list, tuple)):
        grad_req = dict(zip(names, grad_req))
    start = {k: np.random.normal(size=v.shape) for k, v in location.items()}
    args_grad = {k: nd_array(v, ctx=ctx, dtype=dtype) for k, v in start.items()
                 if k in expected}
    executor = sym.bind(ctx, args=location, args_grad=args_grad, grad_req=grad_req,
                        aux_states=aux)
    executor.forward(is_train=True)
    if out_grads is not None:
        if isinstance(out_grads, dict):
            out_grads = [out_grads[k] for k in sym.list_outputs()]
        out_grads = [nd_array(_as_numpy(g), ctx=ctx, dtype=dtype) for g in out_grads]
    executor.backward(out_grads)
    grads = {k: v.asnumpy() for k, v in executor.grad_dict.items() if v is not None}
    for name, exp in expected.items():
        req = grad_req.get(name, 'write')
        got = grads[name]
        if req == 'add':
            got = got - start[name].astype(dtype)
        elif req == 'null':
            assert_almost_equal(start[name].astype(dtype), got, rtol, atol,
                                ('EXPECTED_%s' % name, 'BACKWARD_%s' % name))
            continue
        assert_almost_equal(exp, got, rtol, atol, ('EXPECTED_%s' % name,
                                                  'BACKWARD_%s' % name), equal_nan=equal_nan)
    return grads


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Bind ``sym`` to numpy ``inputs``, run forward, return the output(s) as numpy."""
    ctx = ctx or default_context()
    args = {k: nd_array(v, ctx=ctx, dtype=np.asarray(v).dtype) for k, v in inputs.items()}
    executor = sym.bind(ctx, args=args, grad_req='null')
    outputs = [o.asnumpy() for o in executor.forward(is_train=is_train)]
    return outputs[0] if len(outputs) == 1 else outputs

