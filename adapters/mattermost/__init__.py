"""Mattermost: REST API v4 and its WebSocket, events to core.chat.dispatch (docs/mattermost.md)."""
