"""Search: retrieval over a Firestore collection by words and by meaning (``retrieval``), the
text index's postings (``postings``), the embedding port (``embeddings``) and the relevance
judge (``relevance``). Used by the search, knowledge, content, legal and chat doors.
"""
