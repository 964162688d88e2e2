"""What several test files share: the checkout's path (the data outside it: ``shared_data``),
operands and stream drivers (``alu``), flow-control programs (``fc_programs``), the RTL core
run against the model on a preset (``core``)."""

from pathlib import Path

#: the checkout (the directory that holds hdl/, sim/, tests/)
REPO = Path(__file__).resolve().parents[2]
