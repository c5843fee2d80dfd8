"""Python client of the Ludothèque game-state service.

The generated messages and stubs live in ludotheque.v1 (the service and its envelopes)
and ludotheque.<game>.v1 (each game's options, commands, events and views)."""

from ludotheque.client import Client, error_status, localized_message, request_info, retry_delay, rule_code

__all__ = ["Client", "error_status", "localized_message", "request_info", "retry_delay", "rule_code"]
