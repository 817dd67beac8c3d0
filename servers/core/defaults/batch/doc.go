// Package batch holds kube-apiserver's defaults for batch/v1 Jobs and CronJobs.
// zz_generated.defaults.go (defaulter-gen, see package core) calls them and then defaults each
// pod template with package core's functions. A CronJob's job template gets only those nested
// defaults, never SetDefaults_Job: the Job gets its own when the CronJob controller creates it.
//
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen-input=k8s.io/api/batch/v1
package batch
