"""The benchmark's evidence files, one module per source, each written as that source's
extractor reads it (the formats tests/ and the demo use) and streamed to disk: a writer holds
one day of one source at most, never a whole file."""
