// Package validation holds the rule helpers (rules.go) that Core's handwritten validation is
// written with; the rules themselves are in one package per API group beneath it (core, pods,
// apps, batch, autoscaling, networking, policy, rbac, storage, scheduling, certificates,
// admissionregistration, authorization, coordination, discovery, node, flowcontrol, resource,
// storagemigration), and the generated ones in declarative/.
//
// It sits inside the Core server of the chain, which serves kube-apiserver's built-in kinds
// directly as the k8s.io/api v1 Go types (no internal version). Each group package's exported
// functions are wired into the resource Definitions one to one (servers/core/registry/<group>),
// each returning what kube-apiserver v1.37.2's strategy method returns:
//
//	ValidateXxx(obj)                 strategy.Validate (create)
//	ValidateXxxUpdate(new, old)      strategy.ValidateUpdate
//	ValidateXxxStatusUpdate(new,old) status strategy.ValidateUpdate
//
// They were written here from kube-apiserver's observed answers (the validation corpus and the
// messages in test/reference), not from its source; validationtest runs the
// corpus through each package, and test/core/compare's TestValidationCorpus through a running chain.
//
// The rules keep kube-apiserver's field paths, error types, messages and order. Feature gates
// that they consult are fixed at their v1.37 defaults; the comment at each use says which.
//
// # How a request is validated in Core
//
// k8s.io/apiserver validates a create or update (rest.BeforeCreate, rest.BeforeUpdate) in
// three steps, the same as in kube-apiserver:
//
//  1. Ours: the Definition's Validate, ValidateUpdate or ValidateStatusUpdate, that is the
//     functions of the group packages. (On update the apiserver first checks the fields every object
//     has, such as metadata.uid; on create it checks the generic metadata after our rules, and
//     only when they found nothing.)
//  2. Generated: the object is converted to the request's group version (autoscaling/v1 Scale
//     for every /scale) and the declarative rules of that type run: the code validation-gen
//     writes from k8s.io/api's +k8s: tags into servers/core/validation/declarative/<group><version>,
//     registered on Core's scheme. Every strategy of Core opts in (servers/core/resource/strategy.go
//     embeds rest.DeclarativeValidation), as every built-in strategy of kube-apiserver does.
//  3. Merged: rest.ValidateDeclarativelyWithMigrationChecks keeps our errors, drops those marked
//     MarkCoveredByDeclarative() that an enforced +k8s:beta error matches (same type, field and
//     origin), and appends the enforced declarative errors after ours. A declarative rule is
//     enforced when it has no stability prefix, or is +k8s:beta (DeclarativeValidationBeta is on
//     in v1.37); a +k8s:alpha rule runs but is never shown, only logged when it disagrees with
//     ours.
//
// So a handwritten rule:
//   - must not emit what an enforced declarative rule without prefix reports: nothing drops it,
//     and the client would see the error twice;
//   - may emit what a +k8s:beta rule reports only marked MarkCoveredByDeclarative(), with the
//     declarative error's type, field and origin (WithOrigin("minimum"), ("immutable")...): it is
//     then dropped, and the generated error, with its own message, comes after ours;
//   - must emit what a +k8s:alpha rule would report, since the generated error is never shown;
//     marking it MarkCoveredByDeclarative() (and MarkAlpha()) keeps the mismatch log quiet.
//
// Enforced in v1.37, for the kinds Core serves (all +k8s:beta unless said):
//   - ReplicationController: metadata.name a DNS subdomain; spec.replicas required, minimum 0;
//     spec.minReadySeconds minimum 0.
//   - Scale (every /scale): spec.replicas minimum 0.
//   - HorizontalPodAutoscaler: spec.minReplicas minimum 0 (HPAScaleToZero on); spec.maxReplicas
//     required, minimum 1.
//   - CronJob: spec.schedule required.
//   - CertificateSigningRequest: status.conditions hold at most one of Approved and Denied.
//   - EndpointSlice: addressType required, one of FQDN/IPv4/IPv6, immutable;
//     endpoints[*].addresses required, at most 100.
//   - NetworkPolicy: ipBlock.cidr of every ingress and egress peer required.
//   - IngressClass: spec.parameters.kind and .name required.
//   - Role, ClusterRole: rules[*].verbs required. RoleBinding, ClusterRoleBinding: roleRef.name
//     and subjects[*].name required.
//   - ValidatingAdmissionPolicyBinding: spec.policyName and spec.validationActions required.
//   - StorageClass: provisioner required and immutable; parameters, reclaimPolicy and
//     volumeBindingMode immutable.
//   - resource.k8s.io (DeviceClass, DeviceTaintRule, ResourceClaim, ResourceClaimTemplate,
//     ResourceSlice): most required fields, name formats, enums, list sizes and uniqueness, a
//     device attribute's single value, a claim's immutable spec and allocation; the package's
//     doc (resource) says which rules stay ours.
//   - VolumeAttachment: spec immutable; spec.attacher required, a DNS subdomain in any case,
//     at most 63 characters.
//   - IPAddress: spec.parentRef required and immutable, its resource and name required.
//   - RuntimeClass: handler required, a DNS label, immutable.
//   - PriorityLevelConfiguration: spec.type required; spec.limited required for Limited and
//     forbidden otherwise, spec.exempt forbidden but for Exempt; limitResponse.type required,
//     queuing required for Queue and forbidden otherwise.
//   - Without prefix, on fields of alpha features that Core drops on write while their gate is
//     off: Pod spec.evictionResponders, status.volumeHealth and
//     status.nodeAllocatableResourceClaimStatuses; Job and CronJob spec.scheduling; Node
//     spec.podPreemptionPolicy.
//
// Shadowed (+k8s:alpha) in v1.37, so ours must report them:
//   - every kind's metadata: creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds
//     and uid immutable; generation minimum 0; ownerReferences[*] apiVersion, kind, name and
//     uid required; managedFields[*].operation required, Apply or Update;
//   - metav1.Condition lists (PodDisruptionBudget, ValidatingAdmissionPolicy status): type,
//     status, reason and lastTransitionTime required, unique types;
//   - StatefulSet: spec.selector required; selector, serviceName, podManagementPolicy and
//     volumeClaimTemplates immutable;
//   - HorizontalPodAutoscaler: scaleTargetRef (and object metric describedObject) kind and
//     name required;
//   - Job: spec.backoffLimitPerIndex required with maxFailedIndexes; Pod (and templates):
//     tolerations[*].key a label key, schedulingGroup forbidden with evictionResponders;
//   - Secret: type immutable; Node: spec.providerID may not change once set;
//     RoleBinding, ClusterRoleBinding: roleRef immutable;
//   - CSIDriver: spec.volumeLifecycleModes immutable; RuntimeClass: scheduling.tolerations
//     checked as a pod's.
//
// The generated code is the list to trust: regenerate after an upgrade and read
// zz_generated.validations.go (MarkAlpha, MarkBeta) when in doubt.
package validation
