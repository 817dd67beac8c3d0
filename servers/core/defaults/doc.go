// Package defaults holds the defaulting rules that kube-apiserver applies to
// built-in resources, ported for this project's Core server.
//
// It sits inside the Core server of the chain: the Core server serves the
// kube-apiserver built-in kinds (core/v1, discovery/v1, coordination/v1,
// apps/v1, batch/v1) directly as the k8s.io/api v1 Go types, so there is no
// internal version and no conversion step. The rules here are ported from
// kubernetes v1.37.2 pkg/apis/core/v1/defaults.go, pkg/apis/discovery/v1/defaults.go,
// pkg/apis/apps/v1/defaults.go and pkg/apis/batch/v1/defaults.go, and the
// generated zz_generated.defaults.go files next to them, which decide which
// SetDefaults_* function applies to which nested field of each top-level kind
// (including the declarative "+default" tags that only exist in generated code).
//
// RegisterDefaults installs SetObjectDefaults_<Kind> for every covered kind
// (and its List) into a runtime.Scheme, exactly like the generated
// RegisterDefaults functions upstream, so scheme.Default(obj) behaves like
// kube-apiserver's decoding path.
//
// Feature gates that upstream defaulting consults are fixed at their v1.37
// default value (see the comment at each use). Defaulting that kube-apiserver
// performs elsewhere (admission plugins, registry strategies such as
// PrepareForCreate, IP/port allocation) is deliberately not part of this package.
package defaults
