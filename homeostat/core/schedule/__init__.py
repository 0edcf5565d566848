"""When the scheduled jobs run: cron lines, the hosts' schedules, and `homeostat up`'s slots."""
