"""A checkpoint's ``.params`` and ``.states`` files as one set.

``save_checkpoint(..., save_optimizer_states=True)`` writes two files; a crash or a full
disk between them must not leave a newer ``.params`` beside an older ``.states`` that
loads silently. So:

- the ``.states`` file records which parameters it belongs to: the ``.params`` file's
  name, the epoch and the SHA-256 of its bytes (an entry ``checkpoint`` in symmod's
  states format, which older readers ignore; MXNet's ``.params`` layout is unchanged);
- the ``.params`` bytes are streamed to their temporary file while being hashed, then the
  tagged ``.states`` is written and renamed, and only then the ``.params`` is renamed.
  Whatever step a crash interrupts, the files on disk are either a matching pair or
  ``.states`` newer than ``.params`` (a mismatch the check below reports);
- loading with ``load_optimizer_states=True`` compares the recorded digest with the
  ``.params`` file actually loaded and raises an MXNetError naming both files.

Files without the entry (MXNet's pickles, older symmod files) are not checked.
"""
import hashlib
import os

from ..base import MXNetError
from . import params, states
from .atomic import atomic_open, atomic_write

__all__ = ['save_params_and_states', 'load_params_with_digest', 'check_states']

ENTRY = 'checkpoint'


def save_params_and_states(param_name, param_dict, state_name=None, states_blob=None,
                           epoch=None):
    """Write ``param_name`` (``nd.save`` layout) and, tagged with its digest, ``state_name``.

    Parameters
    ----------
    param_name : str
        The ``.params`` file.
    param_dict : dict of str to NDArray
        What ``nd.save`` would write.
    state_name : str, optional
        The ``.states`` file; None writes only the parameters.
    states_blob : bytes, optional
        symmod's states format (``Updater.get_states()``).
    epoch : int, optional
        Recorded in the tag.
    """
    arrays, names = params.prepare(param_dict)
    digest = hashlib.sha256()
    try:
        with atomic_open(param_name, 'wb') as f:
            params.write(f, arrays, names, digest)
            if state_name is not None:
                tag = {'params_file': os.path.basename(param_name),
                       'params_sha256': digest.hexdigest()}
                if epoch is not None:
                    tag['epoch'] = int(epoch)
                # renamed before the params (atomic_write raises MXNetError naming it)
                atomic_write(state_name, states.add_entry(states_blob, ENTRY, tag))
    except OSError as err:
        raise MXNetError('%s: cannot write the file: %s' % (param_name, err)) from err


def load_params_with_digest(param_name):
    """``(nd.load(param_name), sha256 hex of its bytes)``."""
    path, buf = params.read_whole(param_name)
    digest = hashlib.sha256(buf).hexdigest()
    return params.load_buffer(buf, path), digest


def check_states(states_blob, state_name, param_name, params_digest):
    """Raise an MXNetError naming both files when the states belong to other parameters."""
    tag = states.read_entry(states_blob, ENTRY)
    if not isinstance(tag, dict) or 'params_sha256' not in tag:
        return
    if tag['params_sha256'] != params_digest:
        raise MXNetError(
            '%s belongs to other parameters than %s: it was saved with %s%s (sha256 %s...), '
            'the parameters loaded have sha256 %s.... A checkpoint save was interrupted '
            '(or the files come from different saves): load %s without '
            'load_optimizer_states, or use the .states file saved with it'
            % (state_name, param_name, tag.get('params_file', '?'),
               ' of epoch %s' % tag['epoch'] if 'epoch' in tag else '',
               str(tag['params_sha256'])[:12], params_digest[:12], param_name))
