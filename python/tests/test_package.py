"""How the package is installed, how it finds the library, and what it says
when it cannot."""
import ctypes
import importlib.metadata
import os
import pathlib
import subprocess
import sys

import pytest

import sslat


def installed_only():
    if not os.environ.get("SSLAT_INSTALLED_PACKAGE"):
        pytest.skip("run from the source tree (SSLAT_INSTALLED_PACKAGE unset): nothing installed to check")


def test_installed_package_carries_its_library_and_command():
    installed_only()
    package_dir = pathlib.Path(sslat.__file__).parent
    assert "site-packages" in str(package_dir)
    assert pathlib.Path(sslat.library_path) == package_dir / "libsslat.so"
    assert (package_dir / "py.typed").is_file()
    # the wheel puts the command beside the interpreter
    command = pathlib.Path(sys.executable).parent / "sslat"
    result = subprocess.run([str(command), "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == "sslat " + sslat.__version__


def test_the_wheel_is_tagged_for_its_platform_and_carries_the_license():
    installed_only()
    distribution = importlib.metadata.distribution("sslat")
    wheel = distribution.read_text("WHEEL")
    tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]
    assert tags, wheel
    for tag in tags:  # py3-none-linux_x86_64: a shared library inside, any Python 3
        python, abi, platform = tag.split("-")
        assert python == "py3" and abi == "none" and platform != "any", tag
    assert distribution.metadata["License"] == "Apache-2.0"
    licenses = [f for f in distribution.files if f.name == "LICENSE"]
    assert licenses and "Apache License" in licenses[0].read_text()


def test_a_wrong_sslat_library_is_a_clear_import_error(tmp_path):
    env = dict(os.environ, SSLAT_LIBRARY=str(tmp_path / "nowhere" / "libsslat.so"))
    result = subprocess.run([sys.executable, "-c", "import sslat"], capture_output=True, text=True,
                            env=env, cwd=tmp_path)
    assert result.returncode != 0
    assert "ImportError" in result.stderr and "SSLAT_LIBRARY" in result.stderr
    assert "nowhere/libsslat.so" in result.stderr


def test_a_library_without_the_packages_functions_is_a_clear_import_error(tmp_path):
    # another shared library (here the C library itself): it loads, but has none of sslat's symbols
    import ctypes.util
    other = ctypes.util.find_library("m") or "libm.so.6"
    env = dict(os.environ, SSLAT_LIBRARY=other)
    result = subprocess.run([sys.executable, "-c", "import sslat"], capture_output=True, text=True,
                            env=env, cwd=tmp_path)
    assert result.returncode != 0
    assert "ImportError" in result.stderr and "has no function sslat_" in result.stderr, result.stderr
    assert "AttributeError" not in result.stderr.splitlines()[-1]


def test_every_struct_copied_from_sslat_h_has_the_librarys_layout():
    from sslat import _native
    assert _native.struct_mismatches() == []
    assert set(_native.MIRRORS) == {line.split("typedef struct ")[1].split()[0]
                                    for line in _header_lines() if line.startswith("typedef struct ")
                                    and "{" in line}, "every public struct with fields is mirrored"

    class Shorter(ctypes.Structure):  # a copy that lost a field is caught
        _fields_ = _native.LatencyOptions._fields_[:-1]
    assert _native.struct_mismatches({"sslat_latency_options": Shorter})[0][0] == "sslat_latency_options"


def _header_lines():
    header = pathlib.Path(__file__).resolve().parents[2] / "include" / "sslat.h"
    return header.read_text().splitlines()


def test_version_matches_the_library_and_the_package_metadata():
    assert sslat._lib.sslat_version_number() == (
        lambda major, minor, patch: major * 10000 + minor * 100 + patch)(*map(int, sslat.__version__.split(".")))
    try:
        packaged = importlib.metadata.version("sslat")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("the package is not installed: no metadata to compare with")
    assert sslat.__version__ == packaged


def test_errors_are_subclasses_by_status_and_of_the_builtins_users_expect(tmp_path):
    with pytest.raises(sslat.IoError) as caught:
        sslat.SearchSpace(str(tmp_path / "missing.json"))
    assert isinstance(caught.value, sslat.SslatError) and isinstance(caught.value, OSError)
    assert caught.value.status == 2 and caught.value.status_name == "io"
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(sslat.ParseError) as caught:
        sslat.SearchSpace(str(bad))
    assert isinstance(caught.value, ValueError) and "bad.json" in str(caught.value)
    with pytest.raises(sslat.SpaceError):
        sslat.SearchSpace({"sslat": 1, "input": {"shape": [3, 8, 8]}, "layers": ["conv_k3_c8_bogus9"]})
    with pytest.raises(sslat.InvalidArgumentError):
        sslat.initialize_latency("no_such_type", sslat.SearchSpace.default())
    from sslat import errors
    assert set(errors.ERRORS_BY_STATUS) == set(range(1, 11))
    for status, cls in errors.ERRORS_BY_STATUS.items():
        assert issubclass(cls, sslat.SslatError) and errors.STATUS_NAMES[status] == cls.status_name
