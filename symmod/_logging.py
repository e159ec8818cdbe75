"""How symmod logs: through named loggers only, never configuring logging itself.

Python's ``logging.info(...)`` on the root logger calls ``logging.basicConfig()`` when the
root has no handler yet, after which a script's own ``basicConfig(level=...)`` does
nothing; symmod therefore never logs through the root logger.
"""
import logging

_NUMBA_LOGGER = 'numba'


def module_logger(logger, name):
    """The logger a Module (or executor group) writes to.

    MXNet's classes take ``logger=logging`` (the logging module, i.e. the root logger) by
    default; that default becomes the named logger ``name`` so that the records still reach
    the root's handlers but never configure it. A user's own logger is used as given.
    """
    if logger is None or logger is logging:
        return logging.getLogger(name)
    return logger


def quiet_numba():
    """Keep numba's compiler loggers at WARNING unless the user configured them.

    With ``logging.basicConfig(level=logging.DEBUG)`` (many MXNet examples set it) numba's
    SSA and bytecode passes log thousands of DEBUG lines per compiled kernel.
    """
    numba_log = logging.getLogger(_NUMBA_LOGGER)
    if numba_log.level == logging.NOTSET and not numba_log.handlers:
        numba_log.setLevel(logging.WARNING)
