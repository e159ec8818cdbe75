"""Choose and call the kernel for an update: CPU or CUDA, serial or parallel.

:func:`run` takes the operands of an update as raw storage arrays (``NDArray._data``:
numpy arrays on CPU, numba device arrays on GPU), grouped per operand:
``operands[j][k]`` is operand ``j`` (weight, gradient, a state ...) of tensor ``k``.
On CPU all tensors go to one compiled call. Preparing that call (flat views, numba
typed lists, the chunk table) costs about a microsecond per array, so the prepared
call is kept and reused while the caller passes the very same arrays, which is what
an Updater driven by Module or Trainer does every step.
"""
from collections import OrderedDict
from itertools import chain

import numba
import numpy as np
from numba.typed import List

from ... import threads as _threads
from ...base import MXNetError

CHUNK = 1 << 15            # elements per row of the chunk table
PARALLEL_MIN = 1 << 16     # fewer elements than this in one call: run serially
# Threads take rows of the chunk table a few at a time instead of one fixed half each:
# tensors of mixed sizes then still split evenly, and a thread that the OS pauses does
# not hold up the others.
ROWS_PER_GRAB = 8
_MAX_PLANS = 8
# The rules that also reduce: how many sums each chunk of the table yields.
SUM_WIDTHS = {'lamb1': 2, 'sum_sq': 1}

_PLANS = OrderedDict()


class _Plan:
    """A prepared CPU call: typed lists of flat views, the chunk table, write-backs."""
    __slots__ = ('arrays', 'lists', 'table', 'total', 'copies')

    def __init__(self, operands):
        self.arrays = operands     # keeps every array alive, so ids stay unique
        self.copies = []
        self.lists = []
        sizes = None
        for arrays in operands:
            flats = [self._flat(a) for a in arrays]
            dtypes = {f.dtype for f in flats}
            if len(dtypes) != 1:
                raise MXNetError('fused optimizer update: one operand mixes dtypes %s'
                                 % sorted(str(d) for d in dtypes))
            if sizes is None:
                sizes = [f.size for f in flats]
            elif [f.size for f in flats] != sizes:
                raise MXNetError('fused optimizer update: operand sizes %s do not match the '
                                 'weights %s' % ([f.size for f in flats], sizes))
            self.lists.append(List(flats))
        self.table = chunk_table(sizes)
        self.total = int(sum(sizes))

    def _flat(self, a):
        if not a.flags.c_contiguous:    # rare (strided views): work on a copy, write back
            flat = np.ascontiguousarray(a).reshape(-1)
            self.copies.append((a, flat))
        else:
            flat = a.reshape(-1)
        if flat.dtype == np.float16:
            flat = flat.view(np.uint16)
        elif flat.dtype not in (np.float32, np.float64):
            raise MXNetError('fused optimizer update: unsupported dtype %s (expected float16, '
                             'float32 or float64)' % flat.dtype)
        return flat

    def write_back(self):
        for dst, flat in self.copies:
            src = flat.view(np.float16) if dst.dtype == np.float16 else flat
            dst[...] = src.reshape(dst.shape)


def chunk_table(sizes):
    """Rows ``(tensor, start, stop)`` covering every tensor in pieces of at most CHUNK."""
    sizes = np.asarray(sizes, dtype=np.int64)
    counts = (sizes + CHUNK - 1) // CHUNK
    tensor = np.repeat(np.arange(sizes.size, dtype=np.int64), counts)
    first = np.cumsum(counts) - counts
    piece = np.arange(tensor.size, dtype=np.int64) - np.repeat(first, counts)
    start = piece * CHUNK
    stop = np.minimum(start + CHUNK, sizes[tensor])
    return np.ascontiguousarray(np.stack([tensor, start, stop], axis=1))


def compute_dtype(weight_dtype):
    """Kernels compute float64 weights in float64 and everything else in float32."""
    return np.float64 if np.dtype(weight_dtype) == np.float64 else np.float32


def _typed(scalars, dtype):
    return tuple(s if isinstance(s, (bool, np.bool_)) else dtype(s) for s in scalars)


def _plan(operands, cache):
    if not cache:
        return _Plan(operands)
    key = tuple(map(id, chain.from_iterable(operands)))
    plan = _PLANS.get(key)
    if plan is None:
        plan = _Plan(operands)
        _PLANS[key] = plan
        if len(_PLANS) > _MAX_PLANS:
            _PLANS.popitem(last=False)
    else:
        _PLANS.move_to_end(key)
    return plan


def run(rule, operands, hp, scalars, dtype=np.float32, cache=False):
    """Apply ``rule`` to every tensor in ``operands``.

    Parameters
    ----------
    rule : str
        A key of ``cpu.KERNELS`` / ``cpu_adaptive.KERNELS`` / ``cuda.KERNELS``.
    operands : list of list of array
        ``operands[j][k]``: operand ``j`` of tensor ``k`` (numpy or device arrays).
    hp : 2-D array-like
        Per-tensor hyper-parameters, one row per tensor.
    scalars : tuple
        Hyper-parameters shared by all tensors (floats and bools).
    dtype : numpy type
        The compute type (see :func:`compute_dtype`).
    cache : bool
        Keep the prepared call for the next call with the very same arrays.

    Returns
    -------
    numpy.ndarray or None
        For the rules that reduce (``lamb1``, ``sum_sq``), per-tensor sums.
    """
    hp = np.ascontiguousarray(hp, dtype=dtype).reshape(len(operands[0]), -1)
    scalars = _typed(scalars, dtype)
    if isinstance(operands[0][0], np.ndarray):
        return _run_cpu(rule, operands, hp, scalars, cache)
    from . import cuda
    return cuda.run(rule, operands, hp, scalars)


def _cpu_kernels(rule):
    from . import cpu, cpu_adaptive
    kernels = cpu.KERNELS.get(rule)
    return kernels if kernels is not None else cpu_adaptive.KERNELS[rule]


def _run_cpu(rule, operands, hp, scalars, cache):
    plan = _plan(operands, cache)
    serial, parallel = _cpu_kernels(rule)
    width = SUM_WIDTHS.get(rule)
    sums = None if width is None else np.zeros((plan.table.shape[0], width), np.float64)
    args = (plan.table, *plan.lists, hp) + (() if sums is None else (sums,)) + scalars
    if plan.total < PARALLEL_MIN or _threads.apply() == 1:
        serial(*args)
    else:
        previous = numba.set_parallel_chunksize(ROWS_PER_GRAB)
        try:
            parallel(*args)
        finally:
            numba.set_parallel_chunksize(previous)
    plan.write_back()
    if sums is None:
        return None
    per_tensor = np.zeros((len(operands[0]), width), dtype=np.float64)
    np.add.at(per_tensor, plan.table[:, 0], sums)
    return per_tensor


def group_adagrad(weight, grad, history, lr, epsilon, rescale, clip_gradient):
    """Row-wise AdaGrad on 2-D ``weight`` (CPU or GPU storage)."""
    scalars = _typed((lr, epsilon, rescale, clip_gradient), np.float32)
    if isinstance(weight, np.ndarray):
        from . import cpu_adaptive
        kernel = (cpu_adaptive.group_adagrad_serial if weight.size < PARALLEL_MIN
                  else cpu_adaptive.group_adagrad_parallel)
        kernel(weight, grad, history, *scalars)
        return
    from . import cuda
    cuda.group_adagrad(weight, grad, history, *scalars)
