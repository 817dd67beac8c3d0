// Package departures holds every place where the chain, on purpose, answers otherwise than
// kube-apiserver v1.37.2 around its servers: in the filter chain the head runs (kube-apiserver's
// genericapiserver.DefaultBuildHandlerChain), in the listener, at the end of the delegation
// (the not-found handler), and where storage's errors become answers. The three servers run
// k8s.io/apiserver, kube-aggregator and apiextensions-apiserver unchanged; servers/chain, the
// composition root, adds each departure with one named call:
//
//	WrapHandlerChain       around DefaultBuildHandlerChain           (NewConfig)
//	StorageErrorsAsStatus  around every server's RESTOptionsGetter   (NewConfig)
//	NewClosingListener     as the secure serving listener, and its   (NewConfig)
//	  WrapHandlerChain     filter around the whole chain
//	NotFoundAsStatus       around upstream's notfoundhandler         (CreateServerChain)
//
// Each departure below says what kube-apiserver does, what the chain does, why, and which test
// shows it (tests named without a place are servers/chain's).
//
// # Bad input is a 4xx, not a 500 (badrequest.go, WrapHandlerChain)
//
//   - kube-apiserver: answers 500 to a resourceVersion query parameter that is not a number on a
//     get, list or watch, and to a patch that cannot be applied to the stored object (an unknown
//     $patch directive, a list where the object has a map, a field of the wrong type for
//     server-side apply).
//   - The chain: 400 BadRequest, with the same message. Requests the aggregator proxies to a
//     remote APIService are left to that server.
//   - Why: the request is at fault, and bad input gets a 4xx Status, never a 5xx. (The third
//     such 500, an update whose metadata.resourceVersion is not a number, never arises: the
//     admission plugin NumericResourceVersion in servers/chain/admission refuses it first.)
//   - Tests: TestBadInputAs4xx (here); TestBadRequestsGetStatusErrors, FuzzWrites.
//
// # etcd's errors are Statuses (storageerrors.go, StorageErrorsAsStatus)
//
//   - kube-apiserver: hands the errors of etcd's client to the handlers as plain errors, which
//     become 500s without a reason: an object etcd refuses for its size, a deadline passed while
//     etcd was asked, a full database alike.
//   - The chain: 413 RequestEntityTooLarge for an object too large to store, 504 Timeout for a
//     deadline, 500 InternalError (a Status with its reason) for anything else of etcd's.
//   - Why: the client learns what went wrong; and "a 500 without a reason" keeps one meaning,
//     a patch that cannot be applied, which the departure above turns into a 400.
//   - Tests: TestEtcdErrorsAreStatuses; the "too large for etcd" cases of
//     TestBadRequestsGetStatusErrors.
//
// # A request that runs out of time gets its 504 (deadline.go, WrapHandlerChain)
//
//   - kube-apiserver: its timeout filter and the handlers behind it wait on the same deadline.
//     When the handler starts writing its own error first, the filter can only abort the
//     response: HTTP/1.1 loses the connection, HTTP/2 resets the stream, and the client gets no
//     answer. Under load that is the usual outcome.
//   - The chain: the servers see a deadline earlier by a tenth of the time left (at most a
//     second), so the handler has written its 504 Timeout Status while the filter still waits.
//   - Why: a timed-out request is answered, with a Status clients know to retry.
//   - Test: TestEtcdUnreachable.
//
// # An HTTP/1 request answered early keeps its connection (earlyanswer.go, WrapHandlerChain)
//
//   - kube-apiserver: a request answered before its body was read (415, 401, 403, 404, 405, 429)
//     with more than 256 KiB of body still to come loses its connection: net/http reads no
//     further, answers "Connection: close" and closes, and a client still writing its body
//     loses the answer with the connection.
//   - The chain: reads what is left of the body after the answer, up to the most a request may
//     carry (--max-request-bytes), so the connection stays open and the answer arrives.
//   - Why: clients that write the whole request before reading the answer (Python's requests
//     and urllib3) saw a reset connection instead of the error meant for them.
//   - Test: TestHTTP1EarlyAnswerKeepsConnection.
//
// # Idle connections are closed once a stopping chain has drained (listener.go, NewClosingListener)
//
//   - kube-apiserver: on shutdown, its HTTP/2 server sends GOAWAY and waits up to a second for
//     each client to close its connection; Go's HTTP/2 client keeps an idle connection open
//     after GOAWAY, so the wait runs out.
//   - The chain: once the requests in flight are answered, the listener closes each connection
//     as soon as its last answer has gone out (a filter around the whole chain tells it when
//     each connection's answers end), or after it has been quiet for a moment.
//   - Why: the chain's own loopback clients are such clients, so every stop took a second more
//     than it needs: a second per test for users of chaintest.
//   - Tests: TestClosingListenerClosesConnectionsLeftOpen, TestClosableOnceTheAnswerIsOut,
//     TestAnswersCountedByConnection (here); in cmd/chain,
//     TestGracefulShutdownDrainsRequestsAndWatches (nothing in flight is cut off).
//
// # A path no server serves is a NotFound Status (notfound.go, NotFoundAsStatus)
//
//   - kube-apiserver: the end of the delegation, k8s.io/apiserver's notfoundhandler, answers 503
//     until every server has installed its routes, then the plain text "404 page not found".
//   - The chain: the same 503; the 404 is a NotFound Status, in the media type the client asked
//     for.
//   - Why: every other error the chain answers is a Status; so is this one.
//   - Tests: TestUnknownGroupIsNotFoundStatus; TestNotFoundIs503UntilReady (the 503, kept).
package departures
