"""State kept between runs: the state branch and its claims and locks, the clone's own bookkeeping under `.homeostat/`, the event log and what the hooks remember."""
