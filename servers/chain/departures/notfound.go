package departures

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapifilters "k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// NotFoundAsStatus is upstream's notfoundhandler (starting), whose 404 is the plain text "404
// page not found", answering the 404 as a NotFound Status instead, as every other error of the
// chain is. Until every server has installed its routes, starting answers (503: try again).
func NotFoundAsStatus(starting http.Handler, s runtime.NegotiatedSerializer) http.Handler {
	return notFoundStatus{serializer: s, starting: starting}
}

type notFoundStatus struct {
	serializer runtime.NegotiatedSerializer
	starting   http.Handler
}

func (h notFoundStatus) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !genericapifilters.NoMuxAndDiscoveryIncompleteKey(r.Context()) {
		h.starting.ServeHTTP(w, r) // 503: try again
		return
	}
	gv, verb, gr, name := schema.GroupVersion{}, "get", schema.GroupResource{}, ""
	if info, ok := request.RequestInfoFrom(r.Context()); ok {
		gv = schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}
		verb, gr, name = info.Verb, schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}, info.Name
	}
	err := apierrors.NewGenericServerResponse(http.StatusNotFound, verb, gr, name, "", 0, false)
	responsewriters.ErrorNegotiated(err, h.serializer, gv, w, r)
}
