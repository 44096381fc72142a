"""The one exception the package raises for the library's failures."""

# The C library's status codes (include/sslat.h: pinned, part of the ABI).
STATUS_NAMES = {
    1: "invalid_argument", 2: "io", 3: "parse", 4: "space", 5: "limit", 6: "nomem",
    7: "unsupported", 8: "no_device", 9: "interrupted", 10: "device",
}


class SslatError(RuntimeError):
    """A failure reported by the library: `status` is its code, `status_name` its
    name ("space", "io", …) and the message is the library's own, naming the file,
    JSON path, block or candidate."""

    def __init__(self, status, description, message):
        self.status = status
        self.status_name = STATUS_NAMES.get(status, str(status))
        self.description = description
        self.library_message = message
        super().__init__("%s (%s)" % (message, description) if message else description)
