"""Operations: settings from the environment, JSON logging, metrics, stopping within a bound, and
the `Periodic` background primitive.

The lowest layer of the service: it imports nothing from `service` outside itself.
"""
