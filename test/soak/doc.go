// Package soak runs the chain binary for a long while under a mixed workload, disrupts it, and
// checks that nothing is lost on the way: the harness behind `go test ./test/soak -soak=60m`
// (docs/reliability.md, "An hour under load").
//
// It drives the chain as a user runs it: it starts the chain's command (cmd/chain's, run by
// the test binary itself, or a binary given with -soak.bin) as a process of its own on a data
// dir, with simulated nodes and its metrics server child, and talks to it with client-go and
// kubectl from admin.kubeconfig, on loopback only. Its parts:
//
//   - process.go: the chain process: start, SIGKILL, restart on the same data dir, the metrics
//     server child, and the figures /proc has of them.
//   - recorder.go: every request's verb, latency and answer, from a wrapper around client-go's
//     transport; connections that can be cut.
//   - model.go, workload.go: creates, updates, deletes and server-side applies of ConfigMaps,
//     Secrets, custom resources and Deployments, each acknowledged write recorded, so that the
//     stored objects can be held against what was acknowledged; paginated lists; kubectl top,
//     logs and exec.
//   - watchers.go, informers.go, views.go: raw watches and informers that check every event
//     they receive, and the comparison of what each has seen with a list at the same
//     resourceVersion.
//   - sampler.go, report.go, plot.go: figures every 10 s, the verdict, and the SVG plot.
//
// Where it sits: in test/, above everything; only its test runs it.
package soak
