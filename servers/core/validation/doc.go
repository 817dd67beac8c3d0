// Package validation holds the validation rules that kube-apiserver applies to
// built-in resources, ported for this project's Core server.
//
// It sits inside the Core server of the chain, which serves kube-apiserver's
// built-in kinds directly as the k8s.io/api v1 Go types (no internal version).
// The rules are ported from kubernetes v1.37.2 pkg/apis/core/validation
// (validation.go, events.go), pkg/apis/discovery/validation and
// pkg/apis/coordination/validation, rewritten against the v1 types, keeping
// upstream's field paths, error types, messages and error order. Where the
// registry strategy of a kind embeds rest.DeclarativeValidation (EndpointSlice),
// the declarative rules that v1.37 enforces are run too and merged the way
// rest.ValidateDeclarativelyWithMigrationChecks does.
//
// The exported functions are meant to be wired into registry strategies one to
// one. Each returns what the kube-apiserver v1.37.2 strategy method returns:
//
//	ValidateXxx(obj)                 strategy.Validate (create)
//	ValidateXxxUpdate(new, old)      strategy.ValidateUpdate
//	ValidateXxxStatusUpdate(new,old) status strategy.ValidateUpdate
//
// so, for example, ValidateNodeUpdate includes ValidateNode(new) because the
// node strategy runs both. The generic checks that k8s.io/apiserver adds itself
// (rest.ValidateCreate's name path-segment check, rest.ValidateUpdate's UID
// check) are not repeated here.
//
// Feature gates that upstream validation consults are fixed at their v1.37
// default values; the comment at each use says which.
package validation
