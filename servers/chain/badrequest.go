package chain

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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/storage"
)

// withBadInputAs4xx answers two kinds of malformed request 400 BadRequest where kube-apiserver
// v1.37.2 answers 500, from k8s.io/apiserver code the chain runs unchanged. It is a deliberate
// departure from kube-apiserver (issue 8: bad input gets a 4xx, never a 5xx), listed in
// docs/reliability.md "Bad input":
//
//   - a resourceVersion query parameter that is not a number, on a get, list or watch
//     (kubernetes/kubernetes#139485): storage parses it and returns a storage.InvalidError, which
//     the handlers do not map to a Status, so it becomes an InternalError. Checked here before
//     any server sees the request, with storage's own parser.
//   - an unknown $patch directive in a strategic merge patch: strategicpatch returns a plain
//     error ("unknown patch type: ...") that handlers/patch.go's interpretStrategicMergePatchError
//     passes on as is. It arises inside the patch handler, where nothing of ours runs, so the 500
//     is rewritten on its way out (see serveStrategicMergePatch).
//
// The third such 500, a metadata.resourceVersion in an update's body that is not a number, is
// headed off before it arises by the admission plugin NumericResourceVersion
// (servers/chain/admission).
//
// It wraps the head's API handler, inside authentication and authorization, and leaves alone
// requests that the aggregator proxies to a remote APIService (remote names it): their
// resourceVersions and patches are the remote server's business.
func withBadInputAs4xx(next http.Handler, s runtime.NegotiatedSerializer, remote func(*http.Request) string) http.Handler {
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
		if r.Method == http.MethodPatch && isStrategicMergePatch(r) && remote(r) == "" {
			serveStrategicMergePatch(next, s, gv, w, r)
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

func isStrategicMergePatch(r *http.Request) bool {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mediaType == string(types.StrategicMergePatchType)
}

// unknownDirective starts the message of strategicpatch's error for an unknown $patch directive
// (k8s.io/apimachinery pkg/util/mergepatch ErrBadPatchType).
const unknownDirective = "unknown patch type: "

// serveStrategicMergePatch serves a strategic merge patch and, if the answer is the 500 of an
// unknown $patch directive, answers 400 BadRequest with the same message instead.
//
// This rewrites a response, which is a last resort: the error is made and written inside
// k8s.io/apiserver's patch handler, and no hook of ours (admission, the strategy, storage)
// runs between the two. Checking the patch beforehand would mean re-implementing where
// strategicpatch reads a directive; rewriting only the 500 it already answered cannot turn a
// request kube-apiserver accepts into an error. Only a 500 is held back; every other answer
// streams through untouched. The apiserver's own request metrics, recorded inside the
// handler, still count the 500; the audit log and the client see the 400.
func serveStrategicMergePatch(next http.Handler, s runtime.NegotiatedSerializer, gv schema.GroupVersion, w http.ResponseWriter, r *http.Request) {
	held := &holdServerError{ResponseWriter: w}
	next.ServeHTTP(held, r)
	if !held.holding {
		return
	}
	if status := decodeStatus(s, w.Header(), held.body.Bytes()); status != nil && strings.HasPrefix(status.Message, unknownDirective) {
		w.Header().Del("Content-Encoding") // ErrorNegotiated compresses anew if it should
		responsewriters.ErrorNegotiated(apierrors.NewBadRequest(status.Message), s, gv, w, r)
		return
	}
	// Any other 500 goes out as it was.
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
