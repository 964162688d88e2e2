"""What several test files share: paths, operands and stream drivers (``alu``), flow-control
programs (``fc_programs``), the RTL core run against the model on a preset (``core``)."""

from pathlib import Path

#: the checkout (the directory that holds hdl/, sim/, tests/)
REPO = Path(__file__).resolve().parents[2]
#: the original project's scene directories, next to the checkout (``/work/shared`` beside
#: ``/work/main``)
SCENES_DIR = REPO.parent / "shared" / "scenes" / "theia-2010"
