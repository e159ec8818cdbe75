"""Pooling layers (max, average, global; 1-D to 3-D) and ReflectionPad2D.

Every pooling layer is one call of the ``Pooling`` operator; ``ceil_mode`` selects
its 'full' output-size convention (else 'valid'), and the global layers pool over
the whole spatial extent.
"""
from ...base import numeric_types
from ..hybrid_block import HybridBlock

__all__ = ['MaxPool1D', 'MaxPool2D', 'MaxPool3D', 'AvgPool1D', 'AvgPool2D', 'AvgPool3D',
           'GlobalMaxPool1D', 'GlobalMaxPool2D', 'GlobalMaxPool3D', 'GlobalAvgPool1D',
           'GlobalAvgPool2D', 'GlobalAvgPool3D', 'ReflectionPad2D']

_LAYOUTS = {1: ('NCW', 'NWC'), 2: ('NCHW', 'NHWC'), 3: ('NCDHW', 'NDHWC')}


def _check_layout(layout, ndim):
    assert layout in _LAYOUTS[ndim], 'Only %s and %s layouts are valid for %dD Pooling' % (
        _LAYOUTS[ndim] + (ndim,))


def _pool_size(pool_size, ndim):
    if isinstance(pool_size, numeric_types):
        pool_size = (pool_size,) * ndim
    assert len(pool_size) == ndim, 'pool_size must be a number or a list of %d ints' % ndim
    return pool_size


class _Pooling(HybridBlock):
    """What the pooling layers share: the operator arguments, the call and the repr."""

    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type,
                 layout, count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        if strides is None:
            strides = pool_size
        if isinstance(strides, numeric_types):
            strides = (strides,) * len(pool_size)
        if isinstance(padding, numeric_types):
            padding = (padding,) * len(pool_size)
        self._kwargs = {'kernel': pool_size, 'stride': strides, 'pad': padding,
                        'global_pool': global_pool, 'pool_type': pool_type, 'layout': layout,
                        'pooling_convention': 'full' if ceil_mode else 'valid'}
        if count_include_pad is not None:
            self._kwargs['count_include_pad'] = count_include_pad

    def _alias(self):
        return 'pool'

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name='fwd', **self._kwargs)

    def __repr__(self):
        text = ('{name}(size={kernel}, stride={stride}, padding={pad}, ceil_mode={ceil_mode}'
                ', global_pool={global_pool}, pool_type={pool_type}, layout={layout})')
        return text.format(name=self.__class__.__name__,
                           ceil_mode=self._kwargs['pooling_convention'] == 'full',
                           **self._kwargs)


class _WindowPooling(_Pooling):
    """Max or average pooling with a window of ``ndim`` sizes."""

    def __init__(self, ndim, pool_type, pool_size, strides, padding, layout, ceil_mode,
                 **kwargs):
        _check_layout(layout, ndim)
        super().__init__(_pool_size(pool_size, ndim), strides, padding, ceil_mode, False,
                         pool_type, layout, **kwargs)


class _GlobalPooling(_Pooling):
    """Max or average pooling over the whole of the last ``ndim`` axes."""

    def __init__(self, ndim, pool_type, layout, **kwargs):
        _check_layout(layout, ndim)
        super().__init__((1,) * ndim, None, 0, True, True, pool_type, layout, **kwargs)


class MaxPool1D(_WindowPooling):
    """Max pooling over the last axis of ``(batch, channels, width)`` data.

    ``out_width = (width + 2 * padding - pool_size) // strides + 1`` (rounded up with
    ``ceil_mode``).

    Parameters
    ----------
    pool_size : int or tuple of 1 int, default 2
        Window size.
    strides : int, tuple of 1 int or None
        Step of the window; ``pool_size`` when None.
    padding : int or tuple of 1 int, default 0
        Padding on both sides (never the maximum).
    layout : str, default 'NCW'
        'NCW' ('NWC' is accepted by MXNet; symmod's operator refuses channel-last).
    ceil_mode : bool, default False
        Round the output size up instead of down.

    Examples
    --------
    >>> mx.gluon.nn.MaxPool1D()(mx.nd.array([[[1, 3, 2, 0]]])).asnumpy()
    array([[[3., 2.]]], dtype=float32)
    """

    def __init__(self, pool_size=2, strides=None, padding=0, layout='NCW', ceil_mode=False,
                 **kwargs):
        super().__init__(1, 'max', pool_size, strides, padding, layout, ceil_mode, **kwargs)


class MaxPool2D(_WindowPooling):
    """Max pooling over the last two axes of ``(batch, channels, height, width)`` data.

    Parameters are those of :class:`MaxPool1D` with 2 entries per tuple
    (``pool_size`` (2, 2), ``layout`` 'NCHW').

    Examples
    --------
    >>> mx.gluon.nn.MaxPool2D()(mx.nd.ones((1, 3, 8, 8))).shape
    (1, 3, 4, 4)
    """

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, layout='NCHW',
                 ceil_mode=False, **kwargs):
        super().__init__(2, 'max', pool_size, strides, padding, layout, ceil_mode, **kwargs)


class MaxPool3D(_WindowPooling):
    """Max pooling over the last three axes of ``(batch, channels, d, h, w)`` data.

    Parameters are those of :class:`MaxPool1D` with 3 entries per tuple
    (``pool_size`` (2, 2, 2), ``layout`` 'NCDHW').
    """

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False,
                 layout='NCDHW', **kwargs):
        super().__init__(3, 'max', pool_size, strides, padding, layout, ceil_mode, **kwargs)


class AvgPool1D(_WindowPooling):
    """Average pooling over the last axis of ``(batch, channels, width)`` data.

    Parameters
    ----------
    pool_size, strides, layout, ceil_mode
        As for :class:`MaxPool1D`.
    padding : int or tuple of 1 int, default 0
        Zeros added on both sides.
    count_include_pad : bool, default True
        Divide by the full window size, padding included (else by the number of
        input elements in the window).

    Examples
    --------
    >>> mx.gluon.nn.AvgPool1D()(mx.nd.array([[[1, 3, 2, 0]]])).asnumpy()
    array([[[2., 1.]]], dtype=float32)
    """

    def __init__(self, pool_size=2, strides=None, padding=0, layout='NCW', ceil_mode=False,
                 count_include_pad=True, **kwargs):
        super().__init__(1, 'avg', pool_size, strides, padding, layout, ceil_mode,
                         count_include_pad=count_include_pad, **kwargs)


class AvgPool2D(_WindowPooling):
    """Average pooling over the last two axes; parameters as :class:`AvgPool1D` with 2
    entries per tuple (``pool_size`` (2, 2), ``layout`` 'NCHW')."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, ceil_mode=False,
                 layout='NCHW', count_include_pad=True, **kwargs):
        super().__init__(2, 'avg', pool_size, strides, padding, layout, ceil_mode,
                         count_include_pad=count_include_pad, **kwargs)


class AvgPool3D(_WindowPooling):
    """Average pooling over the last three axes; parameters as :class:`AvgPool1D` with 3
    entries per tuple (``pool_size`` (2, 2, 2), ``layout`` 'NCDHW')."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False,
                 layout='NCDHW', count_include_pad=True, **kwargs):
        super().__init__(3, 'avg', pool_size, strides, padding, layout, ceil_mode,
                         count_include_pad=count_include_pad, **kwargs)


class GlobalMaxPool1D(_GlobalPooling):
    """The maximum over the whole width: ``(batch, channels, width)`` to
    ``(batch, channels, 1)``.

    Parameters
    ----------
    layout : str, default 'NCW'
        Data layout.
    """

    def __init__(self, layout='NCW', **kwargs):
        super().__init__(1, 'max', layout, **kwargs)


class GlobalMaxPool2D(_GlobalPooling):
    """The maximum over height and width: output ``(batch, channels, 1, 1)``; ``layout``
    as :class:`GlobalMaxPool1D` ('NCHW' by default)."""

    def __init__(self, layout='NCHW', **kwargs):
        super().__init__(2, 'max', layout, **kwargs)


class GlobalMaxPool3D(_GlobalPooling):
    """The maximum over depth, height and width: output ``(batch, channels, 1, 1, 1)``;
    ``layout`` as :class:`GlobalMaxPool1D` ('NCDHW' by default)."""

    def __init__(self, layout='NCDHW', **kwargs):
        super().__init__(3, 'max', layout, **kwargs)


class GlobalAvgPool1D(_GlobalPooling):
    """The mean over the whole width: ``(batch, channels, width)`` to
    ``(batch, channels, 1)``; ``layout`` as :class:`GlobalMaxPool1D` ('NCW')."""

    def __init__(self, layout='NCW', **kwargs):
        super().__init__(1, 'avg', layout, **kwargs)


class GlobalAvgPool2D(_GlobalPooling):
    """The mean over height and width: output ``(batch, channels, 1, 1)``; ``layout``
    as :class:`GlobalMaxPool1D` ('NCHW' by default).

    Examples
    --------
    >>> mx.gluon.nn.GlobalAvgPool2D()(mx.nd.ones((2, 3, 4, 4))).shape
    (2, 3, 1, 1)
    """

    def __init__(self, layout='NCHW', **kwargs):
        super().__init__(2, 'avg', layout, **kwargs)


class GlobalAvgPool3D(_GlobalPooling):
    """The mean over depth, height and width: output ``(batch, channels, 1, 1, 1)``;
    ``layout`` as :class:`GlobalMaxPool1D` ('NCDHW' by default)."""

    def __init__(self, layout='NCDHW', **kwargs):
        super().__init__(3, 'avg', layout, **kwargs)


class ReflectionPad2D(HybridBlock):
    """Pad the last two axes of ``(N, C, H, W)`` data with their mirror image (the
    edge itself is not repeated): output ``(N, C, H + 2 * padding, W + 2 * padding)``.

    Parameters
    ----------
    padding : int or tuple of 8 int, default 0
        Padding on each side of H and W, or MXNet's full ``pad_width`` (two entries
        per axis, the first four 0).

    Examples
    --------
    >>> pad = mx.gluon.nn.ReflectionPad2D(1)
    >>> pad(mx.nd.array([[[[1, 2], [3, 4]]]]))[0, 0].asnumpy()
    array([[4., 3., 4., 3.],
           [2., 1., 2., 1.],
           [4., 3., 4., 3.],
           [2., 1., 2., 1.]], dtype=float32)
    """

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, numeric_types):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        assert len(padding) == 8
        self._padding = padding

    def hybrid_forward(self, F, x):
        return F.pad(x, mode='reflect', pad_width=self._padding)
