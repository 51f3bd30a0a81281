"""planner: fleet-scale TCO and scenario planning for AI compute."""

__version__ = "0.1.0"
