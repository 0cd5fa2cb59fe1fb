"""Small text PDFs made in tests (no dependency): each page's lines in Helvetica, top to bottom.

pypdf reads their text back line by line, so a test can state exactly which headings, pages
and words a PDF holds. ``blank_pages`` makes a PDF without any text (a scan has none either);
``busy_pdf`` one built to keep pypdf busy.
"""

from __future__ import annotations

import zlib


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list[list[str]], title: str | None = None, author: str | None = None) -> bytes:
    """A PDF with one page per list of lines (Latin-1 text)."""
    objects: list[bytes] = []
    font_id = 3
    page_ids = []
    contents = []
    for lines in pages:
        stream = "BT /F1 11 Tf 14 TL 72 760 Td " + " ".join(f"({_escape(line)}) Tj T*" for line in lines) + " ET"
        contents.append(stream.encode("latin-1"))
    # 1 catalog, 2 pages, 3 font, then (page, content) pairs, then the info dictionary
    first = 4
    for index in range(len(pages)):
        page_ids.append(first + 2 * index)
    info_id = first + 2 * len(pages)
    kids = " ".join(f"{pid} 0 R" for pid in page_ids)
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    for index, stream in enumerate(contents):
        pid = page_ids[index]
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 {font_id} "
                       f"0 R >> >> /Contents {pid + 1} 0 R >>".encode())
        objects.append(b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream")
    info = []
    if title:
        info.append(f"/Title ({_escape(title)})")
    if author:
        info.append(f"/Author ({_escape(author)})")
    objects.append(("<< " + " ".join(info) + " >>").encode("latin-1"))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {info_id} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def blank_pages(count: int = 3) -> bytes:
    """A PDF of ``count`` pages without any text: what a scanned paper looks like to a text reader."""
    return make_pdf([[] for _ in range(count)])


def busy_pdf(megabytes: float = 40.0, per_page: float = 4.0) -> bytes:
    """A PDF of a few kilobytes built to keep pypdf busy: pages whose compressed content streams
    unpack to ``megabytes`` in all of tiny text operators, each of which pypdf reads in Python
    (about 2 s of CPU a megabyte here, so 40 MB is over a minute). Each page's stream stays under
    pypdf's own cap on the work one stream may take (2 million tokens since pypdf 7.1: about
    7 MB of these operators), so the time is bounded only by the reader's own budget."""
    unit = b"BT /F1 11 Tf 72 700 Td (aaaa) Tj ET\n"
    stream = zlib.compress(unit * int(per_page * 1024 * 1024 / len(unit)), 9)
    pages = max(1, round(megabytes / per_page))
    first_page = 4
    kids = " ".join(f"{first_page + 2 * n} 0 R" for n in range(pages)).encode()
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [" + kids + b"] /Count "
               + str(pages).encode() + b" >>", b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    for n in range(pages):
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                       b"/Contents " + str(first_page + 2 * n + 1).encode() + b" 0 R >>")
        objects.append(b"<< /Length " + str(len(stream)).encode() + b" /Filter /FlateDecode >>\nstream\n" + stream
                       + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
