"""The MCP server (issue 28, decision 0052): the service's operations as tools for AI
assistants, over MCP's Streamable HTTP transport at ``POST /mcp``, stateless, in both eras of
the protocol (the 2025 handshake and the 2026-07-28 revision's self-contained requests).

- ``protocol``: JSON-RPC messages, the versions served, the 2026 envelope's checks.
- ``tools``: the tools, generated from the route table (``Route.tools``), and how a tool's
  arguments become its route's inputs and its route's answer a tool result.
- ``server``: one message in, one message (or a stream of progress, then the result) out.
- ``routes``: ``POST /mcp`` and the OAuth protected-resource metadata (RFC 9728).
"""
