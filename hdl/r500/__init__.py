"""The R500 fragment-shader core's RTL: binary32 arithmetic units (docs/r500-rtl.md)."""
