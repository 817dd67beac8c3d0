// Package admission holds the chain's versions of kube-apiserver's own admission plugins
// (deciding what kubernetes plugin/pkg/admission/... decide, with kube-apiserver's messages)
// and the wiring that kube-apiserver adds to k8s.io/apiserver's admission options
// (pkg/controlplane/apiserver/admission): the webhook plugin initializer with the chain's
// service resolver and dialer, and the list of resources that webhooks and policies never see.
//
// It sits in servers/chain, not servers/core: admission runs on the one generic configuration
// all three servers share (servers/chain/config.go applyAdmission), and the plugins work
// through clients and shared informers, never through storage, so they belong with the
// composition root rather than inside the Core server.
//
// The plugins see objects as the k8s.io/api v1 types, which is what the chain keeps in memory
// (servers/core/resource), where upstream sees kube's internal types.
package admission
