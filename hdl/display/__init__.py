"""DVI output: video timing, TMDS encoding, scaling a frame to the screen, 10:1 serialisation
(docs/display.md).

``mode`` (``VideoMode``, VGA_640X480), ``timing`` (the raster), ``tmds`` (the encoder),
``scale`` (fit and map a frame), ``line_buffer``, ``scanout`` (the pixel clock's pipeline),
``pipeline`` (its clock-domain crossings to the GPU), ``serialiser`` (10:1 in the tmds domain),
``unit`` (``DisplayUnit``: all of it), ``gpdi`` (the ULX3S pins).
"""
