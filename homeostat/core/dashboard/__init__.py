"""The dashboard's pure parts: what each page shows (`pages`), its charts (`svg`), its settings forms
(`settings`) and the HTML (`html`). The server that serves them is `homeostat.dashboard`."""
