package validation

// Pod validation options, ported from kubernetes v1.37.2
// pkg/apis/core/validation/validation.go (PodValidationOptions) and
// pkg/api/pod/util.go (GetValidationOptionsFromPodSpecAndMeta), with every
// feature gate fixed at its v1.37 default:
//
//	PodDeletionCost                                beta, on   -> deletion-cost annotation validated
//	InPlacePodVerticalScaling                      GA, on     -> sidecar resizePolicy allowed
//	MatchLabelKeysInPodTopologySpread(+SelectorMerge) beta, on
//	InPlacePodLevelResourcesVerticalScaling        beta, on
//	InPlacePodVerticalScalingMemoryBackedVolumes   alpha, off
//	PodLevelResources                              beta, on
//	ContainerRestartRules                          beta, on
//	RestartAllContainersOnContainerExits           beta, on
//	ImageVolumeWithDigest                          alpha, off
//	RelaxedEnvironmentVariableValidation           GA, on
//	EnvFiles                                       beta, on
//	UserNamespacesHostNetworkSupport               alpha, off (allowed if the old pod uses it)
//	SELinuxMount                                   GA, on     -> every seLinuxChangePolicy allowed
//	TaintTolerationComparisonOperators             alpha, off (allowed if the old pod uses it)
//	ClearingNominatedNodeNameAfterBinding          beta, on
//
// The "ratcheting" options (allow on update what the old object already had)
// are computed from the old pod like upstream.

import (
	"strconv"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
)

// podValidationOptions contains the different settings for pod validation.
type podValidationOptions struct {
	AllowInvalidPodDeletionCost                             bool
	AllowInvalidLabelValueInSelector                        bool
	AllowIndivisibleHugePagesValues                         bool
	AllowInvalidTopologySpreadConstraintLabelSelector       bool
	AllowNonLocalProjectedTokenPath                         bool
	AllowNamespacedSysctlsForHostNetAndHostIPC              bool
	ResourceIsPod                                           bool
	AllowRelaxedEnvironmentVariableValidation               bool
	AllowOnlyRecursiveSELinuxChangePolicy                   bool
	PodLevelResourcesEnabled                                bool
	AllowSidecarResizePolicy                                bool
	AllowInvalidLabelValueInRequiredNodeAffinity            bool
	AllowMatchLabelKeysInPodTopologySpread                  bool
	AllowMatchLabelKeysInPodTopologySpreadSelectorMerge     bool
	OldPodViolatesMatchLabelKeysValidation                  bool
	OldPodViolatesLegacyMatchLabelKeysValidation            bool
	AllowEnvFilesValidation                                 bool
	AllowContainerRestartPolicyRules                        bool
	AllowExistingRestartContainerForNonSidecarInitContainer bool
	AllowUserNamespacesWithVolumeDevices                    bool
	AllowTaintTolerationComparisonOperators                 bool
	AllowUserNamespacesHostNetworkSupport                   bool
	AllowRestartAllContainers                               bool
	AllowImageVolumeWithDigest                              bool
	AllowEmptyImageVolumeReference                          bool
	AllowSysAdminWhenPrivilegeEscalationFalse               bool
}

// podValidationOptionsFor is GetValidationOptionsFromPodSpecAndMeta plus
// ResourceIsPod (set by the pod strategies).
func podValidationOptionsFor(podSpec, oldPodSpec *v1.PodSpec, podMeta, oldPodMeta *metav1.ObjectMeta) podValidationOptions {
	opts := podValidationOptions{
		ResourceIsPod:                                           true,
		AllowInvalidPodDeletionCost:                             false, // PodDeletionCost on
		PodLevelResourcesEnabled:                                true,
		AllowSidecarResizePolicy:                                true,
		AllowMatchLabelKeysInPodTopologySpread:                  true,
		AllowMatchLabelKeysInPodTopologySpreadSelectorMerge:     true,
		AllowContainerRestartPolicyRules:                        true,
		AllowRestartAllContainers:                               true,
		AllowImageVolumeWithDigest:                              false,
		AllowExistingRestartContainerForNonSidecarInitContainer: hasRestartContainerForNonSidecarInitContainer(oldPodSpec),
		AllowRelaxedEnvironmentVariableValidation:               true,
		AllowEnvFilesValidation:                                 true,
		AllowOnlyRecursiveSELinuxChangePolicy:                   false, // SELinuxMount GA
	}
	opts.AllowUserNamespacesHostNetworkSupport = oldPodSpec != nil && oldPodSpec.HostUsers != nil && !*oldPodSpec.HostUsers && oldPodSpec.HostNetwork
	opts.AllowTaintTolerationComparisonOperators = taintTolerationComparisonOperatorsInUse(oldPodSpec)

	if oldPodSpec != nil {
		opts.AllowIndivisibleHugePagesValues = usesIndivisibleHugePagesValues(oldPodSpec)
		opts.AllowInvalidLabelValueInSelector = hasInvalidLabelValueInAffinitySelector(oldPodSpec)
		opts.AllowInvalidLabelValueInRequiredNodeAffinity = hasInvalidLabelValueInRequiredNodeAffinity(oldPodSpec)
		opts.AllowInvalidTopologySpreadConstraintLabelSelector = hasInvalidTopologySpreadConstraintLabelSelector(oldPodSpec)
		// AllowMatchLabelKeysInPodTopologySpread and ...SelectorMerge are both on.
		opts.OldPodViolatesMatchLabelKeysValidation = hasInvalidTopologySpreadConstrainMatchLabelKeys(oldPodSpec)
		opts.AllowNonLocalProjectedTokenPath = hasNonLocalProjectedTokenPath(oldPodSpec)
		if oldPodSpec.SecurityContext != nil && len(oldPodSpec.SecurityContext.Sysctls) != 0 {
			for _, s := range oldPodSpec.SecurityContext.Sysctls {
				if err := ValidateHostSysctl(s.Name, oldPodSpec, nil); err != nil {
					opts.AllowNamespacedSysctlsForHostNetAndHostIPC = true
					break
				}
			}
		}
		opts.AllowUserNamespacesWithVolumeDevices = hasUserNamespacesWithVolumeDevices(oldPodSpec)
		opts.AllowEmptyImageVolumeReference = hasEmptyImageVolumeReference(oldPodSpec)
		opts.AllowSysAdminWhenPrivilegeEscalationFalse = useAllowSysAdminWhenPrivilegeEscalationFalse(oldPodSpec)
	}
	if oldPodMeta != nil && !opts.AllowInvalidPodDeletionCost {
		// This is an update, so validate only if the existing object was valid.
		_, err := getDeletionCostFromPodAnnotations(oldPodMeta.Annotations)
		opts.AllowInvalidPodDeletionCost = err != nil
	}
	return opts
}

// visitAllContainers calls fn for every init, regular and ephemeral container of spec.
func visitAllContainers(spec *v1.PodSpec, fn func(c *v1.Container)) {
	for i := range spec.InitContainers {
		fn(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		fn(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		fn((*v1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
}

func hasRestartContainerForNonSidecarInitContainer(spec *v1.PodSpec) bool {
	if spec == nil {
		return false
	}
	for _, c := range spec.InitContainers {
		if !isRestartableInitContainer(&c) {
			for _, p := range c.ResizePolicy {
				if p.RestartPolicy == v1.RestartContainer {
					return true
				}
			}
		}
	}
	return false
}

func taintTolerationComparisonOperatorsInUse(podSpec *v1.PodSpec) bool {
	if podSpec == nil {
		return false
	}
	for _, toleration := range podSpec.Tolerations {
		if toleration.Operator == v1.TolerationOpLt || toleration.Operator == v1.TolerationOpGt {
			return true
		}
	}
	return false
}

func usesIndivisibleHugePagesValues(podSpec *v1.PodSpec) bool {
	found := false
	visitAllContainers(podSpec, func(c *v1.Container) {
		for _, list := range []v1.ResourceList{c.Resources.Limits, c.Resources.Requests} {
			for resourceName, quantity := range list {
				if isHugePageResourceName(resourceName) && !isHugePageResourceValueDivisible(resourceName, quantity) {
					found = true
				}
			}
		}
	})
	if found {
		return true
	}
	for resourceName, quantity := range podSpec.Overhead {
		if isHugePageResourceName(resourceName) && !isHugePageResourceValueDivisible(resourceName, quantity) {
			return true
		}
	}
	return false
}

func hasInvalidLabelValueInAffinitySelector(spec *v1.PodSpec) bool {
	if spec.Affinity == nil {
		return false
	}
	var terms []v1.PodAffinityTerm
	if pa := spec.Affinity.PodAffinity; pa != nil {
		terms = append(terms, pa.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	if paa := spec.Affinity.PodAntiAffinity; paa != nil {
		terms = append(terms, paa.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range paa.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	for _, term := range terms {
		if len(ValidatePodAffinityTermSelector(term, false, nil)) != 0 {
			return true
		}
	}
	return false
}

func hasInvalidLabelValueInRequiredNodeAffinity(spec *v1.PodSpec) bool {
	if spec == nil || spec.Affinity == nil || spec.Affinity.NodeAffinity == nil ||
		spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return false
	}
	for _, term := range spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, expression := range term.MatchExpressions {
			for _, value := range expression.Values {
				if len(validation.IsValidLabelValue(value)) > 0 {
					return true
				}
			}
		}
	}
	return false
}

func hasInvalidTopologySpreadConstraintLabelSelector(spec *v1.PodSpec) bool {
	for _, constraint := range spec.TopologySpreadConstraints {
		errs := metavalidation.ValidateLabelSelector(constraint.LabelSelector, metavalidation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: false}, nil)
		if len(errs) != 0 {
			return true
		}
	}
	return false
}

func hasInvalidTopologySpreadConstrainMatchLabelKeys(spec *v1.PodSpec) bool {
	for _, constraint := range spec.TopologySpreadConstraints {
		if len(ValidateMatchLabelKeysAndMismatchLabelKeys(nil, constraint.MatchLabelKeys, nil, constraint.LabelSelector)) != 0 {
			return true
		}
	}
	return false
}

func hasNonLocalProjectedTokenPath(spec *v1.PodSpec) bool {
	for _, volume := range spec.Volumes {
		if volume.Projected != nil {
			for _, source := range volume.Projected.Sources {
				if source.ServiceAccountToken == nil {
					continue
				}
				if len(ValidateLocalNonReservedPath(source.ServiceAccountToken.Path, nil)) != 0 {
					return true
				}
			}
		}
	}
	return false
}

func hasUserNamespacesWithVolumeDevices(podSpec *v1.PodSpec) bool {
	if podSpec.HostUsers == nil || *podSpec.HostUsers {
		return false
	}
	has := false
	visitAllContainers(podSpec, func(c *v1.Container) {
		if len(c.VolumeDevices) > 0 {
			has = true
		}
	})
	return has
}

func hasEmptyImageVolumeReference(podSpec *v1.PodSpec) bool {
	for _, vol := range podSpec.Volumes {
		if vol.Image != nil && len(vol.Image.Reference) == 0 {
			return true
		}
	}
	return false
}

func useAllowSysAdminWhenPrivilegeEscalationFalse(oldPodSpec *v1.PodSpec) bool {
	found := false
	visitAllContainers(oldPodSpec, func(c *v1.Container) {
		sc := c.SecurityContext
		if sc == nil || (sc.AllowPrivilegeEscalation != nil && *sc.AllowPrivilegeEscalation) || sc.Capabilities == nil {
			return
		}
		for _, cp := range sc.Capabilities.Add {
			if string(cp) == "CAP_SYS_ADMIN" {
				found = true
			}
		}
	})
	return found
}

// getDeletionCostFromPodAnnotations is pkg/apis/core/helper.GetDeletionCostFromPodAnnotations.
func getDeletionCostFromPodAnnotations(annotations map[string]string) (int32, error) {
	if value, exist := annotations[v1.PodDeletionCost]; exist {
		// values that start with plus sign (e.g, "+10") or leading zeros (e.g., "008") are not valid.
		if !validFirstDigit(value) {
			return 0, strconv.ErrSyntax
		}

		i, err := strconv.ParseInt(value, 10, 32)
		if err != nil {
			// make sure we default to 0 on error.
			return 0, err
		}
		return int32(i), nil
	}
	return 0, nil
}

func validFirstDigit(str string) bool {
	if len(str) == 0 {
		return false
	}
	return str[0] == '-' || (str[0] == '0' && str == "0") || (str[0] >= '1' && str[0] <= '9')
}
