// Package pods validates the Core server's pod family: Pods (create, update, /status, /binding),
// PodTemplates, PersistentVolumes and PersistentVolumeClaims, and the pod template and claim
// spec that the workload kinds embed.
//
// It sits in the Core server of the chain: a resource.Definition (servers/core/registry/core)
// calls these functions as its Validate hooks, after the request is decoded and defaulted and
// before the object is stored; a non-empty error list becomes kube-apiserver's 422 Invalid.
// The rules, field paths, error types and messages are kube-apiserver v1.37.2's, as observed
// (test/reference), with feature gates at their v1.37 defaults. Each kind has one function
// that reads as the list of its rules, in the order of the type's fields; the generic checks come
// from servers/core/validation (rules.go).
//
// What a learner meets is covered: names, images, ports and host ports, env and envFrom, the
// downward API, resource names, quantities and requests <= limits, probes and lifecycle
// handlers, volume names, sources and mounts, restart policies, security contexts and the
// OS-specific rules, node selectors, affinity, tolerations, topology spread, DNS, host aliases,
// what a pod update may change, and the claim and volume immutability rules.
//
// Left out, on purpose:
//   - the fields of the legacy in-tree volume plugins (gcePersistentDisk, awsElasticBlockStore,
//     rbd, iscsi, cephfs, azure*, vsphere, ...): they count as a volume source but their own
//     fields are not checked; clusterTrustBundle and podCertificate projections likewise;
//   - the deprecated annotation forms of seccomp, AppArmor and tolerations;
//   - ephemeral containers beyond "cannot be set on create": Core serves no ephemeralcontainers
//     subresource, so a pod never gets any (nor the resize subresource);
//   - "ratcheting" (letting an update keep a value that older releases accepted and this one
//     rejects), except for label selectors in affinity and topology spread, where the stored
//     object's invalid label values stay allowed;
//   - alpha fields (schedulingGroup, evictionResponders): kube-apiserver drops them while their
//     gates are off.
package pods
