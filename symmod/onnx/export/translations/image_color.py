"""Colour augmentations of ``mx.sym.image``: lighting (fixed or random), random brightness,
contrast, saturation and hue, random flips and the random colour jitter.

The arithmetic is symmod's (``symmod.ops.image_color``), step for step in float32, with
the result stored back as MXNet does (``image.saturate``). The random factors are ONNX
RandomUniform / RandomNormal draws of the same distributions, so an exported model
augments as symmod does, with the runtime's own random numbers. The colour jitter applies
its active adjustments in a uniformly random order: the order of the draws of a
RandomUniform vector (TopK), each step choosing its adjustment with Where.
"""
import numpy as np

from ....ops import image_color
from ..registry import translator
from .common import cast, reduce, scalar, split
from .image import flipped, saturate

_F = np.float32
# per HLS sector, which of (p2, p1, rising, falling) each of b, g, r takes (as symmod)
_SECTOR_ORDER = [[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]]


def _const(g, value, hint):
    return scalar(g, value, np.float32, hint)


def uniform(g, low, high, shape, hint):
    """A float32 RandomUniform draw (named ``<hint>_draw``)."""
    return g.add('RandomUniform', [], [g.fresh(hint + '_draw')], dtype=1, shape=list(shape),
                 low=float(low), high=float(high))


# ---- the adjustments on float32 images ---------------------------------------------------
def _brightness(g, img, alpha, channels, hint):
    return g.add('Mul', [img, alpha], hint=hint)


def _grey(g, img, channels, hint):
    """Luma per pixel, shape (H, W, 1) (the first channel of a one-channel image)."""
    if channels == 1:
        return img
    luma = g.constant(image_color._LUMA.reshape(3, 1), 'luma')
    return g.add('MatMul', [img, luma], hint=hint + '_grey')


def _contrast(g, img, alpha, channels, hint):
    mean = reduce(g, 'ReduceMean', _grey(g, img, channels, hint), None, False,
                  hint=hint + '_mean')
    rest = g.add('Sub', [_const(g, 1, 'one'), alpha], hint=hint + '_rest')
    return g.add('Add', [g.add('Mul', [img, alpha], hint=hint + '_scaled'),
                         g.add('Mul', [rest, mean], hint=hint + '_grey_part')], hint=hint)


def _saturation(g, img, alpha, channels, hint):
    if channels == 1:
        return img
    rest = g.add('Sub', [_const(g, 1, 'one'), alpha], hint=hint + '_rest')
    return g.add('Add', [g.add('Mul', [_grey(g, img, channels, hint), rest],
                               hint=hint + '_grey_part'),
                         g.add('Mul', [img, alpha], hint=hint + '_scaled')], hint=hint)


def _binary(g, op_type, hint):
    """``f(a, b, suffix)`` emitting ``op_type`` named ``hint + suffix``."""
    def emit(a, b, suffix):
        return g.add(op_type, [a, b], hint=hint + suffix)
    return emit


def _hue(g, img, alpha, channels, hint):
    """Through HLS and back, as symmod's ``adjust_hue`` (float32 throughout)."""
    if channels == 1:
        return img
    add, sub, mul, div = (_binary(g, op, hint) for op in ('Add', 'Sub', 'Mul', 'Div'))

    def where(cond, a, b, suffix):
        return g.add('Where', [cond, a, b], hint=hint + suffix)

    r, gr, b = [div(part, _const(g, 255, 'max_pixel'), '_c%d' % i)
                for i, part in enumerate(split(g, img, 2, 3, [1, 1, 1], hint=hint + '_rgb'))]
    vmax = g.add('Max', [r, gr, b], hint=hint + '_vmax')
    vmin = g.add('Min', [r, gr, b], hint=hint + '_vmin')
    diff = sub(vmax, vmin, '_diff')
    both = add(vmax, vmin, '_both')
    light = mul(both, _const(g, 0.5, 'half'), '_light')
    chroma = g.add('Greater', [diff, _const(g, np.finfo(np.float32).eps, 'eps')],
                   hint=hint + '_chroma')
    zero = _const(g, 0, 'zero')
    dark = g.add('Less', [light, _const(g, 0.5, 'half')], hint=hint + '_dark')
    sat = where(dark, div(diff, both, '_sat_dark'),
                div(diff, sub(sub(_const(g, 2, 'two'), vmax, '_2mv'), vmin, '_2mm'),
                    '_sat_light'), '_sat_any')
    scale = div(_const(g, 60, 'sixty'), diff, '_scale')
    hue = where(g.add('Equal', [vmax, r], hint=hint + '_is_r'),
                mul(sub(gr, b, '_gb'), scale, '_hue_r'),
                where(g.add('Equal', [vmax, gr], hint=hint + '_is_g'),
                      add(mul(sub(b, r, '_br'), scale, '_hue_g0'), _const(g, 120, 'deg120'),
                          '_hue_g'),
                      add(mul(sub(r, gr, '_rg'), scale, '_hue_b0'), _const(g, 240, 'deg240'),
                          '_hue_b'), '_hue_gb'), '_hue_any')
    hue = where(g.add('Less', [hue, zero], hint=hint + '_negative'),
                add(hue, _const(g, 360, 'deg360'), '_hue_wrapped'), hue, '_hue_pos')
    hue = where(chroma, hue, zero, '_hue')
    sat = where(chroma, sat, zero, '_sat')
    hue = add(hue, mul(alpha, _const(g, 360, 'deg360'), '_shift'), '_hue_shifted')
    # back to RGB
    one = _const(g, 1, 'one')
    p2 = where(g.add('LessOrEqual', [light, _const(g, 0.5, 'half')], hint=hint + '_dim'),
               mul(light, add(one, sat, '_1s'), '_p2_dim'),
               sub(add(light, sat, '_ls'), mul(light, sat, '_lxs'), '_p2_bright'), '_p2')
    p1 = sub(mul(_const(g, 2, 'two'), light, '_2l'), p2, '_p1')
    six = _const(g, 6, 'six')
    h = g.add('Mod', [mul(hue, _const(g, _F(1) / _F(60), 'inv60'), '_h60'), six],
              hint=hint + '_fmod', fmod=1)
    h = where(g.add('Less', [h, zero], hint=hint + '_hneg'), add(h, six, '_h6'), h, '_h')
    sector = g.add('Min', [g.add('Floor', [h], hint=hint + '_floor'), _const(g, 5, 'five')],
                   hint=hint + '_sector')
    frac = sub(h, sector, '_frac')
    span = sub(p2, p1, '_span')
    tab = [p2, p1, add(p1, mul(span, sub(one, frac, '_1f'), '_down'), '_falling'),
           add(p1, mul(span, frac, '_up'), '_rising')]
    channels_out = []
    for ch in (2, 1, 0):            # r, g, b: entries 2, 1, 0 of the (b, g, r) order
        value = tab[_SECTOR_ORDER[5][ch]]
        for s in range(4, -1, -1):
            value = where(g.add('Equal', [sector, _const(g, s, 'sector%d' % s)],
                                hint=hint + '_in%d' % s),
                          tab[_SECTOR_ORDER[s][ch]], value, '_pick%d' % ch)
        channels_out.append(value)
    rgb = g.add('Concat', channels_out, hint=hint + '_rgb_out', axis=2)
    grey = g.add('Equal', [sat, zero], hint=hint + '_grey')
    rgb = where(grey, light, rgb, '_rgb_or_light')
    return mul(rgb, _const(g, 255, 'max_pixel'), '')


# ---- the operators ------------------------------------------------------------------------
def _channels(node):
    return node.in_shape(0)[-1]


def _colour(g, node, apply):
    """Float32 image in, ``apply(image)`` stored back as the input's type."""
    img = cast(g, node.input(0), np.float32, hint=node.name + '_f')
    saturate(g, apply(img), node.in_dtype(0), node.outputs[0], node.name + '_result')


_ADJUST = {'_image_random_brightness': _brightness, '_image_random_contrast': _contrast,
           '_image_random_saturation': _saturation, '_image_random_hue': _hue}


@translator(*_ADJUST)
def random_enhance(g, node):
    op, adjust = node.op, _ADJUST[node.op.name]
    alpha = uniform(g, op.min_factor, op.max_factor, [1], node.name + '_factor')
    _colour(g, node, lambda img: adjust(g, img, alpha, _channels(node), node.name + '_adj'))


@translator('_image_random_color_jitter')
def color_jitter(g, node):
    op, name = node.op, node.name
    steps = [(amount, adjust, base) for amount, adjust, base in (
        (op.brightness, _brightness, 1), (op.contrast, _contrast, 1),
        (op.saturation, _saturation, 1), (op.hue, _hue, 0)) if amount > 0]

    def apply(img):
        if not steps:
            return img
        factors = [g.add('Add', [uniform(g, -amount, amount, [1], '%s_factor%d' % (name, i)),
                                 _const(g, base, 'base%d' % base)], hint='%s_alpha%d' % (name, i))
                   for i, (amount, _, base) in enumerate(steps)]
        keys = uniform(g, 0, 1, [len(steps)], name + '_order')
        k = g.int64s([len(steps)], 'count')
        order = g.add('TopK', [keys, k], [g.fresh(name + '_sorted'), g.fresh(name + '_perm')],
                      largest=0)[1]
        for position in range(len(steps)):
            chosen = g.add('Gather', [order, g.int64s([position], 'position')],
                           hint='%s_step%d' % (name, position))
            out = None
            for i, (_, adjust, _) in reversed(list(enumerate(steps))):
                result = adjust(g, img, factors[i], _channels(node),
                                '%s_p%d_s%d' % (name, position, i))
                out = result if out is None else g.add(
                    'Where', [g.add('Equal', [chosen, g.int64s([i], 'step')],
                                    hint='%s_is%d' % (name, i)), result, out],
                    hint='%s_after%d' % (name, position))
            img = out
        return img
    _colour(g, node, apply)


@translator('_image_adjust_lighting')
def adjust_lighting(g, node):
    if _channels(node) == 1:
        _colour(g, node, lambda img: img)
        return
    shift = image_color._EIG @ np.asarray(node.op.alpha, np.float32)
    _colour(g, node, lambda img: g.add('Add', [img, g.constant(shift, 'lighting')],
                                       hint=node.name + '_lit'))


@translator('_image_random_lighting')
def random_lighting(g, node):
    std = node.op.alpha_std
    if std < 0:
        node.fail('alpha_std=%g: a normal distribution needs a standard deviation >= 0' % std)
    if _channels(node) == 1 or std == 0:
        # alphas drawn with std 0 are 0 (and ONNX Runtime aborts on a RandomNormal of scale 0)
        _colour(g, node, lambda img: img)
        return
    alpha = g.add('RandomNormal', [], [g.fresh(node.name + '_alpha_draw')], dtype=1,
                  shape=[3, 1], mean=0.0, scale=float(std))
    shift = g.add('MatMul', [g.constant(image_color._EIG, 'eigen'), alpha],
                  hint=node.name + '_shift')
    flat = g.add('Reshape', [shift, g.int64s([3], 'rgb')], hint=node.name + '_shift3')
    _colour(g, node, lambda img: g.add('Add', [img, flat], hint=node.name + '_lit'))


@translator('_image_random_flip_left_right', '_image_random_flip_top_bottom')
def random_flip(g, node):
    coin = g.add('Less', [uniform(g, 0, 1, [1], node.name + '_coin'), _const(g, 0.5, 'half')],
                 hint=node.name + '_flips')
    g.add('Where', [coin, flipped(g, node), node.input(0)], [node.outputs[0]])
