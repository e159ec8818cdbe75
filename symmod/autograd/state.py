"""Recording and training state (thread-local) and the scopes that set them."""
import threading

__all__ = ['record', 'pause', 'train_mode', 'predict_mode', 'is_recording', 'is_training',
           'set_recording', 'set_training']


class _State(threading.local):
    def __init__(self):
        super().__init__()
        self.recording = False
        self.training = False


_STATE = _State()


def is_recording():
    """Whether operator calls are being recorded for gradient computation.

    Returns
    -------
    bool
    """
    return _STATE.recording


def is_training():
    """Whether operators run in training mode (Dropout drops, BatchNorm uses batch stats).

    Returns
    -------
    bool
    """
    return _STATE.training


def set_recording(is_recording):  # pylint: disable=redefined-outer-name
    """Turn recording on or off.

    Parameters
    ----------
    is_recording : bool

    Returns
    -------
    bool
        The previous state.
    """
    prev = _STATE.recording
    _STATE.recording = bool(is_recording)
    return prev


def set_training(train_mode):  # pylint: disable=redefined-outer-name
    """Turn training mode on or off.

    Parameters
    ----------
    train_mode : bool

    Returns
    -------
    bool
        The previous state.
    """
    prev = _STATE.training
    _STATE.training = bool(train_mode)
    return prev


class _RecordingStateScope:
    """Scope that sets recording / training state and restores it on exit."""

    def __init__(self, is_record, train_mode):  # pylint: disable=redefined-outer-name
        self._enter_is_record = is_record
        self._enter_train_mode = train_mode
        self._prev_is_record = None
        self._prev_train_mode = None

    def __enter__(self):
        if self._enter_is_record is not None:
            self._prev_is_record = set_recording(self._enter_is_record)
        if self._enter_train_mode is not None:
            self._prev_train_mode = set_training(self._enter_train_mode)

    def __exit__(self, ptype, value, trace):
        if self._enter_is_record is not None:
            set_recording(self._prev_is_record)
        if self._enter_train_mode is not None:
            set_training(self._prev_train_mode)


def record(train_mode=True):  # pylint: disable=redefined-outer-name
    """A scope in which operator calls are recorded so that ``backward`` can follow them.

    Parameters
    ----------
    train_mode : bool, default True
        Run the recorded operators in training mode (Dropout, BatchNorm).

    Examples
    --------
    >>> x = mx.nd.array([1, 2]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = x * x
    >>> y.backward()
    >>> x.grad.asnumpy()
    array([2., 4.], dtype=float32)
    """
    return _RecordingStateScope(True, train_mode)


def pause(train_mode=False):  # pylint: disable=redefined-outer-name
    """A scope in which recording is off (metrics, updates inside ``record``).

    Parameters
    ----------
    train_mode : bool, default False
        Training mode inside the scope.
    """
    return _RecordingStateScope(False, train_mode)


def train_mode():
    """A scope forcing training-mode operator behaviour; recording is unchanged."""
    return _RecordingStateScope(None, True)


def predict_mode():
    """A scope forcing inference-mode operator behaviour; recording is unchanged."""
    return _RecordingStateScope(None, False)
