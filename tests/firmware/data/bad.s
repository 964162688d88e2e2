// two errors for the CLI test
    ADD R1 R2
    FOO R1 R2 R3
