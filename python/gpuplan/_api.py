"""The one way the Python module asks the planner: a request to gpuplan's JSON API, answered
in-process by the native extension (gpuplan._gpuplan) with the same loaders, planner and JSON
writers as the CLI. Errors become gpuplan.Error."""

import json
import re

from . import _gpuplan

# "body:1:57: " or "body: " before a message: where the API's request body went wrong. The
# Python caller wrote keyword arguments, not a body, so the field says where instead.
_BODY_PLACE = re.compile(r"^body(:\d+:\d+)?: ")


class Error(ValueError):
    """A refused question: ``field`` names the keyword argument (a workload key such as
    ``"seq_len"``, a nested one as ``"constraints.regions"``, or a hardware argument such as
    ``"gpus"``), or is None when the error is not about one field; ``message`` says what was
    expected, as the CLI would."""

    def __init__(self, message, field=None, status=400):
        super().__init__(message)
        self.message = message
        self.field = field
        self.status = status

    def __reduce__(self):
        return (type(self), (self.message, self.field, self.status))


def _param(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def workload_body(workload):
    """The workload keyword arguments as the JSON body the workload loader reads (None values
    dropped, so an optional argument can be passed through unset)."""
    return json.dumps({k: v for k, v in workload.items() if v is not None})


def call(method, path, params=None, body=""):
    """Answers METHOD PATH with the parsed JSON, or raises Error."""
    query = [(k, _param(v)) for k, v in (params or {}).items() if v is not None]
    status, text = _gpuplan.request(method, path, query, body)
    answer = json.loads(text)
    if status != 200:
        err = answer.get("error", {})
        message = _BODY_PLACE.sub("", err.get("message", text))
        raise Error(message, err.get("field"), status)
    return answer
