"""_contrib_hawkesll (Hawkes process log likelihood) as a counted ONNX Loop over the
event slots, every sequence at once.

The loop state, one float64 row per sequence, is ``[states (K), last event times (K),
time, log likelihood]``. Step j reads event j of every sequence (lag, mark as a one-hot
row over the K processes); a sequence past its ``valid_length`` keeps its row. As in
symmod's kernel the running time and the log likelihood are float64 while the states
and last event times are stored in the input's type (rounded through it each step).
After the loop, the compensator from each process's last event to ``max_time`` is
subtracted and the states decayed to ``max_time``.

symmod raises on marks outside ``[0, K)`` and on a ``valid_length`` outside
``[0, T]``; an ONNX graph cannot raise, so such a sequence's log likelihood is NaN.
"""
import numpy as np

from ..registry import translator
from .common import cast, reduce, scalar, slice_axes
from .loops import counted_loop, one_hot

__all__ = []

_F64 = np.float64


def _stored(g, x, dtype, hint):
    """``x`` rounded through ``dtype`` (the kernel's state arrays), back in float64."""
    if np.dtype(dtype) == _F64:
        return x
    return cast(g, cast(g, x, dtype, hint=hint + '_narrow'), _F64, hint=hint + '_stored')


def _event_step(mu, alpha, beta, lags, marks, valid, k, t_max, dtype):
    """One event slot of every sequence: the state row (N, 2K + 2) updated."""

    def pick(g, row, hot, hint):
        return reduce(g, 'ReduceSum', g.add('Mul', [row, hot], hint=hint + '_hot'), [1],
                      keepdims=True, hint=hint)

    def step(g, j, s):
        hint = g.fresh('hawkes')
        state = slice_axes(g, s, [0], [k], [1], hint=hint + '_phi_all')
        last = slice_axes(g, s, [k], [2 * k], [1], hint=hint + '_last_all')
        time = slice_axes(g, s, [2 * k], [2 * k + 1], [1], hint=hint + '_t')
        total = slice_axes(g, s, [2 * k + 1], [2 * k + 2], [1], hint=hint + '_acc')
        _, slot, _ = one_hot(g, t_max, j, hint + '_slot')                    # 1 T
        lag = pick(g, lags, slot, hint + '_lag')                            # N 1
        mark = pick(g, marks, slot, hint + '_mark')
        hot = cast(g, g.add('Equal', [mark, g.constant(np.arange(k, dtype=_F64), hint + '_ks')],
                            hint=hint + '_is_mark'), _F64, hint=hint + '_mark_hot')  # N K
        active = g.add('Less', [j, valid], hint=hint + '_active')           # N 1
        now = g.add('Add', [time, lag], hint=hint + '_now')
        elapsed = g.add('Sub', [now, pick(g, last, hot, hint + '_last')], hint=hint + '_d')
        mu_c, alpha_c = pick(g, mu, hot, hint + '_mu'), pick(g, alpha, hot, hint + '_alpha')
        beta_c, phi = pick(g, beta, hot, hint + '_beta'), pick(g, state, hot, hint + '_phi')
        decay = g.add('Exp', [g.add('Neg', [g.add('Mul', [beta_c, elapsed], hint=hint + '_bd')],
                                    hint=hint + '_nbd')], hint=hint + '_ed')
        excited = g.add('Mul', [g.add('Mul', [alpha_c, beta_c], hint=hint + '_ab'),
                                g.add('Mul', [phi, decay], hint=hint + '_pe')],
                        hint=hint + '_excited')
        intensity = g.add('Add', [mu_c, excited], hint=hint + '_lda')
        one = scalar(g, 1, _F64, 'one')
        spent = g.add('Add', [g.add('Mul', [mu_c, elapsed], hint=hint + '_md'), g.add(
            'Mul', [g.add('Mul', [alpha_c, phi], hint=hint + '_ap'),
                    g.add('Sub', [one, decay], hint=hint + '_1ed')], hint=hint + '_apd')],
            hint=hint + '_spent')
        gain = g.add('Sub', [g.add('Log', [intensity], hint=hint + '_log'), spent],
                     hint=hint + '_gain')
        # a mark naming no process: NaN (symmod raises)
        known = g.add('Greater', [reduce(g, 'ReduceSum', hot, [1], keepdims=True,
                                         hint=hint + '_hits'), scalar(g, 0, _F64, 'zero')],
                      hint=hint + '_known')
        gain = g.add('Where', [known, gain, scalar(g, np.nan, _F64, 'nan')],
                     hint=hint + '_checked')
        total = g.add('Where', [active, g.add('Add', [total, gain], hint=hint + '_sum'),
                                total], hint=hint + '_acc_out')
        here = g.add('And', [active, cast(g, hot, np.bool_, hint=hint + '_hotb')],
                     hint=hint + '_here')                                   # N K
        bumped = _stored(g, g.add('Add', [one, g.add('Mul', [phi, decay], hint=hint + '_pd')],
                                  hint=hint + '_bump'), dtype, hint + '_phi')
        state = g.add('Where', [here, bumped, state], hint=hint + '_phi_out')
        last = g.add('Where', [here, _stored(g, now, dtype, hint + '_now'), last],
                     hint=hint + '_last_out')
        time = g.add('Where', [active, now, time], hint=hint + '_t_out')
        return g.add('Concat', [state, last, time, total], hint=hint + '_row', axis=1)
    return step


@translator('_contrib_hawkesll')
def hawkesll(g, node):
    batch_axes = (0, None, None, 0, 0, 0, 0, 0)     # alpha and beta are per process
    if any(node.in_varying(i) - {batch_axes[i]} for i in range(node.num_inputs)):
        node.fail('dimensions other than the number of sequences that vary (the processes '
                  'and event slots are fixed at export)')
    varying = node.in_varying(0)
    name, dtype = node.name, node.out_dtype(0)
    n, k = node.in_shape(0)
    t_max = node.in_shape(4)[1]
    f64 = [cast(g, node.input(i), _F64, hint='%s_in%d' % (name, i)) for i in range(8)]
    mu, state, lags, marks = f64[0], f64[3], f64[4], f64[5]
    alpha, beta = (g.add('Reshape', [f64[i], g.int64s([1, k], name + '_row')],
                         hint='%s_row%d' % (name, i)) for i in (1, 2))
    valid, max_time = (g.add('Reshape', [f64[i], g.int64s([-1, 1], name + '_col')],
                             hint='%s_col%d' % (name, i)) for i in (6, 7))
    # zeros of the number of sequences (it may vary): from the marks, which are finite
    zero_col = g.add('Mul', [slice_axes(g, marks, [0], [1], [1], hint=name + '_col0'),
                             scalar(g, 0, _F64, 'zero')], hint=name + '_zero_col')
    start = g.add('Concat', [state, g.add('Add', [zero_col, g.constant(np.zeros((1, k + 2)),
                                                                       name + '_zeros')],
                                          hint=name + '_zero_rows')],
                  hint=name + '_start', axis=1)
    s = start
    if t_max:
        s = counted_loop(g, name + '_events', t_max, [n, 2 * k + 2], start,
                         _event_step(mu, alpha, beta, lags, marks, valid, k, t_max, dtype),
                         varying)
    state = slice_axes(g, s, [0], [k], [1], hint=name + '_phi')
    last = slice_axes(g, s, [k], [2 * k], [1], hint=name + '_last')
    total = slice_axes(g, s, [2 * k + 1], [2 * k + 2], [1], hint=name + '_acc')
    elapsed = g.add('Sub', [max_time, last], hint=name + '_rest_d')                 # N K
    decay = g.add('Exp', [g.add('Neg', [g.add('Mul', [beta, elapsed], hint=name + '_bd')],
                                hint=name + '_nbd')], hint=name + '_ed')
    spent = g.add('Add', [g.add('Mul', [mu, elapsed], hint=name + '_md'), g.add(
        'Mul', [g.add('Mul', [alpha, state], hint=name + '_ap'),
                g.add('Sub', [scalar(g, 1, _F64, 'one'), decay], hint=name + '_1ed')],
        hint=name + '_apd')], hint=name + '_spent')
    rest = reduce(g, 'ReduceSum', spent, [1], keepdims=True, hint=name + '_rest')
    ll = g.add('Sub', [total, rest], hint=name + '_ll')
    outside = g.add('Or', [g.add('Less', [valid, scalar(g, 0, _F64, 'zero')],
                                 hint=name + '_short'),
                           g.add('Greater', [valid, scalar(g, t_max, _F64, name + '_t')],
                                 hint=name + '_long')], hint=name + '_outside')
    ll = g.add('Where', [outside, scalar(g, np.nan, _F64, 'nan'), ll], hint=name + '_ll_checked')
    cast(g, g.add('Reshape', [ll, g.int64s([-1], name + '_flat')], hint=name + '_ll_flat'),
         dtype, out=node.outputs[0])
    cast(g, g.add('Mul', [state, decay], hint=name + '_phi_end'), node.out_dtype(1),
         out=node.outputs[1])
