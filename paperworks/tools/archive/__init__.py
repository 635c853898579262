"""The document archive: persistent hybrid (dense + BM25) retrieval with citations."""

from paperworks.tools.archive.store import Archive, Hit, IngestReport, default_archive_dir

__all__ = ["Archive", "Hit", "IngestReport", "default_archive_dir"]
