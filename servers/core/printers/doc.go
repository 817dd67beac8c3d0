// Package printers sits inside the Core server of the chain and gives each
// built-in resource kube-apiserver's `kubectl get` columns: the Table that a
// client receives when it asks for `application/json;as=Table;g=meta.k8s.io`.
//
// It is ported from kubernetes pkg/printers/internalversion (printers.go), with
// the Table assembly of pkg/printers/tablegenerator.go and
// pkg/printers/storage/storage.go, and the default convertor of
// k8s.io/apiserver/pkg/registry/rest/table.go for the resources that
// kube-apiserver serves without a dedicated printer (Role, ClusterRole,
// LimitRange). Unlike upstream, it works on the k8s.io/api v1 types directly:
// there are no internal types in this project.
//
// Each resource has one exported Printer value named after its Kind (for
// example Pod, Deployment, EventsV1Event). A Printer is a
// k8s.io/apiserver/pkg/registry/rest.TableConvertor.
package printers
