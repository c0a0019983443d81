"""The Kafka edge: clients, topic setup, the consume loop, acknowledgement, replies.

A record's way through it: ``consume`` fetches (with backpressure and rebalancing),
the worker turns the record into a ``ChatMessage`` for the ``Moderator``, ``replies``
sends the verdict (and any dead letter) with ``send``'s bounded retries, and ``acks``
commits the offset once everything for it is acknowledged.
"""
