"""Reading and checking the KB: validate, search, read, list documents, explain a rule, export rule files, the health report and the dashboard."""
