package departures

import (
	"context"
	"net/http"
	"time"
)

// withAnswerBeforeDeadline moves the deadline the servers see a little ahead of the request's
// deadline, so that a request that runs out of time is answered with a 504 Timeout Status
// instead of losing its connection.
//
// Why: k8s.io/apiserver bounds a request twice with the same deadline (--request-timeout, or
// the client's ?timeout=): its timeout filter waits for it, and the handlers watch it too (the
// finisher, storage, admission webhooks). When it passes, both wake at once. If the handler
// starts writing its own error first, the filter finds the response begun and can only abort
// it: HTTP/1.1 closes the connection without an answer, HTTP/2 resets the stream. Under load
// this is the usual outcome, not a rare one (a chain busy with slow patches lost most of its
// timed-out requests this way). With the servers' deadline earlier by a margin, the handler
// writes its 504 and returns while the filter still waits; a handler that ignores its deadline
// is still cut off by the filter, which then has nothing begun and answers 504 itself.
//
// The margin is a tenth of the time left, at most a second. Requests without a deadline
// (watches, other long-running requests) and requests proxied to a remote APIService (remote
// names it: their proxy answers its own errors) are left alone.
func withAnswerBeforeDeadline(next http.Handler, remote Remote) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		deadline, ok := r.Context().Deadline()
		if !ok || remote(r) != "" {
			next.ServeHTTP(w, r)
			return
		}
		margin := min(time.Second, time.Until(deadline)/10)
		ctx, cancel := context.WithDeadline(r.Context(), deadline.Add(-margin))
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
