"""Values the distributed scripts push, shared by the scripts and the tests that check
them (a script is run under mpiexec; the test recomputes what the result must be)."""
import zlib

import numpy as np

# key -> (shape, dtype); 'big' is sent alone (>= 256 KiB), the rest fused
KEYS = {3: ((2, 3), 'float32'), 9: ((5,), 'float32'), 'big': ((300, 256), 'float32'),
        'half': ((4, 7), 'float16'), 'dbl': ((3,), 'float64')}
# the keys of scripts/slot_copy.py: one round of > 64 KiB (chosen by time in 'auto'), odd
# byte counts, every float dtype
SLOT_KEYS = {'big': ((128, 784), 'float32'), 'odd': ((3,), 'float32'),
             'half': ((1001,), 'float16'), 'dbl': ((7, 5), 'float64')}


def value(key, rank, device, step, shape=None, dtype=None):
    """A deterministic array for (key, rank, device, step)."""
    shape = KEYS[key][0] if shape is None else shape
    dtype = KEYS[key][1] if dtype is None else dtype
    seed = zlib.crc32(repr((key, rank, device, step)).encode())
    rng = np.random.RandomState(seed)
    return rng.uniform(-1, 1, shape).round(2).astype(dtype)


def quantize_2bit(residual, grad, threshold):
    """MXNet's 2bit step: (codes as values, new residual)."""
    t = np.float32(threshold)
    r = residual + grad
    q = np.where(r >= t, t, np.where(r <= -t, -t, np.float32(0))).astype(np.float32)
    return q, (r - q).astype(np.float32)
