// Package garbagecollector is the chain's garbage-collector-controller, a port of kubernetes
// pkg/controller/garbagecollector (v1.37.2; file by file: graph.go, graph_builder.go — split here
// into graph_builder.go, graph_changes.go and graph_edges.go —, garbagecollector.go — split into
// garbagecollector.go, attempt_to_delete.go and attempt_to_orphan.go —, operations.go, patch.go,
// uid_cache.go, errors.go, metaonly/; and informerfactory.go from k8s.io/controller-manager).
// Its Prometheus metrics and debug (dot graph) handlers are left out.
//
// It follows the ownerReferences of every deletable resource the chain serves, built-in or
// custom: the GraphBuilder's monitors (a shared typed informer for a resource client-go knows, a
// metadata-only informer for any other) feed one graph of owners and dependents, and its workers
// delete the dependents of deleted owners (background), hold an owner with the foregroundDeletion
// finalizer until its blocking dependents are gone (foreground), remove a deleted owner from its
// dependents' ownerReferences before it goes (orphan), and delete objects whose owners never
// existed. Sync rereads discovery periodically and starts or stops monitors, so that resources
// of new CRDs are covered. It reaches the chain only through client-go: the metadata client for
// reads, deletions and patches.
package garbagecollector
