"""Random draws: ``_random_<distr>`` (uniform, normal, exponential, randint), their
``_like`` forms, ``_sample_<distr>`` with parameter arrays (uniform, normal, exponential,
multinomial) and ``_shuffle``.

ONNX samples uniform and normal variates (RandomUniform / RandomNormal and their Like
forms) and categories (Multinomial); exponential variates are ``-log(1 - u) / lam``,
integers ``low + floor(u * (high - low))`` with u uniform in [0, 1), a shuffle the order
of uniform keys (TopK). The exported model draws its own numbers from the same
distributions. A normal of scale 0 is its mean (ONNX Runtime aborts on RandomNormal
with scale 0).
"""
import numpy as np

from ... import _deps
from ..registry import translator
from .common import cast, reshape_to, scalar, unsqueeze


def _type(dtype):
    return int(_deps.tensor_type(dtype))


def _uniform(g, node, shape=None, like=None, dtype=None, low=0.0, high=1.0):
    """A RandomUniform draw of ``shape`` (or RandomUniformLike of ``like``)."""
    dtype = np.dtype(dtype or node.out_dtype())
    attrs = dict(dtype=_type(dtype), low=float(low), high=float(high))
    if like is not None:
        return g.add('RandomUniformLike', [like], [g.fresh(node.name + '_draw')], **attrs)
    return g.add('RandomUniform', [], [g.fresh(node.name + '_draw')], shape=list(shape),
                 **attrs)


def _exponential(g, node, u, lam, dtype):
    """``-log(1 - u) / lam``."""
    rest = g.add('Sub', [scalar(g, 1, dtype, 'one'), u], hint=node.name + '_rest')
    log = g.add('Log', [rest], hint=node.name + '_log')
    return g.add('Div', [g.add('Neg', [log], hint=node.name + '_neglog'), lam],
                 hint=node.name + '_exp')


def _fixed_shape(node):
    if node.out_varying(0):
        node.fail('an output shape that varies (the draw shape is fixed at export)')
    return list(node.out_shape(0))


def _float_work(node):
    dtype = node.out_dtype()
    return dtype if dtype.kind == 'f' else np.dtype(np.float64)


@translator('_random_uniform', '_random_uniform_like')
def random_uniform(g, node):
    op, dtype = node.op, _float_work(node)
    like = node.input(0) if node.num_inputs else None
    shape = None if like is not None else _fixed_shape(node)
    u = _uniform(g, node, shape, like, dtype, op.low, op.high)
    cast(g, u, node.out_dtype(), out=node.outputs[0])


@translator('_random_normal', '_random_normal_like')
def random_normal(g, node):
    op, dtype = node.op, _float_work(node)
    like = node.input(0) if node.num_inputs else None
    if op.scale == 0:
        mean = scalar(g, op.loc, node.out_dtype(), 'loc')
        if like is None or not node.in_varying(0):
            g.add('Expand', [mean, g.int64s(_fixed_shape(node), 'shape')], [node.outputs[0]])
        else:
            g.add('Expand', [mean, g.add('Shape', [like], hint=node.name + '_shape')],
                  [node.outputs[0]])
        return
    attrs = dict(dtype=_type(dtype), mean=float(op.loc), scale=float(op.scale))
    if like is None:
        draw = g.add('RandomNormal', [], [g.fresh(node.name + '_draw')],
                     shape=_fixed_shape(node), **attrs)
    else:
        draw = g.add('RandomNormalLike', [like], [g.fresh(node.name + '_draw')], **attrs)
    cast(g, draw, node.out_dtype(), out=node.outputs[0])


@translator('_random_exponential', '_random_exponential_like')
def random_exponential(g, node):
    dtype = _float_work(node)
    like = node.input(0) if node.num_inputs else None
    u = _uniform(g, node, None if like is not None else _fixed_shape(node), like, dtype)
    y = _exponential(g, node, u, scalar(g, node.op.lam, dtype, 'lam'), dtype)
    cast(g, y, node.out_dtype(), out=node.outputs[0])


@translator('_random_randint')
def random_randint(g, node):
    op = node.op
    u = _uniform(g, node, _fixed_shape(node), dtype=np.float64)
    span = g.add('Mul', [u, scalar(g, op.high - op.low, np.float64, 'span')],
                 hint=node.name + '_scaled')
    offset = g.add('Add', [g.add('Floor', [span], hint=node.name + '_floor'),
                           scalar(g, op.low, np.float64, 'low')], hint=node.name + '_int')
    cast(g, offset, node.out_dtype(), out=node.outputs[0])


def _per_parameter(g, node, index):
    """Parameter input ``index`` (float64) with one trailing axis per sample axis."""
    extra = len(node.op.shape)
    x = cast(g, node.input(index), np.float64, hint='%s_p%d' % (node.name, index))
    rank = len(node.in_shape(index))
    return unsqueeze(g, x, list(range(rank, rank + extra)), hint=node.name + '_param') \
        if extra else x


@translator('_sample_uniform', '_sample_normal', '_sample_exponential')
def sample_arrays(g, node):
    shape = _fixed_shape(node)
    first = _per_parameter(g, node, 0)
    if node.op.name == '_sample_normal':
        z = g.add('RandomNormal', [], [g.fresh(node.name + '_draw')], shape=shape,
                  dtype=_type(np.float64), mean=0.0, scale=1.0)
        sigma = _per_parameter(g, node, 1)
        y = g.add('Add', [first, g.add('Mul', [sigma, z], hint=node.name + '_spread')],
                  hint=node.name + '_sample')
    else:
        u = _uniform(g, node, shape, dtype=np.float64)
        if node.op.name == '_sample_exponential':
            y = _exponential(g, node, u, first, np.float64)
        else:
            width = g.add('Sub', [_per_parameter(g, node, 1), first], hint=node.name + '_width')
            y = g.add('Add', [first, g.add('Mul', [width, u], hint=node.name + '_scaled')],
                      hint=node.name + '_sample')
    cast(g, y, node.out_dtype(), out=node.outputs[0])


@translator('_sample_multinomial')
def sample_multinomial(g, node):
    """ONNX Multinomial on log-probabilities: ``prod(shape)`` categories per row."""
    op = node.op
    in_shape = node.in_shape(0)
    if node.in_varying(0):
        node.fail('probabilities whose shape varies')
    count = int(np.prod(op.shape)) if op.shape else 1
    classes = in_shape[-1]
    probs = reshape_to(g, cast(g, node.input(0), np.float32, hint=node.name + '_p32'),
                       [-1, classes], hint=node.name + '_rows')
    logits = g.add('Log', [probs], hint=node.name + '_logits')
    picks = g.add('Multinomial', [logits], [g.fresh(node.name + '_draw')],
                  sample_size=count, dtype=_type(np.int64))
    out_shape = list(node.out_shape(0))
    cast(g, reshape_to(g, picks, out_shape, hint=node.name + '_shaped'), node.out_dtype(0),
         out=node.outputs[0])
    if op.get_prob:
        logp = g.add('GatherElements', [logits, picks], hint=node.name + '_logp', axis=1)
        cast(g, reshape_to(g, logp, out_shape, hint=node.name + '_logp_shaped'),
             node.out_dtype(1), out=node.outputs[1])


@translator('_shuffle')
def shuffle(g, node):
    """The rows (axis 0) in the order of uniform random keys."""
    if 0 in node.in_varying(0):
        node.fail('a first axis whose size varies')
    rows = node.in_shape(0)[0]
    keys = _uniform(g, node, [rows], dtype=np.float32)
    order = g.add('TopK', [keys, g.int64s([rows], 'rows')],
                  [g.fresh(node.name + '_sorted'), g.fresh(node.name + '_order')])[1]
    g.add('Gather', [node.input(0), order], [node.outputs[0]], axis=0)
