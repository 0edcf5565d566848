"""Measuring the KB: metrics, calibrated confidence weights, rule selection against an eval set, and the headless-agent bench."""
