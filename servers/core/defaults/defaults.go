package defaults

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apichain/apichain/servers/core/defaults/admissionregistration"
	"github.com/apichain/apichain/servers/core/defaults/apps"
	"github.com/apichain/apichain/servers/core/defaults/autoscaling"
	"github.com/apichain/apichain/servers/core/defaults/batch"
	"github.com/apichain/apichain/servers/core/defaults/certificates"
	"github.com/apichain/apichain/servers/core/defaults/core"
	"github.com/apichain/apichain/servers/core/defaults/discovery"
	"github.com/apichain/apichain/servers/core/defaults/flowcontrol"
	"github.com/apichain/apichain/servers/core/defaults/networking"
	"github.com/apichain/apichain/servers/core/defaults/rbac"
	"github.com/apichain/apichain/servers/core/defaults/resource"
	"github.com/apichain/apichain/servers/core/defaults/scheduling"
	"github.com/apichain/apichain/servers/core/defaults/storage"
)

// RegisterDefaults puts the defaults of every group on scheme. Kinds without defaults
// (ConfigMaps have some, Leases and Events none) are left alone.
func RegisterDefaults(scheme *runtime.Scheme) error {
	for _, register := range []func(*runtime.Scheme) error{
		core.RegisterDefaults,
		apps.RegisterDefaults,
		batch.RegisterDefaults,
		discovery.RegisterDefaults,
		admissionregistration.RegisterDefaults,
		networking.RegisterDefaults,
		storage.RegisterDefaults,
		scheduling.RegisterDefaults,
		autoscaling.RegisterDefaults,
		rbac.RegisterDefaults,
		resource.RegisterDefaults,
		certificates.RegisterDefaults,
		flowcontrol.RegisterDefaults,
	} {
		if err := register(scheme); err != nil {
			return err
		}
	}
	return nil
}
