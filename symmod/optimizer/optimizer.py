"""The Optimizer base class: registry, learning rates, weight decay, update counts.

This is the "driver" half of every optimizer, exactly as MXNet 1.9.1 defines it: how
the learning rate and weight decay of each parameter are found (``param_dict`` first,
then the index, then the name), how update counts advance, and how float16 weights get
a float32 master copy. The arithmetic lives in the update rules (``kernels/``).

Fused optimizers (every built-in one) also implement ``_fused_update(indices, weights,
grads, states)``: one call that updates a whole list of parameters with one compiled
kernel, computing the per-parameter hyper-parameters in the same order MXNet does.
"""
import os
import warnings

import numpy

from .._suggest import unknown_name
from ..base import MXNetError
from ..ndarray import device as _device

__all__ = ['Optimizer', 'register', 'create']


def aggregation_size(default, most=None):
    """How many parameters one aggregated update takes: ``MXNET_OPTIMIZER_AGGREGATION_SIZE``
    or ``default``, clamped to ``[1, most]`` when ``most`` is given (as MXNet reads it)."""
    size = int(os.getenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', str(default)))
    return size if most is None else max(1, min(most, size))


class Optimizer:
    """The base class of all optimizers.

    Parameters
    ----------
    rescale_grad : float, optional, default 1.0
        Every gradient is multiplied by this before the update (often 1/batch_size).
    param_idx2name : dict of int to str, optional
        Names of the parameters by index; with it, parameters whose names do not end in
        ``_weight`` or ``_gamma`` get no weight decay.
    wd : float, optional, default 0.0
        The weight decay (L2 penalty) coefficient.
    clip_gradient : float, optional
        Clip gradients to ``[-clip_gradient, clip_gradient]`` (after rescaling).
    learning_rate : float, optional
        The learning rate; 0.01 when neither it nor ``lr_scheduler`` is given. When both
        are given it overwrites the scheduler's ``base_lr``.
    lr_scheduler : LRScheduler, optional
        Gives the learning rate from the number of updates.
    sym : Symbol, optional
        Its ``__lr_mult__`` / ``__wd_mult__`` attributes set per-parameter multipliers.
    begin_num_update : int, optional, default 0
        The update count to start from.
    multi_precision : bool, optional, default False
        Keep a float32 master copy of float16 weights and update that.
    param_dict : dict of int to gluon.Parameter, optional
        Parameters whose ``lr_mult`` / ``wd_mult`` take precedence.

    Examples
    --------
    >>> opt = mx.optimizer.create('sgd', learning_rate=0.1, momentum=0.9)
    >>> opt.learning_rate
    0.1
    """
    opt_registry = {}
    _decayed_suffixes = ('_weight', '_gamma')   # names that keep weight decay

    def __init__(self, rescale_grad=1., param_idx2name=None, wd=0.,
                 clip_gradient=None, learning_rate=None,
                 lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if self.lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if self.lr_scheduler is not None and learning_rate is not None:
            if self.lr_scheduler.base_lr != learning_rate:
                # MXNet prints this warning object rather than raising it
                print(UserWarning("learning rate from ``lr_scheduler`` has been "
                                  "overwritten by ``learning_rate`` in optimizer."))
                self.lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.lr_mult = {}
        self.wd_mult = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = 0
        if param_idx2name is None:
            param_idx2name = {}
        assert isinstance(param_idx2name, dict), \
            'param_idx2name should be a dict of param indexes to names.'
        self.idx2name = param_idx2name.copy()
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.allow_np_array = False
        self.set_lr_mult({})
        self.set_wd_mult({})

    # ---- registry -----------------------------------------------------------------------
    @staticmethod
    def register(klass):
        """Register an optimizer class under its lower-cased name.

        Examples
        --------
        >>> @mx.optimizer.Optimizer.register
        ... class MyOptimizer(mx.optimizer.Optimizer):
        ...     pass
        >>> type(mx.optimizer.create('myoptimizer')).__name__
        'MyOptimizer'
        """
        assert isinstance(klass, type)
        name = klass.__name__.lower()
        if name in Optimizer.opt_registry:
            previous = Optimizer.opt_registry[name]
            warnings.warn('WARNING: New optimizer %s.%s is overriding existing optimizer %s.%s'
                          % (klass.__module__, klass.__name__,
                             previous.__module__, previous.__name__))
        Optimizer.opt_registry[name] = klass
        return klass

    @staticmethod
    def create_optimizer(name, **kwargs):
        """Instantiate the optimizer registered as ``name`` (case-insensitive).

        Parameters
        ----------
        name : str
            The registered name, e.g. ``'sgd'`` or ``'Adam'``.
        kwargs : dict
            Arguments of the optimizer's constructor.

        Returns
        -------
        Optimizer
            The new optimizer.

        Examples
        --------
        >>> type(mx.optimizer.create('adam', learning_rate=.1)).__name__
        'Adam'
        """
        if name.lower() in Optimizer.opt_registry:
            return Optimizer.opt_registry[name.lower()](**kwargs)
        raise ValueError(unknown_name('optimizer', name, Optimizer.opt_registry))

    # ---- learning rate --------------------------------------------------------------------
    @property
    def learning_rate(self):
        """The current learning rate (from the scheduler when there is one)."""
        return self._base_lr()

    def set_learning_rate(self, lr):
        """Set the learning rate; not allowed when an lr_scheduler is in charge.

        Parameters
        ----------
        lr : float
            The new learning rate.
        """
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been "
                              "defined. Note that set_learning_rate can mutate "
                              "the value of the learning rate of the optimizer "
                              "only when the LRScheduler of the optimizer is "
                              "undefined.")
        self.lr = lr

    def set_lr_scale(self, args_lrscale):
        """Deprecated: use :meth:`set_lr_mult`."""
        raise DeprecationWarning

    def set_lr_mult(self, args_lr_mult):
        """Set per-parameter learning-rate multipliers (by name or index).

        Multipliers from the symbol's ``__lr_mult__`` attributes come first; the entries
        of ``args_lr_mult`` override them.

        Parameters
        ----------
        args_lr_mult : dict of str or int to float
            Multiplier for each named (or indexed) parameter.
        """
        self.lr_mult = self._symbol_mults('__lr_mult__')
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        """Set per-parameter weight-decay multipliers (by name or index).

        Every name in ``param_idx2name`` that does not end in ``_weight`` or ``_gamma``
        (LARS: ``_weight``) gets 0; then the symbol's ``__wd_mult__`` attributes; then
        ``args_wd_mult``.

        Parameters
        ----------
        args_wd_mult : dict of str or int to float
            Multiplier for each named (or indexed) parameter.
        """
        self.wd_mult = {name: 0.0 for name in self.idx2name.values()
                        if not name.endswith(self._decayed_suffixes)}
        self.wd_mult.update(self._symbol_mults('__wd_mult__'))
        self.wd_mult.update(args_wd_mult)

    def _symbol_mults(self, key):
        """``{argument name: float(attribute key)}`` from the symbol's attributes."""
        mults = {}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and key in attr[name]:
                    mults[name] = float(attr[name][key])
        return mults

    # ---- counts and per-parameter hyper-parameters -----------------------------------------
    def _set_current_context(self, device_id):
        """Switch the per-index update counts to those of device ``device_id``."""
        if device_id not in self._all_index_update_counts:
            self._all_index_update_counts[device_id] = {}
        self._index_update_count = self._all_index_update_counts[device_id]

    def _update_count(self, index):
        """Count one update of ``index`` (an int or a list of them); advance num_update."""
        if not isinstance(index, (list, tuple)):
            index = [index]
        for idx in index:
            if idx not in self._index_update_count:
                self._index_update_count[idx] = self.begin_num_update
            self._index_update_count[idx] += 1
            self.num_update = max(self._index_update_count[idx], self.num_update)

    def _base_lr(self):
        """The global learning rate now: the scheduler's at ``num_update``, or ``lr``."""
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def _times_mults(self, values, indices, attr, mults):
        """``values[i]`` times the multiplier of ``indices[i]``, found as MXNet does.

        The multiplier is ``param_dict[index].<attr>`` when there is one, else
        ``mults[index]``, else ``mults[name]`` for a known name, else 1.
        """
        out = list(values)
        param_dict, idx2name = self.param_dict, self.idx2name
        if not (param_dict or mults):     # every multiplier is 1
            return out
        for i, index in enumerate(indices):
            if index in param_dict:
                out[i] *= getattr(param_dict[index], attr)
            elif index in mults:
                out[i] *= mults[index]
            elif index in idx2name:
                out[i] *= mults.get(idx2name[index], 1.0)
        return out

    def _get_lrs(self, indices):
        """Learning rates for ``indices``: the global rate times each multiplier."""
        return self._times_mults([self._base_lr()] * len(indices), indices, 'lr_mult',
                                 self.lr_mult)

    def _get_lr(self, index):
        """The learning rate for one index."""
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        """Weight decays for ``indices`` (0 for non-weights when names are known)."""
        return self._times_mults([self.wd] * len(indices), indices, 'wd_mult', self.wd_mult)

    def _get_wd(self, index):
        """The weight decay for one index."""
        return self._get_wds([index])[0]

    def _counted_rates(self, indices, chunk=1):
        """Count updates and return (lrs, wds, counts) for ``indices``, in MXNet's order.

        With ``chunk=1`` this equals ``_update_count(i)``, ``_get_lr(i)``, ``_get_wd(i)``
        for each index in turn (MXNet's per-index updates); with ``chunk=n`` the indices
        are counted n at a time before their rates are read (MXNet's aggregated updates).
        It avoids Python calls per index: this runs for every parameter at every step.
        """
        if (type(self)._get_lrs is not Optimizer._get_lrs
                or type(self)._get_wds is not Optimizer._get_wds):
            return self._counted_rates_by_calls(indices, chunk)
        table = self._index_update_count
        begin = self.begin_num_update
        sched = self.lr_scheduler
        base_lrs = [self.lr] * len(indices) if sched is None else []
        counts = []
        for start in range(0, len(indices), chunk):
            part = indices[start:start + chunk]
            for index in part:
                count = table.get(index, begin) + 1
                table[index] = count
                if count > self.num_update:
                    self.num_update = count
            counts.extend([table[index] for index in part])
            if sched is not None:   # the rate of this chunk: after counting it
                base_lrs.extend([sched(self.num_update)] * len(part))
        return (self._times_mults(base_lrs, indices, 'lr_mult', self.lr_mult),
                self._times_mults([self.wd] * len(indices), indices, 'wd_mult', self.wd_mult),
                counts)

    def _counted_rates_by_calls(self, indices, chunk):
        """:meth:`_counted_rates` through the (possibly overridden) lookup methods."""
        lrs, wds, counts = [], [], []
        for start in range(0, len(indices), chunk):
            part = indices[start:start + chunk]
            self._update_count(part)
            lrs.extend(self._get_lrs(part))
            wds.extend(self._get_wds(part))
            counts.extend(self._index_update_count[i] for i in part)
        return lrs, wds, counts

    def _clip_arg(self, truthy=True):
        """clip_gradient as a kernel scalar (negative = off).

        MXNet's fused operators are given clip_gradient only when it is truthy, while
        its NDArray-written optimizers clip whenever it is not None; ``truthy`` picks.
        """
        clip = self.clip_gradient
        if (truthy and not clip) or clip is None:
            return -1.0
        return float(clip)

    # ---- states -----------------------------------------------------------------------
    def create_state(self, index, weight):
        """Create the auxiliary state (momentum, moments ...) of one weight; None here."""
        return None

    def create_state_multi_precision(self, index, weight):
        """Create the state, with a float32 master copy first for float16 weights.

        Returns ``(master_copy, state)`` when ``multi_precision`` is on and the weight is
        float16, else :meth:`create_state`'s result (warning about float16 accumulation).
        """
        if self.multi_precision and weight.dtype == numpy.float16:
            master = weight.astype(numpy.float32)
            return (master,) + (self.create_state(index, master),)
        if weight.dtype == numpy.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to "
                          "poor accuracy or slow convergence. "
                          "Consider using multi_precision=True option of the "
                          "optimizer")
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        """Update ``weight`` in place from ``grad`` and ``state``.

        Parameters
        ----------
        index : int
            The parameter's index (selects lr_mult / wd_mult and the update count).
        weight : NDArray
            The parameter, updated in place.
        grad : NDArray
            Its gradient.
        state : any
            What :meth:`create_state` returned for it.
        """
        raise MXNetError('optimizer %s does not define update()' % type(self).__name__)

    def update_multi_precision(self, index, weight, grad, state):
        """Like :meth:`update`, through the float32 master copy for float16 weights."""
        if self.multi_precision and weight.dtype == numpy.float16:
            master, original_state = state[0], state[1]
            grad32 = grad.astype(numpy.float32)
            self.update(index, master, grad32, original_state)
            _device.copy_into(weight._data, master._data)
        else:
            self.update(index, weight, grad, state)

    # ---- fused multi-tensor path --------------------------------------------------------
    def _can_fuse(self):
        """True when this optimizer updates lists in one kernel call (not overridden)."""
        return False

    def _fused_update(self, indices, weights, grads, states):
        """Update many parameters at once (implemented by the fused optimizers)."""
        raise MXNetError('optimizer %s has no fused multi-tensor update'
                         % type(self).__name__)

    # ---- what exact resume needs ---------------------------------------------------------
    def _resume_state(self):
        """Progress and settings for a states file (see ``optimizer/resume.py``)."""
        from . import resume
        return resume.capture(self)

    def _load_resume_state(self, state, where='optimizer states', file_wins=False):
        """Restore :meth:`_resume_state`: progress always, settings only with ``file_wins``."""
        from . import resume
        resume.restore(self, state, where, file_wins)

    def _extra_resume_state(self):
        """Optimizer-specific resume values (override in subclasses)."""
        return {}

    def _load_extra_resume_state(self, extra):
        """Restore :meth:`_extra_resume_state` (override in subclasses)."""

    def __getstate__(self):
        ret = self.__dict__.copy()
        del ret['param_dict']   # Trainer sets it again after unpickling
        return ret

    def __setstate__(self, state):
        self.__dict__ = state
        self.param_dict = {}


register = Optimizer.register
create = Optimizer.create_optimizer

