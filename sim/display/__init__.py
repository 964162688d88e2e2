"""The display's simulation side: the TMDS encoding as DVI 1.0 defines it (``tmds``), a model
of a monitor's TMDS receiver that reads a picture and its timing back from the three lanes and
checks the stream (``tmds_decode``), and the harnesses that run hdl/display/ in Amaranth's
simulator and on the fast backend."""
