// Package scale measures the chain at the size of a large simulated cluster: N nodes and M pods,
// created by a client-go program as kwok's users create them, timed until the nodes are Ready
// and the pods Running, with the CPU and memory the server spends on them. The same workload
// runs against the reference, kube-apiserver v1.37.2 + etcd with kwok v0.8.0 playing the
// nodes, where it is built (test/anchor), and the figures are reported side by side:
// `go test ./test/scale -run '^$' -bench Scale -benchtime 1x -scale.nodes=1000 -scale.pods=30000`
// (docs/performance.md, "Scale").
//
// Its parts:
//   - workload.go: the workload, the same on either side, and the figures it reads;
//   - proc.go: a server's CPU time and resident memory, from /proc;
//   - kwok.go: kwok as kwokctl runs it (its default stages, nodes selected by its annotation);
//   - profiles.go: the chain's CPU and heap profiles over the steps (-scale.profiles).
//
// Where it sits: in test/, above everything; it drives the chain's binary from outside, as a
// user runs it (test/soak starts it), and only its benchmark and smoke test use it.
package scale
