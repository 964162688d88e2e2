"""bench.synth_area: the configurations it synthesises and the counts it reads from Yosys."""

from bench.synth_area import cell_counts, configured
from hdl.config import preset

REPORT = """
4.50. Printing statistics.
=== top ===
       10   LUT4
4.51. Printing statistics.
=== top ===
   Number of cells:                618
      268   DP16KD
       78   MULT18X18D
     8081   CCU2C
    82353   LUT4
      804   TRELLIS_DPR16X4
    65159   TRELLIS_FF
"""


def test_the_last_statistics_are_read():
    assert cell_counts(REPORT) == {"LUT4": 82353, "CCU2C": 8081, "TRELLIS_DPR16X4": 804,
                                   "TRELLIS_FF": 65159, "MULT18X18D": 78, "DP16KD": 268}


def test_a_stage_larger_than_the_presets_leaves_lut_ram():
    config = configured("ulx3s-r500", cores=4, temporaries=128, instructions=512, contexts=2)
    assert config.cores == 4
    assert (config.r500.temporaries, config.r500.instructions, config.r500.contexts) == (128, 512, 2)
    assert not config.r500.lut_code_ram
    assert configured("ulx3s-r500") == preset("ulx3s-r500")


def test_a_gpu_without_a_stage_keeps_none():
    assert configured("ulx3s", cores=2, temporaries=128).r500 is None
