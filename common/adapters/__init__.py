"""The outside world behind one port each: Firestore (``firestore``), email (``email``,
``templates``, ``suppressions``), the LLM provider (``llm``, ``prompts``), news feeds
(``feeds``), the task queue (``tasks``) and the opaque page cursors of Firestore lists
(``cursors``).
"""
