"""The KB's on-disk format: parsing and writing rule and topic files, YAML with line numbers, Markdown structure, section patches and merges, and which files a reader may read."""
