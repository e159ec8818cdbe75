"""What an iterator hands out: ``DataDesc`` (name, shape, dtype, layout of one input)
and ``DataBatch`` (the arrays of one mini-batch)."""
from collections import namedtuple

import numpy as np

__all__ = ['DataDesc', 'DataBatch']


class DataDesc(namedtuple('DataDesc', ['name', 'shape'])):
    """Name, shape, type and layout of one data or label input.

    It is a ``(name, shape)`` named tuple, so code that unpacks
    ``for name, shape in provide_data`` keeps working; ``dtype`` and ``layout``
    ride along as attributes.

    The layout names the axes of ``shape``: ``'NCHW'`` for images (batch,
    channel, height, width), ``'NTC'`` for sequences (batch, time, channel).
    The position of ``'N'`` is the batch axis along which data-parallel
    training splits the arrays.

    Parameters
    ----------
    name : str
        Input name (``'data'``, ``'softmax_label'``).
    shape : tuple of int
        Shape of one batch of this input.
    dtype : numpy type, optional
        Element type (float32 by default).
    layout : str, optional
        Axis names of ``shape`` (default ``'NCHW'``).

    Examples
    --------
    >>> d = mx.io.DataDesc('data', (32, 784))
    >>> d
    DataDesc[data,(32, 784),<class 'numpy.float32'>,NCHW]
    >>> name, shape = d
    """

    def __new__(cls, name, shape, dtype=np.float32, layout='NCHW'):
        desc = super(DataDesc, cls).__new__(cls, name, shape)
        desc.dtype = dtype
        desc.layout = layout
        return desc

    def __repr__(self):
        return 'DataDesc[%s,%s,%s,%s]' % (self.name, self.shape, self.dtype, self.layout)

    @staticmethod
    def get_batch_axis(layout):
        """The axis of ``layout`` that holds the batch (the position of ``'N'``).

        Parameters
        ----------
        layout : str or None
            A layout such as ``'NCHW'`` or ``'TNC'``. None means axis 0.

        Returns
        -------
        int
            The batch axis, or -1 when the layout has no ``'N'`` (the whole
            array is then copied to every device instead of being split).
        """
        if layout is None:
            return 0
        return layout.find('N')

    @staticmethod
    def get_list(shapes, types):
        """Build DataDesc objects from ``(name, shape)`` pairs and ``(name, dtype)`` pairs.

        Parameters
        ----------
        shapes : list of (str, tuple)
            Names and shapes.
        types : list of (str, dtype) or None
            Names and element types; None gives the default float32.

        Returns
        -------
        list of DataDesc
        """
        if types is not None:
            type_of = dict(types)
            return [DataDesc(name, shape, type_of[name]) for name, shape in shapes]
        return [DataDesc(name, shape) for name, shape in shapes]


class DataBatch:
    """One mini-batch: lists of data and label arrays plus bookkeeping.

    Parameters
    ----------
    data : list of NDArray
        The inputs, each holding ``batch_size`` examples along its batch axis.
    label : list of NDArray, optional
        The labels.
    pad : int, optional
        How many examples at the end of the batch are filler (repeated from the
        start of the data) because the data ran out; prediction drops them.
    index : numpy.ndarray, optional
        Indices of the examples in this batch.
    bucket_key : object, optional
        The bucket this batch belongs to (BucketingModule).
    provide_data : list of DataDesc, optional
        Descriptions of ``data`` (needed when a batch differs from the
        iterator's declared shapes).
    provide_label : list of DataDesc, optional
        Descriptions of ``label``.

    Examples
    --------
    >>> batch = mx.io.DataBatch([mx.nd.ones((2, 3))], [mx.nd.zeros((2,))], pad=0)
    >>> print(batch)
    DataBatch: data shapes: [(2, 3)] label shapes: [(2,)]
    """

    def __init__(self, data, label=None, pad=None, index=None,
                 bucket_key=None, provide_data=None, provide_label=None):
        if data is not None:
            assert isinstance(data, (list, tuple)), 'Data must be list of NDArrays'
        if label is not None:
            assert isinstance(label, (list, tuple)), 'Label must be list of NDArrays'
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        data_shapes = [d.shape for d in self.data]
        label_shapes = [l.shape for l in self.label] if self.label else None
        return '{}: data shapes: {} label shapes: {}'.format(
            type(self).__name__, data_shapes, label_shapes)
