"""voxmem.server: the websocket voice server."""
