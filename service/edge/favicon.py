"""`/favicon.ico`: Stela's icon, so a browser tab shows it and a browser's request for it is no 404.

The icon is drawn here, not shipped as a binary: a 32x32 picture of a stela (a carved standing stone on
a plinth) encoded as a PNG (zlib, no library) inside an ICO container, which every browser reads.
"""

from __future__ import annotations

import struct
import zlib

from litestar import Response, get

SIZE = 32
_STONE, _CARVING, _GROUND = (0x8A, 0x6F, 0x4E, 255), (0xF3, 0xE6, 0xC8, 255), (0x3E, 0x5C, 0x3A, 255)
_CLEAR = (0, 0, 0, 0)


def _pixel(x: int, y: int) -> tuple[int, int, int, int]:
    if y >= 27:
        return _GROUND if 4 <= x < 28 else _CLEAR
    inside = 9 <= x < 23 and 4 <= y < 27 and not (y < 7 and (x - 9) + (y - 4) < 3 or y < 7 and (22 - x) + (y - 4) < 3)
    if not inside:
        return _CLEAR
    carved = 12 <= x < 20 and y in (9, 10, 14, 15, 19, 20)
    return _CARVING if carved else _STONE


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png() -> bytes:
    rows = b"".join(b"\0" + bytes(c for x in range(SIZE) for c in _pixel(x, y)) for y in range(SIZE))
    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows, 9)) + \
        _chunk(b"IEND", b"")


def ico() -> bytes:
    image = png()
    directory = struct.pack("<HHH", 0, 1, 1)  # an icon file with one image
    entry = struct.pack("<BBBBHHII", SIZE, SIZE, 0, 0, 1, 32, len(image), 6 + 16)
    return directory + entry + image


ICON = ico()


@get("/favicon.ico", include_in_schema=False, sync_to_thread=False)
def favicon() -> Response[bytes]:
    return Response(ICON, media_type="image/x-icon", headers={"Cache-Control": "public, max-age=86400"})
