"""gluon.utils.download / check_sha1 (MXNet 1.9.1's behaviour), served from a local HTTP
server (no network needed)."""
import glob
import hashlib
import http.server
import multiprocessing
import os
import sys
import threading
import types

import pytest

import symmod as mx

BODY = b'MOCK CONTENT' * 100


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):       # noqa: N802 (http.server's name)
        if self.path.endswith('missing.txt'):
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header('Content-Length', str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


@pytest.fixture(scope='module')
def server():
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield 'http://127.0.0.1:%d' % httpd.server_address[1]
    httpd.shutdown()


@pytest.fixture(autouse=True)
def _no_requests(monkeypatch):
    # the standard library path (requests is not a dependency); one test fakes requests
    monkeypatch.setitem(sys.modules, 'requests', None)


def test_check_sha1(tmp_path):
    path = tmp_path / 'f.bin'
    path.write_bytes(BODY)
    assert mx.gluon.utils.check_sha1(str(path), hashlib.sha1(BODY).hexdigest())
    assert not mx.gluon.utils.check_sha1(str(path), '0' * 40)


def test_download_into_a_folder_or_a_path_leaves_one_file(server, tmp_path):
    got = mx.gluon.utils.download(server + '/README.md', path=str(tmp_path))
    assert got == str(tmp_path / 'README.md')
    assert (tmp_path / 'README.md').read_bytes() == BODY
    target = tmp_path / 'sub' / 'copy.md'
    assert mx.gluon.utils.download(server + '/README.md', path=str(target)) == str(target)
    assert target.read_bytes() == BODY
    assert sorted(os.listdir(tmp_path)) == ['README.md', 'sub']
    assert os.listdir(tmp_path / 'sub') == ['copy.md']


def test_existing_file_is_kept_unless_its_hash_differs(server, tmp_path):
    target = tmp_path / 'README.md'
    target.write_bytes(b'old')
    mx.gluon.utils.download(server + '/README.md', path=str(target))
    assert target.read_bytes() == b'old'
    mx.gluon.utils.download(server + '/README.md', path=str(target),
                            sha1_hash=hashlib.sha1(BODY).hexdigest())
    assert target.read_bytes() == BODY
    with pytest.raises(UserWarning, match='content hash does not match'):
        mx.gluon.utils.download(server + '/README.md', path=str(target), sha1_hash='0' * 40,
                                retries=0)


def test_failures_are_retried_then_raised_without_leftovers(server, tmp_path):
    with pytest.raises(Exception, match='404|Failed downloading'):
        mx.gluon.utils.download(server + '/missing.txt', path=str(tmp_path), retries=2)
    assert os.listdir(tmp_path) == []
    with pytest.raises(ValueError, match='retries should be at least 0'):
        mx.gluon.utils.download(server + '/README.md', path=str(tmp_path), retries=-1)


def test_unverified_ssl_warns(server, tmp_path):
    with pytest.warns(UserWarning, match='^Unverified HTTPS request'):
        mx.gluon.utils.download(server + '/README.md', path=str(tmp_path), verify_ssl=False)


def _download(url, path):
    sys.modules['requests'] = None
    mx.gluon.utils.download(url, path=path)


def test_processes_downloading_one_file_leave_one_file(server, tmp_path):
    target = str(tmp_path / 'README.md')
    ctx = multiprocessing.get_context('fork')
    procs = [ctx.Process(target=_download, args=(server + '/README.md', target))
             for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert glob.glob(target + '*') == [target]
    assert (tmp_path / 'README.md').read_bytes() == BODY


def test_requests_is_used_when_installed(monkeypatch, tmp_path):
    calls = []

    class Response:
        status_code = 200

        @staticmethod
        def iter_content(chunk_size):
            return [BODY[:chunk_size], b'', BODY[chunk_size:]]

    def get(url, stream, verify):
        calls.append((url, stream, verify))
        return Response()

    monkeypatch.setitem(sys.modules, 'requests', types.SimpleNamespace(get=get))
    got = mx.gluon.utils.download('https://example.invalid/a/b.txt', path=str(tmp_path))
    assert calls == [('https://example.invalid/a/b.txt', True, True)]
    assert open(got, 'rb').read() == BODY
    monkeypatch.setitem(sys.modules, 'requests', types.SimpleNamespace(
        get=lambda *a, **k: types.SimpleNamespace(status_code=500)))
    with pytest.raises(RuntimeError, match='Failed downloading url'):
        mx.gluon.utils.download('https://example.invalid/c.txt', path=str(tmp_path), retries=1)
