"""The SDRAM in simulation: the chip model, the top with its pins as ports, the glue of each
simulator path and request traffic (sim/sdram/*.py)."""
