"""How the package finds the library, and what it says when it cannot."""
import os
import pathlib
import subprocess
import sys

import sslat


def test_installed_package_carries_its_library():
    if not os.environ.get("SSLAT_INSTALLED_PACKAGE"):
        return  # run from the source tree with SSLAT_LIBRARY: nothing installed to check
    package_dir = pathlib.Path(sslat.__file__).parent
    assert "site-packages" in str(package_dir)
    assert pathlib.Path(sslat.library_path) == package_dir / "libsslat.so"


def test_a_wrong_sslat_library_is_a_clear_import_error(tmp_path):
    env = dict(os.environ, SSLAT_LIBRARY=str(tmp_path / "nowhere" / "libsslat.so"))
    result = subprocess.run([sys.executable, "-c", "import sslat"], capture_output=True, text=True,
                            env=env, cwd=tmp_path)
    assert result.returncode != 0
    assert "ImportError" in result.stderr and "SSLAT_LIBRARY" in result.stderr
    assert "nowhere/libsslat.so" in result.stderr


def test_version_matches_the_library():
    assert sslat.__version__ == "0.1.0"
