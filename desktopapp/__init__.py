"""ML Capacity Planner: plan the compute, cost and memory of machine-learning work."""

__version__ = "0.1.0"
APP_NAME = "ML Capacity Planner"
