"""What is observed of the service: a request's facts for the logs, its access log line, spans, metrics."""
