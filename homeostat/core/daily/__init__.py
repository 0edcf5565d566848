"""The daily run's pure logic: lessons, confidence, consolidation, the judge, decisions, KB edits."""
