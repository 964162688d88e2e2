"""Building blocks that know nothing of THEIA: stream registers, arbiters, pipeline stages,
carry-chain arithmetic and the hints the RTL gives synthesis; and where the programs that
build and simulate it are found (``tools``)."""
