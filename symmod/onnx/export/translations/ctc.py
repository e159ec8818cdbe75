"""CTCLoss: the CTC forward (alpha) recursion as an ONNX Scan over the time steps, in
float64 log space as symmod's kernel.

The labels are extended with blanks (``blank l1 blank l2 ... blank``); each step adds the
log-probabilities of the extended labels (a one-hot product with the log-softmax) to the
log-sum of the previous alphas at s, s - 1 and, where the label differs from the one two
back and is not the blank, s - 2. A sequence's alphas stop changing after its
``data_lengths`` steps. The likelihood is the log-sum of the alphas at the last label and
the blank after it (``2 * label_length`` and one before); a sequence too short for its
labels (length < labels + repeats) costs 0, as in MXNet. The hidden gradient output is
not exported.
"""
import numpy as np

from .. import subgraph
from ..registry import translator
from .common import cast, reduce, reshape_to, scalar, slice_axes, softmax, squeeze, unsqueeze

__all__ = []

_F64 = np.float64


def _log_sum(g, parts, hint):
    """log(sum(exp(parts))) of float64 tensors, -inf where all are -inf."""
    top = g.add('Max', parts, hint=hint + '_top')
    finite = g.add('Where', [g.add('Equal', [top, scalar(g, -np.inf, _F64, 'minus_inf')],
                                   hint=hint + '_none'),
                             scalar(g, 0, _F64, 'zero'), top], hint=hint + '_ref')
    total = None
    for part in parts:
        term = g.add('Exp', [g.add('Sub', [part, finite], hint=hint + '_d')], hint=hint + '_e')
        total = term if total is None else g.add('Add', [total, term], hint=hint + '_sum')
    return g.add('Add', [finite, g.add('Log', [total], hint=hint + '_log')], hint=hint)


def _shift(g, x, by, pad, hint):
    """``x`` (N, S) moved ``by`` places to higher s, the (N, by) ``pad`` coming in."""
    kept = slice_axes(g, x, [0], [-by], [1], hint=hint + '_kept')
    return g.add('Concat', [pad, kept], hint=hint, axis=1)


@translator('CTCLoss')
def ctc_loss(g, node):
    op, name = node.op, node.name
    batch_axes = [{0, 1}] + [{0}] * (node.num_inputs - 1)
    if any(node.in_varying(i) - batch_axes[i] for i in range(node.num_inputs)):
        node.fail('dimensions other than the time steps and the batch that vary (the '
                  'alphabet and the label layout are fixed at export)')
    steps, batch, alphabet = node.in_shape(0)
    varies = 1 in node.in_varying(0)
    timed = 0 in node.in_varying(0)         # the number of time steps varies
    width = node.in_shape(1)[1]
    states = 2 * width + 1
    blank = 0 if op.blank_label == 'first' else alphabet - 1
    names = op.list_arguments()
    logp = softmax(g, cast(g, node.input(0), _F64, hint=name + '_acts'), 2, 3,
                   hint=name + '_logp', op_type='LogSoftmax')                # T N A
    labels = cast(g, node.input(1), np.int64, hint=name + '_labels')        # N L
    # per-sequence constants take the batch size from the labels (it may vary)
    zero_col = g.add('Mul', [slice_axes(g, labels, [0], [1], [1], hint=name + '_col0'),
                             g.constant(np.int64(0), name + '_int_zero')],
                     hint=name + '_zero_col')                               # N 1

    def per_sequence(value, cols, dtype, tag):
        zeros = cast(g, g.add('Concat', [zero_col] * cols, hint=name + tag + '_z', axis=1)
                     if cols > 1 else zero_col, dtype, hint=name + tag + '_zeros')
        return g.add('Add', [zeros, scalar(g, value, dtype, name + tag + '_value')],
                     hint=name + tag)
    if op.use_label_lengths:
        lengths = cast(g, node.input(names.index('label_lengths')), np.int64,
                       hint=name + '_label_lengths')
    else:
        padding = g.constant(np.int64(0 if op.blank_label == 'first' else -1), name + '_pad')
        positions = g.constant(np.arange(width, dtype=np.int64)[None, :], name + '_positions')
        first = g.add('Where', [g.add('Equal', [labels, padding], hint=name + '_padded'),
                                positions, g.constant(np.int64(width), name + '_width')],
                      hint=name + '_ends')
        lengths = reduce(g, 'ReduceMin', first, [1], keepdims=False, hint=name + '_lengths')
    lengths = reshape_to(g, lengths, [-1, 1], hint=name + '_len')            # N 1
    # extended labels (N, S), blanks around and between; out-of-alphabet padding clamped
    blank_t = g.constant(np.int64(blank), name + '_blank')
    safe = g.add('Min', [g.add('Max', [labels, g.constant(np.int64(0), name + '_lo')],
                               hint=name + '_nonneg'),
                         g.constant(np.int64(alphabet - 1), name + '_hi')], hint=name + '_safe')
    blanks = unsqueeze(g, per_sequence(blank, width, np.int64, '_blank_row'), [2],
                       hint=name + '_blanks')
    pairs = g.add('Concat', [blanks, unsqueeze(g, safe, [2], hint=name + '_l3')],
                  hint=name + '_pairs', axis=2)
    ext = g.add('Concat', [reshape_to(g, pairs, [-1, 2 * width], hint=name + '_pairs2'),
                           per_sequence(blank, 1, np.int64, '_tail')],
                hint=name + '_ext', axis=1)
    before = g.add('Concat', [per_sequence(-1, 2, np.int64, '_none'),
                              slice_axes(g, ext, [0], [states - 2], [1], hint=name + '_back')],
                   hint=name + '_before', axis=1)
    skip = g.add('And', [g.add('Not', [g.add('Equal', [ext, blank_t], hint=name + '_isblank')],
                               hint=name + '_label'),
                         g.add('Not', [g.add('Equal', [ext, before], hint=name + '_repeat')],
                               hint=name + '_new')], hint=name + '_skip')
    # log-probabilities of the extended labels: a one-hot product (exact: log-softmax
    # values are finite)
    one_hot = cast(g, g.add('Equal', [unsqueeze(g, ext, [2], hint=name + '_ext3'),
                                      g.constant(np.arange(alphabet, dtype=np.int64)[None, None],
                                                 name + '_symbols')], hint=name + '_hot'),
                   _F64, hint=name + '_one_hot')                            # N S A
    by_item = g.add('Transpose', [logp], hint=name + '_ntA', perm=[1, 0, 2])
    picked = g.add('MatMul', [by_item, g.add('Transpose', [one_hot], hint=name + '_nAS',
                                             perm=[0, 2, 1])], hint=name + '_picked')
    lp = g.add('Transpose', [picked], hint=name + '_lp', perm=[1, 0, 2])     # T N S
    minus_inf = scalar(g, -np.inf, _F64, 'minus_inf')
    # before step 0 all paths start at s = 0 with log-probability 0, so step 0 gives the
    # first alphas (lp at s = 0 and 1) like every later step: one Scan over all T steps
    # (ONNX Runtime's Scan cannot run zero steps)
    start = g.add('Add', [per_sequence(0, states, _F64, '_zeros'), g.constant(
        np.where(np.arange(states) == 0, 0, -np.inf)[None, :], name + '_start')],
        hint=name + '_alpha_start')
    times, total = _time_axis(g, node, steps, timed)                       # (T,), (1,)
    if op.use_data_lengths:
        steps_n = cast(g, node.input(names.index('data_lengths')), np.int64,
                       hint=name + '_data_lengths')
    else:
        steps_n = g.add('Add', [zero_col, total], hint=name + '_steps')
    steps_n = reshape_to(g, steps_n, [-1, 1], hint=name + '_steps_col')
    active = g.add('Less', [reshape_to(g, times, [-1, 1, 1], hint=name + '_t'),
                            unsqueeze(g, steps_n, [0], hint=name + '_steps3')],
                   hint=name + '_active')                                   # T N 1
    pads = [per_sequence(-np.inf, by, _F64, '_pad%d' % by) for by in (1, 2)]
    alpha = _scan(g, node, start, lp, active, skip, None if varies else batch, states, pads)
    # the likelihood: alphas at 2 L and 2 L - 1 (none when L = 0)
    last = g.add('Mul', [lengths, g.constant(np.int64(2), name + '_two')], hint=name + '_last')
    end = g.add('GatherElements', [alpha, last], hint=name + '_end', axis=1)
    prev = g.add('GatherElements', [alpha, g.add('Max', [
        g.add('Sub', [last, g.constant(np.int64(1), name + '_one')], hint=name + '_prev_i'),
        g.constant(np.int64(0), name + '_zero')], hint=name + '_prev_safe')],
        hint=name + '_prev', axis=1)
    prev = g.add('Where', [g.add('Greater', [lengths, g.constant(np.int64(0), name + '_z')],
                                 hint=name + '_has'), prev, minus_inf], hint=name + '_prev_v')
    log_like = reshape_to(g, _log_sum(g, [end, prev], name + '_like'), [-1],
                          hint=name + '_ll')
    # infeasible: fewer steps than labels plus repeated neighbours
    same = g.add('Equal', [slice_axes(g, labels, [1], [width], [1], hint=name + '_next'),
                           slice_axes(g, labels, [0], [width - 1], [1], hint=name + '_cur')],
                 hint=name + '_same') if width > 1 else None
    needed = lengths
    if same is not None:
        counted = g.add('And', [same, g.add('Less', [
            g.constant(np.arange(1, width, dtype=np.int64)[None, :], name + '_i'), lengths],
            hint=name + '_within')], hint=name + '_counted')
        repeats = reduce(g, 'ReduceSum', cast(g, counted, np.int64, hint=name + '_rep'), [1],
                         keepdims=True, hint=name + '_repeats')
        needed = g.add('Add', [lengths, repeats], hint=name + '_needed')
    feasible = g.add('LessOrEqual', [needed, steps_n], hint=name + '_fits')
    if op.use_data_lengths:     # else every sequence has the (static, positive) length
        feasible = g.add('And', [feasible, g.add('Greater', [
            steps_n, g.constant(np.int64(0), name + '_z0')], hint=name + '_nonempty')],
            hint=name + '_feasible')
    cost = g.add('Where', [reshape_to(g, feasible, [-1], hint=name + '_ok'),
                           g.add('Neg', [log_like], hint=name + '_nll'),
                           scalar(g, 0, _F64, 'zero')], hint=name + '_cost')
    cast(g, cost, node.out_dtype(0), out=node.outputs[0])


def _time_axis(g, node, steps, timed):
    """int64 positions 0..T-1 along the data's time axis (T,) and the number of steps T
    (1,): constants, or from the data's shape when it varies (an ONNX Range, which the
    import reads back as the positions along that axis)."""
    if not timed:
        return (g.int64s(np.arange(steps), node.name + '_times'),
                g.int64s([steps], node.name + '_T'))
    size = slice_axes(g, g.add('Shape', [node.input(0)], hint=node.name + '_shape'), [0], [1],
                      [0], hint=node.name + '_T')
    positions = g.add('Range', [g.constant(np.asarray(0, np.int64), 'zero'),
                                squeeze(g, size, [0], hint=node.name + '_T0'),
                                g.constant(np.asarray(1, np.int64), 'one')],
                      hint=node.name + '_times')
    return positions, size


def _scan(g, node, alpha, lp, active, skip, batch, states, pads):
    """alpha (N, S) after the steps (Scan over lp (T, N, S) and active (T, N, 1));
    ``batch`` None when it varies; ``pads`` the -inf (N, 1) and (N, 2) shifted in."""
    name = node.name
    outer_nodes, g.onnx_nodes = g.onnx_nodes, []
    a_in, lp_t, on_t = (g.fresh(name + suffix) for suffix in ('_a_in', '_lp_t', '_on_t'))
    minus_inf = scalar(g, -np.inf, _F64, 'minus_inf')
    one = _shift(g, a_in, 1, pads[0], name + '_s1')
    two = g.add('Where', [skip, _shift(g, a_in, 2, pads[1], name + '_s2'), minus_inf],
                hint=name + '_s2_ok')
    moved = g.add('Add', [_log_sum(g, [a_in, one, two], name + '_acc'), lp_t],
                  hint=name + '_moved')
    a_out = g.add('Where', [on_t, moved, a_in], hint=name + '_a_out')
    body_nodes, g.onnx_nodes = g.onnx_nodes, outer_nodes
    body = _onnx_graph(name + '_steps', body_nodes,
                       [subgraph.value_info(a_in, [batch, states], _F64),
                        subgraph.value_info(lp_t, [batch, states], _F64),
                        subgraph.value_info(on_t, [batch, 1], np.bool_)],
                       [subgraph.value_info(a_out, [batch, states], _F64)])
    return g.add('Scan', [alpha, lp, active], hint=name + '_alpha', body=body,
                 num_scan_inputs=2)


def _onnx_graph(name, nodes, inputs, outputs):
    from ... import _deps
    return _deps.onnx().helper.make_graph(nodes, name, inputs, outputs)
