"""Write crate.png, the 64x64 texture of the cube example: four 32x32 quadrants (an atlas).

  top-left: crate face, full brightness      top-right: crate face, 70 %
  bottom-left: floor checkerboard            bottom-right: crate face, 45 %

Lights are not applied by the reference renderer, so the cube's shading is baked in: each face
of cube.obj picks the quadrant with its brightness. The crate face carries an arrow pointing up
the image, so a rendered face shows whether v runs the right way (v = 0 is the bottom row).

    python examples/cube/make_texture.py
"""

from pathlib import Path

from PIL import Image

SIZE = 64
HALF = SIZE // 2


def crate(x, y):
    """Colour of the crate face at (x, y) in a 32x32 tile, y = 0 the top row."""
    if min(x, y, HALF - 1 - x, HALF - 1 - y) < 3:
        return (80, 45, 25)                                   # dark frame
    cx = x - (HALF - 1) / 2
    if 5 <= y <= 13 and abs(cx) <= (y - 5) * 0.9 + 0.5:      # arrow head, tip at the top
        return (250, 245, 230)
    if 13 < y <= 26 and abs(cx) <= 2.5:                       # arrow shaft
        return (250, 245, 230)
    return (230, 135, 45)


def floor(x, y):
    return (225, 222, 210) if (x // 4 + y // 4) % 2 == 0 else (70, 80, 105)


def texel(x, y):
    """Colour of image pixel (x, y), y = 0 the top row of the PNG."""
    qx, qy = x // HALF, y // HALF
    tx, ty = x % HALF, y % HALF
    if (qx, qy) == (0, 1):
        return floor(tx, ty)
    brightness = {(0, 0): 1.0, (1, 0): 0.7, (1, 1): 0.45}[(qx, qy)]
    return tuple(round(c * brightness) for c in crate(tx, ty))


def main():
    image = Image.new("RGB", (SIZE, SIZE))
    image.putdata([texel(x, y) for y in range(SIZE) for x in range(SIZE)])
    path = Path(__file__).with_name("crate.png")
    image.save(path)
    print(path)


if __name__ == "__main__":
    main()
