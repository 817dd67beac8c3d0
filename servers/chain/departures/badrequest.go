package departures

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/storage"
)

// withBadInputAs4xx answers two kinds of malformed request 4xx where kube-apiserver v1.37.2
// answers 500, from k8s.io/apiserver code the chain runs unchanged. It is a deliberate departure
// from kube-apiserver (bad input gets a 4xx Status, never a 5xx), listed in docs/reliability.md
// "Bad input":
//
//   - a resourceVersion query parameter that is not a number, on a get, list or watch
//     (kubernetes/kubernetes#139485): storage parses it and returns a storage.InvalidError, which
//     the handlers do not map to a Status, so it becomes an InternalError. Checked here before
//     any server sees the request, with storage's own parser.
//   - a patch that cannot be applied to the stored object: a strategic merge patch with an
//     unknown $patch directive or a list where the object has a map, an apply patch whose field
//     has the wrong type for the schema, and their kin. The patch libraries return plain errors
//     that the patch handler passes on as they are, so they become 500s (see servePatch).
//
// The third such 500, a metadata.resourceVersion in an update's body that is not a number, is
// headed off before it arises by the admission plugin NumericResourceVersion
// (servers/chain/admission).
//
// It wraps the head's API handler, inside authentication and authorization, and leaves alone
// requests that the aggregator proxies to a remote APIService (remote names it): their
// resourceVersions and patches are the remote server's business.
func withBadInputAs4xx(next http.Handler, s runtime.NegotiatedSerializer, remote Remote) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, ok := request.RequestInfoFrom(r.Context())
		if !ok || !info.IsResourceRequest {
			next.ServeHTTP(w, r)
			return
		}
		// remote is asked last: most requests are neither case, and need no lookup.
		gv := schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}
		if err := invalidResourceVersionParameter(info, r); err != nil && remote(r) == "" {
			responsewriters.ErrorNegotiated(err, s, gv, w, r)
			return
		}
		if r.Method == http.MethodPatch && remote(r) == "" {
			servePatch(next, s, gv, w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// invalidResourceVersionParameter is a BadRequest if r reads an object or a collection at a
// resourceVersion that storage cannot parse ("" and "0" are valid: "any" and "most recent"),
// worded as etcd3's store words the same error for a list (validateMinimumResourceVersion).
// Only get, list and watch of a resource itself read the parameter: a subresource such as
// pods/proxy passes its query on to somewhere else.
func invalidResourceVersionParameter(info *request.RequestInfo, r *http.Request) error {
	if info.Subresource != "" || (info.Verb != "get" && info.Verb != "list" && info.Verb != "watch") {
		return nil
	}
	// Most requests have no resourceVersion: do not parse their query for nothing.
	if !strings.Contains(r.URL.RawQuery, "resourceVersion=") {
		return nil
	}
	rv := r.URL.Query().Get("resourceVersion")
	if _, err := (storage.APIObjectVersioner{}).ParseResourceVersion(rv); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("invalid resource version: %v", err))
	}
	return nil
}

// servePatch serves a patch and, if the answer is a 500 that the handler made from an error
// that is not a Kubernetes Status, answers 400 BadRequest with the same message instead.
//
// Why that rule: a patch handler that fails with a plain error (its Status has no reason, and
// k8s.io/apiserver logs "apiserver received an error that is not an metav1.Status") failed
// while computing the new object from the stored one and the patch: strategicpatch's
// "unknown patch type: nope in map: ..." and "list element types are not identical: ...",
// server-side apply's "failed to create typed patch object (...): .data: expected map, got
// ...", "failed to convert new object (...)". The patch is at fault, whichever library
// found it, so the rule names no message. Storage's own failures cannot be mistaken for
// these: the chain's storage gives each a reason (storageerrors.go), and admission,
// validation and the registry answer with Statuses.
//
// This rewrites a response, which is a last resort: the error is made and written inside
// k8s.io/apiserver's patch handler, and no hook of ours (admission, the strategy, storage)
// sees the patch fail. Checking the patch beforehand would mean re-implementing three patch
// libraries; rewriting only the 500 they already answered cannot turn a request
// kube-apiserver accepts into an error. Only a 500 is held back; every other answer streams
// through untouched. The apiserver's own request metrics, recorded inside the handler, still
// count the 500; the audit log and the client see the 400.
func servePatch(next http.Handler, s runtime.NegotiatedSerializer, gv schema.GroupVersion, w http.ResponseWriter, r *http.Request) {
	held := &holdServerError{ResponseWriter: w}
	next.ServeHTTP(held, r)
	if !held.holding {
		return
	}
	if status := decodeStatus(s, w.Header(), held.body.Bytes()); status != nil && status.Reason == metav1.StatusReasonUnknown {
		w.Header().Del("Content-Encoding") // ErrorNegotiated compresses anew if it should
		responsewriters.ErrorNegotiated(apierrors.NewBadRequest(status.Message), s, gv, w, r)
		return
	}
	// A 500 with a reason (InternalError, ...) is the server's: it goes out as it was.
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write(held.body.Bytes())
}

// holdServerError passes a response through unless its code is 500, whose body it keeps.
type holdServerError struct {
	http.ResponseWriter
	holding bool
	body    bytes.Buffer
}

func (h *holdServerError) WriteHeader(code int) {
	if code == http.StatusInternalServerError {
		h.holding = true
		return
	}
	h.ResponseWriter.WriteHeader(code)
}

func (h *holdServerError) Write(b []byte) (int, error) {
	if h.holding {
		return h.body.Write(b)
	}
	return h.ResponseWriter.Write(b)
}

// decodeStatus reads the Status in body, as the header describes it (any media type the
// chain serves, gzip-compressed if large), or is nil.
func decodeStatus(s runtime.NegotiatedSerializer, header http.Header, body []byte) *metav1.Status {
	mediaType, _, err := mime.ParseMediaType(header.Get("Content-Type"))
	if err != nil {
		return nil
	}
	info, ok := runtime.SerializerInfoForMediaType(s.SupportedMediaTypes(), mediaType)
	if !ok {
		return nil
	}
	if header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil
		}
		if body, err = io.ReadAll(zr); err != nil {
			return nil
		}
	}
	status := &metav1.Status{}
	if _, _, err := info.Serializer.Decode(body, nil, status); err != nil {
		return nil
	}
	return status
}
