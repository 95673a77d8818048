"""Directory-plugin entry for palisade-provenance.

Hermes imports this file as ``hermes_plugins.palisade_provenance`` with the plugin
directory on its path.  The guard itself lives in the installed
``palisade-hermes`` wheel, or in a vendored copy next to this file
(``palisade-hermes install-plugins --vendor``).
"""

try:
    from .palisade_hermes.provenance import register  # vendored copy
except ImportError:
    from palisade_hermes.provenance import register  # the installed wheel

__all__ = ["register"]
