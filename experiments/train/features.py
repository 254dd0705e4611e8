"""Compatibility name: the ``fray`` features extractor lives in :mod:`agents.features`.

Checkpoints saved before it moved refer to this module; loading them still works.
"""

from agents.features import FrayExtractor

__all__ = ["FrayExtractor"]
