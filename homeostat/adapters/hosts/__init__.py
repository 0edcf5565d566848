"""Code hosts: GitHub and Bitbucket behind `CodeHost`, their schedules, reports and step outputs, and the retry and pacing every host call goes through."""
