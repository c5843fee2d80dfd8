"""The transports: thin adapters from gRPC, REST, Connect and server-sent events to the use cases."""
