"""What the dashboard reads and proposes, apart from its HTTP server (`homeostat.dashboard`): the
local inputs of its pages (`inputs`) and a settings form turned into a pull request on the KB repo
(`settings_proposal`). Both talk to git, the KB's files and the code host, which the server, like
the MCP server, reaches only through runs/."""
