"""Random test inputs: shapes, numpy arrays, NDArrays and well-conditioned matrices."""
import numpy as np
import numpy.random as rnd

from ..ndarray.ndarray import array, arange, zeros
from .compare import default_dtype
from .sparse import (rand_sparse_ndarray, create_sparse_array, create_sparse_array_zd,  # noqa: F401
                     shuffle_csr_column_indices)

__all__ = ['default_context', 'set_default_context', 'random_arrays', 'random_uniform_arrays',
           'random_sample', 'rand_sparse_ndarray', 'rand_ndarray', 'create_sparse_array',
           'create_sparse_array_zd', 'shuffle_csr_column_indices', 'rand_shape_2d',
           'rand_shape_3d', 'rand_shape_nd', 'rand_coord_2d', 'assign_each', 'assign_each2',
           'create_2d_tensor', 'create_vector', 'get_identity_mat', 'get_identity_mat_batch',
           'new_matrix_with_real_eigvals_2d', 'new_matrix_with_real_eigvals_nd',
           'new_orthonormal_matrix_2d', 'new_sym_matrix_with_real_eigvals_2d',
           'new_sym_matrix_with_real_eigvals_nd']


def default_context():
    """The context tests run on: the current context (``cpu(0)`` unless set)."""
    from ..context import current_context
    return current_context()


def set_default_context(ctx):
    """Make ``ctx`` the default (current) context of this thread."""
    from ..context import Context
    Context._default_ctx.value = ctx


def random_arrays(*shapes):
    """Standard-normal float32 numpy arrays of the given shapes (one array, or a list)."""
    arrays = [np.array(np.random.randn(), dtype=default_dtype()) if len(s) == 0
              else np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes, low=0.0, high=1.0, dtype=None):
    """Uniform[low, high) numpy arrays of the given shapes (always a list)."""
    dtype = default_dtype() if dtype is None else dtype
    return [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]


def random_sample(population, k):
    """``k`` elements of ``population`` drawn without replacement (a shuffled copy's head)."""
    assert 0 <= k <= len(population)
    copy = population[:]
    np.random.shuffle(copy)
    return copy[0:k]


def rand_ndarray(shape, stype='default', density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A random NDArray of ``shape``: standard normal values cast to ``dtype`` for dense
    storage, :func:`rand_sparse_ndarray`'s array for 'csr' / 'row_sparse'."""
    if stype != 'default':
        arr, _ = rand_sparse_ndarray(shape, stype, density=density, modifier_func=modifier_func,
                                     dtype=dtype, shuffle_csr_indices=shuffle_csr_indices,
                                     distribution=distribution, ctx=ctx)
        return arr
    return array(random_arrays(shape), dtype=dtype, ctx=ctx or default_context())


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    """A random 2-D shape with dims in [1 (or 0), dim]."""
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    """A random 3-D shape with dims in [1 (or 0), dim]."""
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1), rnd.randint(low, dim2 + 1)


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    """A random shape of ``num_dim`` dims in [1 (or 0), dim]."""
    low = 0 if allow_zero_size else 1
    return tuple(rnd.randint(low, dim + 1, size=num_dim))


def rand_coord_2d(x_low, x_high, y_low, y_high):
    """A random integer point in [x_low, x_high) x [y_low, y_high)."""
    x = np.random.randint(x_low, x_high, dtype=np.int64)
    y = np.random.randint(y_low, y_high, dtype=np.int64)
    return x, y


def assign_each(the_input, function):
    """``function`` applied to every element of ``the_input`` (a float64 array)."""
    if function is None:
        return np.array(the_input)
    return np.vectorize(function, otypes=[np.float64])(the_input) \
        if np.size(the_input) else np.zeros(np.shape(the_input))


def assign_each2(input1, input2, function):
    """``function`` applied to every pair of elements of two same-shaped arrays."""
    if function is None:
        return np.array(input1)
    assert input1.shape == input2.shape
    return np.vectorize(function, otypes=[np.float64])(input1, input2) \
        if np.size(input1) else np.zeros(np.shape(input1))


def create_2d_tensor(rows, columns, dtype=np.int64):
    """A (rows, columns) NDArray whose row i holds i (large-tensor tests)."""
    column = arange(0, rows, dtype=dtype).reshape(rows, 1)
    return column.broadcast_to((rows, columns))


def create_vector(size, dtype=np.int64):
    """``arange(size)`` as an NDArray (large-vector tests)."""
    return arange(0, size, dtype=dtype)


def get_identity_mat(size):
    """The ``size`` x ``size`` identity as an NDArray."""
    ident = zeros((size, size))
    ident[:] = np.eye(size, dtype=np.float32)
    return ident


def get_identity_mat_batch(size):
    """Two stacked identities, shape (2, size, size)."""
    ident = get_identity_mat(size).asnumpy()
    return array([ident, ident])


def new_matrix_with_real_eigvals_2d(n):
    """A well-conditioned n x n matrix with real eigenvalues in [-10, 10]."""
    shape = (n, n)
    while True:
        diag = np.diag(np.random.uniform(-1.0, 1.0, n))
        vec = np.random.uniform(-1., 1., n).reshape(n, 1)
        vec = vec / np.linalg.norm(vec, axis=-2, keepdims=True)
        householder = np.eye(n).reshape(shape) - 2 * np.matmul(vec, vec.T)
        q = np.matmul(householder, diag)
        if np.linalg.cond(q, 2) < 3:
            break
    eig = np.diag(np.random.uniform(-10.0, 10.0, n))
    return np.matmul(np.matmul(np.linalg.inv(q), eig), q)


def new_matrix_with_real_eigvals_nd(shape):
    """A batch of :func:`new_matrix_with_real_eigvals_2d` matrices of ``shape``."""
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_matrix_with_real_eigvals_2d(shape[-1])
                     for _ in range(count)]).reshape(shape)


def new_orthonormal_matrix_2d(n):
    """A random n x n orthonormal matrix."""
    x = np.random.randn(n, n)
    return np.linalg.qr(np.matmul(x.T, x))[0]


def new_sym_matrix_with_real_eigvals_2d(n):
    """A random symmetric n x n matrix with eigenvalues in [-10, 10]."""
    q = new_orthonormal_matrix_2d(n)
    return np.matmul(np.matmul(q.T, np.diag(np.random.uniform(-10.0, 10.0, n))), q)


def new_sym_matrix_with_real_eigvals_nd(shape):
    """A batch of :func:`new_sym_matrix_with_real_eigvals_2d` matrices of ``shape``."""
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_sym_matrix_with_real_eigvals_2d(shape[-1])
                     for _ in range(count)]).reshape(shape)


