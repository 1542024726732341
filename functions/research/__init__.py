"""Research from news feeds: gathering and ranking shared by research and tracking digests."""
