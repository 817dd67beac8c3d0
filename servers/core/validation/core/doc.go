// Package core validates the Core server's core/v1 kinds outside the pod family: ConfigMaps,
// Secrets, ServiceAccounts, Namespaces, Nodes, Services, Endpoints, Events, ResourceQuotas,
// LimitRanges and ReplicationControllers, and the events.k8s.io Events, which are core Events
// stored once and served under a second shape.
//
// It sits in the Core server of the chain: a resource.Definition (servers/core/registry/core,
// registry/events) calls these functions as its Validate hooks, after the request is decoded,
// defaulted and prepared (a Service's cluster IP allocated, a Node's podCIDR copied into
// podCIDRs) and before the object is stored; a non-empty error list becomes kube-apiserver's
// 422 Invalid. The generated declarative rules run after these (see servers/core/validation's
// doc): the ReplicationController's name, replicas and minReadySeconds are theirs, so they are
// not repeated here. Each kind has one function that reads as the list of its rules, in the
// order of the type's fields, with kube-apiserver v1.37.2's field paths, error types and
// messages, as observed (test/reference), feature gates at their v1.37 defaults. Some
// paths are kube-apiserver's own oddities, kept because clients see them: a Node's taints are
// reported under metadata.taints, a Namespace's phase under status.Phase.
//
// Left out, on purpose:
//   - the deprecated annotation forms of a Node's taints and preferAvoidPods;
//   - a Node's spec.configSource and status.config (dynamic kubelet configuration, gone since
//     1.24): the node Definition drops them unless the stored node already has them;
//   - the messages of upgrading a Service from one IP family to two or back: the chain's
//     cluster is single-stack, so only "may not change once set" and the family checks apply;
//   - reporting the same error twice where kube-apiserver runs a check twice (an events.k8s.io
//     Event whose reason changes, a LoadBalancer Service's class on update).
package core
