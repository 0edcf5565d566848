"""Billing: charges, refunds and the HTTP API in front of them."""
