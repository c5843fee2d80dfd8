"""Python client of the Ludothèque game-state service.

`Client` (blocking) and `ludotheque.aio.Client` (asyncio) make the service's calls; the
generated messages and stubs live in ludotheque.v1 (the service and its envelopes) and
ludotheque.<game>.v1 (each game's options, commands, events and views). Importing the
package makes commands and events print readably (ludotheque/printing.py)."""

from ludotheque import printing
from ludotheque.client import Client, error_status, localized_message, request_info, retry_delay, rule_code

printing.install()

__all__ = ["Client", "error_status", "localized_message", "request_info", "retry_delay", "rule_code"]
