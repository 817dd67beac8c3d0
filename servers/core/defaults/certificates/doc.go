// Package certificates holds kube-apiserver's defaults for certificates.k8s.io/v1, which are
// all `+default=` markers of k8s.io/api (a PodCertificateRequest's maxExpirationSeconds is a
// day); zz_generated.defaults.go (defaulter-gen, see package core) applies them.
//
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen-input=k8s.io/api/certificates/v1
package certificates
