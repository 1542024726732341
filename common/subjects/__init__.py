"""Who a request is about, and the rules for people (decision 0058): the resolver that tells an
organisation from a person for every door (``resolve``), the opt-out list (``optout``), the
per-person daily limit (``limits``) and the audit log (``audit``); the names people are compared
by are ``common.language.names``. The opt-out list, the limit's counters and the audit log live
in the osint database (decision 0051); every door that names people reads them.
"""
