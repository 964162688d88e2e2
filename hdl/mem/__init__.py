"""The external memory: the SDRAM controller, its arbiter, PHY and parameters (hdl/mem/*.py)."""
