"""Legal information for advocacy activities: the structured guide behind
``POST /v1/legal/guidance`` (DESIGN.md §3), written by the provider or the offline rules and
always carrying the service's own "information, not legal advice" disclaimer."""
