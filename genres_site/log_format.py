"""One JSON object per log line, for log collectors (``LOG_FORMAT=json``).

Failures of jobs, imports and judges are logged with ``extra={...}`` fields naming what failed
(``event``, ``run``, ``chunk``, ``upload``, ``dataset``, ...); this formatter keeps those fields
as keys of the object, beside the time, level, logger and message.
"""

import json
import logging
from datetime import UTC, datetime

# Attributes every LogRecord has; whatever else a record carries came from ``extra``.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update({key: value for key, value in vars(record).items() if key not in _STANDARD})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)
