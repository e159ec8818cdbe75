"""Checks of symbols: forward / backward against expected values, finite-difference
gradients, speed, and consistency across contexts and dtypes."""
import time
import traceback
from collections import OrderedDict

import numpy as np

from ..base import MXNetError
from ..ndarray.ndarray import NDArray, array as nd_array, empty as nd_empty, zeros as nd_zeros
from .arrays import default_context
from .compare import (assert_almost_equal, default_dtype, default_numeric_eps, get_tolerance,
                      get_tols)

__all__ = ['simple_forward', 'numeric_grad', 'check_numeric_gradient', 'check_symbolic_forward',
           'check_symbolic_backward', 'check_speed', 'check_consistency']

_DTYPES = (np.float16, np.float32, np.float64)


def _check_dtype(dtype, allow_asnumpy=True):
    if not ((allow_asnumpy and isinstance(dtype, str) and dtype == 'asnumpy')
            or dtype in _DTYPES):
        raise ValueError('dtype must be float16, float32, float64%s, found %r'
                         % (" or 'asnumpy'" if allow_asnumpy else '', dtype))


def _to_nd(value, ctx, dtype):
    """numpy arrays become NDArrays of ``dtype`` ('asnumpy': their own); NDArrays stay."""
    if isinstance(value, np.ndarray):
        return nd_array(value, ctx=ctx, dtype=value.dtype if _is_asnumpy(dtype) else dtype)
    return value


def _is_asnumpy(dtype):
    return isinstance(dtype, str) and dtype == 'asnumpy'


def _parse_location(sym, location, ctx, dtype=default_dtype()):
    """The symbol's arguments by name, as NDArrays (sorted by name)."""
    if not isinstance(location, (dict, list, tuple)):
        raise TypeError('location must be a list, tuple or dict, found %s'
                        % type(location).__name__)
    names = sym.list_arguments()
    if isinstance(location, dict):
        if set(location) != set(names):
            raise ValueError('Symbol arguments and keys of the given location do not match. '
                             'symbol args:%s, location.keys():%s' % (set(names), set(location)))
    else:
        location = dict(zip(names, location))
    return OrderedDict(sorted((k, _to_nd(v, ctx, dtype)) for k, v in location.items()))


def _parse_aux_states(sym, aux_states, ctx, dtype=default_dtype()):
    """The symbol's auxiliary states by name, as NDArrays (or None)."""
    if aux_states is None:
        return None
    names = sym.list_auxiliary_states()
    if isinstance(aux_states, dict):
        if set(aux_states) != set(names):
            raise ValueError('Symbol aux_states names and given aux_states do not match. '
                             'symbol aux_names:%s, aux_states.keys:%s'
                             % (set(names), set(aux_states)))
    else:
        aux_states = dict(zip(names, aux_states))
    return {k: nd_array(v, ctx=ctx, dtype=np.asarray(v).dtype if _is_asnumpy(dtype) else dtype)
            if not isinstance(v, NDArray) else v for k, v in aux_states.items()}


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Bind ``sym`` to numpy ``inputs``, run forward, return the output(s) as numpy."""
    ctx = ctx or default_context()
    args = {k: nd_array(v, ctx=ctx, dtype=np.asarray(v).dtype) for k, v in inputs.items()}
    executor = sym.bind(ctx, args=args)
    executor.forward(is_train=is_train)
    outputs = [o.asnumpy() for o in executor.outputs]
    return outputs[0] if len(outputs) == 1 else outputs


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True,
                 dtype=default_dtype()):
    """Central finite differences ``(f(x + eps/2) - f(x - eps/2)) / eps`` of the sum of the
    executor's first output, for every floating-point argument in ``location``.

    Parameters
    ----------
    executor : Executor
    location : dict of str to numpy.ndarray
        Point at which to differentiate (written into the executor's arguments).
    aux_states : dict of str to numpy.ndarray, optional
        Restored before every forward pass (training-mode ops update them).
    eps : float
        Width of the difference.
    use_forward_train : bool
    dtype : numpy float dtype
        dtype of the arrays written into the executor.

    Returns
    -------
    dict of str to numpy.ndarray
    """
    _check_dtype(dtype, allow_asnumpy=False)

    def objective():
        if aux_states is not None:
            for key, val in aux_states.items():
                executor.aux_dict[key][:] = val
        executor.forward(is_train=use_forward_train)
        return executor.outputs[0].asnumpy()

    grads = {k: np.zeros(np.shape(v), dtype=dtype) for k, v in location.items()}
    for k, v in location.items():
        executor.arg_dict[k][:] = nd_array(v, dtype=dtype)
    for k in location:
        location[k] = np.asarray(location[k], order='C')
    for k, v in location.items():
        if v.dtype.kind != 'f':
            continue
        original = v.copy()
        for i in range(v.size):
            v.ravel()[i] += eps / 2.0
            executor.arg_dict[k][:] = nd_array(v, dtype=dtype)
            f_plus = objective()
            v.ravel()[i] -= eps
            executor.arg_dict[k][:] = nd_array(v, dtype=dtype)
            f_minus = objective()
            grads[k].ravel()[i] = (f_plus - f_minus).sum() / eps
            v.ravel()[i] = original.ravel()[i]
        executor.arg_dict[k][:] = nd_array(original, dtype=dtype)
    return grads


def _grad_req_of(grad_nodes, names):
    if grad_nodes is None:
        return list(names), {k: 'write' for k in names}
    if isinstance(grad_nodes, (list, tuple)):
        return list(grad_nodes), {k: 'write' for k in grad_nodes}
    if isinstance(grad_nodes, dict):
        return list(grad_nodes), dict(grad_nodes)
    raise ValueError('grad_nodes must be None, a list or a dict, found %s'
                     % type(grad_nodes).__name__)


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None,
                           atol=None, grad_nodes=None, use_forward_train=True, ctx=None,
                           grad_stype_dict=None, dtype=default_dtype()):
    """Check a symbol's backward pass against finite differences.

    The (single-output) symbol is multiplied by a random projection and wrapped in
    ``make_loss``, so the checked quantity is a weighted sum of its output.

    Parameters
    ----------
    sym : Symbol
    location : list or dict of numpy.ndarray
        Values of all arguments (list_arguments order, or by name).
    aux_states : list or dict, optional
    numeric_eps : float or dict of dtype to float, optional
        Finite-difference width (default by dtype, see ``default_numeric_eps``).
    rtol, atol : float, optional
    grad_nodes : list of str or dict of str to grad_req, optional
        Arguments to check (default: all, with 'write').
    use_forward_train : bool
    ctx : Context, optional
    grad_stype_dict : dict, optional
        Storage types of the gradient buffers ('row_sparse' / 'csr' ones start empty).
    dtype : numpy dtype
        float16, float32 or float64; use float64 for tight checks.
    """
    from .. import symbol as sym_mod
    _check_dtype(dtype, allow_asnumpy=False)
    ctx = ctx or default_context()
    location = _parse_location(sym, location, ctx, dtype)
    location_np = {k: v.asnumpy() for k, v in location.items()}
    aux = _parse_aux_states(sym, aux_states, ctx, dtype)
    aux_np = None if aux is None else {k: v.asnumpy() for k, v in aux.items()}
    grad_nodes, grad_req = _grad_req_of(grad_nodes, sym.list_arguments())
    _, out_shapes, _ = sym.infer_shape(**{k: v.shape for k, v in location.items()})
    proj = sym_mod.Variable('__random_proj')
    loss = sym_mod.make_loss(sym * proj)
    # projection weights away from zero keep the numeric gradient precise
    location = dict(location)
    location['__random_proj'] = nd_array(np.random.rand(*out_shapes[0]) + 0.1, ctx=ctx,
                                         dtype=dtype)
    grad_start = {k: np.random.normal(0, 0.01, size=location[k].shape) for k in grad_nodes}
    grad_start['__random_proj'] = np.random.normal(0, 0.01, size=out_shapes[0])
    args_grad = {k: nd_array(v, ctx=ctx, dtype=dtype) for k, v in grad_start.items()}
    for k, stype in (grad_stype_dict or {}).items():
        if k in args_grad and stype not in (None, 'default'):
            # a sparse gradient starts empty: what is not computed stays absent
            args_grad[k] = nd_zeros(args_grad[k].shape, ctx, args_grad[k].dtype, stype)
            grad_req[k] = 'write'
    grad_start = {k: v.asnumpy() for k, v in args_grad.items()}     # as stored
    executor = loss.bind(ctx, grad_req=grad_req, args=location, args_grad=args_grad,
                         aux_states=aux)
    if len(executor.arg_arrays) != len(location):
        raise ValueError('Executor arg_arrays and location len do not match. Got %d inputs and '
                         '%d locations' % (len(executor.arg_arrays), len(location)))
    if len(executor.outputs) != 1:
        raise MXNetError('check_numeric_gradient needs a symbol with exactly one output')
    executor.forward(is_train=True)
    eps = get_tolerance(executor.outputs[0], numeric_eps, default_numeric_eps())
    if dtype in (np.float32, np.float16) and eps < 1e-5:
        raise ValueError('finite differences with eps < 1e-5 need float64')
    executor.backward()
    symbolic = executor.grad_dict
    numeric = numeric_grad(executor, location_np, aux_np, eps=eps,
                           use_forward_train=use_forward_train, dtype=dtype)
    for name in grad_nodes:
        names = ('NUMERICAL_%s' % name, 'BACKWARD_%s' % name)
        req = grad_req[name]
        got = symbolic[name]
        if req == 'write':
            assert_almost_equal(numeric[name], got, rtol, atol, names)
        elif req == 'add':
            assert_almost_equal(numeric[name], got.asnumpy() - grad_start[name], rtol, atol,
                                names)
        elif req == 'null':
            assert_almost_equal(grad_start[name], got, rtol, atol, names)
        else:
            raise ValueError('Invalid grad_req %s for argument %s' % (req, name))


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None,
                           ctx=None, equal_nan=False, dtype=default_dtype()):
    """Bind ``sym`` at ``location``, run forward (inference) and compare to ``expected``.

    Parameters
    ----------
    expected : list of numpy.ndarray, or dict by output name
    dtype : float dtype or 'asnumpy'
        dtype of the NDArrays made from numpy inputs ('asnumpy': keep each input's).

    Returns
    -------
    list of NDArray
        The executor's outputs.
    """
    _check_dtype(dtype)
    ctx = ctx or default_context()
    location = _parse_location(sym, location, ctx, dtype)
    aux = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    args_grad = {k: nd_empty(v.shape, ctx=ctx, dtype=v.dtype) for k, v in location.items()}
    executor = sym.bind(ctx=ctx, args=location, args_grad=args_grad, aux_states=aux)
    for grad in executor.grad_arrays:
        if grad is not None:
            grad[:] = 0
    executor.forward(is_train=False)
    for name, exp, out in zip(sym.list_outputs(), expected, executor.outputs):
        assert_almost_equal(exp, out, rtol, atol, ('EXPECTED_%s' % name, 'FORWARD_%s' % name),
                            equal_nan=equal_nan)
    return executor.outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None,
                            aux_states=None, grad_req='write', ctx=None, grad_stypes=None,
                            equal_nan=False, dtype=default_dtype()):
    """Run forward (training) and backward with ``out_grads``; compare input gradients.

    Parameters
    ----------
    out_grads : None, list or dict of numpy.ndarray / NDArray
        Head gradients (None: the operator's own, e.g. for loss heads).
    expected : list (list_arguments order) or dict of numpy.ndarray
        Expected gradients of the arguments named.
    grad_req : str, list or dict
        'write', 'add' or 'null' (a gradient with 'null' must keep its initial value).

    Returns
    -------
    dict of str to NDArray
        The gradient arrays.
    """
    _check_dtype(dtype)
    ctx = ctx or default_context()
    location = _parse_location(sym, location, ctx, dtype)
    aux = _parse_aux_states(sym, aux_states, ctx, dtype)
    names = sym.list_arguments()
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(names, expected))
    # dirty the gradient buffers deterministically (reveals 'write' vs 'add' mistakes)
    start = {k: np.random.normal(size=np.shape(v)) for k, v in sorted(expected.items())}
    args_grad = {k: nd_array(v, ctx=ctx,
                             dtype=np.asarray(expected[k]).dtype if _is_asnumpy(dtype) else dtype)
                 for k, v in start.items()}
    for k, stype in (grad_stypes or {}).items():
        if k in args_grad and stype not in (None, 'default'):
            # sparse gradient buffers start empty (as MXNet's helper makes them)
            args_grad[k] = nd_zeros(args_grad[k].shape, ctx, args_grad[k].dtype, stype)
    # compare against the values as stored (in the gradient's dtype), not the float64 draw
    start = {k: v.asnumpy() for k, v in args_grad.items()}
    if isinstance(grad_req, str):
        grad_req = {k: grad_req for k in names}
    elif isinstance(grad_req, (list, tuple)):
        grad_req = dict(zip(names, grad_req))
    executor = sym.bind(ctx=ctx, args=location, args_grad=args_grad, aux_states=aux,
                        grad_req=grad_req)
    executor.forward(is_train=True)

    def head(value):
        if isinstance(value, np.ndarray):
            return nd_array(value, ctx=ctx, dtype=value.dtype if _is_asnumpy(dtype) else dtype)
        return value

    if isinstance(out_grads, (list, tuple)):
        out_grads = [head(g) for g in out_grads]
    elif isinstance(out_grads, dict):
        out_grads = {k: head(v) for k, v in out_grads.items()}
    elif out_grads is not None:
        raise TypeError('out_grads must be None, a list or a dict, found %s'
                        % type(out_grads).__name__)
    executor.backward(out_grads)
    for name in expected:
        names = ('EXPECTED_%s' % name, 'BACKWARD_%s' % name)
        req = grad_req[name]
        if req == 'write':
            assert_almost_equal(expected[name], args_grad[name], rtol, atol, names,
                                equal_nan=equal_nan)
        elif req == 'add':
            assert_almost_equal(expected[name], args_grad[name].asnumpy() - start[name], rtol,
                                atol, names, equal_nan=equal_nan)
        elif req == 'null':
            assert_almost_equal(start[name], args_grad[name], rtol, atol, names,
                                equal_nan=equal_nan)
        else:
            raise ValueError('Invalid grad_req %s for argument %s' % (req, name))
    return args_grad


def check_speed(sym, location=None, ctx=None, N=20, grad_req=None, typ='whole', **kwargs):
    """Seconds per forward+backward (``typ='whole'``) or forward (``'forward'``) pass.

    Parameters
    ----------
    location : dict of str to numpy.ndarray, optional
        Inputs (default: random normal values of the shapes in ``kwargs``).
    N : int
        Timed repetitions (after one warm-up).
    """
    from ..ndarray import waitall
    ctx = ctx or default_context()
    grad_req = grad_req or 'write'
    if location is None:
        exe = sym.simple_bind(grad_req=grad_req, ctx=ctx, **kwargs)
        location = {k: np.random.normal(size=arr.shape, scale=1.0)
                    for k, arr in exe.arg_dict.items()}
    else:
        if not isinstance(location, dict):
            raise TypeError('Expect dict, get "location"=%s' % str(location))
        exe = sym.simple_bind(grad_req=grad_req, ctx=ctx,
                              **{k: v.shape for k, v in location.items()})
    for name, value in location.items():
        exe.arg_dict[name][:] = value.astype(exe.arg_dict[name].dtype)
    if typ == 'whole':
        exe.forward(is_train=True)
        exe.backward(out_grads=exe.outputs)
        tic = time.time()
        for _ in range(N):
            exe.forward(is_train=True)
            exe.backward(out_grads=exe.outputs)
        waitall()
        return (time.time() - tic) / N
    if typ == 'forward':
        exe.forward(is_train=False)
        tic = time.time()
        for _ in range(N):
            exe.forward(is_train=False)
        waitall()
        return (time.time() - tic) / N
    raise ValueError('typ can only be "whole" or "forward".')


def _smaller_dtype(dt1, dt2):
    """The less precise of two dtypes (``dt2`` may be None)."""
    return dt1 if dt2 is None or np.dtype(dt1).itemsize < np.dtype(dt2).itemsize else dt2


def check_consistency(sym, ctx_list, scale=1.0, grad_req='write', arg_params=None,
                      aux_params=None, rtol=None, atol=None, raise_on_err=True,
                      ground_truth=None, equal_nan=False, use_uniform=False,
                      rand_type=np.float64):
    """Check that a symbol gives the same outputs and gradients across contexts / dtypes.

    Parameters
    ----------
    sym : Symbol or list of Symbol
    ctx_list : list of dict
        ``simple_bind`` arguments per run: ``{'ctx': mx.cpu(0), 'data': (2, 3),
        'type_dict': {'data': np.float32}}``.
    scale : float
        Scale of the random inputs.
    grad_req : str or list or dict
    arg_params, aux_params : dict, optional
        Input values to use instead of random ones.
    rtol, atol : float or dict of dtype to float, optional
    raise_on_err : bool
        Raise on a mismatch (otherwise print it).
    ground_truth : dict, optional
        Reference outputs/gradients by name (default: the most precise run's).
    equal_nan : bool
    use_uniform : bool
        Uniform(-0.92 scale, 0.92 scale) inputs instead of normal(0, scale).
    rand_type : numpy dtype
        dtype of the generated inputs.

    Returns
    -------
    dict
        The ground truth used.
    """
    if len(ctx_list) <= 1:
        raise ValueError('check_consistency needs at least two entries in ctx_list')
    syms = [sym] * len(ctx_list) if not isinstance(sym, (list, tuple)) else list(sym)
    if len(syms) != len(ctx_list):
        raise ValueError('%d symbols for %d contexts' % (len(syms), len(ctx_list)))
    output_names = syms[0].list_outputs()
    arg_names = syms[0].list_arguments()
    exe_list = []
    for s, ctx in zip(syms, ctx_list):
        assert s.list_arguments() == arg_names
        assert s.list_outputs() == output_names
        exe_list.append(s.simple_bind(grad_req=grad_req, **ctx))
    arg_params = {} if arg_params is None else arg_params
    aux_params = {} if aux_params is None else aux_params
    for name, arr in sorted(exe_list[0].arg_dict.items()):
        if name not in arg_params:
            if use_uniform:
                arg_params[name] = np.random.uniform(low=-0.92 * scale, high=0.92 * scale,
                                                     size=arr.shape).astype(rand_type)
            else:
                arg_params[name] = np.random.normal(size=arr.shape,
                                                    scale=scale).astype(rand_type)
    for name in exe_list[0].aux_dict:
        aux_params.setdefault(name, 0)
    for exe in exe_list:
        for name, arr in exe.arg_dict.items():
            arr[:] = arg_params[name]
        for name, arr in exe.aux_dict.items():
            arr[:] = aux_params[name]
        if grad_req == 'add':
            for arr in exe.grad_arrays:
                if arr is not None:
                    arr[:] = 0
    dtypes = [np.dtype(exe.outputs[0].dtype) for exe in exe_list]
    gt_idx = int(np.argmax([d.itemsize for d in dtypes]))
    gt = ground_truth
    if gt is None:
        gt = dict(exe_list[gt_idx].output_dict)
        if grad_req != 'null':
            gt.update(exe_list[gt_idx].grad_dict)

    def compare(arr, gtarr, where, rt, at):
        try:
            assert_almost_equal(arr, gtarr, rtol=rt, atol=at, equal_nan=equal_nan)
        except AssertionError as err:
            print('%s Err: ctx %d vs ctx %d at %s' % where)
            traceback.print_exc()
            if raise_on_err:
                raise
            print(str(err))

    for exe in exe_list:
        exe.forward(is_train=False)
    for i, exe in enumerate(exe_list):
        if i == gt_idx:
            continue
        for name, arr in zip(output_names, exe.outputs):
            compare(arr, gt[name], ('Predict', i, gt_idx, name), rtol, atol)

    if grad_req != 'null':
        for exe in exe_list:
            exe.forward(is_train=True)
        # head gradients: the first run's outputs, in the least precise dtype of all runs
        least = [out.dtype for out in exe_list[0].outputs]
        for exe in exe_list:
            least = [_smaller_dtype(out.dtype, dt) for out, dt in zip(exe.outputs, least)]
        golden = [out.astype(dt).asnumpy() for out, dt in zip(exe_list[0].outputs, least)]
        for exe in exe_list:
            exe.backward([nd_array(g, ctx=exe._ctx, dtype=out.dtype)
                          for g, out in zip(golden, exe.outputs)])
        for i, exe in enumerate(exe_list):
            if i == gt_idx:
                continue
            for name, arr in zip(output_names + arg_names, exe.outputs + exe.grad_arrays):
                if gt.get(name) is None:
                    assert arr is None
                    continue
                gtarr = gt[name]
                rt, at = rtol, atol
                small_arr = _smaller_dtype(arr.dtype, dtypes[i])
                small_gt = _smaller_dtype(gtarr.dtype, dtypes[gt_idx])
                if small_arr != arr.dtype or small_gt != gtarr.dtype:
                    rt, at = get_tols(arr.astype(small_arr), gtarr.astype(small_gt), rtol, atol)
                compare(arr, gtarr, ('Train', i, gt_idx, name), rt, at)
    return gt
