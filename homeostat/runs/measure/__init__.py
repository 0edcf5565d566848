"""What the measuring commands, the MCP health tool and the dashboard read and compute from a clone: metrics,
KB health, calibrated confidence weights, and what a change does to the rules agents get."""
