// Package discard holds the scheme builder that validation-gen's code registers into.
package discard

import "k8s.io/apimachinery/pkg/runtime"

// Builder is the localSchemeBuilder of every generated package. The generated code registers
// itself from an init(), as upstream's does into its package's global scheme builder; Core has
// no global scheme, so that registration goes nowhere, and Core calls
// declarative.AddToScheme on the scheme it builds.
type Builder struct{}

// Register drops the generated init()'s registration.
func (Builder) Register(...func(*runtime.Scheme) error) {}
