package core

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"sync"

	restful "github.com/emicklei/go-restful/v3"
	"k8s.io/apiserver/pkg/server/mux"
	"k8s.io/apiserver/pkg/server/routes"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/handler3"
)

// sharedV3 keeps Core's OpenAPI v3 documents for the life of the process, one set for every
// distinct Core (its routes and its v3 configuration: v3Key). Several chains in one process (a
// test binary's chaintest Environments, started one after another or side by side) have the
// same Core, so the first builds the ~50 group documents and marshals them, and the others
// serve those bytes. Building and marshalling them was the largest part of a start's CPU and
// ~15 MB of each chain's heap (docs/performance.md); a chain alone in its process (cmd/chain)
// builds them once either way.
//
// What is shared is read-only once built: kube-openapi's v3 service caches each group's JSON
// (and the protobuf it derives from that JSON) and its root document with the hashes, and
// nothing updates Core's groups after they are built. The built documents keep pointing into
// the OpenAPI definitions of the chain that built them (kube-openapi's builder shares the
// definitions' schemas with the documents), so those stay in memory as long as the process:
// bounded, one set per distinct Core.
var sharedV3 struct {
	sync.Mutex
	byKey map[uint64]*sharedV3Entry
}

type sharedV3Entry struct {
	once    sync.Once
	service *handler3.OpenAPIService
}

// openAPIV3Service returns the v3 service for Core's routes in container and config: the one
// already built for an identical Core in this process, or one built now. Chains that ask for
// the same one at once wait for the first to have built it.
func openAPIV3Service(container *restful.Container, config *common.OpenAPIV3Config) *handler3.OpenAPIService {
	key := v3Key(container.RegisteredWebServices(), config)
	sharedV3.Lock()
	e := sharedV3.byKey[key]
	if e == nil {
		if sharedV3.byKey == nil {
			sharedV3.byKey = map[uint64]*sharedV3Entry{}
		}
		e = &sharedV3Entry{}
		sharedV3.byKey[key] = e
	}
	sharedV3.Unlock()
	e.once.Do(func() {
		// k8s.io/apiserver's own build, as PrepareRun would do it; the mux it registers on is a
		// throwaway, every chain registers the service on its own.
		e.service = routes.OpenAPI{V3Config: config}.InstallV3(container, mux.NewPathRecorderMux("core-openapi-v3"))
		// The root document carries a hash of every group's document, so its first GET
		// marshals them all. The Aggregator makes that GET as soon as a chain serves, when
		// every post-start hook wants the CPU: do it now instead. The result is cached until a
		// group changes, which Core's never do.
		e.service.HandleDiscovery(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/openapi/v3", nil))
	})
	return e.service
}

// v3Key names what Core's v3 documents are built from: every route with what kube-openapi's
// builder reads of it (path, method, operation, documentation, parameters, the Go types of
// its payloads and responses, its metadata), and the configuration (its info, security and
// common responses, and which functions give the definitions, their names and the operation
// IDs). Two Cores with equal keys get the same documents. Anything printed as a pointer
// (a parameter's minimum, say) differs between chains, which only means they do not share.
// Written field by field into a hash of this process's (hash/maphash: keys are only compared
// within the process) rather than with fmt's reflection: Core has about a thousand routes,
// and this runs at every start.
func v3Key(services []*restful.WebService, config *common.OpenAPIV3Config) uint64 {
	var h maphash.Hash
	h.SetSeed(v3KeySeed)
	meta, err := json.Marshal(struct {
		Info            any
		DefaultSecurity any
		SecuritySchemes any
		CommonResponses any
		IgnorePrefixes  []string
	}{config.Info, config.DefaultSecurity, config.SecuritySchemes, config.CommonResponses, config.IgnorePrefixes})
	if err != nil {
		// Not expected (plain data); a key of its own keeps this Core from sharing.
		h.WriteString(fmt.Sprintf("unshared %p", config))
		return h.Sum64()
	}
	k := keyWriter{&h}
	k.add("config", string(meta))
	k.add(fmt.Sprintf("functions %p %p %p %p %p", config.GetDefinitions, config.GetDefinitionName,
		config.GetOperationIDAndTags, config.GetOperationIDAndTagsFromRoute, config.PostProcessSpec))
	for _, ws := range services {
		k.add("service", ws.RootPath(), ws.Documentation())
		for _, r := range ws.Routes() {
			k.add("route", r.Method, r.Path, r.Operation, r.Doc, r.Notes, strconv.FormatBool(r.Deprecated),
				typeName(r.ReadSample), typeName(r.WriteSample))
			k.add(r.Produces...)
			k.add(r.Consumes...)
			k.printed(r.Metadata, r.ExtensionProperties.Extensions)
			for _, p := range r.ParameterDocs {
				d := p.Data()
				k.add("parameter", d.Name, d.Description, d.DataType, d.DataFormat, strconv.Itoa(d.Kind),
					strconv.FormatBool(d.Required), strconv.FormatBool(d.AllowMultiple), strconv.FormatBool(d.AllowEmptyValue),
					d.DefaultValue, d.CollectionFormat, d.Pattern, strconv.FormatBool(d.UniqueItems))
				k.add(d.PossibleValues...)
				k.printed(d.AllowableValues, d.Extensions, d.Minimum, d.Maximum, d.MinLength, d.MaxLength, d.MinItems, d.MaxItems)
			}
			for _, s := range r.WriteSamples {
				k.add("writes", typeName(s))
			}
			codes := make([]int, 0, len(r.ResponseErrors))
			for code := range r.ResponseErrors {
				codes = append(codes, code)
			}
			slices.Sort(codes)
			for _, code := range codes {
				e := r.ResponseErrors[code]
				k.add("response", strconv.Itoa(code), e.Message, typeName(e.Model), strconv.FormatBool(e.IsDefault))
				k.printed(e.Headers, e.Extensions)
			}
			if d := r.DefaultResponse; d != nil {
				k.add("default response", strconv.Itoa(d.Code), d.Message, typeName(d.Model))
			}
		}
	}
	return h.Sum64()
}

var v3KeySeed = maphash.MakeSeed()

// keyWriter writes the parts of a key, each ended by a NUL so that no two lists of parts
// write the same bytes.
type keyWriter struct{ h *maphash.Hash }

func (k keyWriter) add(parts ...string) {
	for _, p := range parts {
		k.h.WriteString(p)
		k.h.WriteByte(0)
	}
}

// printed adds values as fmt prints them (maps in key order), skipping the empty ones: most
// are, and printing costs.
func (k keyWriter) printed(values ...any) {
	for _, v := range values {
		if rv := reflect.ValueOf(v); !rv.IsValid() || rv.IsZero() || (rv.Kind() == reflect.Map && rv.Len() == 0) {
			k.add("")
			continue
		}
		k.add(fmt.Sprint(v))
	}
}

func typeName(v any) string {
	if v == nil {
		return "nil"
	}
	return reflect.TypeOf(v).String()
}
