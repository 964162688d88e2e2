"""The GPU around the shader cores: the top (``gpu.Gpu``), its host port, one IO unit per core,
the band dispatcher and the shared texture, output and scene stores."""
