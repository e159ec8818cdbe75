"""The files a new user reads first are there and say true things."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(*parts):
    with open(os.path.join(ROOT, *parts), encoding='utf-8') as f:
        return f.read()


def test_license_is_the_apache_2_text_the_package_declares():
    text = _read('LICENSE')
    assert 'Apache License' in text and 'Version 2.0, January 2004' in text
    assert 'END OF TERMS AND CONDITIONS' in text and len(text) > 10000
    assert re.search(r'^license = Apache-2.0$', _read('setup.cfg'), re.M)
    assert 'Apache License, Version 2.0' in _read('NOTICE')


def test_paths_named_in_the_readme_exist():
    readme = _read('README.md')
    paths = [token.rstrip('/') for token in re.findall(r'`([\w./-]+)`', readme)
             if '/' in token and not token.startswith(('http', 'mx.', '/'))
             and re.match(r'(symmod|examples|benchmarks|docs|tests|tools|\.ci)\b', token)]
    assert 'docs/design.md' in paths and 'benchmarks/RESULTS.md' in paths
    missing = [path for path in paths if not os.path.exists(os.path.join(ROOT, path))]
    assert missing == []


def test_design_notes_name_only_files_that_exist():
    design = _read('docs', 'design.md')
    named = set(re.findall(r'`((?:symmod/|executor/|module/|optimizer/|formats/|gluon/|'
                           r'ops/|symbol/|ndarray/|kvstore/)[\w/.]*\.py)`', design))
    assert len(named) > 10
    for path in named:
        candidates = [os.path.join(ROOT, path), os.path.join(ROOT, 'symmod', path)]
        assert any(os.path.exists(c) for c in candidates), path
