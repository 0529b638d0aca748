"""What every page shares: headers, errors, assets, filters, query parsing, links, limits."""
