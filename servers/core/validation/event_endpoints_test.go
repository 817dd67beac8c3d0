package validation

// Table tests for core/v1 Event, Endpoints, EndpointSlice and Lease validation.
// Expectations follow kubernetes v1.37.2 pkg/apis/core/validation/events_test.go
// (TestValidateEventForCoreV1Events), validation_test.go (TestValidateEndpoints*),
// pkg/apis/discovery/validation/validation_test.go and
// pkg/apis/coordination/validation/validation_test.go.

import (
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestValidateEvent(t *testing.T) {
	event := func(mutate func(*v1.Event)) *v1.Event {
		e := &v1.Event{
			ObjectMeta:     metav1.ObjectMeta{Name: "ev", Namespace: "default"},
			InvolvedObject: v1.ObjectReference{Kind: "Pod", Name: "p", Namespace: "default"},
			Reason:         "R",
			Message:        "M",
		}
		if mutate != nil {
			mutate(e)
		}
		return e
	}
	eventTime := metav1.NewMicroTime(time.Now())
	cases := []struct {
		name string
		obj  *v1.Event
		want []string
	}{
		{"valid legacy event", event(nil), nil},
		{"namespace mismatch", event(func(e *v1.Event) { e.InvolvedObject.Namespace = "other" }), []string{`involvedObject.namespace: Invalid value: "other": does not match event.namespace`}},
		{"cluster-scoped object in default namespace", event(func(e *v1.Event) { e.InvolvedObject.Namespace = "" }), nil},
		{"cluster-scoped object in another namespace", event(func(e *v1.Event) { e.InvolvedObject.Namespace = ""; e.Namespace = "kube-system" }), []string{`involvedObject.namespace: Invalid value: "": does not match event.namespace`}},
		// Upstream also runs ValidateQualifiedName on the empty reportingComponent.
		{"new-style event missing reporting fields", event(func(e *v1.Event) { e.EventTime = eventTime }), []string{
			`reportingComponent: Required value`,
			`reportingComponent: Invalid value: "": name part must be non-empty`,
			`reportingComponent: Invalid value: "": name part must consist of alphanumeric characters`,
			`reportingInstance: Required value`,
			`action: Required value`,
		}},
		{"new-style event", event(func(e *v1.Event) {
			e.EventTime = eventTime
			e.ReportingController = "example.com/controller"
			e.ReportingInstance = "i"
			e.Action = "A"
		}), nil},
		{"new-style event with bad values", event(func(e *v1.Event) {
			e.EventTime = eventTime
			e.ReportingController = "bad controller"
			e.ReportingInstance = strings.Repeat("i", 129)
			e.Action = "A"
			e.Message = strings.Repeat("m", 1025)
		}), []string{
			`reportingComponent: Invalid value: "bad controller": name part must consist of alphanumeric characters`,
			`reportingInstance: Invalid value: "": can have at most 128 characters`,
			`message: Invalid value: "": can have at most 1024 characters`,
		}},
	}
	for _, tc := range cases {
		expectErrorPrefixes(t, tc.name, ValidateEvent(tc.obj), tc.want)
	}
	expectErrors(t, "update", ValidateEventUpdate(event(func(e *v1.Event) { e.Message = "changed" }), event(nil)), nil)
}

func TestValidateEndpoints(t *testing.T) {
	ep := func(subsets ...v1.EndpointSubset) *v1.Endpoints {
		e := &v1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "svc", Namespace: "default", ResourceVersion: "1"}, Subsets: subsets}
		testScheme.Default(e)
		return e
	}
	cases := []struct {
		name string
		obj  *v1.Endpoints
		want []string
	}{
		{"valid", ep(v1.EndpointSubset{Addresses: []v1.EndpointAddress{{IP: "10.1.2.3", Hostname: "h", NodeName: ptr.To("n1")}}, Ports: []v1.EndpointPort{{Name: "a", Port: 80}, {Name: "b", Port: 81}}}), nil},
		{"empty subset", ep(v1.EndpointSubset{}), []string{"subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`"}},
		{"bad ip", ep(v1.EndpointSubset{Addresses: []v1.EndpointAddress{{IP: "1.2.3"}}}), []string{
			`subsets[0].addresses[0].ip: Invalid value: "1.2.3": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
			`subsets[0].addresses[0].ip: Invalid value: "1.2.3": must be a valid IP address`,
		}},
		{"loopback ip", ep(v1.EndpointSubset{NotReadyAddresses: []v1.EndpointAddress{{IP: "127.0.0.1"}}}), []string{
			`subsets[0].notReadyAddresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
		}},
		{"ports need names when several", ep(v1.EndpointSubset{Addresses: []v1.EndpointAddress{{IP: "10.1.2.3"}}, Ports: []v1.EndpointPort{{Port: 80}, {Name: "b", Port: 0, Protocol: "HTTP"}}}), []string{
			`subsets[0].ports[0].name: Required value`,
			`subsets[0].ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive`,
			`subsets[0].ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`,
		}},
	}
	for _, tc := range cases {
		expectErrorPrefixes(t, tc.name, ValidateEndpoints(tc.obj), tc.want)
	}
	// Unchanged invalid subsets are tolerated on update.
	old := ep(v1.EndpointSubset{})
	expectErrors(t, "unchanged invalid subsets", ValidateEndpointsUpdate(old.DeepCopy(), old), nil)
}

func TestValidateEndpointSlice(t *testing.T) {
	es := func(mutate func(*discoveryv1.EndpointSlice)) *discoveryv1.EndpointSlice {
		e := &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Name: "es", Namespace: "default", ResourceVersion: "1"},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.9"}}},
			Ports:       []discoveryv1.EndpointPort{{Port: ptr.To[int32](80)}},
		}
		if mutate != nil {
			mutate(e)
		}
		testScheme.Default(e)
		return e
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = "10.0.0.1"
	}
	cases := []struct {
		name string
		obj  *discoveryv1.EndpointSlice
		want []string
	}{
		{"valid", es(nil), nil},
		{"fqdn", es(func(e *discoveryv1.EndpointSlice) {
			e.AddressType = discoveryv1.AddressTypeFQDN
			e.Endpoints[0].Addresses = []string{"example.com"}
		}), nil},
		// Handwritten "Required value" is covered by the beta declarative rule, so the
		// declarative error replaces it (and is appended after the handwritten ones).
		{"missing address type", es(func(e *discoveryv1.EndpointSlice) { e.AddressType = "" }), []string{`addressType: Required value`}},
		{"unsupported address type", es(func(e *discoveryv1.EndpointSlice) { e.AddressType = "IP" }), []string{
			`addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"`,
		}},
		{"no addresses, declarative error last", es(func(e *discoveryv1.EndpointSlice) {
			e.Endpoints[0].Addresses = nil
			e.Ports[0].Name = ptr.To("Bad_Name")
		}), []string{
			`ports[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of`,
			`endpoints[0].addresses: Required value`,
		}},
		{"too many addresses", es(func(e *discoveryv1.EndpointSlice) { e.Endpoints[0].Addresses = many }), []string{
			`endpoints[0].addresses: Too many: 101: must have at most 100 items`,
		}},
		{"ipv6 address in ipv4 slice", es(func(e *discoveryv1.EndpointSlice) { e.Endpoints[0].Addresses = []string{"fd00::1"} }), []string{
			`endpoints[0].addresses: Invalid value: "fd00::1": must be an IPv4 address`,
		}},
		{"duplicate port names and bad protocol", es(func(e *discoveryv1.EndpointSlice) {
			e.Ports = []discoveryv1.EndpointPort{{Name: ptr.To("a")}, {Name: ptr.To("a"), Protocol: ptr.To(v1.Protocol("HTTP"))}}
		}), []string{
			`ports[1].name: Duplicate value: "a"`,
			`ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`,
		}},
		{"bad hints", es(func(e *discoveryv1.EndpointSlice) {
			e.Endpoints[0].Hints = &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: "a"}, {Name: "a"}}}
		}), []string{`endpoints[0].hints.forZones[1].name: Duplicate value: "a"`}},
	}
	for _, tc := range cases {
		expectErrorPrefixes(t, tc.name, withDeclarative(t, tc.obj, nil, ValidateEndpointSlice(tc.obj)), tc.want)
	}

	old := es(nil)
	changed := es(func(e *discoveryv1.EndpointSlice) {
		e.AddressType = discoveryv1.AddressTypeIPv6
		e.Endpoints[0].Addresses = []string{"fd00::1"}
	})
	// The handwritten immutability error is covered by the beta declarative rule
	// (validate.Immutable), which reports no value.
	expectErrors(t, "address type is immutable", withDeclarative(t, changed, old, ValidateEndpointSliceUpdate(changed, old)), []string{`addressType: Invalid value: null: field is immutable`})

	// Unchanged invalid endpoints are tolerated on update (handwritten and declarative).
	invalid := es(func(e *discoveryv1.EndpointSlice) { e.Endpoints[0].Addresses = nil })
	expectErrors(t, "unchanged invalid endpoints", withDeclarative(t, invalid.DeepCopy(), invalid, ValidateEndpointSliceUpdate(invalid.DeepCopy(), invalid)), nil)
}

func TestValidateLease(t *testing.T) {
	lease := func(spec coordinationv1.LeaseSpec) *coordinationv1.Lease {
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l", Namespace: "default", ResourceVersion: "1"}, Spec: spec}
	}
	strategy := coordinationv1.CoordinatedLeaseStrategy("OldestEmulationVersion")
	cases := []struct {
		name string
		obj  *coordinationv1.Lease
		want []string
	}{
		{"valid", lease(coordinationv1.LeaseSpec{HolderIdentity: ptr.To("me"), LeaseDurationSeconds: ptr.To[int32](10)}), nil},
		{"bad durations", lease(coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr.To[int32](0), LeaseTransitions: ptr.To[int32](-1)}), []string{
			`spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0`,
			`spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0`,
		}},
		{"strategy", lease(coordinationv1.LeaseSpec{Strategy: &strategy}), nil},
		{"unknown strategy", lease(coordinationv1.LeaseSpec{Strategy: ptr.To(coordinationv1.CoordinatedLeaseStrategy("foo"))}), []string{
			`spec.strategy.strategy: Unsupported value: "foo": supported values: "OldestEmulationVersion"`,
		}},
		{"custom strategy", lease(coordinationv1.LeaseSpec{Strategy: ptr.To(coordinationv1.CoordinatedLeaseStrategy("example.com/foo"))}), nil},
		{"preferred holder without strategy", lease(coordinationv1.LeaseSpec{PreferredHolder: ptr.To("x")}), []string{
			"spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined",
		}},
	}
	for _, tc := range cases {
		expectErrorPrefixes(t, tc.name, ValidateLease(tc.obj), tc.want)
	}
	old := lease(coordinationv1.LeaseSpec{})
	renamed := old.DeepCopy()
	renamed.Name = "m"
	expectErrors(t, "rename", ValidateLeaseUpdate(renamed, old), []string{`metadata.name: Invalid value: "m": field is immutable`})
}
