package tracing

import "net/http"

// StatusRecorder notes the status code of an answer, for the span of the hop that gave it (the
// Aggregator's proxy, a kubelet). Unwrap lets http.ResponseController and k8s.io/apiserver's
// responsewriter reach what lies below it: flushing and the connection itself.
type StatusRecorder struct {
	http.ResponseWriter
	Code int
}

func (s *StatusRecorder) WriteHeader(code int) {
	if s.Code == 0 {
		s.Code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *StatusRecorder) Write(b []byte) (int, error) {
	if s.Code == 0 {
		s.Code = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *StatusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
