package chain

import "net/http"

// Handlers exposes, to this package's tests, the head's full handler and Core's own full
// handler (which the chain never serves), so a benchmark can compare a request through the
// aggregator with the same request on Core alone.
func Handlers(c *Chain) (head, core http.Handler) { return c.head, c.core }
