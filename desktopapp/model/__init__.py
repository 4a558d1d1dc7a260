"""Pure model layer: formulas, catalogs, scenarios and rules.

Imports only the standard library and numpy. Never Qt, torch or pynvml (a test checks).
Inputs and results are frozen dataclasses; invalid input raises ``ValueError`` naming the field.
"""
