"""The analyst's dashboard: the page for one survey and its live results panel."""
