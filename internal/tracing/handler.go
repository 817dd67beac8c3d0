package tracing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The ring's URLs on the chain's listener: non-resource URLs, behind the chain's authentication
// and authorization like any other (RBAC: get on TracesPath, post on OTLPPath).
const (
	PathPrefix = "/debug/apichain/"
	// TracesPath serves the ring: GET answers a JSON array of the traces kept, oldest first
	// (?since=<seq>: those numbered after seq); ?follow=true answers a stream of one JSON
	// trace a line, each as it completes, until the client goes or the chain stops.
	TracesPath = PathPrefix + "traces"
	// OTLPPath receives the spans of other processes: OTLP/HTTP, protobuf (OTLPHandler).
	OTLPPath = PathPrefix + "otlp/v1/traces"
)

var errClosed = errors.New("the ring is closed")

// Following says r asks to follow the ring: a request that lasts as long as its client, which
// the chain's request timeout must not cut (the chain's LongRunningFunc).
func Following(r *http.Request) bool {
	return r.URL.Path == TracesPath && r.URL.Query().Get("follow") == "true"
}

// TracesHandler serves the ring at TracesPath. A follower's stream ends when its client goes or
// stop is closed (the chain closes it as it shuts down). It answers 404 without a ring.
func TracesHandler(ring *Ring, stop <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if ring == nil {
			writeStatus(w, notRecording())
			return
		}
		if req.Method != http.MethodGet {
			writeStatus(w, methodNotAllowed(req.Method, http.MethodGet))
			return
		}
		q := req.URL.Query()
		var since uint64
		if s := q.Get("since"); s != "" {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				writeStatus(w, badRequest(fmt.Sprintf("since=%q: must be a trace's seq, a whole number", s)))
				return
			}
			since = n
		}
		follow := false
		if f := q.Get("follow"); f != "" {
			b, err := strconv.ParseBool(f)
			if err != nil {
				writeStatus(w, badRequest(fmt.Sprintf("follow=%q: must be true or false", f)))
				return
			}
			follow = b
		}
		w.Header().Set("Content-Type", "application/json")
		if !follow {
			traces := ring.Since(since)
			if traces == nil {
				traces = []*Trace{}
			}
			_ = json.NewEncoder(w).Encode(traces)
			return
		}
		followRing(w, req, ring, since, q.Has("since"), stop)
	})
}

// followRing writes the traces after since (or, without since, those to come), one a line,
// flushed, until the client goes or stop closes.
func followRing(w http.ResponseWriter, req *http.Request, ring *Ring, since uint64, hasSince bool, stop <-chan struct{}) {
	flusher, _ := w.(http.Flusher)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	if !hasSince {
		if traces := ring.Since(0); len(traces) > 0 {
			since = traces[len(traces)-1].Seq
		}
	}
	w.WriteHeader(http.StatusOK)
	flush() // the client knows the stream is open before the first trace
	enc := json.NewEncoder(w)
	for {
		traces, err := ring.Wait(ctx, since)
		if err != nil {
			return
		}
		for _, t := range traces {
			if err := enc.Encode(t); err != nil {
				return
			}
			since = t.Seq
		}
		flush()
	}
}

// The chain's answers are Kubernetes Statuses, as any of its errors.
func writeStatus(w http.ResponseWriter, err *apierrors.StatusError) {
	status := err.Status()
	status.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(status.Code))
	_ = json.NewEncoder(w).Encode(status)
}

func statusError(code int, reason metav1.StatusReason, msg string) *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: int32(code), Reason: reason, Message: msg}}
}

func notRecording() *apierrors.StatusError {
	return statusError(http.StatusNotFound, metav1.StatusReasonNotFound, "this chain keeps no traces: it runs with --record-traces=false")
}

func badRequest(msg string) *apierrors.StatusError {
	return statusError(http.StatusBadRequest, metav1.StatusReasonBadRequest, msg)
}

func methodNotAllowed(method, allowed string) *apierrors.StatusError {
	return statusError(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, fmt.Sprintf("%s is not supported here, only %s", method, allowed))
}

func unsupportedMediaType(ct string) *apierrors.StatusError {
	return statusError(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
		fmt.Sprintf("the content type %q is not supported: OTLP/HTTP in protobuf (application/x-protobuf) only", ct))
}

func requestTooLarge(limit int) *apierrors.StatusError {
	return statusError(http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
		fmt.Sprintf("an OTLP request may hold at most %d bytes", limit))
}
