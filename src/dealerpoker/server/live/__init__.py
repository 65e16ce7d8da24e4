"""Live tables: one shared hand per table on a dealer clock (``runner.py``), served over WebSocket."""
