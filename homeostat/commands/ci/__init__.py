"""The runs CI schedules (and `up` runs on a schedule itself): daily, curate, review merge, deep dive and digest."""
