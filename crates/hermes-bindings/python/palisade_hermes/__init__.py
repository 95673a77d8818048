"""Palisade guards for the Hermes agent.

One wheel, four Hermes plugins, each enabled on its own::

    hermes plugins enable palisade-provenance   # refuses unquoted "the user decided ..." memory writes
    hermes plugins enable palisade-egress       # credentials, uploads, small counts
    hermes plugins enable palisade-injection    # prompt injection in messages and tool calls
    hermes plugins enable palisade-closure      # turns that should have been remembered

Each plugin's ``register(ctx)`` is a thin shim: Hermes kwargs go to the Rust
dispatcher in ``palisade_hermes._native`` and its directive comes back.
"""

from __future__ import annotations

__all__ = ["GUARDS", "__version__"]

__version__ = "0.1.0"

#: Plugin key -> guard name.
GUARDS = {
    "palisade-provenance": "provenance",
    "palisade-egress": "egress",
    "palisade-injection": "injection",
    "palisade-closure": "closure",
}
