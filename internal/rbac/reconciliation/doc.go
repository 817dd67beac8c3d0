// Package reconciliation brings stored Roles and bindings up to an expected version without
// taking anything away: missing rules, aggregation selectors, subjects, labels and annotations
// are added, what users added stays, and an object annotated
// rbac.authorization.kubernetes.io/autoupdate=false is left alone. A binding whose roleRef
// differs is deleted and recreated (roleRef is immutable). Ported from k8s.io/component-helpers
// v0.37.2 auth/rbac/reconciliation, which kube-apiserver's rbac/bootstrap-roles hook uses; the
// clients take a context instead of context.TODO().
package reconciliation
