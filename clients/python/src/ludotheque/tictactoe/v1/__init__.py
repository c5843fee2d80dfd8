"""Generated from proto/ by scripts/genproto.py: do not edit."""
