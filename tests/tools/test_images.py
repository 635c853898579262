"""Image facts: size, format, EXIF (with GPS), PNG text metadata, dominant colours; bad files."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PIL import Image, PngImagePlugin

from paperworks.tools.documents.model import BadFileError
from paperworks.tools.images import dominant_colours, image_info


def test_exif_and_size_of_a_jpeg(tmp_path: Path) -> None:
    img = Image.new("RGB", (120, 80), (200, 30, 30))
    exif = img.getexif()
    exif[0x0132] = "1888:05:01 10:00:00"  # DateTime
    exif[0x013B] = "Studio Nadar"  # Artist
    exif[0x010F] = "Daguerre"  # Make
    gps = exif.get_ifd(0x8825)
    gps[1] = "N"
    gps[2] = (48.0, 51.0, 24.0)
    path = tmp_path / "photo.jpg"
    img.save(path, exif=exif)
    info = image_info(path)
    assert (info.width, info.height, info.format, info.mode) == (120, 80, "JPEG", "RGB")
    assert info.exif["DateTime"] == "1888:05:01 10:00:00" and info.exif["Artist"] == "Studio Nadar"
    assert info.exif["Make"] == "Daguerre" and info.exif["GPSLatitudeRef"] == "N"
    assert "48.0" in info.exif["GPSLatitude"]


def test_png_text_metadata(tmp_path: Path) -> None:
    meta = PngImagePlugin.PngInfo()
    meta.add_text("Title", "Map of Flanders, 1609")
    path = tmp_path / "map.png"
    Image.new("L", (10, 10), 255).save(path, pnginfo=meta)
    assert image_info(path).metadata["Title"] == "Map of Flanders, 1609"


def test_dominant_colours_in_order_of_area() -> None:
    img = Image.new("RGB", (100, 100), (0, 0, 255))
    img.paste((255, 255, 0), (0, 0, 100, 30))  # 30% yellow, 70% blue
    colours = dominant_colours(img, 2)
    assert [c for c, _ in colours] == ["#0000ff", "#ffff00"]
    assert colours[0][1] == pytest.approx(0.7, abs=0.02) and colours[1][1] == pytest.approx(0.3, abs=0.02)


def test_bad_images(tmp_path: Path) -> None:
    with pytest.raises(BadFileError, match=r"gone\.jpg: no such file"):
        image_info(tmp_path / "gone.jpg")
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"\xff\xd8\xff garbage")
    with pytest.raises(BadFileError, match=r"bad\.jpg: not a readable image"):
        image_info(bad)


def test_describe_image_tool(tmp_path: Path) -> None:
    from paperworks.core.artifacts import ArtifactStore
    from paperworks.models.types import ToolCall
    from paperworks.tools.images import describe_image
    from paperworks.tools.registry import ToolContext, execute_call

    store = ArtifactStore(tmp_path / "artifacts")
    Image.new("RGB", (30, 20), (10, 200, 10)).save(store.root / "g.png")
    ctx = ToolContext(artifacts=store)
    obs, ok = asyncio.run(execute_call(ToolCall("1", "describe_image", {"path": "g.png"}), {"describe_image":
                                                                                         describe_image}, ctx))
    assert ok and obs.startswith("g.png: 30x20 pixels, PNG") and "#0ac80a 100%" in obs


def _decoded(url: str) -> Image.Image:
    import base64
    import io

    assert url.startswith("data:image/jpeg;base64,")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def test_image_part_for_vision_models_is_a_downscaled_jpeg(tmp_path: Path) -> None:
    from paperworks.tools.images import image_data_url, image_part, is_image

    big = tmp_path / "scan.png"
    Image.new("RGB", (3000, 1500), (240, 230, 200)).save(big)
    part = image_part(big)
    assert part["type"] == "image_url" and set(part["image_url"]) == {"url"}
    assert _decoded(part["image_url"]["url"]).size == (1024, 512)  # the longer side capped, aspect kept
    small = tmp_path / "thumb.png"
    Image.new("L", (40, 30), 128).save(small)
    assert _decoded(image_data_url(small)).size == (40, 30)  # never upscaled
    noisy = tmp_path / "noise.png"
    Image.effect_noise((800, 800), 120).convert("RGB").save(noisy)
    url = image_data_url(noisy, max_side=800, max_bytes=40_000)
    assert len(url) * 3 / 4 <= 40_000 * 1.01 and max(_decoded(url).size) < 800  # shrunk until under the cap
    assert is_image("a/B.JPG") and is_image("x.tiff") and not is_image("clip.mp4") and not is_image("t.csv")


def test_image_part_is_upright_and_flattens_transparency(tmp_path: Path) -> None:
    from paperworks.tools.images import image_data_url

    img = Image.new("RGB", (60, 20), (255, 0, 0))
    exif = img.getexif()
    exif[0x0112] = 6  # Orientation: the camera was turned; shown rotated 90°
    turned = tmp_path / "turned.jpg"
    img.save(turned, exif=exif)
    assert _decoded(image_data_url(turned)).size == (20, 60)
    clear = tmp_path / "clear.png"
    Image.new("RGBA", (10, 10), (0, 0, 0, 0)).save(clear)
    assert _decoded(image_data_url(clear)).convert("RGB").getpixel((5, 5)) == (255, 255, 255)
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"\x89PNG garbage")
    with pytest.raises(BadFileError, match=r"bad\.png: not a readable image"):
        image_data_url(bad)
