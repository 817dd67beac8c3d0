package defaults

// discovery/v1 follows kubernetes v1.37.2 pkg/apis/discovery/v1/defaults.go and
// zz_generated.defaults.go. coordination/v1 has no defaulting upstream
// (pkg/apis/coordination/v1/zz_generated.defaults.go registers nothing), so the
// Lease functions are documented no-ops and are not registered in the scheme.

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// SetDefaults_EndpointPort defaults the port name to "" and the protocol to TCP.
func SetDefaults_EndpointPort(obj *discoveryv1.EndpointPort) {
	// Upstream points every defaulted port at one shared package-level variable;
	// fresh values are used here so that callers can't alias each other's ports.
	if obj.Name == nil {
		defaultPortName := ""
		obj.Name = &defaultPortName
	}

	if obj.Protocol == nil {
		defaultProtocol := v1.ProtocolTCP
		obj.Protocol = &defaultProtocol
	}
}

func SetObjectDefaults_EndpointSlice(in *discoveryv1.EndpointSlice) {
	for i := range in.Ports {
		SetDefaults_EndpointPort(&in.Ports[i])
	}
}

func SetObjectDefaults_EndpointSliceList(in *discoveryv1.EndpointSliceList) {
	for i := range in.Items {
		SetObjectDefaults_EndpointSlice(&in.Items[i])
	}
}

// SetObjectDefaults_Lease is a no-op: coordination/v1 has no defaulting upstream.
func SetObjectDefaults_Lease(in *coordinationv1.Lease) {}

// SetObjectDefaults_LeaseList is a no-op: coordination/v1 has no defaulting upstream.
func SetObjectDefaults_LeaseList(in *coordinationv1.LeaseList) {}
