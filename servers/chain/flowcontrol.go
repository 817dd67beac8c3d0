package chain

import (
	genericapiserver "k8s.io/apiserver/pkg/server"
	utilflowcontrol "k8s.io/apiserver/pkg/util/flowcontrol"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
)

// applyFlowControl puts API Priority and Fairness at the head of the chain, as kube-apiserver
// does with its default --enable-priority-and-fairness (k8s.io/apiserver's
// FeatureOptions.ApplyTo): the generic configuration's FlowControl is k8s.io/apiserver's
// configuration controller, and everything else follows from the library:
//
//   - DefaultBuildHandlerChain puts the APF filter (WithPriorityAndFairness) where it would put
//     the max-in-flight limit: after authentication, audit and impersonation, before
//     authorization. Only the head's filter chain runs, so every request of the chain is
//     classified once, by the Aggregator's, whichever server then answers it.
//   - the filter classifies each request by the FlowSchemas (the first that matches, by
//     matchingPrecedence) into a priority level, queues it fairly among its flows, and names
//     both in the response headers X-Kubernetes-PF-FlowSchema-UID and
//     X-Kubernetes-PF-PriorityLevel-UID;
//   - the controller reads FlowSchemas and PriorityLevelConfigurations through the shared
//     informers (Core serves them) and writes each FlowSchema's Dangling condition with
//     client; it runs in the post-start hook priority-and-fairness-config-consumer, and
//     priority-and-fairness-filter keeps its watermarks;
//   - every server installs /debug/api_priority_and_fairness/dump_priority_levels, dump_queues
//     and dump_requests (the head's answer).
//
// The objects it reads are Core's to keep: the bootstrap configuration is created and kept by
// Core's post-start hook priority-and-fairness-config-producer
// (servers/core/registry/flowcontrol). Until they exist the controller works with the two
// mandatory priority levels it imagines, exempt and catch-all.
//
// The concurrency limit is kube-apiserver's: --max-requests-inflight plus
// --max-mutating-requests-inflight, 600 by default, shared among the priority levels by their
// nominal concurrency shares. The chain keeps that number although it serves on fewer cores
// than a control-plane node: the limit counts requests in flight, not CPU (most of a request's
// time is spent waiting on etcd), the three servers behind the head share one limit in
// kube-apiserver too, the servers' loopback client is exempt (system:masters), and the
// controllers, the scheduler and the kubelets are classified into the priority levels a cluster
// gives them, as their own identities (addons.go). A lower limit would only make the chain queue and reject sooner than
// the server it stands in for.
//
// With --enable-priority-and-fairness=false the two flags are max-in-flight limits instead.
func applyFlowControl(c *genericapiserver.Config, o CompletedOptions, client kubernetes.Interface, sharedInformers informers.SharedInformerFactory) {
	c.MaxRequestsInFlight = o.MaxRequestsInFlight
	c.MaxMutatingRequestsInFlight = o.MaxMutatingRequestsInFlight
	if !o.EnablePriorityAndFairness {
		return
	}
	c.FlowControl = utilflowcontrol.New(sharedInformers, client.FlowcontrolV1(), o.MaxRequestsInFlight+o.MaxMutatingRequestsInFlight)
}
