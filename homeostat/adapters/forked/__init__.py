"""Work in forked children beside the parent: reading KB files, counting tokens, validate's tasks, writing the cache behind the answer, and hearing a child's answer."""
