// Package storage holds kube-apiserver's defaults for storage.k8s.io/v1: StorageClasses and
// CSIDrivers (the group's other kinds have none of their own; a VolumeAttachment's inline
// volume spec gets the core volume defaults); zz_generated.defaults.go (defaulter-gen, see
// package core) applies them.
//
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen-input=k8s.io/api/storage/v1
package storage
