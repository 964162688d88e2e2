"""The R500 fragment-shader core's model (r500-us.md): its numbers, operations and quads."""
