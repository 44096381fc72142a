"""The exceptions the package raises for the library's failures: one class per
status of include/sslat.h, all subclasses of SslatError (catch that for any
failure), each also a subclass of the builtin a Python user would expect
(an I/O failure is an OSError, a bad argument a ValueError)."""
from typing import Dict, Type


class SslatError(RuntimeError):
    """A failure reported by the library: `status` is its code, `status_name` its
    name ("space", "io", …) and the message is the library's own, naming the file,
    JSON path, block or candidate."""

    status_name = "error"

    def __init__(self, status: int, description: str, message: str):
        self.status = status
        self.description = description
        self.library_message = message
        # the library's message says what and where; the class says which kind
        super().__init__(message or description)


class InvalidArgumentError(SslatError, ValueError):
    """A NULL or out-of-range argument (status 1)."""
    status_name = "invalid_argument"


class IoError(SslatError, OSError):
    """A file could not be opened, read or written (status 2)."""
    status_name = "io"


class ParseError(SslatError, ValueError):
    """JSON syntax or a wrong file structure (status 3)."""
    status_name = "parse"


class SpaceError(SslatError, ValueError):
    """An invalid search space, or a table of another space (status 4)."""
    status_name = "space"


class LimitError(SslatError, ValueError):
    """The input exceeds a safety limit (status 5)."""
    status_name = "limit"


class OutOfMemoryError(SslatError, MemoryError):
    """An allocation failed (status 6)."""
    status_name = "nomem"


class UnsupportedError(SslatError):
    """The calculator or option is not available in this build or here (status 7)."""
    status_name = "unsupported"


class NoDeviceError(SslatError):
    """The calculator needs a device that is not present (status 8)."""
    status_name = "no_device"


class InterruptedRunError(SslatError):
    """Stopped by a signal; the journal keeps the work done (status 9)."""
    status_name = "interrupted"


class DeviceError(SslatError):
    """The GPU or its library reported an error (status 10)."""
    status_name = "device"


# The C library's status codes (include/sslat.h: pinned, part of the ABI).
ERRORS_BY_STATUS: Dict[int, Type[SslatError]] = {
    1: InvalidArgumentError, 2: IoError, 3: ParseError, 4: SpaceError, 5: LimitError,
    6: OutOfMemoryError, 7: UnsupportedError, 8: NoDeviceError, 9: InterruptedRunError,
    10: DeviceError,
}
STATUS_NAMES: Dict[int, str] = {status: cls.status_name for status, cls in ERRORS_BY_STATUS.items()}


def error_for(status: int, description: str, message: str) -> SslatError:
    """The exception of a status (SslatError itself for a code this package does not know)."""
    return ERRORS_BY_STATUS.get(status, SslatError)(status, description, message)
