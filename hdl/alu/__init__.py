"""The THEIA vector ALU (``valu.VectorALU``) and its units: lane multipliers, dividers (one per
lane, one per core, or one shared by two cores in time slots), square roots."""
