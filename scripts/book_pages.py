# Writes data/book-pages/pages.txt.gz: a snapshot of the book's pages (every .md file under
# book/src/, sorted by path), the corpus chapter 09's GPT trains on.
#
# Run: `python3 scripts/book_pages.py` (from the repository's root). The GPT reads the
# snapshot, not the live pages, so that its captured runs (book/src/ch09-tensor-parallel/
# output/gpt*.txt) stay reproducible while the book changes; re-make the snapshot, then
# the captures (`make outputs CH=09`), together. The file is deterministic: the same
# pages give the same bytes (gzip without a time stamp). Each page is a record: the byte
# 0x1e, the page's path, a newline, then the page's text.

import gzip
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEP = "\x1e"


def main():
    pages = sorted(p for p in (ROOT / "book/src").rglob("*.md"))
    records = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert SEP not in text, f"{page} holds the record separator 0x1e"
        records.append(f"{SEP}{page.relative_to(ROOT)}\n{text}")
    out = ROOT / "data/book-pages/pages.txt.gz"
    data = "".join(records).encode("utf-8")
    with open(out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0,
                                               filename="") as f:
        f.write(data)
    print(f"book_pages: wrote {out.relative_to(ROOT)}: {len(pages)} pages, "
          f"{len(data)} bytes of text, {out.stat().st_size} bytes gzipped")


if __name__ == "__main__":
    main()
