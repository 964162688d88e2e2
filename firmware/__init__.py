"""Programs and their tools: the THEIA firmware and assembler, the R500 assembler, and the
programs that ship as package data beside this file (pyproject.toml; found through the package,
so an installed copy has them too)."""

from pathlib import Path

#: the project's R500 fragment programs and their constants, which ``--shader NAME`` finds
R500_SHADER_DIR = Path(__file__).with_name("r500_shaders")
