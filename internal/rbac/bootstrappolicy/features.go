package bootstrappolicy

// featureGates are the feature gates the bootstrap policy consults, fixed at their defaults in
// kube-apiserver v1.37.2 (kubernetes pkg/features/kube_features.go; component-base zpages). The
// chain has no feature-gate flags for these: the policy is the one a default v1.37.2 cluster has.
var featureGates = map[string]bool{
	"APIServerIdentity":                                true,  // beta
	"ClusterTrustBundle":                               true,  // GA
	"ComponentFlagz":                                   true,  // beta
	"ComponentStatusz":                                 true,  // beta
	"CompositePodGroup":                                false, // alpha
	"CSIVolumeHealth":                                  false, // alpha
	"DRADeviceTaintRules":                              true,  // GA
	"DRADeviceTaints":                                  true,  // GA
	"DRAExtendedResource":                              true,  // GA
	"DRAResourceClaimGranularStatusAuthorization":      true,  // beta
	"DRAResourcePoolStatus":                            false, // alpha
	"DRAWorkloadResourceClaims":                        false, // beta, off
	"DynamicResourceAllocation":                        true,  // GA
	"EvictionRequestAPI":                               false, // alpha
	"GenericWorkload":                                  false, // beta, off
	"KubeletFineGrainedAuthz":                          true,  // GA
	"KubeletServiceAccountTokenForCredentialProviders": true,  // beta
	"MultiCIDRServiceAllocator":                        true,  // GA
	"PodCertificateRequest":                            true,  // GA
	"SELinuxChangePolicy":                              true,  // GA
	"StorageVersionAPI":                                false, // alpha
	"StorageVersionMigrator":                           true,  // GA
	"VolumeAttributesClass":                            true,  // GA
	"WorkloadWithJob":                                  false, // alpha
}

// enabled reports a gate's v1.37.2 default; a gate missing from the table is a porting mistake.
func enabled(name string) bool {
	on, ok := featureGates[name]
	if !ok {
		panic("bootstrappolicy: unknown feature gate " + name)
	}
	return on
}
