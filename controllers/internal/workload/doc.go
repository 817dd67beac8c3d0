// Package workload is what the chain's workload controllers (deployment, replicaset, job,
// statefulset, daemonset, cronjob) share beyond the loop they all run on
// (controllers/internal/loop): claiming dependents through controller references and the event
// handler that queues their owners (claim.go, handlers.go), making pods from a template and
// creating or deleting them in batches (pods.go, control.go), the order in which a scale-down
// picks pods, remembering writes the informers have not shown yet (expect.go), and the
// ControllerRevisions that record a template's versions (history.go).
package workload
