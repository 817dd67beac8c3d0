package admissionregistration

// CEL: the expressions of match conditions, policies' variables, validations, audit
// annotations and mutations are compiled with k8s.io/apiserver's admission CEL compiler, the
// one the admission plugins use, in the environment of this version. Compiling checks syntax,
// types (an expression's result type: bool for a condition, string for a message...) and the
// variables in scope (params only with a paramKind, authorizer only where a request has one).
// What fails is reported as kube-apiserver reports it: Invalid, with the compiler's message
// ("compilation failed: ERROR: <input>:1:20: Syntax error: ..."), or Required.

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/apichain/apichain/servers/core/validation"
)

// expressions compiles the expressions of one object. Variables are compiled first and
// stored in the compiler, so that the expressions after them can use variables.<name>.
type expressions struct {
	compiler   plugincel.Compiler
	composited *plugincel.CompositedCompiler // when the object declares variables
	// stored are the expressions the stored object already has (on update).
	stored map[string]bool
}

// newExpressions prepares the compiler of an object; composition is true for objects whose
// expressions may use variables. It is built per object: a composited compiler keeps the
// variables it compiled.
func newExpressions(composition bool, stored map[string]bool) *expressions {
	envs := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	x := &expressions{stored: stored}
	if composition {
		if c, err := plugincel.NewCompositedCompiler(envs); err == nil {
			x.compiler, x.composited = c, c
			return x
		}
	}
	x.compiler = plugincel.NewCompiler(envs)
	return x
}

// env: an expression already stored compiles in the environment for stored expressions,
// which still knows the libraries a newer version would refuse in new ones.
func (x *expressions) env(expression string) environment.Type {
	if x.stored[expression] {
		return environment.StoredExpressions
	}
	return environment.NewExpressions
}

// compile reports what the compiler finds wrong with e at p; shown is the expression as the
// error prints it.
func (x *expressions) compile(p *field.Path, e plugincel.ExpressionAccessor, shown string, decls plugincel.OptionalVariableDeclarations) field.ErrorList {
	result := x.compiler.CompileCELExpression(e, decls, x.env(e.GetExpression()))
	return celError(p, shown, result.Error)
}

// variable compiles a policy's variable and keeps it for the expressions that use it.
func (x *expressions) variable(p *field.Path, v *admissionregistrationv1.Variable, decls plugincel.OptionalVariableDeclarations) field.ErrorList {
	errs := validation.When(strings.TrimSpace(v.Name) == "", field.Required(p.Child("name"), "name is not specified"))
	if len(errs) == 0 && !celIdentifier(v.Name) {
		errs = append(errs, field.Invalid(p.Child("name"), v.Name, "must be a valid CEL identifier"))
	}
	switch {
	case strings.TrimSpace(v.Expression) == "":
		return append(errs, field.Required(p.Child("expression"), "expression is not specified"))
	case x.composited == nil:
		return append(errs, field.InternalError(p, fmt.Errorf("variable composition is not allowed")))
	}
	e := &validating.Variable{Name: v.Name, Expression: v.Expression}
	result := x.composited.CompileAndStoreVariable(e, decls, x.env(v.Expression))
	return append(errs, celError(p.Child("expression"), v.Expression, result.Error)...)
}

func celError(p *field.Path, shown string, err *cel.Error) field.ErrorList {
	switch {
	case err == nil:
		return nil
	case err.Type == cel.ErrorTypeRequired:
		return field.ErrorList{field.Required(p, err.Detail)}
	case err.Type == cel.ErrorTypeInvalid:
		return field.ErrorList{field.Invalid(p, shown, err.Detail)}
	}
	return field.ErrorList{field.InternalError(p, err)}
}

// A CEL identifier: a letter or '_', then letters, digits and '_', and not a word the
// language keeps for itself.
var (
	identifier  = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)
	celKeywords = []string{"as", "break", "const", "continue", "else", "false", "for", "function", "if", "import", "in", "let", "loop", "namespace", "null", "package", "return", "true", "var", "void", "while"}
)

func celIdentifier(name string) bool {
	return identifier.MatchString(name) && !slices.Contains(celKeywords, name)
}
