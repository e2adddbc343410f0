"""Credentials in tool responses: their shapes (`patterns`) and the scanner that masks them."""
