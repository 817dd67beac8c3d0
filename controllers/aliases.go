package controllers

// Canonical is the controller --controllers means by name. kube-controller-manager's
// controllers had shorter names ("deployment", "replicaset", …) before each got its
// "-controller" one; its --controllers still accepts the old names as aliases, and so does the
// chain's.
func Canonical(name string) string {
	aliases := map[string]string{
		"namespace":               Namespace,
		"garbagecollector":        GarbageCollector,
		"serviceaccount":          ServiceAccount,
		"root-ca-cert-publisher":  RootCACertificatePublisher,
		"clusterrole-aggregation": ClusterRoleAggregation,
		"deployment":              Deployment,
		"replicaset":              ReplicaSet,
		"replicationcontroller":   ReplicationController,
		"job":                     Job,
		"ttl-after-finished":      TTLAfterFinished,
		"statefulset":             StatefulSet,
		"daemonset":               DaemonSet,
		"cronjob":                 CronJob,
		"nodelifecycle":           NodeLifecycle,
	}
	if canonical, ok := aliases[name]; ok {
		return canonical
	}
	return name
}
