package pods

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

// kinds are this package's kinds. An update keeps the stored status, as the main resource of a
// kind with /status does.
var kinds = map[string]validationtest.Kind{
	"Pod": validationtest.Of(ValidatePod, ValidatePodUpdate, func(p, old *corev1.Pod) {
		if old != nil {
			p.Status = old.Status
		}
	}),
	"PodTemplate": validationtest.Of(ValidatePodTemplate, ValidatePodTemplateUpdate),
	"PersistentVolume": validationtest.Of(ValidatePersistentVolume, ValidatePersistentVolumeUpdate, func(pv, old *corev1.PersistentVolume) {
		if old != nil {
			pv.Status = old.Status
		}
	}),
	"PersistentVolumeClaim": validationtest.Of(ValidatePersistentVolumeClaim, ValidatePersistentVolumeClaimUpdate, func(pvc, old *corev1.PersistentVolumeClaim) {
		if old != nil {
			pvc.Status = old.Status
		}
	}),
}

// TestCorpus runs kube-apiserver's validation corpus cases of this package's kinds straight
// through its functions (59 of them are decided by validation). test/core/compare's
// TestValidationCorpus sends them through a running chain.
func TestCorpus(t *testing.T) { validationtest.Corpus(t, kinds, 59, nil) }
