// Package defaults is where Core's defaulting comes from: kube-apiserver's defaults for every
// built-in kind the Core server serves. The chain's Core keeps objects as the k8s.io/api v1
// types, with no internal version, so the defaults apply to those types directly: the
// apiserver's decoder calls scheme.Default on every object it decodes from a request body or
// from query parameters, before admission and validation.
//
// Each API group has a package here (core, apps, batch, ...) with one hand-written
// SetDefaults_<Type> function per type that has defaults of its own, written from what
// kube-apiserver v1.37.2 answers (reference_test.go compares with its answers, in testdata).
// defaulter-gen, from k8s.io/code-generator, writes each package's zz_generated.defaults.go:
// SetObjectDefaults_<Kind> functions that walk a kind down to its nested types, call those
// functions where they apply and fill the `+default=` markers of k8s.io/api's types, and
// RegisterDefaults, which puts them on a scheme. Regenerate after adding or removing a
// SetDefaults_ function (a test fails while a generated file is stale):
//
//	go generate ./servers/core/defaults
//
// Not here: what kube-apiserver sets outside defaulting, in admission plugins (default
// tolerations, priority, the storage-protection finalizers), in registry strategies (a pod's
// QoS class, a namespace's finalizer, a Job's selector) and in allocators (cluster IPs, node
// ports). Those are in servers/chain/admission and servers/core/registry.
package defaults

//go:generate go tool defaulter-gen --output-file zz_generated.defaults.go --go-header-file ../../../hack/boilerplate.go.txt --extra-peer-dirs github.com/apichain/apichain/servers/core/defaults/core ./core ./apps ./batch ./discovery ./admissionregistration ./networking ./storage ./scheduling ./autoscaling ./rbac ./flowcontrol ./resource ./certificates
