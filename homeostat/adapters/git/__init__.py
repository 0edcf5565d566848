"""Git: plumbing over the real binary, its environment and credentials, work trees, the KB clone and the checkout's task."""
