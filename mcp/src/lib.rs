//! MCP tool surface and loopback listener.
