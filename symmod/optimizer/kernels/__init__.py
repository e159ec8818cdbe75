"""The arithmetic of the optimizers: fused update kernels.

* ``rules.py``: each update rule as a scalar function (MXNet's arithmetic, in order).
* ``cpu.py`` / ``cpu_adaptive.py``: numba ``@njit`` kernels applying a rule to many
  tensors in one call (a serial or a ``prange`` loop); ``half.py``: float16 storage.
* ``cuda.py``: the same rules as ``@cuda.jit`` kernels for GPU arrays.
* ``dispatch.py``: picks CPU or CUDA, serial or parallel, and prepares the call.
* ``reference.py``: plain numpy versions of the rules, for the tests.
"""
