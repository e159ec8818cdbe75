"""``gluon.utils.download`` and its helpers (``check_sha1``, ``replace_file``).

As in MXNet 1.9.1 the file is fetched with ``requests`` when it is installed (it is not a
dependency of symmod; without it the standard library's ``urllib`` is used), written to a
uniquely named temporary file beside the target and moved into place atomically, so
that several processes downloading the same file leave exactly one.
"""
import hashlib
import logging
import os
import shutil
import urllib.request
import uuid
import warnings

__all__ = ['check_sha1', 'replace_file', 'download']

_LOG = logging.getLogger(__name__)


def check_sha1(filename, sha1_hash):
    """Whether the SHA-1 of the file's content is ``sha1_hash`` (hexadecimal digits)."""
    sha1 = hashlib.sha1()
    with open(filename, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            sha1.update(block)
    return sha1.hexdigest() == sha1_hash


def replace_file(src, dst):
    """Move ``src`` over ``dst`` atomically (the temporary file is removed on failure)."""
    try:
        os.replace(src, dst)
    except OSError as err:
        try:
            os.remove(src)
        except OSError:
            pass
        raise OSError('Moving downloaded temp file - {}, to {} failed: {}. Please retry the '
                      'download.'.format(src, dst, err)) from None


def _fetch(url, verify_ssl, out):
    """Write the body of ``url`` into the open file ``out``."""
    try:
        import requests
    except ImportError:
        requests = None
    if requests is not None:
        response = requests.get(url, stream=True, verify=verify_ssl)
        if response.status_code != 200:
            raise RuntimeError('Failed downloading url {}'.format(url))
        for chunk in response.iter_content(chunk_size=1024):
            if chunk:
                out.write(chunk)
        return
    context = None
    if not verify_ssl:
        import ssl
        context = ssl._create_unverified_context()     # pylint: disable=protected-access
    with urllib.request.urlopen(url, timeout=60, context=context) as response:
        if response.status != 200:
            raise RuntimeError('Failed downloading url {}'.format(url))
        shutil.copyfileobj(response, out)


def _target(url, path):
    if path is None:
        fname = url.split('/')[-1]
        if not fname:
            raise ValueError("Can't construct file-name from this URL (%s). Please set the "
                             "`path` option manually." % url)
        return fname
    path = os.path.expanduser(path)
    if os.path.isdir(path):
        return os.path.join(path, url.split('/')[-1])
    return path


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    """Download ``url`` unless the file is already there (with the right SHA-1).

    Parameters
    ----------
    url : str
        The URL to download.
    path : str, optional
        Target file, or a folder to put it in (default: the current folder, named as the
        last part of the URL).
    overwrite : bool, default False
        Download even if the file exists.
    sha1_hash : str, optional
        Expected SHA-1 (hex digits): an existing file that does not match is fetched
        again, and a download that does not match raises UserWarning.
    retries : int, default 5
        How many times to try again after a failure.
    verify_ssl : bool, default True
        Verify SSL certificates (a warning says when not).

    Returns
    -------
    str
        The path of the file.
    """
    fname = _target(url, path)
    if retries < 0:
        raise ValueError("Number of retries should be at least 0, currently it's {}"
                         .format(retries))
    if not verify_ssl:
        warnings.warn('Unverified HTTPS request is being made (verify_ssl=False). Adding '
                      'certificate verification is strongly advised.')
    if not (overwrite or not os.path.exists(fname)
            or (sha1_hash and not check_sha1(fname, sha1_hash))):
        return fname
    os.makedirs(os.path.dirname(os.path.abspath(fname)), exist_ok=True)
    while True:
        try:
            _LOG.info('Downloading %s from %s...', fname, url)
            tmp = '{}.{}'.format(fname, uuid.uuid4())
            with open(tmp, 'wb') as out:
                _fetch(url, verify_ssl, out)
            if not os.path.exists(fname) or (sha1_hash and not check_sha1(fname, sha1_hash)):
                replace_file(tmp, fname)
            else:       # another process finished first
                os.remove(tmp)
                warnings.warn('File {} exists in file system so the downloaded file is '
                              'deleted'.format(fname))
            if sha1_hash and not check_sha1(fname, sha1_hash):
                raise UserWarning('File {} is downloaded but the content hash does not match. '
                                  'The repo may be outdated or download may be incomplete.'
                                  .format(fname))
            return fname
        except Exception as err:  # pylint: disable=broad-except
            if os.path.exists(tmp):
                os.remove(tmp)
            retries -= 1
            if retries <= 0:
                raise err
            _LOG.warning('download failed due to %r, retrying, %d attempt%s left',
                         err, retries, 's' if retries > 1 else '')
